/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Runs of several chains: their files, their independence from the
 * threads that run them, cancellation, and the fixed_param sampler. */
#define G_LOG_DOMAIN "tilde-test"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "infer-test-util.h"

static const char *const eight_schools =
  "data { int J; array[J] real y; array[J] real<lower=0> sigma; }\n"
  "parameters { real mu; real<lower=0> tau; vector[J] eta; }\n"
  "transformed parameters { vector[J] theta = mu + tau * eta; }\n"
  "model { mu ~ normal(0, 5); tau ~ cauchy(0, 5); eta ~ std_normal(); y ~ normal(theta, sigma); }\n"
  "generated quantities { array[J] real y_rep = normal_rng(theta, sigma); }\n";
static const char *const eight_schools_data =
  "{\"J\": 8, \"y\": [28, 8, -3, 7, -1, 1, 18, 12], \"sigma\": [15, 10, 16, 11, 9, 11, 10, 18]}";

typedef struct {
  char *dir;
} TempDir;

static void
temp_dir_clear (TempDir *t)
{
  g_autoptr(GDir) dir = g_dir_open (t->dir, 0, NULL);
  const char *name;

  while (dir && (name = g_dir_read_name (dir)))
    {
      g_autofree char *path = g_build_filename (t->dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (t->dir);
  g_free (t->dir);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (TempDir, temp_dir_clear)

static void
temp_dir_init (TempDir *t)
{
  t->dir = g_dir_make_tmp ("tilde-run-XXXXXX", NULL);
  g_assert_nonnull (t->dir);
}

/* A CSV file without the lines that say when, on how many threads and
 * into which file it was made. */
static char *
file_without_times (const char *path)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  GString *out = g_string_new (NULL);

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (!g_str_has_prefix (lines[i], "# start_datetime") && !g_str_has_prefix (lines[i], "# num_threads")
        && !g_str_has_prefix (lines[i], "#   file = ") && !strstr (lines[i], "seconds ("))
      g_string_append_printf (out, "%s\n", lines[i]);
  return g_string_free (out, FALSE);
}

static void
run_to_files (TildeModel *model, const char *output, guint threads, guint64 seed,
              TildeMetricAdaptation adaptation)
{
  TildeSampleOptions o;
  g_autoptr(TildeSampleRun) run = NULL;

  infer_test_options (&o, 4, 200, 200, seed);
  o.adapt_options.metric_adaptation = adaptation;
  o.threads = threads;
  o.output = output;
  o.keep_draws = FALSE;
  run = infer_test_run (model, &o);
}

/* Same seed, same files, byte for byte, whether one thread runs the four
 * chains in turn or four run them at once; another seed differs, and the
 * chains differ from each other. With either metric adaptation; the two
 * differ. */
static void
test_same_seed_same_files (void)
{
  g_autoptr(TildeModel) model = infer_test_model (eight_schools, eight_schools_data);
  g_auto(TempDir) t = { 0 };

  temp_dir_init (&t);
  for (TildeMetricAdaptation adaptation = TILDE_METRIC_ADAPTATION_STAN;
       adaptation <= TILDE_METRIC_ADAPTATION_GRADIENTS; adaptation++)
    {
      const char *name = tilde_metric_adaptation_name (adaptation);
      g_autofree char *one = g_strdup_printf ("%s/one-%s.csv", t.dir, name);
      g_autofree char *four = g_strdup_printf ("%s/four-%s.csv", t.dir, name);
      g_autofree char *other = g_strdup_printf ("%s/other-%s.csv", t.dir, name);

      run_to_files (model, one, 1, 2024, adaptation);
      run_to_files (model, four, 4, 2024, adaptation);
      run_to_files (model, other, 4, 2025, adaptation);
      for (guint id = 1; id <= 4; id++)
        {
          g_autofree char *a = tilde_sample_chain_output_path (one, 4, id);
          g_autofree char *b = tilde_sample_chain_output_path (four, 4, id);
          g_autofree char *c = tilde_sample_chain_output_path (other, 4, id);
          g_autofree char *d = tilde_sample_chain_output_path (one, 4, id % 4 + 1);
          g_autofree char *ta = file_without_times (a), *tb = file_without_times (b);
          g_autofree char *tc = file_without_times (c), *td = file_without_times (d);
          const char *draws_a = strstr (ta, "\n-"), *draws_d = strstr (td, "\n-");

          /* (not g_assert_cmpstr: the files are long) */
          g_assert_true (strcmp (ta, tb) == 0);
          g_assert_true (strcmp (ta, tc) != 0);
          g_assert_nonnull (draws_a);
          g_assert_nonnull (draws_d);
          g_assert_true (strcmp (draws_a, draws_d) != 0);
        }
    }
  {
    g_autofree char *stan = g_strdup_printf ("%s/one-stan_1.csv", t.dir);
    g_autofree char *gradients = g_strdup_printf ("%s/one-gradients_1.csv", t.dir);
    g_autofree char *ts = file_without_times (stan), *tg = file_without_times (gradients);
    g_assert_true (strcmp (strstr (ts, "\n-"), strstr (tg, "\n-")) != 0);
  }
}

/* The same with the dense metric, trees cut at depth 2, warm-up draws
 * saved and every third draw kept: one thread or three, the same bytes. */
static void
test_same_files_dense_thinned (void)
{
  g_autoptr(TildeModel) model = infer_test_model (eight_schools, eight_schools_data);
  g_auto(TempDir) t = { 0 };
  g_autofree char *one = NULL, *three = NULL;

  temp_dir_init (&t);
  one = g_build_filename (t.dir, "one.csv", NULL);
  three = g_build_filename (t.dir, "three.csv", NULL);
  for (guint threads = 1; threads <= 3; threads += 2)
    {
      TildeSampleOptions o;
      g_autoptr(TildeSampleRun) run = NULL;

      infer_test_options (&o, 3, 150, 150, 77);
      o.threads = threads;
      o.output = threads == 1 ? one : three;
      o.keep_draws = FALSE;
      o.metric = TILDE_METRIC_DENSE;
      o.max_depth = 2;
      o.save_warmup = TRUE;
      o.thin = 3;
      run = infer_test_run (model, &o);
    }
  for (guint id = 1; id <= 3; id++)
    {
      g_autofree char *a = tilde_sample_chain_output_path (one, 3, id);
      g_autofree char *b = tilde_sample_chain_output_path (three, 3, id);
      g_autofree char *ta = file_without_times (a), *tb = file_without_times (b);

      g_assert_nonnull (strstr (ta, "Elements of inverse mass matrix"));
      g_assert_true (strcmp (ta, tb) == 0);
    }
}

static void
test_output_paths (void)
{
  struct { const char *output; guint chains, id; const char *path; } cases[] = {
    { "output.csv", 4, 1, "output_1.csv" },
    { "output.csv", 4, 4, "output_4.csv" },
    { "out.csv", 1, 1, "out.csv" },
    { "dir/run.v2.csv", 2, 2, "dir/run.v2_2.csv" },
    { "draws", 3, 3, "draws_3" },
    { "dir.d/draws", 2, 1, "dir.d/draws_1" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = tilde_sample_chain_output_path (cases[i].output, cases[i].chains, cases[i].id);
      g_assert_cmpstr (path, ==, cases[i].path);
    }
}

/* The file of one chain, laid out as CmdStan 2.33 lays it out. */
static void
test_file_layout (void)
{
  g_autoptr(TildeModel) model = infer_test_model (eight_schools, eight_schools_data);
  g_auto(TempDir) t = { 0 };
  g_autofree char *path = NULL, *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(TildeSampleRun) run = NULL;
  TildeSampleOptions o;
  guint names = 0, rows = 0, i;

  temp_dir_init (&t);
  path = g_build_filename (t.dir, "es.csv", NULL);
  infer_test_options (&o, 1, 150, 100, 7);
  o.output = path;
  o.model_name = "eight_schools_model";
  o.data_file = "es.json";
  o.thin = 3;
  run = infer_test_run (model, &o);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "# stan_version_major = 2");
  g_assert_cmpstr (lines[3], ==, "# model = eight_schools_model");
  g_assert_true (g_str_has_prefix (lines[4], "# start_datetime = "));
  g_assert_true (g_str_has_suffix (lines[4], " UTC"));
  for (i = 5; lines[i] && lines[i][0] == '#'; i++)
    ;
  {
    g_autofree char *header = g_strjoinv ("\n", (char **) lines + 5);
    const char *expected =
      "# method = sample (Default)\n"
      "#   sample\n"
      "#     num_samples = 100\n"
      "#     num_warmup = 150\n"
      "#     save_warmup = 0 (Default)\n"
      "#     thin = 3\n"
      "#     adapt\n"
      "#       engaged = 1 (Default)\n"
      "#       gamma = 0.050000000000000003 (Default)\n"
      "#       delta = 0.80000000000000004 (Default)\n"
      "#       kappa = 0.75 (Default)\n"
      "#       t0 = 10 (Default)\n"
      "#       init_buffer = 75 (Default)\n"
      "#       term_buffer = 50 (Default)\n"
      "#       window = 25 (Default)\n"
      "#     algorithm = hmc (Default)\n"
      "#       hmc\n"
      "#         engine = nuts (Default)\n"
      "#           nuts\n"
      "#             max_depth = 10 (Default)\n"
      "#         metric = diag_e (Default)\n"
      "#         metric_file =  (Default)\n"
      "#         stepsize = 1 (Default)\n"
      "#         stepsize_jitter = 0 (Default)\n"
      "#     num_chains = 1 (Default)\n"
      "# id = 1 (Default)\n"
      "# data\n"
      "#   file = es.json\n"
      "# init = 2 (Default)\n"
      "# random\n"
      "#   seed = 7\n"
      "# output\n";
    g_assert_true (g_str_has_prefix (header, expected));
  }
  /* the names, 7 + 2 + 8 + 8 + 8 of them */
  for (; lines[i]; i++)
    {
      if (g_str_has_prefix (lines[i], "lp__,accept_stat__,stepsize__,treedepth__,n_leapfrog__,"
                                      "divergent__,energy__,mu,tau,eta.1,"))
        {
          g_auto(GStrv) cols = g_strsplit (lines[i], ",", -1);
          g_assert_cmpuint (g_strv_length (cols), ==, 33);
          g_assert_cmpstr (cols[17], ==, "theta.1");
          g_assert_cmpstr (cols[25], ==, "y_rep.1");
          names++;
          g_assert_cmpstr (lines[i + 1], ==, "# Adaptation terminated");
          g_assert_true (g_str_has_prefix (lines[i + 2], "# Step size = "));
          g_assert_cmpstr (lines[i + 3], ==, "# Diagonal elements of inverse mass matrix:");
          {
            g_auto(GStrv) diagonal = g_strsplit (lines[i + 4], ",", -1);
            g_assert_cmpuint (g_strv_length (diagonal), ==, 10);
          }
          i += 4;
        }
      else if (lines[i][0] != '#' && lines[i][0] != '\0')
        {
          g_auto(GStrv) values = g_strsplit (lines[i], ",", -1);
          g_assert_cmpuint (g_strv_length (values), ==, 33);
          rows++;
        }
    }
  g_assert_cmpuint (names, ==, 1);
  g_assert_cmpuint (rows, ==, 34);   /* ceil (100 / 3) */
  g_assert_true (strstr (text, "\n# \n#  Elapsed Time: ") != NULL);
  g_assert_true (g_str_has_suffix (text, " seconds (Total)\n# \n"));
}

/* Warm-up draws saved and thinned like the rest, counted from each
 * phase's first iteration. */
static void
test_save_warmup_thin (void)
{
  g_autoptr(TildeModel) model = infer_test_model (eight_schools, eight_schools_data);
  g_autoptr(TildeSampleRun) run = NULL;
  TildeSampleOptions o;
  gsize rows, warmup;
  const TildeChainResult *r;

  infer_test_options (&o, 2, 101, 50, 8);
  o.save_warmup = TRUE;
  o.thin = 5;
  run = infer_test_run (model, &o);
  tilde_sample_run_get_draws (run, 1, &rows, &warmup);
  g_assert_cmpuint (warmup, ==, 21);
  g_assert_cmpuint (rows, ==, 31);
  /* said before the chains ran: the rows they then saved */
  g_assert_cmpuint (tilde_sample_run_get_rows_per_chain (run), ==, 31);
  r = tilde_sample_run_get_chain_result (run, 1);
  g_assert_cmpuint (r->warmup_draws, ==, 21);
  g_assert_cmpuint (r->draws, ==, 10);
  g_assert_cmpint (r->status, ==, TILDE_CHAIN_DONE);
  g_assert_cmpuint (r->id, ==, 2);
}

/* ---- cancellation ---- */

typedef struct {
  TildeSampleRun *run;
  gint            seen;
} Canceller;

static void
cancel_at_300 (guint chain, guint iteration, guint total, gboolean warmup, gpointer data)
{
  Canceller *c = data;
  if (iteration == 300 && chain == 2)
    tilde_sample_run_cancel (g_atomic_pointer_get (&c->run));
}

/* Cancelled during chain 2's warm-up: every file is whole, every row has
 * every column, the files hold what the run kept in memory, and the
 * run says it was cancelled. */
static void
test_cancel (void)
{
  g_autoptr(TildeModel) model = infer_test_model (eight_schools, eight_schools_data);
  g_auto(TempDir) t = { 0 };
  g_autofree char *output = NULL;
  g_autoptr(GError) error = NULL;
  TildeSampleCallbacks callbacks = { cancel_at_300, NULL, NULL };
  Canceller canceller = { 0 };
  TildeSampleRun *run;
  TildeSampleOptions o;
  gsize n_columns;

  temp_dir_init (&t);
  output = g_build_filename (t.dir, "c.csv", NULL);
  infer_test_options (&o, 3, 1000, 1000, 9);
  o.threads = 1;
  o.output = output;
  o.save_warmup = TRUE;
  /* chain 1 runs first, alone; chain 2 is cancelled at its iteration 300 */
  run = tilde_sample_run_start (model, &o, &callbacks, &canceller, &error);
  g_assert_no_error (error);
  g_atomic_pointer_set (&canceller.run, run);
  g_assert_false (tilde_sample_run_wait (run, &error));
  g_assert_error (error, TILDE_SAMPLE_ERROR, TILDE_SAMPLE_ERROR_CANCELLED);
  tilde_sample_run_get_column_names (run, &n_columns);
  for (guint c = 0; c < 3; c++)
    {
      const TildeChainResult *r = tilde_sample_run_get_chain_result (run, c);
      g_autofree char *text = NULL;
      g_auto(GStrv) lines = NULL;
      gsize rows, warmup, in_file = 0;
      const double *table = tilde_sample_run_get_draws (run, c, &rows, &warmup);

      g_assert_true (g_file_get_contents (r->output_path, &text, NULL, NULL));
      g_assert_true (g_str_has_suffix (text, "\n"));
      lines = g_strsplit (text, "\n", -1);
      for (guint i = 0; lines[i]; i++)
        {
          g_auto(GStrv) values = NULL;
          if (lines[i][0] == '#' || lines[i][0] == '\0' || g_str_has_prefix (lines[i], "lp__"))
            continue;
          values = g_strsplit (lines[i], ",", -1);
          g_assert_cmpuint (g_strv_length (values), ==, n_columns);
          /* the file's numbers are the kept draws to six digits */
          g_assert_cmpfloat (fabs (g_ascii_strtod (values[0], NULL) - table[in_file * n_columns]),
                             <=, 1e-5 * fabs (table[in_file * n_columns]) + 1e-300);
          in_file++;
        }
      g_assert_cmpuint (in_file, ==, rows);
      switch (c)
        {
        case 0:
          g_assert_cmpint (r->status, ==, TILDE_CHAIN_DONE);
          g_assert_cmpuint (rows, ==, 2000);
          break;
        case 1:
          g_assert_cmpint (r->status, ==, TILDE_CHAIN_CANCELLED);
          g_assert_cmpuint (rows, ==, 300);
          g_assert_cmpuint (warmup, ==, 300);
          break;
        default:
          g_assert_cmpint (r->status, ==, TILDE_CHAIN_CANCELLED);
          g_assert_cmpuint (rows, ==, 0);
          g_assert_nonnull (strstr (text, "\nlp__,"));
          break;
        }
    }
  tilde_sample_run_free (run);
}

/* ---- reading while the chains run ---- */

typedef struct {
  TildeSampleRun *run;
  gsize           n_columns;
  gint            done;
  guint           reads;
  gboolean        bad;
} Reader;

static gpointer
read_while_running (gpointer data)
{
  Reader *r = data;
  gsize last[2] = { 0, 0 };

  /* Once at least: on a loaded machine the chains may finish before this
   * thread first runs. */
  do
    {
      for (guint c = 0; c < 2; c++)
        {
          gsize rows, warmup;
          const double *table = tilde_sample_run_get_draws (r->run, c, &rows, &warmup);
          if (rows < last[c])
            r->bad = TRUE;
          /* a published row is whole: its treedepth and n_leapfrog are set */
          if (rows > 0 && !(table[(rows - 1) * r->n_columns + 4] >= 1))
            r->bad = TRUE;
          last[c] = rows;
        }
      r->reads++;
      g_thread_yield ();
    }
  while (!g_atomic_int_get (&r->done));
  return NULL;
}

static void
test_read_while_running (void)
{
  g_autoptr(TildeModel) model = infer_test_model (eight_schools, eight_schools_data);
  g_autoptr(GError) error = NULL;
  g_autoptr(TildeSampleRun) run = NULL;
  TildeSampleOptions o;
  Reader reader = { 0 };
  GThread *thread;

  infer_test_options (&o, 2, 500, 5000, 10);
  o.save_warmup = TRUE;
  run = tilde_sample_run_start (model, &o, NULL, NULL, &error);
  g_assert_no_error (error);
  reader.run = run;
  tilde_sample_run_get_column_names (run, &reader.n_columns);
  thread = g_thread_new ("reader", read_while_running, &reader);
  g_assert_true (tilde_sample_run_wait (run, &error));
  g_atomic_int_set (&reader.done, 1);
  g_thread_join (thread);
  g_assert_false (reader.bad);
  g_assert_cmpuint (reader.reads, >, 0);
}

/* ---- messages ---- */

/* Messages come from the chains' threads at once. */
typedef struct {
  gint rejections;
  gint other_words;
} Messages;

static void
on_message (guint chain, TildeSampleMessageKind kind, const char *text, gpointer data)
{
  Messages *m = data;

  if (kind != TILDE_SAMPLE_MESSAGE_REJECTION)
    return;
  g_atomic_int_inc (&m->rejections);
  if (!g_str_has_prefix (text, "Informational Message: The current Metropolis proposal "
                               "is about to be rejected because of the following issue:\n")
      || strstr (text, "Scale parameter is") == NULL)
    g_atomic_int_inc (&m->other_words);
}

/* A scale that may go negative: the proposals there are rejected with
 * CmdStan's message, and the run completes. */
static void
test_rejection_messages (void)
{
  g_autoptr(TildeModel) model = infer_test_model (
    "parameters { real mu; real s; }\n"
    "model { mu ~ normal(0, 1); s ~ normal(1, 0.5); 0.5 ~ normal(mu, s); }\n", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(TildeSampleRun) run = NULL;
  TildeSampleCallbacks callbacks = { NULL, NULL, on_message };
  TildeSampleOptions o;
  Messages m = { 0 };

  infer_test_options (&o, 2, 300, 300, 11);
  run = tilde_sample_run_start (model, &o, &callbacks, &m, &error);
  g_assert_no_error (error);
  g_assert_true (tilde_sample_run_wait (run, &error));
  g_assert_cmpint (m.rejections, >, 0);
  g_assert_cmpint (m.other_words, ==, 0);

  /* counted at the one statement that raised them: as many proposals as
   * messages, and the place of "0.5 ~ normal(mu, s);" */
  g_autoptr(GPtrArray) places = tilde_sample_run_get_rejections (run);
  g_assert_cmpuint (places->len, ==, 1);
  const TildeRejections *r = g_ptr_array_index (places, 0);
  g_assert_cmpint (r->begin_line, ==, 2);
  g_assert_cmpint (r->begin_column, ==, 47);
  g_assert_cmpint (r->end_column, ==, 67);
  g_assert_cmpint ((gint) (r->warmup + r->sampling), ==, m.rejections);
  g_assert_true (g_str_has_prefix (r->message, "normal_lpdf: Scale parameter is "));
}

/* fatal_error() is no rejection: the chain stops, the run fails with the
 * model's message, and the file keeps the draws made before. */
static void
test_fatal_error_stops (void)
{
  g_autoptr(TildeModel) model = infer_test_model (
    "parameters { real x; }\n"
    "model { x ~ normal(0, 1); if (x > 2.5) fatal_error(\"x went past 2.5: \", x); }\n", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(TildeSampleRun) run = NULL;
  const TildeChainResult *r;
  TildeSampleOptions o;

  infer_test_options (&o, 1, 1000, 1000, 14);
  run = tilde_sample_run_start (model, &o, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (tilde_sample_run_wait (run, &error));
  g_assert_error (error, TILDE_SAMPLE_ERROR, TILDE_SAMPLE_ERROR_MODEL);
  g_assert_nonnull (strstr (error->message, "x went past 2.5: "));
  r = tilde_sample_run_get_chain_result (run, 0);
  g_assert_cmpint (r->status, ==, TILDE_CHAIN_FAILED);
  g_assert_cmpuint (r->draws, <, 1000);
}

/* ---- fixed_param ---- */

/* No parameters: CmdStan's fixed_param columns (lp__ and accept_stat__,
 * both 0), only sampling iterations, and generated quantities drawn anew
 * each time: their mean is the truth to Monte Carlo error. */
static void
test_fixed_param (void)
{
  g_autoptr(TildeModel) model = infer_test_model (
    "generated quantities { real y = normal_rng(3, 1); int k = poisson_rng(2); }\n", NULL);
  g_autoptr(TildeSampleRun) run = NULL;
  TildeSampleOptions o;
  gsize n, rows, warmup;
  const char *const *names;
  const double *table;
  double mean = 0;

  infer_test_options (&o, 1, 1000, 2000, 12);
  o.save_warmup = TRUE;
  run = infer_test_run (model, &o);
  g_assert_true (tilde_sample_run_is_fixed_param (run));
  names = tilde_sample_run_get_column_names (run, &n);
  g_assert_cmpuint (n, ==, 4);
  g_assert_cmpstr (names[0], ==, "lp__");
  g_assert_cmpstr (names[1], ==, "accept_stat__");
  g_assert_cmpstr (names[2], ==, "y");
  g_assert_cmpstr (names[3], ==, "k");
  table = tilde_sample_run_get_draws (run, 0, &rows, &warmup);
  g_assert_cmpuint (rows, ==, 2000);
  g_assert_cmpuint (warmup, ==, 0);
  /* warm-up kept is asked for, but fixed_param has none to keep */
  g_assert_cmpuint (tilde_sample_run_get_rows_per_chain (run), ==, 2000);
  for (gsize r = 0; r < rows; r++)
    {
      g_assert_cmpfloat (table[r * n], ==, 0);
      g_assert_cmpfloat (table[r * n + 1], ==, 0);
      g_assert_cmpfloat (table[r * n + 3], ==, floor (table[r * n + 3]));
      mean += table[r * n + 2] / rows;
    }
  g_assert_cmpfloat (fabs (mean - 3), <, 4.5 / sqrt (2000.0));
}

/* Forced on a model with parameters, fixed_param keeps the starting
 * point in every draw. */
static void
test_fixed_param_forced (void)
{
  g_autoptr(TildeModel) model = infer_test_model ("parameters { real x; }\n"
                                                  "model { x ~ normal(0, 1); }\n", NULL);
  g_autoptr(TildeSampleRun) run = NULL;
  TildeSampleOptions o;
  gsize n, rows;
  const double *table;

  infer_test_options (&o, 1, 100, 50, 13);
  o.fixed_param = TRUE;
  run = infer_test_run (model, &o);
  table = tilde_sample_run_get_draws (run, 0, &rows, NULL);
  tilde_sample_run_get_column_names (run, &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpuint (rows, ==, 50);
  for (gsize r = 1; r < rows; r++)
    g_assert_cmpfloat (table[r * n + 2], ==, table[2]);
  g_assert_cmpfloat (fabs (table[2]), <, 2);
}

/* Wrong options are refused before anything runs. */
static void
test_bad_options (void)
{
  g_autoptr(TildeModel) model = infer_test_model ("parameters { real x; }\n"
                                                  "model { x ~ normal(0, 1); }\n", NULL);
  TildeSampleOptions o;
  g_autoptr(GError) error = NULL;

  infer_test_options (&o, 1, 100, 50, 13);
  o.adapt_options.delta = 1.0;
  g_assert_null (tilde_sample_run_start (model, &o, NULL, NULL, &error));
  g_assert_error (error, TILDE_SAMPLE_ERROR, TILDE_SAMPLE_ERROR_OPTIONS);
  g_clear_error (&error);
  /* the unit metric has nothing to adapt from gradients */
  for (TildeMetricKind kind = TILDE_METRIC_UNIT; kind <= TILDE_METRIC_DENSE; kind++)
    {
      g_autoptr(TildeSampleRun) run = NULL;

      infer_test_options (&o, 1, 100, 50, 13);
      o.metric = kind;
      o.adapt_options.metric_adaptation = TILDE_METRIC_ADAPTATION_GRADIENTS;
      run = tilde_sample_run_start (model, &o, NULL, NULL, &error);
      if (kind != TILDE_METRIC_UNIT)
        {
          g_assert_no_error (error);
          g_assert_true (tilde_sample_run_wait (run, &error));
          continue;
        }
      g_assert_null (run);
      g_assert_error (error, TILDE_SAMPLE_ERROR, TILDE_SAMPLE_ERROR_OPTIONS);
      g_assert_nonnull (strstr (error->message, "unit metric"));
      g_clear_error (&error);
    }
  infer_test_options (&o, 1, 100, 50, 13);
  o.output = "/nonexistent-folder/out.csv";
  g_assert_null (tilde_sample_run_start (model, &o, NULL, NULL, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/infer/run/same-seed-same-files", test_same_seed_same_files);
  g_test_add_func ("/infer/run/same-files-dense-thinned", test_same_files_dense_thinned);
  g_test_add_func ("/infer/run/output-paths", test_output_paths);
  g_test_add_func ("/infer/run/file-layout", test_file_layout);
  g_test_add_func ("/infer/run/save-warmup-thin", test_save_warmup_thin);
  g_test_add_func ("/infer/run/cancel", test_cancel);
  g_test_add_func ("/infer/run/read-while-running", test_read_while_running);
  g_test_add_func ("/infer/run/rejection-messages", test_rejection_messages);
  g_test_add_func ("/infer/run/fatal-error-stops", test_fatal_error_stops);
  g_test_add_func ("/infer/run/fixed-param", test_fixed_param);
  g_test_add_func ("/infer/run/fixed-param-forced", test_fixed_param_forced);
  g_test_add_func ("/infer/run/bad-options", test_bad_options);
  return g_test_run ();
}
