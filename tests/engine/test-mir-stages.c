/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The IR viewer's compile stage: the MIR of each stage with the source line
 * of every printed line, the passes of a level one step each with their
 * diffs, and the same through the engine thread. The expected lines are
 * the forms the Stan compiler prints (stanc's --debug-transformed-mir-pretty
 * reads data as `J = FnReadData__("J")[1];`; its partial evaluator turns
 * a + b * c into fma(b, c, a)).
 */
#define G_LOG_DOMAIN "tilde-test"

#include <glib/gstdio.h>
#include <string.h>

#include "mir/passes/pipeline.h"
#include "tilde-frontend.h"
#include "tilde-line-diff.h"
#include "worker/mir-stages.h"

static const char eight_schools[] =
  "data {\n"                                        /* 1 */
  "  int<lower=0> J;\n"                             /* 2 */
  "  array[J] real y;\n"                            /* 3 */
  "  array[J] real<lower=0> sigma;\n"               /* 4 */
  "}\n"                                             /* 5 */
  "parameters {\n"                                  /* 6 */
  "  real mu;\n"                                    /* 7 */
  "  real<lower=0> tau;\n"                          /* 8 */
  "  vector[J] theta_tilde;\n"                      /* 9 */
  "}\n"                                             /* 10 */
  "transformed parameters {\n"                      /* 11 */
  "  vector[J] theta = mu + tau * theta_tilde;\n"   /* 12 */
  "}\n"                                             /* 13 */
  "model {\n"                                       /* 14 */
  "  mu ~ normal(0, 5);\n"                          /* 15 */
  "  tau ~ cauchy(0, 5);\n"                         /* 16 */
  "  theta_tilde ~ std_normal();\n"                 /* 17 */
  "  y ~ normal(theta, sigma);\n"                   /* 18 */
  "}\n";                                            /* 19 */

static TildeCheckResult *
check_text (const char *text, const char *directory)
{
  TildeFrontendOptions opts = { 0 };

  opts.search_own_directory = directory != NULL;
  return tilde_frontend_check_buffer ("model.stan", directory, text, -1, &opts);
}

/* The index of the first line of `t` that holds `needle`, or -1. */
static int
find_line (const TildeMirText *t, const char *needle)
{
  g_auto(GStrv) lines = tilde_line_diff_split (t->text, NULL);

  for (int i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], needle) != NULL)
      return i;
  return -1;
}

static void
test_stages_at_o0 (void)
{
  g_autoptr(TildeCheckResult) check = check_text (eight_schools, NULL);
  g_autoptr(TildeMirStages) stages = tilde_mir_stages_new (check, MIR_OPT_O0, NULL);
  const TildeMirText *transformed, *optimized;
  int read_j, theta, likelihood;

  g_assert_nonnull (stages);
  g_assert_cmpuint (stages->steps->len, ==, 0);
  transformed = &stages->stages[TILDE_MIR_STAGE_TRANSFORMED];
  optimized = &stages->stages[TILDE_MIR_STAGE_OPTIMIZED];
  /* O0 runs no pass: the optimized MIR is the transformed MIR. */
  g_assert_cmpstr (optimized->text, ==, transformed->text);
  g_assert_cmpuint (stages->optimized_diff->len, ==, transformed->n_lines);

  read_j = find_line (transformed, "J = FnReadData__(\"J\")[1];");
  g_assert_cmpint (read_j, >=, 0);
  g_assert_cmpint (transformed->sources[read_j].line, ==, 2);
  theta = find_line (transformed, "theta = (mu + (tau * theta_tilde));");
  g_assert_cmpint (theta, >=, 0);
  g_assert_cmpint (transformed->sources[theta].line, ==, 12);
  likelihood = find_line (transformed, "target += normal_lupdf(y, theta, sigma);");
  g_assert_cmpint (likelihood, >=, 0);
  g_assert_cmpint (transformed->sources[likelihood].line, ==, 18);
  g_assert_cmpint (transformed->sources[likelihood].column, ==, 2);
  g_assert_cmpint (transformed->sources[likelihood].end_line, ==, 18);
  /* Block headers come from no statement. */
  g_assert_cmpint (transformed->sources[find_line (transformed, "log_prob {")].line, ==, 0);

  /* The untransformed MIR has no data reads; the typed program prints back as Stan. */
  g_assert_cmpint (find_line (&stages->stages[TILDE_MIR_STAGE_MIR], "FnReadData__"), ==, -1);
  g_assert_cmpint (find_line (&stages->stages[TILDE_MIR_STAGE_AST], "y ~ normal(theta, sigma);"), >=, 0);
}

static void
test_steps_at_o1 (void)
{
  g_autoptr(TildeCheckResult) check = check_text (eight_schools, NULL);
  g_autoptr(TildeMirStages) stages = tilde_mir_stages_new (check, MIR_OPT_O1, NULL);
  const TildeMirText *optimized;
  guint n_steps, edited = 0;
  const MirPass *const *steps = mir_pipeline_steps (MIR_OPT_O1, &n_steps);
  int fma_line;

  g_assert_nonnull (stages);
  g_assert_cmpuint (stages->steps->len, ==, n_steps);
  g_assert_cmpuint (n_steps, >, 0);
  for (guint i = 0; i < stages->steps->len; i++)
    {
      TildeMirStep *step = g_ptr_array_index (stages->steps, i);
      const TildeMirText *before = tilde_mir_stages_before_step (stages, i);
      g_autoptr(GArray) rows = tilde_line_diff_texts (before->text, step->after.text);
      TildeDiffStats stats;

      g_assert_cmpstr (step->name, ==, steps[i]->name);
      g_assert_cmpuint (step->after.n_lines, >, 0);
      tilde_line_diff_count (rows, &stats);
      g_assert_cmpuint (step->edits, ==, tilde_diff_stats_edits (&stats));
      g_assert_cmpuint (step->diff->len, ==, rows->len);
      if (step->edits > 0)
        edited++;
      /* An unchanged text means the pass did nothing visible. */
      if (g_strcmp0 (before->text, step->after.text) == 0)
        g_assert_cmpuint (step->edits, ==, 0);
    }
  g_assert_cmpuint (edited, >, 0);

  optimized = &stages->stages[TILDE_MIR_STAGE_OPTIMIZED];
  g_assert_cmpstr (optimized->text, ==,
                   ((TildeMirStep *) g_ptr_array_index (stages->steps, n_steps - 1))->after.text);
  fma_line = find_line (optimized, "theta = fma(tau, theta_tilde, mu);");
  g_assert_cmpint (fma_line, >=, 0);
  g_assert_cmpint (optimized->sources[fma_line].line, ==, 12);
  g_assert_cmpint (find_line (optimized, "(mu + (tau * theta_tilde))"), ==, -1);
  {
    g_autoptr(GArray) rows = tilde_line_diff_texts (stages->stages[TILDE_MIR_STAGE_TRANSFORMED].text,
                                                    optimized->text);
    TildeDiffStats stats;

    g_assert_cmpuint (stages->optimized_diff->len, ==, rows->len);
    tilde_line_diff_count (stages->optimized_diff, &stats);
    g_assert_cmpuint (tilde_diff_stats_edits (&stats), >, 0);
  }

  /* The partial evaluation step is the one that brought fma in. */
  for (guint i = 0; i < stages->steps->len; i++)
    {
      TildeMirStep *step = g_ptr_array_index (stages->steps, i);

      if (g_str_equal (step->name, "partial_evaluation"))
        {
          g_assert_cmpint (find_line (tilde_mir_stages_before_step (stages, i), "fma("), ==, -1);
          g_assert_cmpint (find_line (&step->after, "fma("), >=, 0);
          g_assert_cmpuint (step->edits, >, 0);
          return;
        }
    }
  g_assert_not_reached ();
}

static void
test_errors_give_no_stages (void)
{
  g_autoptr(TildeCheckResult) check = check_text ("parameters { real mu; }\nmodel { mu ~ normal(0, ); }\n",
                                                  NULL);

  g_assert_null (tilde_mir_stages_new (check, MIR_OPT_O1, NULL));
}

static void
test_cancelled (void)
{
  g_autoptr(TildeCheckResult) check = check_text (eight_schools, NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();

  g_cancellable_cancel (cancellable);
  g_assert_null (tilde_mir_stages_new (check, MIR_OPT_O1, cancellable));
}

/* Lines that came from an included file point at the #include. */
static void
test_included_lines (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tilde-stages-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "prior.stanfunctions", NULL);
  g_autoptr(TildeCheckResult) check = NULL;
  g_autoptr(TildeMirStages) stages = NULL;
  const TildeMirText *mir;
  int line;

  g_assert_true (g_file_set_contents (path, "  mu ~ normal(0, 1);\n", -1, NULL));
  check = check_text ("parameters {\n  real mu;\n}\nmodel {\n#include prior.stanfunctions\n}\n", dir);
  g_assert_false (tilde_check_result_has_errors (check));
  stages = tilde_mir_stages_new (check, MIR_OPT_O0, NULL);
  g_assert_nonnull (stages);
  mir = &stages->stages[TILDE_MIR_STAGE_TRANSFORMED];
  line = find_line (mir, "target += normal_lupdf(mu");
  g_assert_cmpint (line, >=, 0);
  g_assert_cmpint (mir->sources[line].line, ==, 5);
  g_assert_cmpint (mir->sources[line].end_line, ==, 5);
  g_unlink (path);
  g_rmdir (dir);
}

typedef struct {
  GMainLoop      *loop;
  TildeJobResult *result;
} Delivery;

static void
on_result (TildeJobResult *result, gpointer user_data)
{
  Delivery *d = user_data;

  d->result = tilde_job_result_ref (result);
  g_main_loop_quit (d->loop);
}

static void
test_through_worker (void)
{
  g_autoptr(TildeWorker) worker = tilde_worker_new ();
  g_autoptr(TildeJobInput) input = tilde_job_input_new ("model.stan", NULL, eight_schools, -1, NULL);
  Delivery d = { g_main_loop_new (NULL, FALSE), NULL };
  const TildeMirStages *stages;

  tilde_worker_compile_mir (worker, input, MIR_OPT_EXPERIMENTAL, on_result, &d, NULL);
  g_main_loop_run (d.loop);
  g_assert_nonnull (d.result);
  stages = tilde_job_result_get_mir_stages (d.result);
  g_assert_nonnull (stages);
  g_assert_cmpint (stages->level, ==, MIR_OPT_EXPERIMENTAL);
  g_assert_cmpuint (stages->steps->len, >, 0);
  tilde_job_result_unref (d.result);
  g_main_loop_unref (d.loop);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/mir-stages/o0", test_stages_at_o0);
  g_test_add_func ("/engine/mir-stages/o1-steps", test_steps_at_o1);
  g_test_add_func ("/engine/mir-stages/errors", test_errors_give_no_stages);
  g_test_add_func ("/engine/mir-stages/cancelled", test_cancelled);
  g_test_add_func ("/engine/mir-stages/included-lines", test_included_lines);
  g_test_add_func ("/engine/mir-stages/through-worker", test_through_worker);
  return g_test_run ();
}
