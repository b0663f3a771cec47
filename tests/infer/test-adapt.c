/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Warm-up adaptation against Stan's rules worked out by hand, and the
 * metric adaptation from gradients against a posterior whose metric is
 * known. */
#define G_LOG_DOMAIN "tilde-test"

#include <math.h>
#include <string.h>

#include "infer-test-util.h"
#include "infer/adapt.h"
#include "infer/rng.h"

/* Drives the windows over a whole warm-up as the sampler does, recording
 * the iterations (0-based) that close a window and how many draws go
 * into estimates. */
static GArray *
window_ends (guint num_warmup, guint init_buffer, guint term_buffer, guint window,
             guint *collected, char **warning)
{
  TildeAdaptWindows w;
  GArray *ends = g_array_new (FALSE, FALSE, sizeof (guint));

  *warning = tilde_adapt_windows_init (&w, num_warmup, init_buffer, term_buffer, window, "variance");
  *collected = 0;
  for (guint m = 0; m < num_warmup; m++)
    {
      gboolean ended;
      *collected += tilde_adapt_windows_in_window (&w);
      ended = tilde_adapt_windows_end_window (&w);
      if (ended)
        g_array_append_val (ends, m);
      tilde_adapt_windows_advance (&w, ended);
    }
  return ends;
}

static void
assert_ends (GArray *ends, const guint *expected, guint n)
{
  g_assert_cmpuint (ends->len, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpuint (g_array_index (ends, guint, i), ==, expected[i]);
}

/* 1000 iterations: a buffer of 75, then windows of 25, 50, 100 and 200;
 * the next (400, to iteration 849) would leave no room for one of 800
 * before the terminal buffer at 950, so it stretches to 949. */
static void
test_windows_1000 (void)
{
  static const guint expected[] = { 99, 149, 249, 449, 949 };
  g_autofree char *warning = NULL;
  guint collected;
  g_autoptr(GArray) ends = window_ends (1000, 75, 50, 25, &collected, &warning);

  assert_ends (ends, expected, G_N_ELEMENTS (expected));
  g_assert_cmpuint (collected, ==, 950 - 75);
  g_assert_null (warning);
}

/* 150 = 75 + 25 + 50 fits exactly: one window, iterations 75 to 99. */
static void
test_windows_150 (void)
{
  static const guint expected[] = { 99 };
  g_autofree char *warning = NULL;
  guint collected;
  g_autoptr(GArray) ends = window_ends (150, 75, 50, 25, &collected, &warning);

  assert_ends (ends, expected, 1);
  g_assert_cmpuint (collected, ==, 25);
  g_assert_null (warning);
}

/* 149 does not fit: 15 % (22) initial buffer, 10 % (14) terminal buffer,
 * the 113 between them one window, ending at iteration 134. */
static void
test_windows_149 (void)
{
  static const guint expected[] = { 134 };
  g_autofree char *warning = NULL;
  guint collected;
  g_autoptr(GArray) ends = window_ends (149, 75, 50, 25, &collected, &warning);

  assert_ends (ends, expected, 1);
  g_assert_cmpuint (collected, ==, 113);
  g_assert_nonnull (warning);
  g_assert_nonnull (strstr (warning, "There aren't enough warmup iterations to fit the"));
  g_assert_nonnull (strstr (warning, "Reducing each adaptation stage to 15%/75%/10% of"));
  g_assert_nonnull (strstr (warning, "init_buffer = 22"));
  g_assert_nonnull (strstr (warning, "adapt_window = 113"));
  g_assert_nonnull (strstr (warning, "term_buffer = 14"));
}

/* 20: 3 + 15 + 2, one window ending at iteration 17. */
static void
test_windows_20 (void)
{
  static const guint expected[] = { 17 };
  g_autofree char *warning = NULL;
  guint collected;
  g_autoptr(GArray) ends = window_ends (20, 75, 50, 25, &collected, &warning);

  assert_ends (ends, expected, 1);
  g_assert_cmpuint (collected, ==, 15);
  g_assert_nonnull (strstr (warning, "init_buffer = 3"));
}

/* Under 20 iterations nothing is estimated. */
static void
test_windows_19 (void)
{
  g_autofree char *warning = NULL;
  guint collected;
  g_autoptr(GArray) ends = window_ends (19, 75, 50, 25, &collected, &warning);

  g_assert_cmpuint (ends->len, ==, 0);
  g_assert_cmpuint (collected, ==, 0);
  g_assert_cmpstr (warning, ==, "WARNING: No variance estimation is\n"
                                "         performed for num_warmup < 20\n");
}

/* Other buffers: 100 + (50, 100, stretched) + 100 in 600 iterations:
 * ends at 149, 249, then 499 (the window of 200 from 250 would end at 449,
 * and the next of 400 cannot fit before 500). */
static void
test_windows_custom (void)
{
  static const guint expected[] = { 149, 249, 499 };
  g_autofree char *warning = NULL;
  guint collected;
  g_autoptr(GArray) ends = window_ends (600, 100, 100, 50, &collected, &warning);

  assert_ends (ends, expected, G_N_ELEMENTS (expected));
  g_assert_cmpuint (collected, ==, 400);
}

/* With acceptance a known, decreasing function of the step size,
 * accept(e) = 1 / (1 + (e / 2)^2), dual averaging settles where accept is
 * delta: e = 2 sqrt(1 / delta - 1), 1 for delta 0.8. */
static void
test_dual_averaging (void)
{
  const double deltas[] = { 0.8, 0.6, 0.95 };

  for (guint k = 0; k < G_N_ELEMENTS (deltas); k++)
    {
      TildeAdaptOptions o;
      TildeStepsizeAdaptation a;
      double e = 1.0, target = 2 * sqrt (1 / deltas[k] - 1);

      tilde_adapt_options_init (&o);
      o.delta = deltas[k];
      tilde_stepsize_adaptation_init (&a, &o);
      a.mu = log (10 * e);
      for (int t = 0; t < 2000; t++)
        e = tilde_stepsize_adaptation_learn (&a, 1 / (1 + (e / 2) * (e / 2)));
      g_assert_cmpfloat (fabs (tilde_stepsize_adaptation_final (&a) / target - 1), <, 0.02);
    }
}

/* The first iterates by hand: t = 1, accept 1, delta 0.8, t0 10,
 * gamma 0.05, mu = log 10: s_bar = (0.8 - 1) / 11, x = mu - s_bar / 0.05,
 * x_bar = x (weight 1^-0.75 = 1). Acceptances above 1 count as 1. */
static void
test_dual_averaging_by_hand (void)
{
  TildeAdaptOptions o;
  TildeStepsizeAdaptation a;
  double e, s_bar, x, x_bar, x2;

  tilde_adapt_options_init (&o);
  tilde_stepsize_adaptation_init (&a, &o);
  g_assert_cmpfloat (a.mu, ==, log (10.0));
  e = tilde_stepsize_adaptation_learn (&a, 1.7);
  s_bar = (0.8 - 1.0) / 11.0;
  x = log (10.0) - s_bar / 0.05;
  g_assert_cmpfloat (fabs (e - exp (x)), <, 1e-12 * exp (x));
  g_assert_cmpfloat (fabs (tilde_stepsize_adaptation_final (&a) - exp (x)), <, 1e-12 * exp (x));
  /* t = 2, accept 0.5 */
  e = tilde_stepsize_adaptation_learn (&a, 0.5);
  s_bar = (1 - 1.0 / 12) * s_bar + (0.8 - 0.5) / 12;
  x2 = log (10.0) - s_bar * sqrt (2.0) / 0.05;
  x_bar = (1 - pow (2, -0.75)) * x + pow (2, -0.75) * x2;
  g_assert_cmpfloat (fabs (e - exp (x2)), <, 1e-12 * exp (x2));
  g_assert_cmpfloat (fabs (tilde_stepsize_adaptation_final (&a) - exp (x_bar)), <, 1e-12 * exp (x_bar));
  tilde_stepsize_adaptation_restart (&a);
  g_assert_cmpfloat (a.counter, ==, 0);
  g_assert_cmpfloat (a.x_bar, ==, 0);
}

/* Welford's (co)variance against the two-pass formula, regularised as
 * Stan regularises: n / (n + 5) S + 1e-3 * 5 / (n + 5) I. */
static void
test_welford (void)
{
  g_autoptr(TildeWelford) var = tilde_welford_new (3, FALSE);
  g_autoptr(TildeWelford) cov = tilde_welford_new (3, TRUE);
  GRand *rand = g_rand_new_with_seed (5);
  double x[40][3], mean[3] = { 0 }, s[3][3] = { { 0 } }, out_var[3], out_cov[9];
  const int n = 40;

  for (int i = 0; i < n; i++)
    {
      x[i][0] = g_rand_double_range (rand, -1, 1);
      x[i][1] = 3 * x[i][0] + g_rand_double_range (rand, 5, 6);
      x[i][2] = g_rand_double_range (rand, 100, 200);
      tilde_welford_add (var, x[i]);
      tilde_welford_add (cov, x[i]);
      for (int j = 0; j < 3; j++)
        mean[j] += x[i][j] / n;
    }
  g_rand_free (rand);
  for (int i = 0; i < n; i++)
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++)
        s[a][b] += (x[i][a] - mean[a]) * (x[i][b] - mean[b]) / (n - 1);
  tilde_welford_regularised (var, out_var);
  tilde_welford_regularised (cov, out_cov);
  for (int a = 0; a < 3; a++)
    {
      double expected = n / (n + 5.0) * s[a][a] + 1e-3 * 5.0 / (n + 5.0);
      g_assert_cmpfloat (fabs (out_var[a] - expected), <, 1e-10 * expected);
      for (int b = 0; b < 3; b++)
        {
          double e2 = n / (n + 5.0) * s[a][b] + (a == b ? 1e-3 * 5.0 / (n + 5.0) : 0);
          g_assert_cmpfloat (fabs (out_cov[a * 3 + b] - e2), <, 1e-10 * (fabs (e2) + 1));
        }
    }
  /* restarting forgets: with one draw, what was there is only shrunk */
  tilde_welford_restart (var);
  tilde_welford_add (var, x[0]);
  out_var[0] = 2.0;
  tilde_welford_regularised (var, out_var);
  g_assert_cmpfloat (fabs (out_var[0] - (1 / 6.0 * 2.0 + 1e-3 * 5 / 6.0)), <, 1e-15);
}

/* Stan's first step size: from 1, a normal of sd 1e-3 needs steps of
 * about its scale, reached by halving; a normal of sd 1e3 by doubling. */
static double
first_stepsize (double scale)
{
  g_autofree char *source = g_strdup_printf ("parameters { real q; }\n"
                                             "model { q ~ normal(0, %g); }\n", scale);
  g_autoptr(TildeModel) model = infer_test_model (source, NULL);
  g_autoptr(TildeMetric) metric = tilde_metric_new (TILDE_METRIC_DIAG, 1);
  g_autoptr(TildeNuts) nuts = tilde_nuts_new (model, metric, 10);
  g_autofree char *problem = NULL;
  gsl_rng *rng = tilde_rng_new_stream (9, 1);
  double q = 0.3 * scale, gradient = -q / (scale * scale);

  tilde_nuts_set_point (nuts, &q, -0.045, &gradient);
  g_assert_true (tilde_nuts_init_stepsize (nuts, rng, &problem));
  gsl_rng_free (rng);
  return tilde_nuts_get_stepsize (nuts);
}

static void
test_first_stepsize (void)
{
  double small = first_stepsize (1e-3), large = first_stepsize (1e3);

  /* powers of two from 1 */
  g_assert_cmpfloat (fabs (log2 (small) - round (log2 (small))), <, 1e-12);
  g_assert_cmpfloat (small, >, 1e-4);
  g_assert_cmpfloat (small, <, 1e-2);
  g_assert_cmpfloat (large, >, 1e2);
  g_assert_cmpfloat (large, <, 1e4);
}

/* An improper posterior: the step size doubles past 1e7, and Stan's
 * message says why. */
static void
test_first_stepsize_improper (void)
{
  g_autoptr(TildeModel) model = infer_test_model ("parameters { real q; }\n"
                                                  "model { }\n", NULL);
  g_autoptr(TildeMetric) metric = tilde_metric_new (TILDE_METRIC_DIAG, 1);
  g_autoptr(TildeNuts) nuts = tilde_nuts_new (model, metric, 10);
  g_autofree char *problem = NULL;
  gsl_rng *rng = tilde_rng_new_stream (9, 1);
  double q = 0, gradient = 0;

  tilde_nuts_set_point (nuts, &q, 0, &gradient);
  g_assert_false (tilde_nuts_init_stepsize (nuts, rng, &problem));
  gsl_rng_free (rng);
  g_assert_cmpstr (problem, ==, "Posterior is improper. Please check your model.");
}

static void
test_metric_adaptation_names (void)
{
  TildeMetricAdaptation a = TILDE_METRIC_ADAPTATION_STAN;

  g_assert_true (tilde_metric_adaptation_parse ("gradients", &a));
  g_assert_cmpint (a, ==, TILDE_METRIC_ADAPTATION_GRADIENTS);
  g_assert_cmpstr (tilde_metric_adaptation_name (a), ==, "gradients");
  g_assert_true (tilde_metric_adaptation_parse ("stan", &a));
  g_assert_cmpint (a, ==, TILDE_METRIC_ADAPTATION_STAN);
  g_assert_cmpstr (tilde_metric_adaptation_name (a), ==, "stan");
  g_assert_false (tilde_metric_adaptation_parse ("fisher", &a));
  g_assert_false (tilde_metric_adaptation_parse ("", &a));
  g_assert_cmpint (a, ==, TILDE_METRIC_ADAPTATION_STAN);
}

/* A chain on `source` (three parameters) driven as the sampler drives
 * it, from q = (0.02, -1.5, 50), with 1000 warm-up iterations: the
 * inverse metric (3 values, or 9 for the dense metric) after
 * tilde_adapter_start (`start`), at the end of the first 30 % (`early`),
 * after the last update (`fixed`) and at the end. */
static void
drive_adaptation_of (TildeMetricKind kind, const char *source, TildeMetricAdaptation adaptation,
                     guint64 seed, double *start, double *early, double *fixed, double *end,
                     double *stepsize)
{
  g_autoptr(TildeModel) model = infer_test_model (source, NULL);
  g_autoptr(TildeMetric) metric = tilde_metric_new (kind, 3);
  gsize size = sizeof (double) * (kind == TILDE_METRIC_DENSE ? 9 : 3);
  g_autoptr(TildeNuts) nuts = tilde_nuts_new (model, metric, 10);
  g_autoptr(TildeAdapter) adapter = NULL;
  g_autofree char *warning = NULL, *problem = NULL;
  gsl_rng *rng = tilde_rng_new_stream (seed, 1);
  double q[3] = { 0.02, -1.5, 50 }, g[3], lp;
  TildeAdaptOptions o;
  TildeNutsStats stats;

  lp = tilde_model_log_density (model, q, TRUE, TRUE, g, NULL);
  g_assert_true (isfinite (lp));
  tilde_nuts_set_point (nuts, q, lp, g);
  tilde_adapt_options_init (&o);
  o.metric_adaptation = adaptation;
  adapter = tilde_adapter_new (metric, &o, 1000, 1.0, &warning);
  g_assert_null (warning);
  tilde_adapter_start (adapter, nuts);
  memcpy (start, metric->inverse, size);
  g_assert_true (tilde_nuts_init_stepsize (nuts, rng, &problem));
  for (guint m = 0; m < 1000; m++)
    {
      tilde_nuts_transition (nuts, rng, &stats);
      g_assert_true (tilde_adapter_learn (adapter, nuts, rng, stats.accept_stat, &problem));
      if (m == 299)
        memcpy (early, metric->inverse, size);
      if (m == 849)
        memcpy (fixed, metric->inverse, size);
    }
  tilde_adapter_finish (adapter, nuts);
  memcpy (end, metric->inverse, size);
  *stepsize = tilde_nuts_get_stepsize (nuts);
  gsl_rng_free (rng);
}

static void
drive_adaptation (const char *source, TildeMetricAdaptation adaptation, guint64 seed, double start[3],
                  double early[3], double fixed[3], double end[3], double *stepsize)
{
  drive_adaptation_of (TILDE_METRIC_DIAG, source, adaptation, seed, start, early, fixed, end, stepsize);
}

#define NORMALS "parameters { vector[3] q; }\nmodel { q ~ normal(0, [0.01, 1, 100]'); }\n"

/* Independent normals of sd 0.01, 1 and 100. There the gradient is
 * -q / sd^2, so Var g = Var q / sd^4 and sqrt (Var q / Var g) is the
 * variance, the ideal inverse metric, from any three draws or more: the
 * estimate is exact long before the end of the first 30 %. It starts at
 * 1 / |gradient| = sd^2 / |q|. */
static void
test_gradients_normal (void)
{
  static const double sd[3] = { 0.01, 1, 100 };
  static const double q[3] = { 0.02, -1.5, 50 };

  for (guint64 seed = 1; seed <= 3; seed++)
    {
      double start[3], early[3], fixed[3], end[3], stepsize;

      drive_adaptation (NORMALS, TILDE_METRIC_ADAPTATION_GRADIENTS, seed, start, early, fixed, end, &stepsize);
      for (int i = 0; i < 3; i++)
        {
          double variance = sd[i] * sd[i], first = variance / fabs (q[i]);
          g_assert_cmpfloat (fabs (start[i] - first), <, 1e-12 * first);
          g_assert_cmpfloat (fabs (early[i] - variance), <, 1e-9 * variance);
          g_assert_cmpfloat (fabs (end[i] - variance), <, 1e-9 * variance);
        }
      /* a standard normal once scaled: dual averaging to delta 0.8 in 3
       * dimensions ends near a step of 0.9 */
      g_assert_cmpfloat (stepsize, >, 0.5);
      g_assert_cmpfloat (stepsize, <, 1.5);
    }
}

/* Student-t of 5 degrees of freedom and scales 0.01, 1, 100: the estimate
 * now depends on the draws, so it moves while it learns, stays put over
 * the last 15 % of the warm-up, and lands near the scale^2 times the
 * value for a unit t5, sqrt (Var q / Var g) = sqrt ((5/3) / (6/8)) = 1.49
 * (a unit t's Var q = nu / (nu - 2) and Var g = (nu + 1) / (nu + 3)). */
static void
test_gradients_schedule (void)
{
  static const double scale[3] = { 0.01, 1, 100 };
  const double unit = sqrt ((5.0 / 3.0) / (6.0 / 8.0));

  for (guint64 seed = 1; seed <= 3; seed++)
    {
      double start[3], early[3], fixed[3], end[3], stepsize;

      drive_adaptation ("parameters { vector[3] q; }\n"
                        "model { q ~ student_t(5, 0, [0.01, 1, 100]'); }\n",
                        TILDE_METRIC_ADAPTATION_GRADIENTS, seed, start, early, fixed, end, &stepsize);
      for (int i = 0; i < 3; i++)
        {
          double ideal = unit * scale[i] * scale[i];
          g_test_message ("seed %" G_GUINT64_FORMAT ", scale %g: %.3f of the ideal", seed, scale[i], end[i] / ideal);
          g_assert_cmpfloat (early[i], !=, fixed[i]);
          g_assert_cmpfloat (end[i], ==, fixed[i]);
          /* 80 to 160 draws of heavy tails: within a factor of 2 */
          g_assert_cmpfloat (end[i] / ideal, >, 0.5);
          g_assert_cmpfloat (end[i] / ideal, <, 2.0);
        }
    }
}

/* A correlated normal (sds 0.01, 1, 100; correlations 0.9, -0.3, -0.2)
 * with the dense metric: the estimate from gradients, the geometric mean
 * S # G^-1, is the covariance but for the ridge's effect (1e-3 * 5 /
 * (n + 5) of the diagonals; it moves the estimate by up to 0.34 % of
 * sd_i sd_j after 10 draws, at the end of the first 30 % of the
 * warm-up, and 0.013 % after 80 to 160, at the end), where Monte Carlo
 * error alone would be some 10 %. It starts at diag (1 / |gradient|). */
static void
test_gradients_dense_normal (void)
{
  static const double sd[3] = { 0.01, 1, 100 };
  static const double rho[3][3] = { { 1, 0.9, -0.3 }, { 0.9, 1, -0.2 }, { -0.3, -0.2, 1 } };
  g_autofree char *source = g_strdup_printf (
    "parameters { vector[3] q; }\n"
    "model { q ~ multi_normal([0, 0, 0]', [[%.17g, %.17g, %.17g], [%.17g, %.17g, %.17g], "
    "[%.17g, %.17g, %.17g]]); }\n",
    sd[0] * sd[0], 0.9 * sd[0] * sd[1], -0.3 * sd[0] * sd[2],
    0.9 * sd[1] * sd[0], sd[1] * sd[1], -0.2 * sd[1] * sd[2],
    -0.3 * sd[2] * sd[0], -0.2 * sd[2] * sd[1], sd[2] * sd[2]);

  for (guint64 seed = 1; seed <= 3; seed++)
    {
      double start[9], early[9], fixed[9], end[9], stepsize;

      drive_adaptation_of (TILDE_METRIC_DENSE, source, TILDE_METRIC_ADAPTATION_GRADIENTS, seed, start, early,
                           fixed, end, &stepsize);
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          {
            double cov = rho[i][j] * sd[i] * sd[j], scale = sd[i] * sd[j];
            if (i != j)
              g_assert_cmpfloat (start[i * 3 + j], ==, 0);
            g_assert_cmpfloat (fabs (early[i * 3 + j] - cov), <, 1e-2 * scale);
            g_assert_cmpfloat (fabs (end[i * 3 + j] - cov), <, 1e-3 * scale);
            g_assert_cmpfloat (end[i * 3 + j], ==, fixed[i * 3 + j]);
          }
      g_assert_cmpfloat (stepsize, >, 0.5);
      g_assert_cmpfloat (stepsize, <, 1.5);
    }
}

/* Warm-ups of 1 to 4 iterations: the step size after the gradients'
 * adaptation is the dual average of at least one iteration after the last
 * search, not the 1 a restart leaves (it was, with 2 or 3, when the metric
 * was fixed on the last iteration). */
static void
test_gradients_short_warmup (void)
{
  g_autoptr(TildeModel) model = infer_test_model (NORMALS, NULL);

  for (guint warmup = 1; warmup <= 4; warmup++)
    {
      g_autoptr(TildeSampleRun) run = NULL;
      TildeSampleOptions o;
      double stepsize;

      infer_test_options (&o, 1, warmup, 10, 5);
      o.adapt_options.metric_adaptation = TILDE_METRIC_ADAPTATION_GRADIENTS;
      run = infer_test_run (model, &o);
      stepsize = tilde_sample_run_get_chain_result (run, 0)->stepsize;
      g_test_message ("warm-up %u: step size %g", warmup, stepsize);
      g_assert_true (isfinite (stepsize) && stepsize > 0);
      g_assert_cmpfloat (stepsize, !=, 1.0);
    }
}

/* Stan's adaptation does not start from the gradient, and its last window
 * closes at iteration 949, after the last update of the gradients' one. */
static void
test_stan_adaptation_start (void)
{
  double start[3], early[3], fixed[3], end[3], stepsize;

  drive_adaptation (NORMALS, TILDE_METRIC_ADAPTATION_STAN, 1, start, early, fixed, end, &stepsize);
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat (start[i], ==, 1.0);
  g_assert_true (end[0] != fixed[0] && end[1] != fixed[1] && end[2] != fixed[2]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/infer/adapt/windows-1000", test_windows_1000);
  g_test_add_func ("/infer/adapt/windows-150", test_windows_150);
  g_test_add_func ("/infer/adapt/windows-149", test_windows_149);
  g_test_add_func ("/infer/adapt/windows-20", test_windows_20);
  g_test_add_func ("/infer/adapt/windows-19", test_windows_19);
  g_test_add_func ("/infer/adapt/windows-custom", test_windows_custom);
  g_test_add_func ("/infer/adapt/dual-averaging", test_dual_averaging);
  g_test_add_func ("/infer/adapt/dual-averaging-by-hand", test_dual_averaging_by_hand);
  g_test_add_func ("/infer/adapt/welford", test_welford);
  g_test_add_func ("/infer/adapt/first-stepsize", test_first_stepsize);
  g_test_add_func ("/infer/adapt/first-stepsize-improper", test_first_stepsize_improper);
  g_test_add_func ("/infer/adapt/metric-adaptation-names", test_metric_adaptation_names);
  g_test_add_func ("/infer/adapt/gradients-normal", test_gradients_normal);
  g_test_add_func ("/infer/adapt/gradients-schedule", test_gradients_schedule);
  g_test_add_func ("/infer/adapt/gradients-dense-normal", test_gradients_dense_normal);
  g_test_add_func ("/infer/adapt/gradients-short-warmup", test_gradients_short_warmup);
  g_test_add_func ("/infer/adapt/stan-start", test_stan_adaptation_start);
  return g_test_run ();
}
