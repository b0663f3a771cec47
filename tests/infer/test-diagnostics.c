/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * MCMC diagnostics against values computed independently of them:
 * data/diagnostics-reference.json (made by make-diagnostics-reference.py,
 * plain Python with direct autocovariance sums), closed forms (the ESS of an
 * AR(1) chain, R-hat of independent chains), hand-worked quantiles and
 * E-BFMI, and autocovariances summed lag by lag.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <json-glib/json-glib.h>
#include <math.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "infer/diagnostics.h"

/* A reference value: a number, or "NaN", "inf", "-inf". */
static double
json_value (JsonNode *node)
{
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      const char *s = json_node_get_string (node);

      if (g_str_equal (s, "NaN"))
        return NAN;
      return g_str_equal (s, "inf") ? INFINITY : -INFINITY;
    }
  return json_node_get_double (node);
}

static void
assert_matches (const char *what, const char *name, double got, double want, double rel)
{
  if (isnan (want))
    {
      if (!isnan (got))
        g_error ("%s %s: expected NaN, got %.17g", what, name, got);
      return;
    }
  if (isinf (want))
    {
      if (got != want)
        g_error ("%s %s: expected %g, got %.17g", what, name, want, got);
      return;
    }
  if (!(fabs (got - want) <= rel * MAX (fabs (want), 1e-300)))
    g_error ("%s %s: expected %.17g, got %.17g (relative error %.3g)", what, name, want, got,
             fabs (got - want) / fabs (want));
}

typedef double (*ChainsFunc) (const double *draws, gsize n_chains, gsize n_draws);

static void
test_reference_cases (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "infer", "data",
                                                 "diagnostics-reference.json", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  JsonArray *cases;
  const struct {
    const char *key;
    ChainsFunc  f;
  } funcs[] = {
    { "rhat", tilde_rhat },
    { "rhat_bulk", tilde_rhat_bulk },
    { "rhat_tail", tilde_rhat_tail },
    { "ess_bulk", tilde_ess_bulk },
    { "ess_tail", tilde_ess_tail },
    { "ess_mean", tilde_ess_mean },
    { "mcse_mean", tilde_mcse_mean },
    { "mcse_sd", tilde_mcse_sd },
  };

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  cases = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "cases");
  g_assert_cmpuint (json_array_get_length (cases), >=, 15);

  for (guint k = 0; k < json_array_get_length (cases); k++)
    {
      JsonObject *c = json_array_get_object_element (cases, k);
      const char *name = json_object_get_string_member (c, "name");
      JsonArray *chains = json_object_get_array_member (c, "draws");
      JsonObject *want = json_object_get_object_member (c, "expected");
      guint n_chains = json_array_get_length (chains);
      guint n_draws = json_array_get_length (json_array_get_array_element (chains, 0));
      g_autofree double *draws = g_new (double, n_chains * n_draws);
      JsonArray *ebfmi = json_object_get_array_member (want, "ebfmi");
      const double probs[] = { 0.05, 0.5, 0.95 };
      const char *q_keys[] = { "q05", "q50", "q95" };
      double q[3];

      for (guint i = 0; i < n_chains; i++)
        {
          JsonArray *chain = json_array_get_array_element (chains, i);

          g_assert_cmpuint (json_array_get_length (chain), ==, n_draws);
          for (guint j = 0; j < n_draws; j++)
            draws[i * n_draws + j] = json_value (json_array_get_element (chain, j));
        }

      for (guint f = 0; f < G_N_ELEMENTS (funcs); f++)
        assert_matches (name, funcs[f].key, funcs[f].f (draws, n_chains, n_draws),
                        json_value (json_object_get_member (want, funcs[f].key)), 1e-9);
      assert_matches (name, "ess_q05", tilde_ess_quantile (draws, n_chains, n_draws, 0.05),
                      json_value (json_object_get_member (want, "ess_q05")), 1e-9);
      assert_matches (name, "ess_q95", tilde_ess_quantile (draws, n_chains, n_draws, 0.95),
                      json_value (json_object_get_member (want, "ess_q95")), 1e-9);
      assert_matches (name, "mean", tilde_draws_mean (draws, n_chains * n_draws),
                      json_value (json_object_get_member (want, "mean")), 1e-12);
      assert_matches (name, "sd", tilde_draws_sd (draws, n_chains * n_draws),
                      json_value (json_object_get_member (want, "sd")), 1e-12);
      tilde_draws_quantiles (draws, n_chains * n_draws, probs, 3, q);
      for (guint i = 0; i < 3; i++)
        assert_matches (name, q_keys[i], q[i], json_value (json_object_get_member (want, q_keys[i])),
                        1e-12);
      for (guint i = 0; i < n_chains; i++)
        assert_matches (name, "ebfmi", tilde_ebfmi (draws + i * n_draws, n_draws),
                        json_value (json_array_get_element (ebfmi, i)), 1e-12);
    }
}

static gsl_rng *
seeded_rng (unsigned long seed)
{
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);

  gsl_rng_set (rng, seed);
  return rng;
}

/* Stationary AR(1) chains with unit marginal variance. */
static double *
ar1_chains (gsl_rng *rng, gsize n_chains, gsize n_draws, double phi)
{
  double *draws = g_new (double, n_chains * n_draws);
  double innovation = sqrt (1 - phi * phi);

  for (gsize c = 0; c < n_chains; c++)
    {
      double x = gsl_ran_gaussian (rng, 1.0);

      for (gsize i = 0; i < n_draws; i++)
        {
          draws[c * n_draws + i] = x;
          x = phi * x + gsl_ran_gaussian (rng, innovation);
        }
    }
  return draws;
}

/* Independent draws: R-hat is 1 + O(1/n). With 8 split chains of n = 1000,
 * R-hat^2 - 1 is about (F - 1) / n with F ~ F(7, 8000) (sd 0.53), so R-hat
 * strays from 1 by about 3e-4: 0.005 is more than 15 sd. The ESS of
 * independent draws is their number; its estimate has a relative sd of
 * about sqrt(2 (2M + 1) / S) for S draws summed over M lags (a few here):
 * under 5% for S = 8000, so 15% is beyond 3 sd. */
static void
test_independent_draws (void)
{
  gsl_rng *rng = seeded_rng (11);
  const gsize C = 4, N = 2000;
  g_autofree double *draws = ar1_chains (rng, C, N, 0.0);
  double S = (double) (C * N);

  g_assert_cmpfloat (fabs (tilde_rhat (draws, C, N) - 1), <, 0.005);
  g_assert_cmpfloat (fabs (tilde_ess_bulk (draws, C, N) / S - 1), <, 0.15);
  g_assert_cmpfloat (fabs (tilde_ess_mean (draws, C, N) / S - 1), <, 0.15);
  /* the tail indicators are independent too */
  g_assert_cmpfloat (fabs (tilde_ess_tail (draws, C, N) / S - 1), <, 0.15);
  /* sd / sqrt(ESS) with sd 1 */
  g_assert_cmpfloat (fabs (tilde_mcse_mean (draws, C, N) * sqrt (S) - 1), <, 0.1);
  /* normal draws: the sd of the sd estimate is sd / sqrt(2 S) */
  g_assert_cmpfloat (fabs (tilde_mcse_sd (draws, C, N) * sqrt (2 * S) - 1), <, 0.1);
  gsl_rng_free (rng);
}

/* The ESS of the mean of an AR(1) chain is S (1 - phi) / (1 + phi). The
 * rank-normalised draws of a Gaussian AR(1) are again (nearly) that chain,
 * so bulk-ESS has the same target. Relative sd of the estimate, as above,
 * sqrt(2 (2M + 1) / S) with M about 12 lags for phi = 0.5 and S = 40000:
 * 3.5%, so 15% is more than 4 sd. */
static void
test_ar1_closed_form (void)
{
  gsl_rng *rng = seeded_rng (2021);
  const gsize C = 4, N = 10000;
  const double phis[] = { 0.5, -0.3 };

  for (guint k = 0; k < G_N_ELEMENTS (phis); k++)
    {
      g_autofree double *draws = ar1_chains (rng, C, N, phis[k]);
      double truth = (double) (C * N) * (1 - phis[k]) / (1 + phis[k]);

      g_test_message ("phi %g: true ESS %g, bulk %g, mean %g", phis[k], truth,
                      tilde_ess_bulk (draws, C, N), tilde_ess_mean (draws, C, N));
      g_assert_cmpfloat (fabs (tilde_ess_bulk (draws, C, N) / truth - 1), <, 0.15);
      g_assert_cmpfloat (fabs (tilde_ess_mean (draws, C, N) / truth - 1), <, 0.15);
      g_assert_cmpfloat (fabs (tilde_rhat (draws, C, N) - 1), <, 0.01);
    }
  gsl_rng_free (rng);
}

/* One chain of four moved by one sd: of the 8 split-chain means two are
 * near 1 and six near 0, a variance of 0.21 against a within-chain variance
 * of 1, so R-hat^2 is about 1 + 0.21 and R-hat about 1.10, far above 1.01.
 * A chain four times as wide moves no mean: bulk R-hat stays near 1 while
 * the folded (tail) R-hat sees it. */
static void
test_nonconvergence_detected (void)
{
  gsl_rng *rng = seeded_rng (7);
  const gsize C = 4, N = 1000;
  g_autofree double *shifted = ar1_chains (rng, C, N, 0.0);
  g_autofree double *scaled = ar1_chains (rng, C, N, 0.0);

  for (gsize i = 0; i < N; i++)
    {
      shifted[3 * N + i] += 1.0;
      scaled[i] *= 4.0;
    }
  g_assert_cmpfloat (tilde_rhat (shifted, C, N), >, 1.05);
  g_assert_cmpfloat (tilde_rhat_bulk (scaled, C, N), <, 1.01);
  g_assert_cmpfloat (tilde_rhat_tail (scaled, C, N), >, 1.05);
  g_assert_cmpfloat (tilde_rhat (scaled, C, N), ==, tilde_rhat_tail (scaled, C, N));
  gsl_rng_free (rng);
}

/* What cannot be assessed is NaN, and nothing reads past the draws. */
static void
test_degenerate_inputs (void)
{
  double constant[40], with_nan[40], few[6];
  ChainsFunc all[] = { tilde_rhat, tilde_rhat_bulk, tilde_rhat_tail, tilde_ess_bulk,
                       tilde_ess_tail, tilde_ess_mean, tilde_mcse_mean, tilde_mcse_sd };

  for (guint i = 0; i < 40; i++)
    {
      constant[i] = 2.5;
      with_nan[i] = sin (i);
    }
  with_nan[13] = NAN;
  for (guint i = 0; i < 6; i++)
    few[i] = i * 0.7 - 1;

  for (guint f = 0; f < G_N_ELEMENTS (all); f++)
    {
      g_assert_true (isnan (all[f] (constant, 4, 10)));
      g_assert_true (isnan (all[f] (with_nan, 4, 10)));
      /* two draws per chain: one per split chain */
      g_assert_true (isnan (all[f] (few, 3, 2)));
      g_assert_true (isnan (all[f] (few, 6, 1)));
      g_assert_true (isnan (all[f] (NULL, 0, 0)));
      g_assert_true (isnan (all[f] (NULL, 4, 0)));
    }
  /* ESS needs three draws per split chain; R-hat two */
  g_assert_true (isnan (tilde_ess_bulk (few, 1, 5)));
  g_assert_false (isnan (tilde_rhat (few, 1, 5)));
  g_assert_true (isnan (tilde_draws_quantile (with_nan, 40, 0.5)));
  g_assert_true (isnan (tilde_draws_quantile (NULL, 0, 0.5)));
  g_assert_true (isnan (tilde_draws_mean (NULL, 0)));
  g_assert_true (isnan (tilde_draws_sd (few, 1)));
  g_assert_true (isnan (tilde_ebfmi (few, 2)));
  g_assert_true (isnan (tilde_ebfmi (constant, 10)));
  g_assert_true (isnan (tilde_ebfmi (with_nan, 40)));
}

/* R's quantile(1:10, c(.05, .5, .95)) is 1.45, 5.5, 9.55 by definition 7;
 * an infinite draw is interpolated towards only when it must be. */
static void
test_quantile_definition (void)
{
  double x[10], q[5];
  const double probs[] = { 0.05, 0.5, 0.95, 0, 1 };
  const double with_inf[] = { 2, INFINITY, 1 };

  for (guint i = 0; i < 10; i++)
    x[i] = 10 - i;
  tilde_draws_quantiles (x, 10, probs, 5, q);
  g_assert_cmpfloat_with_epsilon (q[0], 1.45, 1e-12);
  g_assert_cmpfloat_with_epsilon (q[1], 5.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (q[2], 9.55, 1e-12);
  g_assert_cmpfloat (q[3], ==, 1);
  g_assert_cmpfloat (q[4], ==, 10);
  g_assert_cmpfloat (tilde_draws_quantile (with_inf, 3, 0.5), ==, 2);
  g_assert_cmpfloat (tilde_draws_quantile (with_inf, 3, 0.75), ==, INFINITY);
  g_assert_cmpfloat (tilde_draws_quantile (with_inf, 3, 0.25), ==, 1.5);
}

/* Energy alternating 0, 1, ...: every squared jump is 1, so E-BFMI is
 * (9 / 10) / var with var = 2.5 / 9; an AR(1) energy has E-BFMI near
 * 2 (1 - phi). */
static void
test_ebfmi (void)
{
  double alternating[10];
  gsl_rng *rng = seeded_rng (3);
  g_autofree double *slow = ar1_chains (rng, 1, 20000, 0.9);

  for (guint i = 0; i < 10; i++)
    alternating[i] = i % 2;
  g_assert_cmpfloat_with_epsilon (tilde_ebfmi (alternating, 10), 0.9 / (2.5 / 9), 1e-12);
  g_assert_cmpfloat (fabs (tilde_ebfmi (slow, 20000) - 0.2), <, 0.02);
  gsl_rng_free (rng);
}

/* The FFT autocovariances equal the sums they stand for, at every lag,
 * for lengths that are and are not 2^a 3^b 5^c. */
static void
test_autocovariance_sums (void)
{
  gsl_rng *rng = seeded_rng (99);
  const gsize lengths[] = { 1, 2, 3, 7, 97, 128, 1001 };

  for (guint k = 0; k < G_N_ELEMENTS (lengths); k++)
    {
      gsize n = lengths[k];
      g_autofree double *x = ar1_chains (rng, 1, n, 0.6);
      g_autofree double *acov = g_new (double, n);
      double mean = 0;

      for (gsize i = 0; i < n; i++)
        mean += x[i] / (double) n;
      tilde_autocovariance (x, n, acov);
      for (gsize t = 0; t < n; t++)
        {
          double sum = 0;

          for (gsize i = 0; i + t < n; i++)
            sum += (x[i] - mean) * (x[i + t] - mean);
          g_assert_cmpfloat (fabs (acov[t] - sum / (double) n), <, 1e-12 * MAX (1, acov[0]));
        }
    }
  gsl_rng_free (rng);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/infer/diagnostics/reference-cases", test_reference_cases);
  g_test_add_func ("/infer/diagnostics/independent-draws", test_independent_draws);
  g_test_add_func ("/infer/diagnostics/ar1-closed-form", test_ar1_closed_form);
  g_test_add_func ("/infer/diagnostics/nonconvergence-detected", test_nonconvergence_detected);
  g_test_add_func ("/infer/diagnostics/degenerate-inputs", test_degenerate_inputs);
  g_test_add_func ("/infer/diagnostics/quantile-definition", test_quantile_definition);
  g_test_add_func ("/infer/diagnostics/ebfmi", test_ebfmi);
  g_test_add_func ("/infer/diagnostics/autocovariance-sums", test_autocovariance_sums);
  return g_test_run ();
}
