/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Optimising Stan models: modes and lp__ against closed forms with and
 * without the Jacobian, the three algorithms agreeing on real models, the
 * rows and messages CmdStan writes, initial points, and Laplace draws
 * against the exact Gaussian. */
#define G_LOG_DOMAIN "tilde-test"

#include <glib.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime-test-util.h"
#include "scratch.h"
#include "infer/laplace.h"
#include "infer/init.h"
#include "infer/optimize.h"

static const TildeOptimizeAlgorithm algorithms[] = {
  TILDE_OPTIMIZE_LBFGS, TILDE_OPTIMIZE_BFGS, TILDE_OPTIMIZE_NEWTON,
};

typedef struct {
  GPtrArray *lines;   /* messages */
  GArray    *lps;     /* rows' lp__ */
  GPtrArray *points;  /* rows' unconstrained points */
  gsize      n;
} Sink;

static void
sink_init (Sink *s, gsize n)
{
  s->lines = g_ptr_array_new_with_free_func (g_free);
  s->lps = g_array_new (FALSE, FALSE, sizeof (double));
  s->points = g_ptr_array_new_with_free_func (g_free);
  s->n = n;
}

static void
sink_clear (Sink *s)
{
  g_ptr_array_unref (s->lines);
  g_array_unref (s->lps);
  g_ptr_array_unref (s->points);
}

static void
collect_line (const char *line, gpointer user_data)
{
  Sink *s = user_data;
  g_ptr_array_add (s->lines, g_strdup (line));
}

static gboolean
collect_row (double lp, const double *theta, gpointer user_data)
{
  Sink *s = user_data;
  g_array_append_val (s->lps, lp);
  g_ptr_array_add (s->points, g_memdup2 (theta, sizeof (double) * MAX (s->n, 1)));
  return TRUE;
}

static guint
count_lines_with_prefix (const Sink *s, const char *prefix)
{
  guint count = 0;
  for (guint i = 0; i < s->lines->len; i++)
    count += g_str_has_prefix (g_ptr_array_index (s->lines, i), prefix);
  return count;
}

/* Optimises from theta0 and returns the constrained parameters. */
static void
optimise (TildeModel *model, TildeOptimizeAlgorithm algorithm, gboolean jacobian,
          const double *theta0, double *lp, double *constrained, TildeOptimizeResult *result_out)
{
  TildeOptimizeOptions options;
  TildeOptimizeResult result;
  g_autoptr (GError) error = NULL;

  tilde_optimize_options_init (&options);
  options.algorithm = algorithm;
  options.jacobian = jacobian;
  g_assert_true (tilde_optimize_run (model, theta0, &options, NULL, &result));
  g_assert_cmpint (result.outcome, ==, TILDE_OPTIMIZE_NORMAL);
  *lp = result.lp;
  if (constrained)
    g_assert_true (tilde_model_constrain (model, result.theta, FALSE, FALSE, NULL, constrained, NULL));
  if (result_out)
    *result_out = result;
  else
    tilde_optimize_result_clear (&result);
}

/* Optimisation's starting point: no Jacobian, no timing lines. */
static gboolean
initial_point (TildeModel *model, const char *init_path, double radius, gsl_rng *rng,
               TildeInitMessageFunc message, gpointer user_data, double *theta, char **problem)
{
  g_autoptr (TildeInits) inits = NULL;
  g_autofree double *gradient = g_new0 (double, MAX (tilde_model_num_params_unconstrained (model), 1));
  TildeInitOptions options = { .jacobian = FALSE, .report_timing = FALSE };
  double lp;

  if (init_path != NULL)
    {
      g_autoptr (GError) error = NULL;
      inits = tilde_inits_new_from_file (init_path, &error);
      g_assert_no_error (error);
    }
  return tilde_init_find_with (model, inits, radius, rng, &options, theta, &lp, gradient, message,
                               user_data, problem);
}

static void
random_start (TildeModel *model, guint32 seed, double *theta)
{
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  g_autofree char *problem = NULL;

  gsl_rng_set (rng, seed);
  g_assert_true (initial_point (model, NULL, 2.0, rng, NULL, NULL, theta, &problem));
  g_assert_null (problem);
  gsl_rng_free (rng);
}

/* ---- modes and lp__ in closed form ---- */

typedef struct {
  const char *name;
  const char *source;
  const char *data;
  double      mode, lp;            /* without the Jacobian */
  double      mode_jacobian, lp_jacobian;
} ClosedForm;

/* CmdStan's bernoulli example reports lp__ = -5.00402 at theta = 0.2;
 * with the Jacobian of the logit the mode of Beta(3, 9) in log-odds is at
 * 3/12, and lp__ includes log theta (1 - theta). */
static const ClosedForm closed_forms[] = {
  { "bernoulli",
    "data { int N; array[N] int<lower=0, upper=1> y; }\n"
    "parameters { real<lower=0, upper=1> theta; }\n"
    "model { theta ~ beta(1, 1); y ~ bernoulli(theta); }\n",
    "{\"N\": 10, \"y\": [0, 1, 0, 0, 0, 0, 0, 0, 0, 1]}",
    0.2, 0, 0.25, 0 },
  /* Beta(3, 4) prior, 7 of 20: the posterior is Beta(10, 17), whose mode
   * is 9/25; its log-odds have the density of Beta(10, 17) times
   * theta (1 - theta), with mode 10/27. */
  { "beta-binomial",
    "data { int N; int y; }\n"
    "parameters { real<lower=0, upper=1> theta; }\n"
    "model { theta ~ beta(3, 4); y ~ binomial(N, theta); }\n",
    "{\"N\": 20, \"y\": 7}",
    9.0 / 25.0, 0, 10.0 / 27.0, 0 },
  /* lognormal(0.5, 0.8): mode exp(mu - s^2); log sigma is normal(mu, s),
   * with mode exp(mu) and lp__ 0 once the Jacobian log sigma is added. */
  { "lognormal",
    "parameters { real<lower=0> sigma; }\n"
    "model { sigma ~ lognormal(0.5, 0.8); }\n",
    NULL,
    0, 0, 0, 0 },
  /* normal(1, 2) prior on mu, five observations with sd 1.5: the
   * posterior is normal, its mean the precision-weighted average; mu is
   * unconstrained, so the Jacobian changes nothing. */
  { "normal-normal",
    "data { int N; vector[N] y; }\n"
    "parameters { real mu; }\n"
    "model { mu ~ normal(1, 2); y ~ normal(mu, 1.5); }\n",
    "{\"N\": 5, \"y\": [0.3, 2.1, 1.7, -0.4, 0.9]}",
    0, 0, 0, 0 },
};

static void
fill_closed_form (ClosedForm *c)
{
  if (g_str_equal (c->name, "bernoulli"))
    {
      c->lp = 2 * log (0.2) + 8 * log (0.8);
      c->lp_jacobian = 3 * log (0.25) + 9 * log (0.75);
    }
  else if (g_str_equal (c->name, "beta-binomial"))
    {
      c->lp = 9 * log (c->mode) + 16 * log (1 - c->mode);
      c->lp_jacobian = 10 * log (c->mode_jacobian) + 17 * log (1 - c->mode_jacobian);
    }
  else if (g_str_equal (c->name, "lognormal"))
    {
      double mu = 0.5, s = 0.8, m = mu - s * s;
      c->mode = exp (m);
      /* -log sigma - (log sigma - mu)^2 / (2 s^2), constants dropped */
      c->lp = -m - (m - mu) * (m - mu) / (2 * s * s);
      c->mode_jacobian = exp (mu);
      c->lp_jacobian = 0.0;
    }
  else
    {
      static const double y[5] = { 0.3, 2.1, 1.7, -0.4, 0.9 };
      double precision = 1.0 / 4.0 + 5.0 / 2.25, sum = 0, lp = 0;
      for (int i = 0; i < 5; i++)
        sum += y[i];
      c->mode = c->mode_jacobian = (1.0 / 4.0 + sum / 2.25) / precision;
      lp = -0.5 * (c->mode - 1) * (c->mode - 1) / 4.0;
      for (int i = 0; i < 5; i++)
        lp += -0.5 * (y[i] - c->mode) * (y[i] - c->mode) / 2.25;
      c->lp = c->lp_jacobian = lp;
    }
}

static void
test_closed_forms (void)
{
  for (gsize k = 0; k < G_N_ELEMENTS (closed_forms); k++)
    {
      ClosedForm c = closed_forms[k];
      g_autoptr (TildeModel) model = rt_test_model (c.source, c.data);
      double theta0[1], lp, value;

      fill_closed_form (&c);
      random_start (model, 11 + k, theta0);
      for (gsize a = 0; a < G_N_ELEMENTS (algorithms); a++)
        for (int jacobian = 0; jacobian <= 1; jacobian++)
          {
            double mode = jacobian ? c.mode_jacobian : c.mode;
            double expected_lp = jacobian ? c.lp_jacobian : c.lp;

            optimise (model, algorithms[a], jacobian, theta0, &lp, &value, NULL);
            if (!(fabs (value - mode) <= 1e-4 * MAX (1.0, fabs (mode))
                  && fabs (lp - expected_lp) <= 1e-7 * MAX (1.0, fabs (expected_lp))))
              g_error ("%s, %s, jacobian %d: mode %.9g (expected %.9g), lp__ %.12g (expected %.12g)",
                       c.name, tilde_optimize_algorithm_name (algorithms[a]), jacobian, value, mode,
                       lp, expected_lp);
          }
    }
}

/* ---- real models: the three algorithms find one mode ---- */

static TildeModel *
model_from_files (const char *stan, const char *json)
{
  g_autoptr (MirProgram) program = rt_test_mir_from_file (stan);
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeJsonData) data = tilde_json_data_new_from_file (json, &error);
  g_autoptr (GPtrArray) diagnostics = tilde_diagnostic_list_new ();
  TildeModel *model;

  g_assert_no_error (error);
  model = tilde_model_new (program, data, diagnostics);
  g_assert_nonnull (model);
  return model;
}

static void
check_agreement (const char *label, TildeModel *model, gboolean jacobian)
{
  gsize n = tilde_model_num_params_unconstrained (model);
  gsize n_out = tilde_model_num_outputs (model, FALSE, FALSE);
  g_autofree double *theta0 = g_new (double, n);
  g_autofree double *reference = g_new (double, n_out);
  g_autofree double *values = g_new (double, n_out);
  double reference_lp = 0, lp;

  random_start (model, 2024, theta0);
  for (gsize a = 0; a < G_N_ELEMENTS (algorithms); a++)
    {
      optimise (model, algorithms[a], jacobian, theta0, &lp, a == 0 ? reference : values, NULL);
      if (a == 0)
        {
          reference_lp = lp;
          continue;
        }
      if (fabs (lp - reference_lp) > 1e-6 * MAX (1.0, fabs (reference_lp)))
        g_error ("%s: %s lp__ %.10g, lbfgs %.10g", label, tilde_optimize_algorithm_name (algorithms[a]),
                 lp, reference_lp);
      for (gsize i = 0; i < n_out; i++)
        if (fabs (values[i] - reference[i]) > 1e-2 * MAX (1.0, fabs (reference[i])))
          g_error ("%s: %s gives %s = %.8g, lbfgs %.8g", label,
                   tilde_optimize_algorithm_name (algorithms[a]),
                   tilde_model_output_names (model, FALSE, FALSE)[i], values[i], reference[i]);
    }
}

static void
test_examples_agree (void)
{
  static const struct { const char *name; gboolean jacobian; } examples[] = {
    { "logistic_regression", FALSE }, { "poisson_glm", FALSE },
    /* without the Jacobian the density grows without bound as tau -> 0 */
    { "eight_schools", TRUE },
  };
  const char *dir = g_getenv ("TILDE_EXAMPLES_DIR");

  for (gsize e = 0; e < G_N_ELEMENTS (examples); e++)
    {
      g_autofree char *base = g_build_filename (dir, examples[e].name, NULL);
      g_autofree char *stan = g_strconcat (base, ".stan", NULL);
      g_autofree char *json = g_strconcat (base, ".data.json", NULL);
      g_autoptr (TildeModel) model = model_from_files (stan, json);

      check_agreement (examples[e].name, model, examples[e].jacobian);
    }
}

/* Reference posteriors whose modes are well defined and well scaled. (On
 * ridges, garch11 and kidscore_interaction, CmdStan's default relative
 * tolerances stop the quasi-Newton methods short of Newton's answer.) */
static void
test_reference_models_agree (void)
{
  static const char *const names[] = {
    "arK", "blr", "eight_schools_noncentered", "logmesquite_logvas", "mvn_lkj", "negbin_glm",
    "wells_dist",
  };
  const char *dir = g_getenv ("TILDE_REFERENCE_DIR");

  if (dir == NULL || !g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("no reference models");
      return;
    }
  for (gsize k = 0; k < G_N_ELEMENTS (names); k++)
    {
      g_autofree char *stan = g_build_filename (dir, names[k], "model.stan", NULL);
      g_autofree char *json = g_build_filename (dir, names[k], "data.json", NULL);
      g_autoptr (TildeModel) model = model_from_files (stan, json);

      check_agreement (names[k], model, FALSE);
    }
}

/* ---- rows and messages ---- */

static const char bernoulli_source[] =
  "data { int N; array[N] int<lower=0, upper=1> y; }\n"
  "parameters { real<lower=0, upper=1> theta; }\n"
  "model { theta ~ beta(1, 1); y ~ bernoulli(theta); }\n";
static const char bernoulli_data[] = "{\"N\": 10, \"y\": [0, 1, 0, 0, 0, 0, 0, 0, 0, 1]}";

/* CmdStan's console: the initial density, the table header, a row for
 * the last iteration, the two termination lines. */
static void
test_messages (void)
{
  g_autoptr (TildeModel) model = rt_test_model (bernoulli_source, bernoulli_data);
  TildeOptimizeOptions options;
  TildeOptimizeResult result;
  double theta0 = -1.0, lp0;
  g_autofree char *initial = NULL;
  Sink s;
  TildeOptimizeCallbacks callbacks = { collect_line, collect_row, &s, NULL };
  const char *last_row;

  sink_init (&s, 1);
  tilde_optimize_options_init (&options);
  g_assert_true (tilde_optimize_run (model, &theta0, &options, &callbacks, &result));
  lp0 = tilde_model_log_density (model, &theta0, TRUE, FALSE, NULL, NULL);
  initial = g_strdup_printf ("Initial log joint probability = %g", lp0);
  g_assert_cmpstr (g_ptr_array_index (s.lines, 0), ==, initial);
  g_assert_cmpstr (g_ptr_array_index (s.lines, 1), ==,
                   "    Iter      log prob        ||dx||      ||grad||       alpha      alpha0"
                   "  # evals  Notes ");
  g_assert_cmpuint (s.lines->len, ==, 5);
  last_row = g_ptr_array_index (s.lines, 2);
  g_assert_cmpint (atoi (last_row), ==, result.iterations);
  /* the iteration number ends in column 8, as std::setw(7) after a space puts it */
  g_assert_true (g_ascii_isdigit (last_row[7]) && last_row[8] == ' ');
  g_assert_cmpstr (g_ptr_array_index (s.lines, 3), ==, "Optimization terminated normally: ");
  g_assert_cmpstr (g_ptr_array_index (s.lines, 4), ==,
                   "  Convergence detected: relative gradient magnitude is below tolerance");
  g_assert_cmpuint (s.lps->len, ==, 1);
  g_assert_cmpfloat (g_array_index (s.lps, double, 0), ==, result.lp);
  tilde_optimize_result_clear (&result);
  sink_clear (&s);
}

/* With save_iterations: the start and every iterate, each row's lp__ the
 * density at its point; refresh 1 prints a table line per iteration. */
static void
test_save_iterations (void)
{
  g_autoptr (TildeModel) model = rt_test_model (bernoulli_source, bernoulli_data);

  for (gsize a = 0; a < G_N_ELEMENTS (algorithms); a++)
    {
      TildeOptimizeOptions options;
      TildeOptimizeResult result;
      double theta0 = 1.5;
      Sink s;
      TildeOptimizeCallbacks callbacks = { collect_line, collect_row, &s, NULL };

      sink_init (&s, 1);
      tilde_optimize_options_init (&options);
      options.algorithm = algorithms[a];
      options.save_iterations = TRUE;
      options.refresh = 1;
      g_assert_true (tilde_optimize_run (model, &theta0, &options, &callbacks, &result));
      g_assert_cmpuint (s.lps->len, ==, (guint) result.iterations + 1);
      g_assert_cmpfloat (((double *) g_ptr_array_index (s.points, 0))[0], ==, 1.5);
      for (guint r = 1; r < s.lps->len; r++)
        {
          const double *x = g_ptr_array_index (s.points, r);
          double lp = tilde_model_log_density (model, x, TRUE, FALSE, NULL, NULL);
          g_assert_cmpfloat_with_epsilon (g_array_index (s.lps, double, r), lp, 1e-12);
        }
      g_assert_cmpfloat (((double *) g_ptr_array_index (s.points, s.lps->len - 1))[0], ==,
                         result.theta[0]);
      if (algorithms[a] == TILDE_OPTIMIZE_NEWTON)
        g_assert_cmpuint (count_lines_with_prefix (&s, "Iteration "), ==, (guint) result.iterations);
      else
        g_assert_cmpuint (count_lines_with_prefix (&s, "    Iter"), ==, (guint) result.iterations);
      tilde_optimize_result_clear (&result);
      sink_clear (&s);
    }
}

/* Newton's lines read as CmdStan's do, and it stops once the density
 * moves by 1e-8 or less. */
static void
test_newton_messages (void)
{
  g_autoptr (TildeModel) model = rt_test_model (bernoulli_source, bernoulli_data);
  TildeOptimizeOptions options;
  TildeOptimizeResult result;
  double theta0 = 1.5, previous = NAN;
  Sink s;
  TildeOptimizeCallbacks callbacks = { collect_line, NULL, &s, NULL };

  sink_init (&s, 1);
  tilde_optimize_options_init (&options);
  options.algorithm = TILDE_OPTIMIZE_NEWTON;
  g_assert_true (tilde_optimize_run (model, &theta0, &options, &callbacks, &result));
  for (guint i = 1; i < s.lines->len; i++)
    {
      const char *line = g_ptr_array_index (s.lines, i);
      g_autofree char *prefix = g_strdup_printf ("Iteration %2u. Log joint probability = ", i);
      double lp, improved;

      g_assert_true (g_str_has_prefix (line, prefix));
      g_assert_cmpint (sscanf (line + strlen (prefix), "%lf. Improved by %lf.", &lp, &improved), ==, 2);
      if (i > 1)
        g_assert_cmpfloat_with_epsilon (improved, lp - previous, 1e-5 * MAX (1.0, fabs (lp)));
      previous = lp;
      if (i + 1 < s.lines->len)
        g_assert_cmpfloat (fabs (improved), >, 1e-8);
      else
        g_assert_cmpfloat (fabs (improved), <=, 1e-8);
    }
  g_assert_cmpuint (s.lines->len, ==, (guint) result.iterations + 1);
  tilde_optimize_result_clear (&result);
  sink_clear (&s);
}

/* A density that cannot be evaluated a step away from the start: every
 * line search fails. The run ends with an error and CmdStan's message,
 * and what the model said is passed on. */
static void
test_line_search_error (void)
{
  g_autoptr (TildeModel) model = rt_test_model (
    "parameters { real x; }\n"
    "model { if (abs(x - 1) > 1e-7) reject(\"outside\"); target += -square(x); }", NULL);
  TildeOptimizeOptions options;
  TildeOptimizeResult result;
  double theta0 = 1.0;
  Sink s;
  TildeOptimizeCallbacks callbacks = { collect_line, collect_row, &s, NULL };

  sink_init (&s, 1);
  tilde_optimize_options_init (&options);
  g_assert_false (tilde_optimize_run (model, &theta0, &options, &callbacks, &result));
  g_assert_cmpint (result.outcome, ==, TILDE_OPTIMIZE_ERROR);
  g_assert_cmpint (result.code, ==, -1);
  g_assert_cmpstr (g_ptr_array_index (s.lines, s.lines->len - 2), ==, "Optimization terminated with error: ");
  g_assert_cmpstr (g_ptr_array_index (s.lines, s.lines->len - 1), ==,
                   "  Line search failed to achieve a sufficient decrease, no more progress can be made");
  g_assert_cmpuint (count_lines_with_prefix (&s, "Exception: outside (in '"), >, 0);
  for (guint i = 0; i < s.lines->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (s.lines, i), "Exception: outside"))
      {
        g_test_message ("%s", (const char *) g_ptr_array_index (s.lines, i));
        g_assert_true (g_str_has_suffix (g_ptr_array_index (s.lines, i),
                                         ", line 2, column 31 to column 49)"));
      }
  /* the last point is still written */
  g_assert_cmpuint (s.lps->len, ==, 1);
  g_assert_cmpfloat (g_array_index (s.lps, double, 0), ==, -1.0);
  tilde_optimize_result_clear (&result);
  sink_clear (&s);
}

static void
test_cancel (void)
{
  g_autoptr (TildeModel) model = rt_test_model (bernoulli_source, bernoulli_data);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  TildeOptimizeOptions options;
  TildeOptimizeResult result;
  TildeOptimizeCallbacks callbacks = { NULL, NULL, NULL, cancellable };
  double theta0 = 1.5;

  tilde_optimize_options_init (&options);
  g_cancellable_cancel (cancellable);
  g_assert_false (tilde_optimize_run (model, &theta0, &options, &callbacks, &result));
  g_assert_cmpint (result.outcome, ==, TILDE_OPTIMIZE_CANCELLED);
  g_assert_cmpint (result.iterations, ==, 0);
  tilde_optimize_result_clear (&result);
}

/* ---- initial points ---- */

static char *
write_temp (const char *name, const char *text)
{
  g_autofree char *dir = tilde_scratch_folder_new ("tilde-optimize");
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

/* Named parameters start where the file says (on the unconstrained
 * scale, log 0.3 for a positive one); the rest are drawn in (-R, R). */
static void
test_partial_inits (void)
{
  g_autoptr (TildeModel) model = rt_test_model (
    "parameters { real<lower=0> a; vector[2] b; matrix[2, 2] m; }\n"
    "model { a ~ exponential(1); b ~ normal(0, 1); to_vector(m) ~ normal(0, 1); }\n", NULL);
  g_autofree char *path = write_temp ("init.json", "{\"a\": 0.3, \"m\": [[1, 2], [3, 4]]}");
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  g_autofree char *problem = NULL;
  double theta[7];

  gsl_rng_set (rng, 5);
  g_assert_true (initial_point (model, path, 0.5, rng, NULL, NULL, theta, &problem));
  g_assert_null (problem);
  g_assert_cmpfloat_with_epsilon (theta[0], log (0.3), 1e-14);
  for (int i = 1; i < 3; i++)
    g_assert_cmpfloat (fabs (theta[i]), <, 0.5);
  /* a matrix's unconstrained values run down its columns */
  g_assert_cmpfloat (theta[3], ==, 1);
  g_assert_cmpfloat (theta[4], ==, 3);
  g_assert_cmpfloat (theta[5], ==, 2);
  g_assert_cmpfloat (theta[6], ==, 4);
  gsl_rng_free (rng);
}

/* Every point in (-2, 2) has zero density: 100 rejections in CmdStan's
 * words, then the failure. */
static void
test_initialization_fails (void)
{
  g_autoptr (TildeModel) model = rt_test_model (
    "parameters { real x; } model { if (x < 10) target += negative_infinity(); }", NULL);
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  g_autofree char *problem = NULL;
  double theta[1];
  Sink s;

  sink_init (&s, 1);
  g_assert_false (initial_point (model, NULL, 2.0, rng, collect_line, &s, theta, &problem));
  g_assert_cmpstr (problem, ==, "Initialization failed.");
  g_assert_cmpuint (count_lines_with_prefix (&s, "Rejecting initial value:"), ==, 100);
  g_assert_cmpuint (count_lines_with_prefix (&s, "  Log probability evaluates to log(0), i.e. negative infinity."), ==, 100);
  g_assert_cmpstr (g_ptr_array_index (s.lines, s.lines->len - 2), ==,
                   "Initialization between (-2, 2) failed after 100 attempts. ");
  sink_clear (&s);
  gsl_rng_free (rng);
}

/* A full init file gets one try; an error in the model is reported, then
 * CmdStan's closing lines with the one attempt. */
static void
test_init_file_rejected (void)
{
  g_autoptr (TildeModel) model = rt_test_model (
    "parameters { real<lower=0> s; } model { s ~ normal(0, 1); reject(\"never\"); }", NULL);
  g_autofree char *path = write_temp ("init.json", "{\"s\": 1.5}");
  g_autofree char *problem = NULL;
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  double theta[1];
  Sink s;

  sink_init (&s, 1);
  g_assert_false (initial_point (model, path, 2.0, rng, collect_line, &s, theta, &problem));
  g_assert_cmpstr (problem, ==, "Initialization failed.");
  g_assert_cmpuint (count_lines_with_prefix (&s, "Rejecting initial value:"), ==, 1);
  g_assert_cmpuint (count_lines_with_prefix (&s, "  Error evaluating the log probability at the initial value."), ==, 1);
  g_assert_cmpuint (count_lines_with_prefix (&s, "Initialization between (-2, 2) failed after 1 attempts."), ==, 1);
  sink_clear (&s);
  gsl_rng_free (rng);
}

/* ---- the Laplace approximation ---- */

typedef struct {
  gsize         n_draws;
  double        sum[2], sum_sq[3];   /* x1, x2; x1^2, x1 x2, x2^2 */
  const double *mode, *mu, *precision;
  double        worst_p, worst_q;      /* against the closed forms */
} Moments;

/* -(x - c)' P (x - c) / 2 */
static double
gaussian_log_kernel (const double *x, const double *c, const double *p)
{
  double d0 = x[0] - c[0], d1 = x[1] - c[1];
  return -0.5 * (d0 * (p[0] * d0 + p[1] * d1) + d1 * (p[2] * d0 + p[3] * d1));
}

static gboolean
collect_moments (const double *row, gsize n_row, const double *theta, gpointer user_data)
{
  Moments *m = user_data;

  g_assert_cmpuint (n_row, ==, 4);
  m->n_draws++;
  m->sum[0] += row[2];
  m->sum[1] += row[3];
  m->sum_sq[0] += row[2] * row[2];
  m->sum_sq[1] += row[2] * row[3];
  m->sum_sq[2] += row[3] * row[3];
  m->worst_p = MAX (m->worst_p, fabs (row[0] - gaussian_log_kernel (row + 2, m->mu, m->precision)));
  m->worst_q = MAX (m->worst_q, fabs (row[1] - gaussian_log_kernel (row + 2, m->mode, m->precision)));
  return TRUE;
}

/* For a Gaussian posterior the approximation is exact: the Hessian is
 * -Sigma^-1, draws have mean mu and covariance Sigma (within Monte Carlo
 * error), log_p__ is the Gaussian's log kernel (multi_normal's constants
 * are dropped for a data Sigma) and log_q__ the same kernel about the
 * mode found. */
static void
test_laplace_gaussian (void)
{
  g_autoptr (TildeModel) model = rt_test_model (
    "data { vector[2] mu; matrix[2, 2] Sigma; }\n"
    "parameters { vector[2] x; }\n"
    "model { x ~ multi_normal(mu, Sigma); }\n",
    "{\"mu\": [1, -1], \"Sigma\": [[2, 0.6], [0.6, 0.5]]}");
  const double sigma[4] = { 2, 0.6, 0.6, 0.5 }, det = 2 * 0.5 - 0.36;
  const double precision[4] = { 0.5 / det, -0.6 / det, -0.6 / det, 2 / det };
  const double mu[2] = { 1, -1 };
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  g_autoptr (GError) error = NULL;
  double mode[2], hessian[4], lp;
  const int draws = 4000;
  Moments m = { .mode = mode, .mu = mu, .precision = precision };

  gsl_rng_set (rng, 42);
  optimise (model, TILDE_OPTIMIZE_LBFGS, TRUE, (double[]) { 0, 0 }, &lp, mode, NULL);
  g_assert_true (tilde_laplace_hessian (model, mode, TRUE, hessian, &error));
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat_with_epsilon (hessian[i], -precision[i], 1e-6);
  g_assert_true (tilde_laplace_sample (model, mode, TRUE, draws, 0, rng, collect_moments, NULL, &m,
                                       NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (m.n_draws, ==, draws);
  for (int i = 0; i < 2; i++)
    {
      double mean = m.sum[i] / draws, se = sqrt (sigma[i * 3] / draws);
      g_assert_cmpfloat (fabs (mean - mu[i]), <, 4 * se);
    }
  for (int k = 0; k < 3; k++)
    {
      int i = k == 2 ? 1 : 0, j = k == 0 ? 0 : 1;
      double cov = m.sum_sq[k] / draws - (m.sum[i] / draws) * (m.sum[j] / draws);
      /* the sd of a sample covariance: sqrt ((s_ii s_jj + s_ij^2) / N) */
      double se = sqrt ((sigma[i * 2 + i] * sigma[j * 2 + j] + sigma[i * 2 + j] * sigma[i * 2 + j]) / draws);
      g_assert_cmpfloat (fabs (cov - sigma[i * 2 + j]), <, 4 * se);
    }
  g_assert_cmpfloat (m.worst_p, <, 1e-9);
  g_assert_cmpfloat (m.worst_q, <, 1e-5);
  gsl_rng_free (rng);
}

typedef struct {
  gsize  n;
  double sum, sum_sq;
} LogMoments;

static gboolean
collect_log_sigma (const double *row, gsize n_row, const double *theta, gpointer user_data)
{
  LogMoments *m = user_data;
  double v = log (row[2]);

  g_assert_cmpfloat_with_epsilon (v, theta[0], 1e-12);
  m->n++;
  m->sum += v;
  m->sum_sq += v * v;
  return TRUE;
}

/* With the Jacobian, log sigma of a lognormal(0.5, 0.8) is exactly
 * normal(0.5, 0.8): the draws' logs have that mean and sd. */
static void
test_laplace_lognormal (void)
{
  g_autoptr (TildeModel) model = rt_test_model (
    "parameters { real<lower=0> sigma; } model { sigma ~ lognormal(0.5, 0.8); }", NULL);
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  g_autoptr (GError) error = NULL;
  double mode[1], lp, mean, sd;
  LogMoments m = { 0 };
  const int draws = 4000;
  TildeOptimizeResult result;

  gsl_rng_set (rng, 7);
  optimise (model, TILDE_OPTIMIZE_BFGS, TRUE, (double[]) { 1.0 }, &lp, NULL, &result);
  mode[0] = result.theta[0];
  tilde_optimize_result_clear (&result);
  g_assert_cmpfloat_with_epsilon (mode[0], 0.5, 1e-4);
  g_assert_true (tilde_laplace_sample (model, mode, TRUE, draws, 0, rng, collect_log_sigma, NULL, &m,
                                       NULL, &error));
  mean = m.sum / draws;
  sd = sqrt (m.sum_sq / draws - mean * mean);
  g_assert_cmpfloat (fabs (mean - 0.5), <, 4 * 0.8 / sqrt (draws));
  g_assert_cmpfloat (fabs (sd - 0.8), <, 4 * 0.8 / sqrt (2.0 * draws));
  gsl_rng_free (rng);
}

/* At a point that is not a maximum, -H is not positive definite: no draws. */
static void
test_laplace_not_a_maximum (void)
{
  g_autoptr (TildeModel) model = rt_test_model ("parameters { real x; } model { target += x^2; }", NULL);
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  g_autoptr (GError) error = NULL;
  double at[1] = { 0.0 };
  LogMoments m = { 0 };

  g_assert_false (tilde_laplace_sample (model, at, TRUE, 10, 0, rng, collect_log_sigma, NULL, &m,
                                        NULL, &error));
  g_assert_nonnull (strstr (error->message, "not positive definite"));
  g_assert_cmpuint (m.n, ==, 0);
  gsl_rng_free (rng);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/infer/optimize/model/closed-forms", test_closed_forms);
  g_test_add_func ("/infer/optimize/model/examples-agree", test_examples_agree);
  g_test_add_func ("/infer/optimize/model/reference-models-agree", test_reference_models_agree);
  g_test_add_func ("/infer/optimize/model/messages", test_messages);
  g_test_add_func ("/infer/optimize/model/save-iterations", test_save_iterations);
  g_test_add_func ("/infer/optimize/model/newton-messages", test_newton_messages);
  g_test_add_func ("/infer/optimize/model/line-search-error", test_line_search_error);
  g_test_add_func ("/infer/optimize/model/cancel", test_cancel);
  g_test_add_func ("/infer/optimize/init/partial", test_partial_inits);
  g_test_add_func ("/infer/optimize/init/fails", test_initialization_fails);
  g_test_add_func ("/infer/optimize/init/file-rejected", test_init_file_rejected);
  g_test_add_func ("/infer/optimize/laplace/gaussian", test_laplace_gaussian);
  g_test_add_func ("/infer/optimize/laplace/lognormal", test_laplace_lognormal);
  g_test_add_func ("/infer/optimize/laplace/not-a-maximum", test_laplace_not_a_maximum);
  return g_test_run ();
}
