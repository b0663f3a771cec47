/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `tilde optimize` run as a user runs it: the files it writes against
 * CmdStan's layout and closed-form modes, what it prints, and its errors. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "scratch.h"

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
temp_dir (void)
{
  return g_dir_make_tmp ("tilde-cli-optimize-XXXXXX", NULL);
}

static char *
write_file (const char *dir, const char *name, const char *text)
{
  char *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

/* CmdStan's bernoulli example: two successes in ten trials. */
static const char bernoulli[] =
  "data {\n  int<lower=0> N;\n  array[N] int<lower=0, upper=1> y;\n}\n"
  "parameters {\n  real<lower=0, upper=1> theta;\n}\n"
  "model {\n  theta ~ beta(1, 1);\n  y ~ bernoulli(theta);\n}\n"
  "generated quantities {\n  real odds = theta / (1 - theta);\n}\n";
static const char bernoulli_data[] = "{\"N\": 10, \"y\": [0, 1, 0, 0, 0, 0, 0, 0, 0, 1]}";

typedef struct {
  char      *dir, *model, *data;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer unused)
{
  f->dir = temp_dir ();
  f->model = write_file (f->dir, "bernoulli.stan", bernoulli);
  f->data = write_file (f->dir, "bernoulli.data.json", bernoulli_data);
}

static void
fixture_tear_down (Fixture *f, gconstpointer unused)
{
  tilde_scratch_folder_remove (f->dir);
  g_free (f->dir);
  g_free (f->model);
  g_free (f->data);
}

/* A Stan CSV file: its comment lines and its rows of fields. */
typedef struct {
  GPtrArray *comments;
  GPtrArray *rows;      /* GStrv; the first holds the names */
} Csv;

static void
csv_clear (Csv *csv)
{
  g_clear_pointer (&csv->comments, g_ptr_array_unref);
  g_clear_pointer (&csv->rows, g_ptr_array_unref);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Csv, csv_clear)

static void
csv_read (Csv *csv, const char *path)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  csv->comments = g_ptr_array_new_with_free_func (g_free);
  csv->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    if ((*l)[0] == '#')
      g_ptr_array_add (csv->comments, g_strdup (*l));
    else if ((*l)[0] != '\0')
      g_ptr_array_add (csv->rows, g_strsplit (*l, ",", -1));
}

static gboolean
has_comment (const Csv *csv, const char *line)
{
  for (guint i = 0; i < csv->comments->len; i++)
    if (g_str_equal (g_ptr_array_index (csv->comments, i), line))
      return TRUE;
  return FALSE;
}

static double
field (const Csv *csv, guint row, guint column)
{
  char **fields = g_ptr_array_index (csv->rows, row);
  return g_ascii_strtod (fields[column], NULL);
}

/* lp__ and theta at the mode agree with the closed form, the generated
 * quantity is computed there, and the file reads like CmdStan's. */
static void
test_bernoulli (Fixture *f, gconstpointer unused)
{
  g_autofree char *out = g_build_filename (f->dir, "fit.csv", NULL);
  g_auto (Run) run = { 0 };
  g_auto (Csv) csv = { 0 };
  char **names;

  run_tilde (&run, f->dir, "optimize", f->model, "--data", f->data, "--seed", "4", "--output", out, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.err, ==, "");
  g_assert_nonnull (strstr (run.out, "\nInitial log joint probability = "));
  g_assert_nonnull (strstr (run.out, "\n    Iter      log prob        ||dx||      ||grad||       alpha"
                                     "      alpha0  # evals  Notes \n"));
  g_assert_nonnull (strstr (run.out, "\nOptimization terminated normally: \n  Convergence detected: "));

  csv_read (&csv, out);
  g_assert_true (has_comment (&csv, "# method = optimize"));
  g_assert_true (has_comment (&csv, "#   optimize"));
  g_assert_true (has_comment (&csv, "#     algorithm = lbfgs (Default)"));
  g_assert_true (has_comment (&csv, "#       lbfgs"));
  g_assert_true (has_comment (&csv, "#         init_alpha = 0.001 (Default)"));
  g_assert_true (has_comment (&csv, "#         tol_obj = 1e-12 (Default)"));
  g_assert_true (has_comment (&csv, "#         tol_rel_obj = 10000 (Default)"));
  g_assert_true (has_comment (&csv, "#         tol_grad = 1e-08 (Default)"));
  g_assert_true (has_comment (&csv, "#         tol_rel_grad = 1e+07 (Default)"));
  g_assert_true (has_comment (&csv, "#         tol_param = 1e-08 (Default)"));
  g_assert_true (has_comment (&csv, "#         history_size = 5 (Default)"));
  g_assert_true (has_comment (&csv, "#     jacobian = false (Default)"));
  g_assert_true (has_comment (&csv, "#     iter = 2000 (Default)"));
  g_assert_true (has_comment (&csv, "#     save_iterations = false (Default)"));
  g_assert_true (has_comment (&csv, "# model = bernoulli_model"));
  g_assert_true (has_comment (&csv, "#   seed = 4"));
  g_assert_cmpuint (csv.rows->len, ==, 2);
  names = g_ptr_array_index (csv.rows, 0);
  g_assert_cmpstr (names[0], ==, "lp__");
  g_assert_cmpstr (names[1], ==, "theta");
  g_assert_cmpstr (names[2], ==, "odds");
  g_assert_null (names[3]);
  /* CmdStan reports lp__ = -5.00402 at theta = 0.2 */
  g_assert_cmpfloat_with_epsilon (field (&csv, 1, 0), 2 * log (0.2) + 8 * log (0.8), 1e-5);
  g_assert_cmpfloat_with_epsilon (field (&csv, 1, 1), 0.2, 1e-4);
  g_assert_cmpfloat_with_epsilon (field (&csv, 1, 2), 0.25, 2e-4);
}

/* With the Jacobian of the logit the mode moves to 3/12, and lp__ has the
 * log Jacobian added. Every algorithm finds it. */
static void
test_jacobian_all_algorithms (Fixture *f, gconstpointer unused)
{
  static const char *const algorithms[] = { "lbfgs", "bfgs", "newton" };

  for (gsize a = 0; a < G_N_ELEMENTS (algorithms); a++)
    {
      g_autofree char *out = g_build_filename (f->dir, "jac.csv", NULL);
      g_autofree char *algorithm_line = g_strdup_printf ("#     algorithm = %s%s", algorithms[a],
                                                         a == 0 ? " (Default)" : "");
      g_auto (Run) run = { 0 };
      g_auto (Csv) csv = { 0 };

      run_tilde (&run, f->dir, "optimize", f->model, "--data", f->data, "--jacobian", "--algorithm",
                 algorithms[a], "--seed", "21", "--output", out, NULL);
      g_assert_cmpint (run.status, ==, 0);
      csv_read (&csv, out);
      g_assert_true (has_comment (&csv, algorithm_line));
      g_assert_true (has_comment (&csv, "#     jacobian = true"));
      /* CmdStan's default tolerances leave the mode accurate to about 1e-5 */
      g_assert_cmpfloat_with_epsilon (field (&csv, 1, 0), 3 * log (0.25) + 9 * log (0.75), 1e-5);
      g_assert_cmpfloat_with_epsilon (field (&csv, 1, 1), 0.25, 1e-4);
      if (g_str_equal (algorithms[a], "newton"))
        {
          g_assert_nonnull (strstr (run.out, "\nIteration  1. Log joint probability = "));
          g_assert_false (has_comment (&csv, "#       lbfgs"));
          g_assert_false (has_comment (&csv, "#         tol_obj = 1e-12 (Default)"));
        }
      if (g_str_equal (algorithms[a], "bfgs"))
        g_assert_false (has_comment (&csv, "#         history_size = 5 (Default)"));
    }
}

/* --init 0 starts every parameter at 0 on the unconstrained scale
 * (theta = 1/2): lp__ there is 10 log(1/2). With --save-iterations that
 * start is the first row, and the rows follow the printed table. */
static void
test_save_iterations_from_zero (Fixture *f, gconstpointer unused)
{
  g_autofree char *out = g_build_filename (f->dir, "iters.csv", NULL);
  g_auto (Run) run = { 0 };
  g_auto (Csv) csv = { 0 };
  g_auto (GStrv) lines = NULL;
  int last_iteration = 0;

  run_tilde (&run, f->dir, "optimize", f->model, "--data", f->data, "--init", "0",
             "--save-iterations", "--refresh", "1", "--output", out, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "\nInitial log joint probability = -6.93147\n"));
  csv_read (&csv, out);
  g_assert_true (has_comment (&csv, "# init = 0"));
  g_assert_true (has_comment (&csv, "#     save_iterations = true"));
  g_assert_true (has_comment (&csv, "#   refresh = 1"));
  g_assert_cmpfloat_with_epsilon (field (&csv, 1, 0), 10 * log (0.5), 1e-5);
  g_assert_cmpfloat (field (&csv, 1, 1), ==, 0.5);
  lines = g_strsplit (run.out, "\n", -1);
  for (char **l = lines; *l; l++)
    if (strlen (*l) > 8 && g_ascii_isdigit ((*l)[7]) && (*l)[8] == ' ')
      last_iteration = atoi (*l);
  g_assert_cmpint (last_iteration, >, 1);
  g_assert_cmpuint (csv.rows->len, ==, 1 + last_iteration + 1);
}

/* Laplace draws at the mode on the unconstrained scale: CmdStan's laplace
 * columns, one row per draw, the mode named in the header; the default
 * file name follows the output's. Their log-odds spread as the curvature
 * of Beta(3, 9) in log-odds says: sd 1 / sqrt(N theta (1 - theta) + 2
 * theta (1 - theta)) = 1 / sqrt(12 * 3/16) at theta = 1/4. */
static void
test_laplace (Fixture *f, gconstpointer unused)
{
  g_autofree char *out = g_build_filename (f->dir, "mode.csv", NULL);
  g_autofree char *laplace = g_build_filename (f->dir, "mode_laplace.csv", NULL);
  g_autofree char *mode_line = g_strdup_printf ("#     mode = %s", out);
  g_auto (Run) run = { 0 };
  g_auto (Csv) csv = { 0 };
  char **names;
  double sum = 0, sum_sq = 0, sd;
  const int draws = 2000;

  run_tilde (&run, f->dir, "optimize", f->model, "--data", f->data, "--jacobian", "--seed", "9",
             "--laplace-draws", "2000", "--output", out, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "\nCalculating Hessian\n"));
  g_assert_nonnull (strstr (run.out, "\nGenerating draws\n"));
  csv_read (&csv, laplace);
  g_assert_true (has_comment (&csv, "# method = laplace"));
  g_assert_true (has_comment (&csv, "#   laplace"));
  g_assert_true (has_comment (&csv, mode_line));
  g_assert_true (has_comment (&csv, "#     jacobian = true (Default)"));
  g_assert_true (has_comment (&csv, "#     draws = 2000"));
  names = g_ptr_array_index (csv.rows, 0);
  g_assert_cmpstr (names[0], ==, "log_p__");
  g_assert_cmpstr (names[1], ==, "log_q__");
  g_assert_cmpstr (names[2], ==, "theta");
  g_assert_cmpstr (names[3], ==, "odds");
  g_assert_cmpuint (csv.rows->len, ==, 1 + draws);
  for (int r = 1; r <= draws; r++)
    {
      double theta = field (&csv, r, 2), u = log (theta / (1 - theta));
      g_assert_cmpfloat (theta, >, 0);
      g_assert_cmpfloat (theta, <, 1);
      g_assert_cmpfloat_with_epsilon (field (&csv, r, 3), theta / (1 - theta), 1e-4 * (1 + theta / (1 - theta)));
      g_assert_cmpfloat (field (&csv, r, 1), <=, 0);
      sum += u;
      sum_sq += u * u;
    }
  sd = sqrt (sum_sq / draws - (sum / draws) * (sum / draws));
  g_assert_cmpfloat (fabs (sum / draws - log (1.0 / 3.0)), <, 4 * (1 / sqrt (2.25)) / sqrt (draws));
  g_assert_cmpfloat (fabs (sd - 1 / sqrt (2.25)), <, 4 * (1 / sqrt (2.25)) / sqrt (2.0 * draws));
}

static void
test_usage_errors (Fixture *f, gconstpointer unused)
{
  static const struct { const char *args[4]; const char *says; } cases[] = {
    { { "--algorithm", "simplex", NULL }, "simplex" },
    { { "--algorithm", "bfgs", "--history-size", "3" }, "--history-size" },
    { { "--algorithm", "newton", "--tol-obj", "1e-3" }, "newton" },
    { { "--init", "x.json", "--init-radius", "1" }, "--init-radius" },
    { { "--iter", "0", NULL }, "--iter" },
    { { "--sig-figs", "30", NULL }, "--sig-figs" },
    { { "--laplace-output", "l.csv", NULL }, "--laplace-draws" },
    { { "--no-such-option", NULL }, "no-such-option" },
  };

  for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_auto (Run) run = { 0 };
      const char *const *a = cases[c].args;

      run_tilde (&run, f->dir, "optimize", f->model, "--data", f->data, a[0], a[1], a[2], a[3], NULL);
      g_assert_cmpint (run.status, ==, 124);
      if (strstr (run.err, cases[c].says) == NULL)
        g_error ("case %" G_GSIZE_FORMAT ": '%s' does not mention %s", c, run.err, cases[c].says);
    }
  {
    g_auto (Run) run = { 0 };
    run_tilde (&run, f->dir, "optimize", NULL);
    g_assert_cmpint (run.status, ==, 124);
  }
}

/* Nothing can start in (-2, 2): CmdStan's rejections on standard output,
 * the failure on standard error, no output file. */
static void
test_initialization_failure (Fixture *f, gconstpointer unused)
{
  g_autofree char *model = write_file (f->dir, "wall.stan",
                                       "parameters {\n  real x;\n}\nmodel {\n"
                                       "  if (x < 10) target += negative_infinity();\n}\n");
  g_autofree char *out = g_build_filename (f->dir, "never.csv", NULL);
  g_auto (Run) run = { 0 };

  run_tilde (&run, f->dir, "optimize", model, "--output", out, NULL);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_nonnull (strstr (run.out, "Rejecting initial value:\n  Log probability evaluates to log(0), "
                                     "i.e. negative infinity.\n"));
  g_assert_nonnull (strstr (run.out, "Initialization between (-2, 2) failed after 100 attempts."));
  g_assert_nonnull (strstr (run.err, "Initialization failed."));
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
}

/* Partial inits: the named parameter starts where given. With one
 * iteration allowed the run stops there, saying so. */
static void
test_init_file_and_iteration_limit (Fixture *f, gconstpointer unused)
{
  g_autofree char *model = write_file (f->dir, "two.stan",
                                       "parameters {\n  real<lower=0> s;\n  real m;\n}\nmodel {\n"
                                       "  s ~ lognormal(0, 1);\n  m ~ normal(3, 1);\n}\n");
  g_autofree char *init = write_file (f->dir, "init.json", "{\"s\": 5}");
  g_autofree char *out = g_build_filename (f->dir, "one.csv", NULL);
  g_autofree char *init_line = g_strdup_printf ("# init = %s", init);
  g_auto (Run) run = { 0 };
  g_auto (Csv) csv = { 0 };

  run_tilde (&run, f->dir, "optimize", model, "--init", init, "--seed", "3", "--iter", "1", "--save-iterations",
             "--output", out, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "  Maximum number of iterations hit, may not be at an optima\n"));
  csv_read (&csv, out);
  g_assert_true (has_comment (&csv, init_line));
  g_assert_true (has_comment (&csv, "#     iter = 1"));
  g_assert_cmpuint (csv.rows->len, ==, 3);
  g_assert_cmpfloat (field (&csv, 1, 1), ==, 5);
  g_assert_cmpfloat (fabs (field (&csv, 1, 2)), <, 2);
}

/* An init file that is not there, a model with nothing to optimise, and
 * one whose line searches all fail
 * (the density cannot be evaluated a step away): errors, exit status 1. */
static void
test_run_errors (Fixture *f, gconstpointer unused)
{
  g_autofree char *none = write_file (f->dir, "none.stan", "generated quantities {\n  real x = 1;\n}\n");
  g_autofree char *stuck = write_file (f->dir, "stuck.stan",
                                       "parameters {\n  real x;\n}\nmodel {\n"
                                       "  if (abs(x - 1) > 1e-7) reject(\"outside\");\n"
                                       "  target += -square(x);\n}\n");
  g_autofree char *init = write_file (f->dir, "one.json", "{\"x\": 1}");
  g_autofree char *out = g_build_filename (f->dir, "stuck.csv", NULL);
  g_auto (Run) no_params = { 0 };
  g_auto (Run) failed = { 0 };
  g_auto (Csv) csv = { 0 };

  g_auto (Run) missing_init = { 0 };

  run_tilde (&missing_init, f->dir, "optimize", f->model, "--data", f->data, "--init",
             "/nonexistent/init.json", NULL);
  g_assert_cmpint (missing_init.status, ==, 1);
  g_assert_nonnull (strstr (missing_init.err, "/nonexistent/init.json"));

  run_tilde (&no_params, f->dir, "optimize", none, NULL);
  g_assert_cmpint (no_params.status, ==, 1);
  g_assert_nonnull (strstr (no_params.err, "no parameters"));

  run_tilde (&failed, f->dir, "optimize", stuck, "--init", init, "--output", out, NULL);
  g_assert_cmpint (failed.status, ==, 1);
  g_assert_nonnull (strstr (failed.out, "\nOptimization terminated with error: \n  Line search failed to "
                                        "achieve a sufficient decrease, no more progress can be made\n"));
  g_assert_nonnull (strstr (failed.out, "outside"));
  csv_read (&csv, out);
  g_assert_cmpuint (csv.rows->len, ==, 2);
  g_assert_cmpfloat (field (&csv, 1, 1), ==, 1);
}

/* --sig-figs widens the numbers; --refresh 0 drops the table. */
static void
test_sig_figs_and_refresh (Fixture *f, gconstpointer unused)
{
  g_autofree char *out = g_build_filename (f->dir, "precise.csv", NULL);
  g_auto (Run) run = { 0 };
  g_auto (Csv) csv = { 0 };
  char **row;

  run_tilde (&run, f->dir, "optimize", f->model, "--data", f->data, "--sig-figs", "12", "--refresh", "0",
             "--tol-rel-grad", "1", "--tol-rel-obj", "1", "--seed", "8", "--output", out, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_null (strstr (run.out, "    Iter"));
  g_assert_nonnull (strstr (run.out, "Optimization terminated normally: "));
  csv_read (&csv, out);
  g_assert_true (has_comment (&csv, "#   sig_figs = 12"));
  g_assert_true (has_comment (&csv, "#         tol_rel_grad = 1"));
  row = g_ptr_array_index (csv.rows, 1);
  g_assert_cmpuint (strlen (row[0]), >=, 12);
  g_assert_cmpfloat_with_epsilon (field (&csv, 1, 1), 0.2, 1e-6);
}

static void
test_help (Fixture *f, gconstpointer unused)
{
  g_auto (Run) run = { 0 };

  run_tilde (&run, f->dir, "optimize", "--help", NULL);
  g_assert_cmpint (run.status, ==, 0);
  for (const char *const *o = (const char *const[]) { "--algorithm", "--jacobian", "--laplace-draws",
                                                      "--tol-rel-grad", "--history-size", NULL };
       *o; o++)
    g_assert_nonnull (strstr (run.out, *o));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/cli/optimize/bernoulli", test_bernoulli);
  ADD ("/cli/optimize/jacobian-all-algorithms", test_jacobian_all_algorithms);
  ADD ("/cli/optimize/save-iterations-from-zero", test_save_iterations_from_zero);
  ADD ("/cli/optimize/laplace", test_laplace);
  ADD ("/cli/optimize/usage-errors", test_usage_errors);
  ADD ("/cli/optimize/initialization-failure", test_initialization_failure);
  ADD ("/cli/optimize/init-file-and-iteration-limit", test_init_file_and_iteration_limit);
  ADD ("/cli/optimize/run-errors", test_run_errors);
  ADD ("/cli/optimize/sig-figs-and-refresh", test_sig_figs_and_refresh);
  ADD ("/cli/optimize/help", test_help);
#undef ADD
  return g_test_run ();
}
