/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The engine thread without a window: jobs run off the main thread, results
 * come back on the main context, a newer job supersedes older ones, and the
 * worker stops cleanly. Also the two helpers the editor builds on: where
 * the cursor goes when a model is formatted, and which names are in scope.
 */
#include <string.h>

#include "tilde-engine.h"
#include "tilde-frontend.h"
#include "worker/anchor.h"
#include "worker/symbols.h"
#include "worker/worker.h"

static const char model_ok[] =
  "data {\n"
  "  int N;\n"
  "  vector[N] y;\n"
  "}\n"
  "parameters {\n"
  "  real mu;\n"
  "}\n"
  "model {\n"
  "  y ~ normal(mu, 1);\n"
  "}\n";

/* Line 9 refers to a name that was never declared. */
static const char model_undeclared[] =
  "data {\n"
  "  int N;\n"
  "  vector[N] y;\n"
  "}\n"
  "parameters {\n"
  "  real mu;\n"
  "}\n"
  "model {\n"
  "  y ~ normal(mu, sd_y);\n"
  "}\n";

typedef struct {
  GPtrArray *results;     /* TildeJobResult*, in the order delivered */
  guint      destroyed;
  GThread   *main_thread;
  gboolean   off_main_thread;
} Record;

static void
record_init (Record *r)
{
  r->results = g_ptr_array_new_with_free_func ((GDestroyNotify) tilde_job_result_unref);
  r->destroyed = 0;
  r->main_thread = g_thread_self ();
  r->off_main_thread = FALSE;
}

static void
record_clear (Record *r)
{
  g_clear_pointer (&r->results, g_ptr_array_unref);
}

static void
on_result (TildeJobResult *result, gpointer user_data)
{
  Record *r = user_data;

  if (g_thread_self () != r->main_thread)
    r->off_main_thread = TRUE;
  g_ptr_array_add (r->results, tilde_job_result_ref (result));
}

static void
on_destroy (gpointer user_data)
{
  Record *r = user_data;

  if (g_thread_self () != r->main_thread)
    r->off_main_thread = TRUE;
  r->destroyed++;
}

static TildeJobInput *
input_for (const char *text, gboolean pedantic)
{
  TildeFrontendOptions opts = { 0 };

  opts.pedantic = pedantic;
  return tilde_job_input_new ("model.stan", NULL, text, -1, &opts);
}

static gboolean
timeout_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Iterates the main context until `destroyed` jobs are over (or 10 s pass). */
static void
wait_for_jobs (Record *r, guint destroyed)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add_seconds (10, timeout_cb, &timed_out);

  while (r->destroyed < destroyed && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (timed_out);
  g_source_remove (id);
}

/* Waits, without running the main context, until the thread is done with
 * `n` jobs. */
static void
wait_finished (TildeWorker *worker, guint n)
{
  TildeWorkerStats stats;

  for (int i = 0; i < 1000; i++)
    {
      tilde_worker_get_stats (worker, &stats);
      if (stats.finished >= n)
        return;
      g_usleep (10 * 1000);
    }
  g_assert_not_reached ();
}

static const TildeDiagnostic *
first_error (TildeJobResult *result)
{
  return tilde_check_result_get_first_error (tilde_job_result_get_check (result));
}

static void
test_check_delivers_on_main_context (void)
{
  g_autoptr(TildeWorker) worker = tilde_worker_new ();
  g_autoptr(TildeJobInput) input = input_for (model_undeclared, FALSE);
  const TildeDiagnostic *error;
  Record r;
  guint64 generation;

  record_init (&r);
  generation = tilde_worker_check (worker, input, on_result, &r, on_destroy);
  g_assert_cmpuint (generation, ==, 1);
  wait_for_jobs (&r, 1);
  g_assert_false (r.off_main_thread);
  g_assert_cmpuint (r.results->len, ==, 1);
  g_assert_cmpuint (tilde_job_result_get_generation (r.results->pdata[0]), ==, 1);
  g_assert_cmpint (tilde_job_result_get_kind (r.results->pdata[0]), ==, TILDE_JOB_CHECK);
  error = first_error (r.results->pdata[0]);
  g_assert_nonnull (error);
  /* stanc: "Identifier 'sd_y' not in scope.", at the name on line 9. */
  g_assert_true (g_str_has_prefix (error->message, "Identifier 'sd_y' not in scope."));
  g_assert_cmpint (error->begin_line, ==, 9);
  g_assert_cmpint (error->begin_column, ==, 17);
  g_assert_cmpint (error->end_column, ==, 21);
  record_clear (&r);
}

static void
test_input_is_a_copy (void)
{
  g_autoptr(TildeWorker) worker = tilde_worker_new ();
  g_autofree char *text = g_strdup (model_ok);
  g_autoptr(TildeJobInput) input = input_for (text, FALSE);
  Record r;

  record_init (&r);
  tilde_worker_set_check_delay (worker, 50);
  tilde_worker_check (worker, input, on_result, &r, on_destroy);
  /* The buffer changes while the job waits; the job still sees its copy. */
  memcpy (strstr (text, "mu, 1"), "xx, 1", 5);
  wait_for_jobs (&r, 1);
  g_assert_cmpuint (r.results->len, ==, 1);
  g_assert_null (first_error (r.results->pdata[0]));
  g_assert_cmpstr (tilde_job_input_get_text (tilde_job_result_get_input (r.results->pdata[0]), NULL),
                   ==, model_ok);
  record_clear (&r);
}

static void
test_newer_check_supersedes_queued (void)
{
  g_autoptr(TildeWorker) worker = tilde_worker_new ();
  g_autoptr(TildeJobInput) first = input_for (model_undeclared, FALSE);
  g_autoptr(TildeJobInput) second = input_for (model_undeclared, TRUE);
  g_autoptr(TildeJobInput) third = input_for (model_ok, FALSE);
  TildeWorkerStats stats;
  Record r;

  record_init (&r);
  tilde_worker_set_check_delay (worker, 150);
  tilde_worker_check (worker, first, on_result, &r, on_destroy);
  wait_finished (worker, 0);
  tilde_worker_check (worker, second, on_result, &r, on_destroy);
  g_assert_cmpuint (tilde_worker_check (worker, third, on_result, &r, on_destroy), ==, 3);
  wait_for_jobs (&r, 3);

  /* Only the newest result arrives; the second never ran. */
  g_assert_cmpuint (r.results->len, ==, 1);
  g_assert_cmpuint (tilde_job_result_get_generation (r.results->pdata[0]), ==, 3);
  g_assert_null (first_error (r.results->pdata[0]));
  tilde_worker_get_stats (worker, &stats);
  g_assert_cmpuint (stats.submitted, ==, 3);
  g_assert_cmpuint (stats.delivered, ==, 1);
  g_assert_cmpuint (stats.skipped + stats.discarded, ==, 2);
  g_assert_cmpuint (stats.skipped, >=, 1);
  g_assert_cmpuint (r.destroyed, ==, 3);
  g_assert_false (r.off_main_thread);
  record_clear (&r);
}

/* A slow check finishes and its result is on its way to the main context
 * when a newer check is submitted: it must not be delivered. */
static void
test_stale_result_dropped (void)
{
  g_autoptr(TildeWorker) worker = tilde_worker_new ();
  g_autoptr(TildeJobInput) old_text = input_for (model_undeclared, FALSE);
  g_autoptr(TildeJobInput) new_text = input_for (model_ok, FALSE);
  TildeWorkerStats stats;
  Record r;

  record_init (&r);
  tilde_worker_set_check_delay (worker, 100);
  tilde_worker_check (worker, old_text, on_result, &r, on_destroy);
  wait_finished (worker, 1);      /* its result now waits on the main context */
  tilde_worker_set_check_delay (worker, 0);
  tilde_worker_check (worker, new_text, on_result, &r, on_destroy);
  wait_for_jobs (&r, 2);

  g_assert_cmpuint (r.results->len, ==, 1);
  g_assert_cmpuint (tilde_job_result_get_generation (r.results->pdata[0]), ==, 2);
  g_assert_null (first_error (r.results->pdata[0]));
  tilde_worker_get_stats (worker, &stats);
  g_assert_cmpuint (stats.dropped, ==, 1);
  g_assert_cmpuint (stats.delivered, ==, 1);
  record_clear (&r);
}

static void
test_cancel (void)
{
  g_autoptr(TildeWorker) worker = tilde_worker_new ();
  g_autoptr(TildeJobInput) input = input_for (model_ok, FALSE);
  Record r;

  record_init (&r);
  tilde_worker_set_check_delay (worker, 50);
  tilde_worker_check (worker, input, on_result, &r, on_destroy);
  tilde_worker_check (worker, input, on_result, &r, on_destroy);
  tilde_worker_cancel (worker, TILDE_JOB_CHECK);
  wait_for_jobs (&r, 2);
  g_assert_cmpuint (r.results->len, ==, 0);

  /* Checks submitted after a cancel are delivered again. */
  tilde_worker_check (worker, input, on_result, &r, on_destroy);
  wait_for_jobs (&r, 3);
  g_assert_cmpuint (r.results->len, ==, 1);
  record_clear (&r);
}

static void
test_kinds_do_not_supersede_each_other (void)
{
  g_autoptr(TildeWorker) worker = tilde_worker_new ();
  g_autoptr(TildeJobInput) input = input_for (model_ok, FALSE);
  Record r;

  record_init (&r);
  tilde_worker_check (worker, input, on_result, &r, on_destroy);
  tilde_worker_format (worker, input, 1, 0, on_result, &r, on_destroy);
  wait_for_jobs (&r, 2);
  g_assert_cmpuint (r.results->len, ==, 2);
  g_assert_cmpint (tilde_job_result_get_kind (r.results->pdata[0]), ==, TILDE_JOB_CHECK);
  g_assert_cmpint (tilde_job_result_get_kind (r.results->pdata[1]), ==, TILDE_JOB_FORMAT);
  record_clear (&r);
}

static void
test_shutdown (void)
{
  TildeWorker *worker = tilde_worker_new ();
  g_autoptr(TildeJobInput) input = input_for (model_ok, FALSE);
  gboolean done = FALSE;
  gint64 start;
  Record r;

  record_init (&r);
  tilde_worker_set_check_delay (worker, 60000);
  for (int i = 0; i < 4; i++)
    tilde_worker_format (worker, input, 1, 0, on_result, &r, on_destroy);
  tilde_worker_check (worker, input, on_result, &r, on_destroy);
  tilde_worker_check (worker, input, on_result, &r, on_destroy);
  wait_finished (worker, 4);
  /* The slow check (a minute) is under way; closing cuts it short, so
   * that it returns in far less than the check would take. */
  start = g_get_monotonic_time ();
  tilde_worker_free (worker);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 30 * G_USEC_PER_SEC);

  /* Whatever was still on its way is dropped, but every job is released. */
  g_timeout_add (100, timeout_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (r.destroyed, ==, 6);
  for (guint i = 0; i < r.results->len; i++)
    g_assert_cmpint (tilde_job_result_get_kind (r.results->pdata[i]), ==, TILDE_JOB_FORMAT);
  g_assert_false (r.off_main_thread);
  record_clear (&r);
}

static void
test_pedantic_option (void)
{
  g_autoptr(TildeWorker) worker = tilde_worker_new ();
  const char *text =
    "parameters {\n"
    "  real<lower=0> sigma;\n"
    "}\n"
    "model {\n"
    "  sigma ~ normal(0, -1);\n"
    "}\n";
  g_autoptr(TildeJobInput) plain = input_for (text, FALSE);
  g_autoptr(TildeJobInput) pedantic = input_for (text, TRUE);
  GPtrArray *diags;
  gboolean found = FALSE;
  Record r;

  record_init (&r);
  tilde_worker_check (worker, plain, on_result, &r, on_destroy);
  wait_for_jobs (&r, 1);
  tilde_worker_check (worker, pedantic, on_result, &r, on_destroy);
  wait_for_jobs (&r, 2);
  g_assert_cmpuint (r.results->len, ==, 2);
  diags = tilde_check_result_get_diagnostics (tilde_job_result_get_check (r.results->pdata[0]));
  g_assert_cmpuint (diags->len, ==, 0);
  diags = tilde_check_result_get_diagnostics (tilde_job_result_get_check (r.results->pdata[1]));
  for (guint i = 0; i < diags->len; i++)
    {
      const TildeDiagnostic *d = diags->pdata[i];

      /* stanc --warn-pedantic's wording for a non-positive scale. */
      if (d->kind == TILDE_DIAG_PEDANTIC
          && strstr (d->message, "is given value -1 as a scale parameter (argument 2)") != NULL)
        {
          found = TRUE;
          g_assert_cmpint (d->begin_line, ==, 5);
        }
    }
  g_assert_true (found);
  record_clear (&r);
}

static gsize
offset_of (const char *text, const char *needle)
{
  const char *p = strstr (text, needle);

  g_assert_nonnull (p);
  return p - text;
}

static const char messy[] =
  "data{int N;vector[N] y;}\n"
  "parameters{real mu;}\n"
  "model{for(i in 1:N){y[i]~normal(mu,1);}\n"
  "mu~normal(0,1);}\n";

/* The Stan style guide's layout, as stanc --auto-format prints it. */
static const char messy_formatted[] =
  "data {\n"
  "  int N;\n"
  "  vector[N] y;\n"
  "}\n"
  "parameters {\n"
  "  real mu;\n"
  "}\n"
  "model {\n"
  "  for (i in 1 : N) {\n"
  "    y[i] ~ normal(mu, 1);\n"
  "  }\n"
  "  mu ~ normal(0, 1);\n"
  "}\n";

static void
test_format_job (void)
{
  g_autoptr(TildeWorker) worker = tilde_worker_new ();
  g_autoptr(TildeJobInput) input = input_for (messy, FALSE);
  g_autoptr(TildeJobInput) broken = input_for ("model { y ~ normal(0, 1) }", FALSE);
  const char *text;
  int line, column;
  Record r;

  record_init (&r);
  /* The cursor on "normal" of the loop's statement, line 3. */
  column = (int) (offset_of (messy, "normal(mu") - offset_of (messy, "model{"));
  tilde_worker_format (worker, input, 3, column, on_result, &r, on_destroy);
  wait_for_jobs (&r, 1);
  text = tilde_job_result_get_formatted (r.results->pdata[0], &line, &column);
  g_assert_cmpstr (text, ==, messy_formatted);
  g_assert_cmpint (line, ==, 10);
  g_assert_cmpint (column, ==, 11);   /* "    y[i] ~ |normal" */
  g_assert_null (tilde_job_result_get_format_error (r.results->pdata[0]));

  tilde_worker_format (worker, broken, 1, 0, on_result, &r, on_destroy);
  wait_for_jobs (&r, 2);
  g_assert_null (tilde_job_result_get_formatted (r.results->pdata[1], NULL, NULL));
  g_assert_nonnull (tilde_job_result_get_format_error (r.results->pdata[1]));
  g_assert_true (tilde_check_result_has_errors (tilde_job_result_get_check (r.results->pdata[1])));
  record_clear (&r);
}

typedef struct {
  GThread *main_thread;
  gboolean ran_on_main;
  guint    calls;
} StageData;

static void
free_string (gpointer data)
{
  g_free (data);
}

/* A stand-in stage: the names of the program's blocks. */
static gpointer
block_names_stage (TildeCheckResult *check, gpointer user_data, GCancellable *cancellable,
                   GDestroyNotify *value_free)
{
  StageData *data = user_data;
  TildeProgram *program = tilde_check_result_get_program (check);
  GString *names = g_string_new (NULL);

  g_atomic_int_inc (&data->calls);
  if (g_thread_self () == data->main_thread)
    data->ran_on_main = TRUE;
  for (int b = 0; b < TILDE_N_BLOCKS; b++)
    if (program->blocks[b] != NULL)
      g_string_append_printf (names, "%s;", tilde_block_kind_to_string (b));
  *value_free = free_string;
  return g_string_free (names, FALSE);
}

static void
test_compile_stage (void)
{
  g_autoptr(TildeWorker) worker = tilde_worker_new ();
  g_autoptr(TildeJobInput) good = input_for (model_ok, FALSE);
  g_autoptr(TildeJobInput) bad = input_for (model_undeclared, FALSE);
  StageData data = { g_thread_self (), FALSE, 0 };
  Record r;

  record_init (&r);
  tilde_worker_compile (worker, good, block_names_stage, &data, NULL, on_result, &r, on_destroy);
  wait_for_jobs (&r, 1);
  g_assert_cmpuint (r.results->len, ==, 1);
  g_assert_cmpstr (tilde_job_result_get_compiled (r.results->pdata[0]), ==, "data;parameters;model;");
  g_assert_false (data.ran_on_main);

  /* A model with an error never reaches the stage. */
  tilde_worker_compile (worker, bad, block_names_stage, &data, NULL, on_result, &r, on_destroy);
  wait_for_jobs (&r, 2);
  g_assert_cmpuint (r.results->len, ==, 2);
  g_assert_null (tilde_job_result_get_compiled (r.results->pdata[1]));
  g_assert_true (tilde_check_result_has_errors (tilde_job_result_get_check (r.results->pdata[1])));
  g_assert_cmpuint (data.calls, ==, 1);
  record_clear (&r);
}

/* Parses `text` (which must parse) for the helpers below. */
static TildeCheckResult *
parse (const char *text)
{
  TildeCheckResult *result = tilde_frontend_check_buffer ("model.stan", NULL, text, -1, NULL);

  g_assert_nonnull (tilde_check_result_get_program (result));
  return result;
}

static void
test_anchor_keeps_statement (void)
{
  const char *before =
    "parameters{real a,b;real<lower=0>   s;}\n"
    "model{a~normal(0,1);   b~normal(0,s);}\n";
  const char *after =
    "parameters {\n"
    "  real a, b;\n"
    "  real<lower=0> s;\n"
    "}\n"
    "model {\n"
    "  a ~ normal(0, 1);\n"
    "  b ~ normal(0, s);\n"
    "}\n";
  g_autoptr(TildeCheckResult) old = parse (before);
  g_autoptr(TildeCheckResult) new = parse (after);
  TildeProgram *p = tilde_check_result_get_program (old);
  TildeProgram *q = tilde_check_result_get_program (new);
  gsize bl = strlen (before), al = strlen (after);

  /* Inside a statement: the same character of it. */
  g_assert_cmpuint (tilde_anchor_map_offset (p, before, bl, q, after, al,
                                             offset_of (before, "s);}")),
                    ==, offset_of (after, "s);\n}"));
  /* In blanks before a statement: just before it. */
  g_assert_cmpuint (tilde_anchor_map_offset (p, before, bl, q, after, al,
                                             offset_of (before, "  b~") + 1),
                    ==, offset_of (after, "b ~"));
  /* Right after a statement's last character: right after it again. */
  g_assert_cmpuint (tilde_anchor_map_offset (p, before, bl, q, after, al,
                                             offset_of (before, ";   b~") + 1),
                    ==, offset_of (after, ";\n  b ~") + 1);
  /* The second variable of a declaration. */
  g_assert_cmpuint (tilde_anchor_map_offset (p, before, bl, q, after, al,
                                             offset_of (before, "b;real")),
                    ==, offset_of (after, "b;\n"));
  /* Before every statement: the block header. */
  g_assert_cmpuint (tilde_anchor_map_offset (p, before, bl, q, after, al, 5), ==, 5);
}

static void
test_text_positions (void)
{
  const char *text = "ab\ncd\n\xc3\xa9x\n";
  int line, column;

  g_assert_cmpuint (tilde_text_offset_at (text, strlen (text), 2, 1), ==, 4);
  g_assert_cmpuint (tilde_text_offset_at (text, strlen (text), 2, 40), ==, 5);   /* clamped */
  g_assert_cmpuint (tilde_text_offset_at (text, strlen (text), 3, 2), ==, 8);    /* bytes */
  tilde_text_position_at (text, strlen (text), 8, &line, &column);
  g_assert_cmpint (line, ==, 3);
  g_assert_cmpint (column, ==, 2);
}

static gboolean
has_name (GPtrArray *names, const char *name, TildeVisibleKind kind)
{
  for (guint i = 0; i < names->len; i++)
    {
      const TildeVisibleName *v = names->pdata[i];

      if (g_str_equal (v->name, name) && v->kind == kind)
        return TRUE;
    }
  return FALSE;
}

static const char *
detail_of (GPtrArray *names, const char *name)
{
  for (guint i = 0; i < names->len; i++)
    if (g_str_equal (((TildeVisibleName *) names->pdata[i])->name, name))
      return ((TildeVisibleName *) names->pdata[i])->detail;
  return "(not visible)";
}

static void
test_visible_names (void)
{
  const char *text =
    "functions {\n"
    "  real scale(real x, data real s) {\n"
    "    real half = s / 2;\n"
    "    return x / half;\n"
    "  }\n"
    "}\n"
    "data {\n"
    "  int<lower=1> J;\n"
    "  array[J] real y;\n"
    "}\n"
    "parameters {\n"
    "  vector<lower=0>[J] theta;\n"
    "}\n"
    "model {\n"
    "  real total = 0;\n"
    "  for (j in 1:J) {\n"
    "    real d = y[j];\n"
    "    total += d;\n"
    "  }\n"
    "  theta ~ normal(0, 1);\n"
    "}\n"
    "generated quantities {\n"
    "  real g = 1;\n"
    "}\n";
  g_autoptr(TildeCheckResult) check = parse (text);
  TildeProgram *program = tilde_check_result_get_program (check);
  g_autoptr(GPtrArray) in_loop = tilde_visible_names (program, offset_of (text, "total += d"));
  g_autoptr(GPtrArray) in_function = tilde_visible_names (program, offset_of (text, "return x"));
  g_autoptr(GPtrArray) in_gq = tilde_visible_names (program, offset_of (text, "1;\n}\n") );
  g_autoptr(GPtrArray) in_data = tilde_visible_names (program, offset_of (text, "array[J]"));

  /* Inside the loop: its local, the loop variable, the model's earlier
   * local, the block variables and the function. */
  g_assert_true (has_name (in_loop, "d", TILDE_VISIBLE_VARIABLE));
  g_assert_true (has_name (in_loop, "j", TILDE_VISIBLE_VARIABLE));
  g_assert_true (has_name (in_loop, "total", TILDE_VISIBLE_VARIABLE));
  g_assert_true (has_name (in_loop, "J", TILDE_VISIBLE_VARIABLE));
  g_assert_true (has_name (in_loop, "theta", TILDE_VISIBLE_VARIABLE));
  g_assert_true (has_name (in_loop, "scale", TILDE_VISIBLE_FUNCTION));
  g_assert_false (has_name (in_loop, "g", TILDE_VISIBLE_VARIABLE));
  g_assert_false (has_name (in_loop, "half", TILDE_VISIBLE_VARIABLE));
  g_assert_cmpstr (detail_of (in_loop, "theta"), ==, "vector<lower=0>[J]");
  g_assert_cmpstr (detail_of (in_loop, "scale"), ==, "real scale(real x, data real s)");
  g_assert_cmpstr (((TildeVisibleName *) in_loop->pdata[0])->name, ==, "d");

  /* A function body sees its arguments and locals, not the data. */
  g_assert_true (has_name (in_function, "x", TILDE_VISIBLE_VARIABLE));
  g_assert_true (has_name (in_function, "half", TILDE_VISIBLE_VARIABLE));
  g_assert_false (has_name (in_function, "J", TILDE_VISIBLE_VARIABLE));

  /* Generated quantities do not see the model block's locals. */
  g_assert_true (has_name (in_gq, "theta", TILDE_VISIBLE_VARIABLE));
  g_assert_false (has_name (in_gq, "total", TILDE_VISIBLE_VARIABLE));

  /* In data, only what was declared above. */
  g_assert_true (has_name (in_data, "J", TILDE_VISIBLE_VARIABLE));
  g_assert_false (has_name (in_data, "y", TILDE_VISIBLE_VARIABLE));
  g_assert_false (has_name (in_data, "theta", TILDE_VISIBLE_VARIABLE));
}

/* Data checked against a model on the engine thread: a newer data check
 * supersedes an older one, whether the data or the model changed. */
static TildeCheckResult *
model_check (const char *text)
{
  TildeCheckResult *check = tilde_frontend_check_buffer ("model.stan", NULL, text, -1, NULL);

  g_assert_false (tilde_check_result_has_errors (check));
  return check;
}

static void
test_data_check_job (void)
{
  g_autoptr(TildeWorker) worker = tilde_worker_new ();
  g_autoptr(TildeCheckResult) model = model_check (model_ok);
  g_autoptr(TildeCheckResult) edited = model_check ("data { int N; vector[N + 1] y; }\n");
  g_autoptr(TildeJobInput) data = tilde_job_input_new ("data.json", NULL,
                                                       "{\"N\": 2, \"y\": [1, 2, 3]}", -1, NULL);
  g_autoptr(TildeJobInput) fixed = tilde_job_input_new ("data.json", NULL,
                                                        "{\"N\": 3, \"y\": [1, 2, 3]}", -1, NULL);
  g_autoptr(TildeJobInput) model_input = input_for (model_ok, FALSE);
  const TildeDiagnostic *d;
  TildeWorkerStats stats;
  GPtrArray *diags;
  Record r;

  record_init (&r);
  g_assert_cmpuint (tilde_worker_check_data (worker, data, model, on_result, &r, on_destroy), ==, 1);
  wait_for_jobs (&r, 1);
  g_assert_false (r.off_main_thread);
  g_assert_cmpuint (r.results->len, ==, 1);
  g_assert_cmpint (tilde_job_result_get_kind (r.results->pdata[0]), ==, TILDE_JOB_DATA_CHECK);
  g_assert_true (tilde_job_result_get_check (r.results->pdata[0]) == model);
  diags = tilde_job_result_get_data_diagnostics (r.results->pdata[0]);
  g_assert_cmpuint (diags->len, ==, 1);
  d = diags->pdata[0];
  g_assert_cmpstr (d->message, ==, "variable y: expected vector[2], found an array of 3 values");
  g_assert_cmpstr (d->file, ==, "data.json");
  g_assert_cmpint (d->begin_line, ==, 1);
  g_assert_cmpint (d->begin_column, ==, 14);
  g_assert_cmpint (d->end_column, ==, 23);

  /* A slow check of the data against the model, then the model edited so
   * that the data fit: only the newer result arrives. */
  tilde_worker_set_check_delay (worker, 150);
  tilde_worker_check_data (worker, data, model, on_result, &r, on_destroy);
  wait_finished (worker, 1);
  tilde_worker_set_check_delay (worker, 0);
  g_assert_cmpuint (tilde_worker_check_data (worker, data, edited, on_result, &r, on_destroy), ==, 3);
  wait_for_jobs (&r, 3);
  g_assert_cmpuint (r.results->len, ==, 2);
  g_assert_cmpuint (tilde_job_result_get_generation (r.results->pdata[1]), ==, 3);
  g_assert_cmpuint (tilde_job_result_get_data_diagnostics (r.results->pdata[1])->len, ==, 0);

  /* The same with the data edited; a model check in between supersedes
   * neither. */
  tilde_worker_set_check_delay (worker, 150);
  tilde_worker_check_data (worker, data, model, on_result, &r, on_destroy);
  wait_finished (worker, 3);
  tilde_worker_set_check_delay (worker, 0);
  tilde_worker_check (worker, model_input, on_result, &r, on_destroy);
  tilde_worker_check_data (worker, fixed, model, on_result, &r, on_destroy);
  wait_for_jobs (&r, 6);
  g_assert_cmpuint (r.results->len, ==, 4);
  g_assert_cmpint (tilde_job_result_get_kind (r.results->pdata[2]), ==, TILDE_JOB_CHECK);
  g_assert_cmpint (tilde_job_result_get_kind (r.results->pdata[3]), ==, TILDE_JOB_DATA_CHECK);
  g_assert_cmpuint (tilde_job_result_get_data_diagnostics (r.results->pdata[3])->len, ==, 0);
  tilde_worker_get_stats (worker, &stats);
  g_assert_cmpuint (stats.skipped + stats.discarded + stats.dropped, ==, 2);

  /* Without a model only the syntax is checked. */
  g_autoptr(TildeJobResult) alone = tilde_job_run_data_check (data, NULL);
  g_assert_cmpuint (tilde_job_result_get_data_diagnostics (alone)->len, ==, 0);
  g_assert_null (tilde_job_result_get_check (alone));
  record_clear (&r);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_unsetenv ("TILDE_WORKER_CHECK_DELAY_MS");
  g_test_add_func ("/engine/worker/check-delivers-on-main-context", test_check_delivers_on_main_context);
  g_test_add_func ("/engine/worker/input-is-a-copy", test_input_is_a_copy);
  g_test_add_func ("/engine/worker/newer-check-supersedes-queued", test_newer_check_supersedes_queued);
  g_test_add_func ("/engine/worker/stale-result-dropped", test_stale_result_dropped);
  g_test_add_func ("/engine/worker/cancel", test_cancel);
  g_test_add_func ("/engine/worker/kinds-do-not-supersede-each-other", test_kinds_do_not_supersede_each_other);
  g_test_add_func ("/engine/worker/shutdown", test_shutdown);
  g_test_add_func ("/engine/worker/pedantic-option", test_pedantic_option);
  g_test_add_func ("/engine/worker/format-job", test_format_job);
  g_test_add_func ("/engine/worker/compile-stage", test_compile_stage);
  g_test_add_func ("/engine/worker/anchor-keeps-statement", test_anchor_keeps_statement);
  g_test_add_func ("/engine/worker/text-positions", test_text_positions);
  g_test_add_func ("/engine/worker/visible-names", test_visible_names);
  g_test_add_func ("/engine/worker/data-check-job", test_data_check_job);
  return g_test_run ();
}
