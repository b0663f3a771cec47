/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The pass table, the levels, the pipeline's order and snapshots, and the
 * pipeline on every model of the syntax corpus (tests/syntax/models/valid),
 * of the MIR fixtures and of the reference posteriors
 * ($TILDE_REFERENCE_DIR/<name>/model.stan): every pass and every level
 * runs, leaves the input alone, gives a program that prints, whose every
 * node has a type and a span, and O1 run on its own result changes
 * nothing. (Oexperimental cannot be idempotent: one-step unrolling takes
 * one more iteration out of every loop each time it runs.)
 */
#define G_LOG_DOMAIN "tilde-test"

#include <string.h>

#include "test-pass-util.h"
#include "mir/mir-print.h"
#include "mir/passes/passes.h"
#include "mir/passes/pipeline.h"

/* ---- the table and the levels ---- */

/* stanc's Optimize.optimization_suite, in order */
static const char *const stanc_order[] = {
  "function_inlining", "constant_propagation", "copy_propagation", "constant_propagation",
  "dead_code_elimination", "one_step_loop_unrolling", "expression_propagation",
  "partial_evaluation", "lazy_code_motion", "copy_propagation", "constant_propagation",
  "static_loop_unrolling", "dead_code_elimination", "list_collapsing", "optimize_ad_levels",
  "allow_uninitialized_decls", "block_fixing", "optimize_soa",
};

/* the O1 passes the compiler's documentation and this project list */
static const char *const o1_passes[] = {
  "function_inlining", "constant_propagation", "copy_propagation", "dead_code_elimination",
  "partial_evaluation", "list_collapsing", "block_fixing", "optimize_soa",
  "allow_uninitialized_decls",
};

static gboolean
in_list (const char *name, const char *const *list, guint n)
{
  for (guint i = 0; i < n; i++)
    if (strcmp (list[i], name) == 0)
      return TRUE;
  return FALSE;
}

static void
test_table (void)
{
  guint n;
  const MirPass *passes = mir_passes (&n);

  g_assert_cmpuint (n, ==, 14);
  for (guint i = 0; i < n; i++)
    {
      g_assert_true (mir_pass_lookup (passes[i].name) == &passes[i]);
      g_assert_nonnull (passes[i].run);
      g_assert_cmpuint (strlen (passes[i].description), >, 10);
      g_assert_null (strchr (passes[i].description, '\n'));
      g_assert_true (passes[i].level == MIR_OPT_O1 || passes[i].level == MIR_OPT_EXPERIMENTAL);
      g_assert_cmpint (passes[i].level == MIR_OPT_O1, ==,
                       in_list (passes[i].name, o1_passes, G_N_ELEMENTS (o1_passes)));
      for (guint j = 0; j < i; j++)
        g_assert_cmpstr (passes[i].name, !=, passes[j].name);
    }
  g_assert_null (mir_pass_lookup ("no_such_pass"));
}

static void
test_levels (void)
{
  MirOptLevel l;

  g_assert_true (mir_opt_level_parse ("O0", &l) && l == MIR_OPT_O0);
  g_assert_true (mir_opt_level_parse ("--O1", &l) && l == MIR_OPT_O1);
  g_assert_true (mir_opt_level_parse ("Oexperimental", &l) && l == MIR_OPT_EXPERIMENTAL);
  g_assert_true (mir_opt_level_parse ("--O", &l) && l == MIR_OPT_EXPERIMENTAL);
  g_assert_false (mir_opt_level_parse ("O2", &l));
  g_assert_false (mir_opt_level_parse ("", &l));
  g_assert_cmpstr (mir_opt_level_name (MIR_OPT_EXPERIMENTAL), ==, "Oexperimental");
}

static void
test_steps (void)
{
  guint n0, n1, nx, k = 0;
  const MirPass *const *o0 = mir_pipeline_steps (MIR_OPT_O0, &n0);
  const MirPass *const *o1 = mir_pipeline_steps (MIR_OPT_O1, &n1);
  const MirPass *const *ox = mir_pipeline_steps (MIR_OPT_EXPERIMENTAL, &nx);

  (void) o0;
  g_assert_cmpuint (n0, ==, 0);
  g_assert_cmpuint (nx, ==, G_N_ELEMENTS (stanc_order));
  for (guint i = 0; i < nx; i++)
    g_assert_cmpstr (ox[i]->name, ==, stanc_order[i]);
  /* O1 is the same order without the experimental passes */
  for (guint i = 0; i < nx; i++)
    if (ox[i]->level == MIR_OPT_O1)
      g_assert_true (k < n1 && o1[k++] == ox[i]);
  g_assert_cmpuint (k, ==, n1);
}

/* ---- snapshots ---- */

static const char *const snapshot_program =
  "data { int N; }\n"
  "transformed data {\n"
  "  int K = 3;\n"
  "  int M = K * 2;\n"
  "}\n"
  "parameters { vector[N] b; }\n"
  "model {\n"
  "  b ~ normal(0, M);\n"
  "}\n";

static guint
count_lines (const char *text)
{
  guint n = 0;

  for (const char *p = text; *p; p++)
    n += *p == '\n';
  return n;
}

static void
test_snapshots (void)
{
  g_autoptr (MirProgram) p = pass_test_program ("snap", snapshot_program);
  g_autoptr (MirProgram) copy = mir_program_copy (p);
  g_autofree char *input = mir_print_program (p, MIR_PRINT_DEFAULT, NULL);

  for (MirOptLevel level = MIR_OPT_O0; level <= MIR_OPT_EXPERIMENTAL; level++)
    {
      GPtrArray *shots = NULL;
      guint n;
      const MirPass *const *steps = mir_pipeline_steps (level, &n);
      g_autoptr (MirProgram) q = mir_pipeline_run (p, level, &shots);
      g_autofree char *result = mir_print_program (q, MIR_PRINT_DEFAULT, NULL);
      g_autofree char *debug = mir_pipeline_debug_text (shots);
      const MirPassSnapshot *first = g_ptr_array_index (shots, 0);
      const MirPassSnapshot *last = g_ptr_array_index (shots, shots->len - 1);
      GString *headers = g_string_new (NULL);

      g_assert_true (mir_program_equal (p, copy));
      g_assert_cmpuint (shots->len, ==, n + 1);
      g_assert_null (first->pass);
      g_assert_cmpstr (first->name, ==, "input");
      g_assert_cmpstr (first->text, ==, input);
      g_assert_cmpstr (last->text, ==, result);
      for (guint i = 0; i < shots->len; i++)
        {
          const MirPassSnapshot *s = g_ptr_array_index (shots, i);
          g_assert_cmpuint (s->line_spans->len, ==, count_lines (s->text));
          if (i == 0)
            continue;
          g_assert_true (s->pass == steps[i - 1]);
          g_assert_cmpstr (s->name, ==, steps[i - 1]->name);
          /* a pass that says it changed nothing printed the same */
          if (!s->changed)
            g_assert_cmpstr (s->text, ==, ((MirPassSnapshot *) shots->pdata[i - 1])->text);
          /* the debug text has the program after each pass that changed it */
          if (s->changed)
            g_string_append_printf (headers, "--- after %s: %s ---\n%s", s->name,
                                    s->pass->description, s->text);
        }
      g_assert_cmpstr (debug, ==, headers->str);
      g_string_free (headers, TRUE);
      if (level == MIR_OPT_O0)
        g_assert_cmpstr (debug, ==, "");
      else
        {
          /* constants reach the model: M is 6 */
          g_assert_nonnull (strstr (result, "normal_lupdf(b, promote(0, real, data), "
                                            "promote(6, real, data))"));
          g_assert_true (((MirPassSnapshot *) shots->pdata[2])->changed);
        }
      g_ptr_array_unref (shots);
    }
}

/* ---- the corpus ---- */

static void
run_model (const char *path)
{
  g_autoptr (MirProgram) p = pass_test_program_file (path);
  g_autoptr (MirProgram) copy = mir_program_copy (p);
  guint n;
  const MirPass *passes = mir_passes (&n);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (MirProgram) q = mir_program_copy (p);
      g_autoptr (MirProgram) before = mir_program_copy (q);
      gboolean changed = passes[i].run (q);
      g_autofree char *text = mir_print_program (q, MIR_PRINT_DEFAULT, NULL);
      g_assert_nonnull (text);
      /* a pass says whether it changed the program */
      g_assert_cmpint (changed, ==, !mir_program_equal (before, q));
      pass_test_assert_nodes (passes[i].name, q);
    }
  for (MirOptLevel level = MIR_OPT_O0; level <= MIR_OPT_EXPERIMENTAL; level++)
    {
      GPtrArray *shots = NULL;
      g_autoptr (MirProgram) q = mir_pipeline_run (p, level, &shots);
      g_autofree char *text = mir_print_program (q, MIR_PRINT_DEFAULT, NULL);

      g_assert_true (mir_program_equal (p, copy));
      g_assert_nonnull (text);
      pass_test_assert_nodes (mir_opt_level_name (level), q);
      if (level == MIR_OPT_O0)
        g_assert_true (mir_program_equal (p, q));
      if (level == MIR_OPT_O1)
        {
          GPtrArray *again = NULL;
          g_autoptr (MirProgram) qq = mir_pipeline_run (q, level, &again);
          for (guint i = 1; i < again->len; i++)
            {
              const MirPassSnapshot *s = g_ptr_array_index (again, i);
              if (s->changed)
                {
                  g_test_message ("%s: O1 on its own result: %s changed it", path, s->name);
                  g_test_fail ();
                }
            }
          g_assert_true (mir_program_equal (q, qq));
          g_ptr_array_unref (again);
        }
      g_ptr_array_unref (shots);
    }
}

static void
test_model (gconstpointer data)
{
  run_model (data);
}

static GPtrArray *
list_models (const char *dir, gboolean reference)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)))
    {
      char *path = reference ? g_build_filename (dir, name, "model.stan", NULL)
                             : g_build_filename (dir, name, NULL);
      if ((reference || g_str_has_suffix (name, ".stan")) && g_file_test (path, G_FILE_TEST_EXISTS))
        g_ptr_array_add (out, path);
      else
        g_free (path);
    }
  g_ptr_array_sort (out, (GCompareFunc) g_strcmp0);
  return out;
}

static void
test_reference_absent (void)
{
  g_test_skip ("TILDE_REFERENCE_DIR is not set or holds no models");
}

static void
add_models (GPtrArray *models, const char *prefix, gboolean reference)
{
  for (guint i = 0; i < models->len; i++)
    {
      const char *path = g_ptr_array_index (models, i);
      g_autofree char *dir = g_path_get_dirname (path);
      g_autofree char *base = g_path_get_basename (reference ? dir : path);
      g_autofree char *test = g_strconcat (prefix, base, NULL);
      g_test_add_data_func (test, path, test_model);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_autofree char *syntax_dir = g_test_build_filename (G_TEST_DIST, "syntax", "models",
                                                       "valid", NULL);
  g_autofree char *mir_dir = g_test_build_filename (G_TEST_DIST, "mir", "models", NULL);
  const char *ref_dir = g_getenv ("TILDE_REFERENCE_DIR");
  g_autoptr (GPtrArray) syntax = list_models (syntax_dir, FALSE);
  g_autoptr (GPtrArray) own = list_models (mir_dir, FALSE);
  g_autoptr (GPtrArray) reference = ref_dir ? list_models (ref_dir, TRUE)
                                            : g_ptr_array_new_with_free_func (g_free);

  g_assert_cmpuint (syntax->len, >, 10);
  g_test_add_func ("/mir/pass/pipeline/table", test_table);
  g_test_add_func ("/mir/pass/pipeline/levels", test_levels);
  g_test_add_func ("/mir/pass/pipeline/steps", test_steps);
  g_test_add_func ("/mir/pass/pipeline/snapshots", test_snapshots);
  add_models (syntax, "/mir/pass/corpus/syntax/", FALSE);
  add_models (own, "/mir/pass/corpus/fixtures/", FALSE);
  if (reference->len == 0)
    g_test_add_func ("/mir/pass/corpus/reference", test_reference_absent);
  add_models (reference, "/mir/pass/corpus/reference/", TRUE);
  return g_test_run ();
}
