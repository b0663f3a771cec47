/* SPDX-License-Identifier: GPL-3.0-or-later */
/* NUTS against posteriors known in closed form: standard normals of 1, 10
 * and 100 dimensions, normals of sds 0.01 to 100 after the metric
 * adaptation from gradients, a correlated Gaussian with the dense metric
 * and two conjugate models (after either metric adaptation), and the
 * acceptance the step size adaptation aims at. Means are judged by their
 * Monte Carlo standard error (batch means), so a bound of 4.5 errors
 * fails a correct sampler about once in 150,000. */
#define G_LOG_DOMAIN "tilde-test"

#include <math.h>

#include "infer-test-util.h"

#define Z_BOUND 4.5

static void
assert_mean (const InferTestSummary *s, double truth, const char *what)
{
  double z = (s->mean - truth) / s->mcse;
  if (!(fabs (z) < Z_BOUND))
    g_error ("%s: mean %g, truth %g, mcse %g (z = %.2f)", what, s->mean, truth, s->mcse, z);
}

/* Column `col` of the run divided by `sd` has mean 0 and second moment 1,
 * each judged by its own Monte Carlo error, and its chains agree. */
static void
check_unit_moments (TildeSampleRun *run, gsize col, double sd, const char *what)
{
  gsize per_chain;
  g_autofree double *x = infer_test_draws (run, col, &per_chain);
  g_autofree double *x2 = g_new0 (double, 4 * per_chain);
  g_autofree char *what2 = g_strdup_printf ("%s squared", what);
  InferTestSummary s, s2;

  g_assert_cmpuint (per_chain, ==, 1000);
  for (gsize i = 0; i < 4 * per_chain; i++)
    {
      x[i] /= sd;
      x2[i] = x[i] * x[i];
    }
  infer_test_summarise (x, 4, per_chain, &s);
  infer_test_summarise (x2, 4, per_chain, &s2);
  assert_mean (&s, 0.0, what);
  assert_mean (&s2, 1.0, what2);
  g_assert_cmpfloat (s.rhat, <, 1.01);
}

/* Means 0 and second moments 1 in every coordinate. */
static void
check_standard_normal (guint dims, guint64 seed)
{
  g_autofree char *source = g_strdup_printf ("parameters { vector[%u] x; }\n"
                                             "model { x ~ std_normal(); }\n", dims);
  g_autoptr(TildeModel) model = infer_test_model (source, NULL);
  g_autoptr(TildeSampleRun) run = NULL;
  TildeSampleOptions o;
  gsize first = 0;

  infer_test_options (&o, 4, 1000, 1000, seed);
  run = infer_test_run (model, &o);
  first = infer_test_column (run, "x.1");
  for (guint d = 0; d < dims; d++)
    {
      g_autofree char *what = g_strdup_printf ("x.%u", d + 1);
      check_unit_moments (run, first + d, 1.0, what);
    }
}

static void
test_standard_normal_1 (void)
{
  check_standard_normal (1, 11);
}

static void
test_standard_normal_10 (void)
{
  check_standard_normal (10, 12);
}

static void
test_standard_normal_100 (void)
{
  check_standard_normal (100, 13);
}

/* Ten normals of sds 0.01 to 100 (a factor of 10^(4/9) apart), after the
 * metric adaptation from gradients: x / sd has mean 0 and second moment
 * 1 in every coordinate, and the adapted inverse metric is the variance
 * (exact for a normal: adapt.h). */
static void
test_scaled_normal_gradients (void)
{
  g_autoptr(TildeModel) model = infer_test_model (
    "transformed data { vector[10] sd; for (i in 1:10) sd[i] = 10^(-2 + 4 * (i - 1) / 9.0); }\n"
    "parameters { vector[10] x; }\n"
    "model { x ~ normal(0, sd); }\n", NULL);
  g_autoptr(TildeSampleRun) run = NULL;
  TildeSampleOptions o;
  TildeMetricKind kind;
  gsize first, n;

  infer_test_options (&o, 4, 1000, 1000, 14);
  o.adapt_options.metric_adaptation = TILDE_METRIC_ADAPTATION_GRADIENTS;
  run = infer_test_run (model, &o);
  first = infer_test_column (run, "x.1");
  for (guint c = 0; c < 4; c++)
    {
      const double *inverse = tilde_sample_run_get_inverse_metric (run, c, &kind, &n);
      g_assert_cmpint (kind, ==, TILDE_METRIC_DIAG);
      g_assert_cmpuint (n, ==, 10);
      for (guint d = 0; d < 10; d++)
        {
          double sd = pow (10, -2 + 4 * d / 9.0);
          g_assert_cmpfloat (fabs (inverse[d] / (sd * sd) - 1), <, 1e-8);
        }
    }
  for (guint d = 0; d < 10; d++)
    {
      g_autofree char *what = g_strdup_printf ("x.%u / sd", d + 1);
      check_unit_moments (run, first + d, pow (10, -2 + 4 * d / 9.0), what);
    }
}

/* sd 1 and 2, correlation 0.9: the dense metric's adapted inverse is the
 * posterior covariance (to the error of 500 draws of the last window
 * after Stan's adaptation, to the ridge's 0.1 % after the gradients'), and
 * the draws recover it. */
static void
check_dense_correlated (TildeMetricAdaptation adaptation)
{
  double bound = adaptation == TILDE_METRIC_ADAPTATION_GRADIENTS ? 1e-3 : 0.25;
  const double cov[2][2] = { { 1.0, 1.8 }, { 1.8, 4.0 } };
  g_autoptr(TildeModel) model = infer_test_model (
    "parameters { vector[2] x; }\n"
    "model { x ~ multi_normal([0, 0]', [[1, 1.8], [1.8, 4]]); }\n", NULL);
  g_autoptr(TildeSampleRun) run = NULL;
  g_autofree double *x1 = NULL, *x2 = NULL;
  TildeSampleOptions o;
  TildeMetricKind kind;
  gsize n = 0, per_chain;
  double sum[2][2] = { { 0 } }, m1, m2;

  infer_test_options (&o, 4, 1000, 1000, 21);
  o.metric = TILDE_METRIC_DENSE;
  o.adapt_options.metric_adaptation = adaptation;
  run = infer_test_run (model, &o);
  for (guint c = 0; c < 4; c++)
    {
      const double *inverse = tilde_sample_run_get_inverse_metric (run, c, &kind, &n);
      g_assert_nonnull (inverse);
      g_assert_cmpint (kind, ==, TILDE_METRIC_DENSE);
      g_assert_cmpuint (n, ==, 2);
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
          g_assert_cmpfloat (fabs (inverse[i * 2 + j] - cov[i][j]), <, bound * sqrt (cov[i][i] * cov[j][j]));
    }
  x1 = infer_test_draws (run, infer_test_column (run, "x.1"), &per_chain);
  x2 = infer_test_draws (run, infer_test_column (run, "x.2"), &per_chain);
  m1 = m2 = 0;
  for (gsize i = 0; i < 4 * per_chain; i++)
    m1 += x1[i] / (4 * per_chain), m2 += x2[i] / (4 * per_chain);
  for (gsize i = 0; i < 4 * per_chain; i++)
    {
      double d[2] = { x1[i] - m1, x2[i] - m2 };
      for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
          sum[a][b] += d[a] * d[b] / (4 * per_chain - 1);
    }
  /* about 4000 nearly independent draws: 5 % is four of their errors */
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 2; b++)
      g_assert_cmpfloat (fabs (sum[a][b] - cov[a][b]), <, 0.08 * sqrt (cov[a][a] * cov[b][b]));
}

static void
test_dense_correlated (void)
{
  check_dense_correlated (TILDE_METRIC_ADAPTATION_STAN);
}

static void
test_dense_correlated_gradients (void)
{
  check_dense_correlated (TILDE_METRIC_ADAPTATION_GRADIENTS);
}

/* theta ~ beta(2, 3), 7 successes in 20: the posterior is beta(9, 16),
 * mean 9/25, sd sqrt(9 * 16 / (25^2 * 26)). After either metric
 * adaptation. */
static void
check_beta_binomial (TildeMetricAdaptation adaptation)
{
  g_autoptr(TildeModel) model = infer_test_model (
    "data { int N; int y; }\n"
    "parameters { real<lower=0, upper=1> theta; }\n"
    "model { theta ~ beta(2, 3); y ~ binomial(N, theta); }\n", "{\"N\": 20, \"y\": 7}");
  g_autoptr(TildeSampleRun) run = NULL;
  g_autofree double *theta = NULL;
  TildeSampleOptions o;
  InferTestSummary s;
  gsize per_chain;
  double sd = sqrt (9.0 * 16.0 / (25.0 * 25.0 * 26.0));

  infer_test_options (&o, 4, 1000, 1000, 31);
  o.adapt_options.metric_adaptation = adaptation;
  run = infer_test_run (model, &o);
  theta = infer_test_draws (run, infer_test_column (run, "theta"), &per_chain);
  infer_test_summarise (theta, 4, per_chain, &s);
  assert_mean (&s, 9.0 / 25.0, "theta");
  g_assert_cmpfloat (fabs (s.sd - sd) / sd, <, 0.06);
}

static void
test_beta_binomial (void)
{
  check_beta_binomial (TILDE_METRIC_ADAPTATION_STAN);
}

static void
test_beta_binomial_gradients (void)
{
  check_beta_binomial (TILDE_METRIC_ADAPTATION_GRADIENTS);
}

/* mu ~ normal(1, 2), y_i ~ normal(mu, 1.5): the posterior of mu is normal
 * with precision 1/4 + n/2.25 and mean (1/4 + sum(y)/2.25) / precision. */
static void
test_normal_normal (void)
{
  const double y[] = { 2.1, 3.4, 0.7, 2.9, 1.8 };
  g_autoptr(TildeModel) model = infer_test_model (
    "data { int n; vector[n] y; }\n"
    "parameters { real mu; }\n"
    "model { mu ~ normal(1, 2); y ~ normal(mu, 1.5); }\n",
    "{\"n\": 5, \"y\": [2.1, 3.4, 0.7, 2.9, 1.8]}");
  g_autoptr(TildeSampleRun) run = NULL;
  g_autofree double *mu = NULL;
  TildeSampleOptions o;
  InferTestSummary s;
  gsize per_chain;
  double precision = 0.25 + 5 / 2.25, sum = 0;

  for (int i = 0; i < 5; i++)
    sum += y[i];
  infer_test_options (&o, 4, 1000, 1000, 41);
  run = infer_test_run (model, &o);
  mu = infer_test_draws (run, infer_test_column (run, "mu"), &per_chain);
  infer_test_summarise (mu, 4, per_chain, &s);
  assert_mean (&s, (0.25 * 1 + sum / 2.25) / precision, "mu");
  g_assert_cmpfloat (fabs (s.sd - 1 / sqrt (precision)) * sqrt (precision), <, 0.06);
}

/* Dual averaging steers the acceptance of the step sizes it tries to the
 * target: over the last metric window (warm-up iterations 450 to 949) the
 * mean accept_stat is delta. The final step size, exp(x_bar), averages
 * log step sizes and so comes out smaller than the typical iterate: the
 * acceptance after warm-up is at least delta (as with Stan). The
 * posterior's scales span two orders of magnitude. */
static void
check_acceptance (double delta, double tolerance)
{
  g_autoptr(TildeModel) model = infer_test_model (
    "parameters { vector[10] x; }\n"
    "model { for (i in 1:10) x[i] ~ normal(0, 10 ^ ((i - 5.5) / 4.5)); }\n", NULL);
  g_autoptr(TildeSampleRun) run = NULL;
  TildeSampleOptions o;
  gsize n_columns, rows, warmup, col;
  double window = 0, after = 0;

  infer_test_options (&o, 4, 1000, 1000, 51);
  o.adapt_options.delta = delta;
  o.save_warmup = TRUE;
  run = infer_test_run (model, &o);
  col = infer_test_column (run, "accept_stat__");
  tilde_sample_run_get_column_names (run, &n_columns);
  for (guint c = 0; c < 4; c++)
    {
      const double *table = tilde_sample_run_get_draws (run, c, &rows, &warmup);
      g_assert_cmpuint (warmup, ==, 1000);
      g_assert_cmpuint (rows, ==, 2000);
      for (gsize r = 450; r < 950; r++)
        window += table[r * n_columns + col] / (4 * 500);
      for (gsize r = 1000; r < 2000; r++)
        after += table[r * n_columns + col] / (4 * 1000);
    }
  g_assert_cmpfloat (fabs (window - delta), <, tolerance);
  g_assert_cmpfloat (after, >, delta - tolerance);
}

static void
test_acceptance_near_delta (void)
{
  check_acceptance (0.8, 0.03);
  check_acceptance (0.95, 0.02);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/infer/posterior/standard-normal-1", test_standard_normal_1);
  g_test_add_func ("/infer/posterior/standard-normal-10", test_standard_normal_10);
  g_test_add_func ("/infer/posterior/standard-normal-100", test_standard_normal_100);
  g_test_add_func ("/infer/posterior/dense-correlated", test_dense_correlated);
  g_test_add_func ("/infer/posterior/dense-correlated-gradients", test_dense_correlated_gradients);
  g_test_add_func ("/infer/posterior/beta-binomial", test_beta_binomial);
  g_test_add_func ("/infer/posterior/beta-binomial-gradients", test_beta_binomial_gradients);
  g_test_add_func ("/infer/posterior/scaled-normal-gradients", test_scaled_normal_gradients);
  g_test_add_func ("/infer/posterior/normal-normal", test_normal_normal);
  g_test_add_func ("/infer/posterior/acceptance-near-delta", test_acceptance_near_delta);
  return g_test_run ();
}
