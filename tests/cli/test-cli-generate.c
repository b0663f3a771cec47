/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `tilde generate-quantities` run as a user runs it: quantities recomputed
 * over the draws of `tilde sample` against their closed forms, CmdStan's
 * file layout, and its errors. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

typedef struct {
  int   status;
  char *out;
  char *err;
} Run;

static void
run_clear (Run *run)
{
  g_free (run->out);
  g_free (run->err);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

/* Runs `tilde ARGS...` (NULL-terminated) in DIR. */
static void
run_tilde (Run *run, const char *dir, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  const char *bin = g_getenv ("TILDE_BIN");
  const char *arg;
  va_list ap;
  int wait_status;

  g_assert_nonnull (bin);
  g_ptr_array_add (argv, (char *) bin);
  va_start (ap, dir);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (argv, (char *) arg);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (dir, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &run->out, &run->err, &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  run->status = WEXITSTATUS (wait_status);
}

static char *
write_file (const char *dir, const char *name, const char *text)
{
  char *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

/* A Stan CSV file as a table: comment lines apart, names, rows. */
typedef struct {
  GPtrArray *comments;
  char     **names;
  GArray    *values;   /* row-major doubles */
  guint      n_columns;
  guint      n_rows;
} Table;

static void
table_free (Table *t)
{
  g_ptr_array_unref (t->comments);
  g_strfreev (t->names);
  g_array_unref (t->values);
  g_free (t);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Table, table_free)

static Table *
read_table (const char *path)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  Table *t = g_new0 (Table, 1);

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  t->comments = g_ptr_array_new_with_free_func (g_free);
  t->values = g_array_new (FALSE, FALSE, sizeof (double));
  for (char **l = lines; *l != NULL; l++)
    {
      g_auto (GStrv) fields = NULL;
      if (**l == '\0')
        continue;
      if (**l == '#')
        {
          g_ptr_array_add (t->comments, g_strdup (*l));
          continue;
        }
      fields = g_strsplit (*l, ",", -1);
      if (t->names == NULL)
        {
          t->names = g_steal_pointer (&fields);
          t->n_columns = g_strv_length (t->names);
          continue;
        }
      g_assert_cmpuint (g_strv_length (fields), ==, t->n_columns);
      for (guint j = 0; j < t->n_columns; j++)
        {
          double x = g_ascii_strtod (fields[j], NULL);
          g_array_append_val (t->values, x);
        }
      t->n_rows++;
    }
  g_assert_nonnull (t->names);
  return t;
}

static int
column (const Table *t, const char *name)
{
  for (guint j = 0; j < t->n_columns; j++)
    if (g_str_equal (t->names[j], name))
      return (int) j;
  return -1;
}

static double
cell (const Table *t, guint i, const char *name)
{
  int j = column (t, name);
  g_assert_cmpint (j, >=, 0);
  return g_array_index (t->values, double, i * t->n_columns + (guint) j);
}

static gboolean
has_comment (const Table *t, const char *text)
{
  for (guint i = 0; i < t->comments->len; i++)
    if (g_str_equal (g_ptr_array_index (t->comments, i), text))
      return TRUE;
  return FALSE;
}

static const char fit_model[] =
  "data { int N; vector[N] y; }\n"
  "parameters { real mu; real<lower=0> sigma; }\n"
  "model { mu ~ normal (0, 10); sigma ~ lognormal (0, 1); y ~ normal (mu, sigma); }\n";

/* The same parameters and model, with quantities the fit did not have. */
static const char gq_model[] =
  "data { int N; vector[N] y; }\n"
  "parameters { real mu; real<lower=0> sigma; }\n"
  "transformed parameters { real log_sigma = log (sigma); }\n"
  "model { mu ~ normal (0, 10); sigma ~ lognormal (0, 1); y ~ normal (mu, sigma); }\n"
  "generated quantities {\n"
  "  real s = mu * 2;\n"
  "  real z = normal_rng (mu, 1);\n"
  "  array[2] int flips;\n"
  "  for (k in 1:2) flips[k] = bernoulli_rng (0.25);\n"
  "}\n";

static const char data_json[] = "{\"N\": 4, \"y\": [1.2, 0.4, 2.1, 1.5]}";

typedef struct {
  char *dir;
  char *data;
  char *fit;
  char *gq;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer unused)
{
  f->dir = g_dir_make_tmp ("tilde-cli-generate-XXXXXX", NULL);
  f->data = write_file (f->dir, "data.json", data_json);
  f->fit = write_file (f->dir, "fit.stan", fit_model);
  f->gq = write_file (f->dir, "gq.stan", gq_model);
}

static void
fixture_tear_down (Fixture *f, gconstpointer unused)
{
  g_autoptr (GDir) dir = g_dir_open (f->dir, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (f->dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (f->dir);
  g_free (f->dir);
  g_free (f->data);
  g_free (f->fit);
  g_free (f->gq);
}

/* Draws of `tilde sample`, each gets its quantities: s = 2 mu exactly,
 * log_sigma = log sigma, z - mu a standard normal, flips Bernoulli(1/4);
 * the sampler columns and parameters are the input's. */
static void
test_round_trip (Fixture *f, gconstpointer unused)
{
  g_auto (Run) sample = { 0 };
  g_auto (Run) gq = { 0 };
  g_autoptr (Table) fit = NULL;
  g_autoptr (Table) out = NULL;
  double sum_z = 0, sum_z2 = 0, flips = 0;
  const char *copied[] = { "lp__", "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__",
                           "divergent__", "energy__", "mu", "sigma" };

  run_tilde (&sample, f->dir, "sample", f->fit, "--data", f->data, "--chains", "2",
             "--warmup", "300", "--samples", "500", "--seed", "11", "--refresh", "0",
             "--output", "fit.csv", NULL);
  g_assert_cmpint (sample.status, ==, 0);
  run_tilde (&gq, f->dir, "generate-quantities", f->gq, "--data", f->data,
             "--fitted-params", "fit_1.csv", "--fitted-params", "fit_2.csv",
             "--seed", "5", "--output", "gq.csv", NULL);
  g_assert_cmpstr (gq.err, ==, "");
  g_assert_cmpint (gq.status, ==, 0);
  g_assert_nonnull (strstr (gq.out, "gq_1.csv gq_2.csv"));

  for (guint c = 1; c <= 2; c++)
    {
      g_autofree char *fit_name = g_strdup_printf ("%s/fit_%u.csv", f->dir, c);
      g_autofree char *out_name = g_strdup_printf ("%s/gq_%u.csv", f->dir, c);
      g_autofree char *fitted = g_strdup_printf ("#     fitted_params = fit_%u.csv", c);
      g_clear_pointer (&fit, table_free);
      g_clear_pointer (&out, table_free);
      fit = read_table (fit_name);
      out = read_table (out_name);

      g_assert_true (has_comment (out, "# method = generate_quantities"));
      g_assert_true (has_comment (out, "#   generate_quantities"));
      g_assert_true (has_comment (out, fitted));
      g_assert_cmpuint (out->n_rows, ==, 500);
      g_assert_cmpuint (out->n_columns, ==, 7 + 2 + 1 + 4);
      g_assert_cmpstr (out->names[9], ==, "log_sigma");
      g_assert_cmpstr (out->names[10], ==, "s");
      g_assert_cmpstr (out->names[12], ==, "flips.1");
      for (guint i = 0; i < out->n_rows; i++)
        {
          double mu = cell (out, i, "mu"), sigma = cell (out, i, "sigma");
          double z = cell (out, i, "z") - mu;
          for (guint k = 0; k < G_N_ELEMENTS (copied); k++)
            g_assert_cmpfloat (cell (out, i, copied[k]), ==, cell (fit, i, copied[k]));
          g_assert_cmpfloat_with_epsilon (cell (out, i, "s"), 2 * mu, 1e-5 * fabs (mu) + 1e-12);
          g_assert_cmpfloat_with_epsilon (cell (out, i, "log_sigma"), log (sigma),
                                          1e-5 * fabs (log (sigma)) + 1e-5);
          g_assert_true (cell (out, i, "flips.1") == 0 || cell (out, i, "flips.1") == 1);
          sum_z += z;
          sum_z2 += z * z;
          flips += cell (out, i, "flips.1") + cell (out, i, "flips.2");
        }
    }
  /* 1000 independent draws: mean 0 (sd 1/sqrt(1000)), variance 1
   * (sd sqrt(2/1000)), flips 1/4 (sd sqrt(3/16/2000)); five sds. */
  g_assert_cmpfloat (fabs (sum_z / 1000), <, 5 / sqrt (1000));
  g_assert_cmpfloat (fabs (sum_z2 / 1000 - 1), <, 5 * sqrt (2.0 / 1000));
  g_assert_cmpfloat (fabs (flips / 2000 - 0.25), <, 5 * sqrt (3.0 / 16 / 2000));
}

/* Same seed, same quantities; another seed, others. */
static void
test_seed (Fixture *f, gconstpointer unused)
{
  g_auto (Run) sample = { 0 };
  g_auto (Run) a = { 0 };
  g_auto (Run) b = { 0 };
  g_auto (Run) c = { 0 };
  g_autoptr (Table) ta = NULL;
  g_autoptr (Table) tb = NULL;
  g_autoptr (Table) tc = NULL;
  guint same = 0;

  run_tilde (&sample, f->dir, "sample", f->fit, "--data", f->data, "--chains", "1",
             "--warmup", "100", "--samples", "50", "--seed", "3", "--refresh", "0",
             "--output", "fit.csv", NULL);
  g_assert_cmpint (sample.status, ==, 0);
  run_tilde (&a, f->dir, "generate-quantities", f->gq, "--data", f->data,
             "--fitted-params", "fit.csv", "--seed", "9", "--output", "a.csv", NULL);
  run_tilde (&b, f->dir, "generate-quantities", f->gq, "--data", f->data,
             "--fitted-params", "fit.csv", "--seed", "9", "--output", "b.csv", NULL);
  run_tilde (&c, f->dir, "generate-quantities", f->gq, "--data", f->data,
             "--fitted-params", "fit.csv", "--seed", "10", "--output", "c.csv", NULL);
  g_assert_cmpint (a.status + b.status + c.status, ==, 0);
  {
    g_autofree char *pa = g_build_filename (f->dir, "a.csv", NULL);
    g_autofree char *pb = g_build_filename (f->dir, "b.csv", NULL);
    g_autofree char *pc = g_build_filename (f->dir, "c.csv", NULL);
    ta = read_table (pa);
    tb = read_table (pb);
    tc = read_table (pc);
  }
  for (guint i = 0; i < ta->n_rows; i++)
    {
      g_assert_cmpfloat (cell (ta, i, "z"), ==, cell (tb, i, "z"));
      same += cell (ta, i, "z") == cell (tc, i, "z");
    }
  g_assert_cmpuint (same, <, 5);
}

static const char gq_reject_model[] =
  "parameters { real mu; }\n"
  "model { mu ~ normal (0, 1); }\n"
  "generated quantities {\n"
  "  real t = mu + 1;\n"
  "  if (mu > 1.5) reject (\"mu too large: \", mu);\n"
  "}\n";

static const char three_draws[] =
  "lp__,accept_stat__,mu\n"
  "-0.5,0.9,-1\n"
  "-0.5,0.9,1\n"
  "-2,0.9,2\n";

/* A draw whose quantities fail gets NaN, with the model's message; the
 * others are written. */
static void
test_failing_draw (Fixture *f, gconstpointer unused)
{
  g_autofree char *model = write_file (f->dir, "reject.stan", gq_reject_model);
  g_autofree char *csv = write_file (f->dir, "three.csv", three_draws);
  g_autofree char *out_path = g_build_filename (f->dir, "out.csv", NULL);
  g_autoptr (Table) out = NULL;
  g_auto (Run) run = { 0 };

  run_tilde (&run, f->dir, "generate-quantities", model, "--fitted-params", csv,
             "--seed", "1", "--output", "out.csv", NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.err, "draw 3"));
  g_assert_nonnull (strstr (run.err, "mu too large: 2"));
  g_assert_nonnull (strstr (run.err, "1 of 3 draws"));
  out = read_table (out_path);
  g_assert_cmpuint (out->n_rows, ==, 3);
  g_assert_cmpfloat (cell (out, 0, "t"), ==, 0);
  g_assert_cmpfloat (cell (out, 1, "t"), ==, 2);
  g_assert_true (isnan (cell (out, 2, "t")));
  g_assert_cmpfloat (cell (out, 2, "mu"), ==, 2);
}

/* Files that do not hold the model's parameters, and a model with
 * nothing to generate, are errors in CmdStan's words; nothing is written. */
static void
test_errors (Fixture *f, gconstpointer unused)
{
  static const char vector_model[] =
    "parameters { vector[2] theta; }\n"
    "model { theta ~ normal (0, 1); }\n"
    "generated quantities { real m = mean (theta); }\n";
  static const char lower_model[] =
    "parameters { real<lower=0> mu; }\n"
    "model { mu ~ normal (0, 1); }\n"
    "generated quantities { real m = mu; }\n";
  g_autofree char *csv = write_file (f->dir, "three.csv", three_draws);
  g_autofree char *wide = write_file (f->dir, "wide.csv",
                                      "lp__,theta.1,theta.2,theta.3\n-1,0.1,0.2,0.3\n");
  g_autofree char *vec = write_file (f->dir, "vector.stan", vector_model);
  g_autofree char *lower = write_file (f->dir, "lower.stan", lower_model);
  g_autofree char *empty = write_file (f->dir, "empty.csv", "lp__,mu\n");
  g_autofree char *ragged = write_file (f->dir, "ragged.csv", "lp__,mu\n-1,0.5,2\n");
  g_auto (Run) missing = { 0 };
  g_auto (Run) sizes = { 0 };
  g_auto (Run) no_gq = { 0 };
  g_auto (Run) outside = { 0 };
  g_auto (Run) no_draws = { 0 };
  g_auto (Run) no_fit = { 0 };
  g_auto (Run) not_csv = { 0 };

  /* the gq model's sigma is not in the file */
  run_tilde (&missing, f->dir, "generate-quantities", f->gq, "--data", f->data,
             "--fitted-params", csv, NULL);
  g_assert_cmpint (missing.status, ==, 1);
  g_assert_nonnull (strstr (missing.err, "Mismatch between model and fitted_parameters csv file"));
  g_assert_nonnull (strstr (missing.err, "\"sigma\""));

  run_tilde (&sizes, f->dir, "generate-quantities", vec, "--fitted-params", wide, NULL);
  g_assert_cmpint (sizes.status, ==, 1);
  g_assert_nonnull (strstr (sizes.err, "Mismatch between model and fitted_parameters csv file"));
  g_assert_nonnull (strstr (sizes.err, "theta.3"));

  run_tilde (&no_gq, f->dir, "generate-quantities", f->fit, "--data", f->data,
             "--fitted-params", csv, NULL);
  g_assert_cmpint (no_gq.status, ==, 1);
  g_assert_nonnull (strstr (no_gq.err, "Model doesn't generate any quantities of interest."));

  /* mu = -1 in the first draw is outside <lower=0> */
  run_tilde (&outside, f->dir, "generate-quantities", lower, "--fitted-params", csv,
             "--output", "out.csv", NULL);
  g_assert_cmpint (outside.status, ==, 1);
  g_assert_nonnull (strstr (outside.err, "three.csv:2:"));

  run_tilde (&no_draws, f->dir, "generate-quantities", lower, "--fitted-params", empty, NULL);
  g_assert_cmpint (no_draws.status, ==, 1);
  g_assert_nonnull (strstr (no_draws.err, "Empty set of draws"));

  run_tilde (&no_fit, f->dir, "generate-quantities", lower, NULL);
  g_assert_cmpint (no_fit.status, ==, 124);
  g_assert_nonnull (strstr (no_fit.err, "--fitted-params"));

  run_tilde (&not_csv, f->dir, "generate-quantities", lower, "--fitted-params", ragged, NULL);
  g_assert_cmpint (not_csv.status, ==, 1);
  g_assert_nonnull (strstr (not_csv.err, "Error reading fitted param names from sample csv file"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/cli/generate/round-trip", Fixture, NULL, fixture_set_up, test_round_trip,
              fixture_tear_down);
  g_test_add ("/cli/generate/seed", Fixture, NULL, fixture_set_up, test_seed, fixture_tear_down);
  g_test_add ("/cli/generate/failing-draw", Fixture, NULL, fixture_set_up, test_failing_draw,
              fixture_tear_down);
  g_test_add ("/cli/generate/errors", Fixture, NULL, fixture_set_up, test_errors,
              fixture_tear_down);
  return g_test_run ();
}
