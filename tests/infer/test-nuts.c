/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One NUTS transition followed step by step, and how the sampler meets
 * model errors. */
#define G_LOG_DOMAIN "tilde-test"

#include <math.h>
#include <string.h>

#include "infer-test-util.h"
#include "infer/nuts.h"
#include "infer/rng.h"

/* ---- a generator that plays back given uniforms ---- */

typedef struct {
  const double *values;
  guint         n, next;
} Script;

static Script *script;   /* the playing script (tests run one at a time) */

static void
script_set (void *state, unsigned long seed)
{
}

static double
script_get_double (void *state)
{
  g_assert_nonnull (script);
  g_assert_cmpuint (script->next, <, script->n);
  return script->values[script->next++];
}

static unsigned long
script_get (void *state)
{
  return (unsigned long) (script_get_double (state) * 4294967296.0);
}

static const gsl_rng_type script_type = {
  "script", 4294967295UL, 0, 1, script_set, script_get, script_get_double,
};

/*
 * 1-D standard normal (V = q^2 / 2), unit metric, step 0.5, from q = 0
 * with momentum 1. The leapfrog steps are exact in binary:
 *
 *   k   q                p                 exp(H0 - H_k)
 *   1   0.5              0.875             0.99222
 *   2   0.875            0.53125           0.97636
 *   3   1.03125          0.0546875         0.96731
 *   4   0.9296875       -0.435546875       0.97335
 *   5   0.595703125     -0.81689453125     0.98897
 *   6   0.11279296875   -0.9940185546875   0.99960
 *   7  -0.3983154296875 -0.922637939453125 0.99505
 *
 * Every direction is forward (uniform 0.9 > 0.5). Depth 0 adds z1; depth 1
 * adds {z2, z3}; depth 2 adds {z4 .. z7}, in which every half keeps its
 * momenta's sign, so the subtree is valid; then the summed momentum of
 * z0 .. z7 is negative while p0 > 0: the trajectory has turned, depth 3,
 * 7 leapfrog steps, accept_stat the mean of the seven weights.
 *
 * The draws, in the order the sampler asks for them:
 *   0.9  forward
 *   0.5  top level, {z1} (weight 0.99222 against 1): taken
 *   0.9  forward
 *   0.3  in {z2, z3}: z3 with probability w3 / (w2 + w3) = 0.4977: z3
 *   0.2  top level: (w2 + w3) / (1 + w1) = 0.9757: taken, the draw is z3
 *   0.9  forward
 *   0.9  in {z4, z5}: w5 / (w4 + w5) = 0.504: stays z4
 *   0.1  in {z6, z7}: w7 / (w6 + w7) = 0.4989: z7
 *   0.6  merging them: (w6 + w7) / (w4 + .. + w7) = 0.504: stays z4
 *        top level: w4 + .. + w7 = 3.957 exceeds w0 + .. + w3 = 3.936, so
 *        z4 is taken without a draw.
 * The draw is z4: lp = -q4^2 / 2, energy H(z4).
 */
static void
test_tree_by_hand (void)
{
  static const double uniforms[] = { 0.9, 0.5, 0.9, 0.3, 0.2, 0.9, 0.9, 0.1, 0.6 };
  static const double q[] = { 0, 0.5, 0.875, 1.03125, 0.9296875, 0.595703125, 0.11279296875,
                              -0.3983154296875 };
  static const double p[] = { 1, 0.875, 0.53125, 0.0546875, -0.435546875, -0.81689453125,
                              -0.9940185546875, -0.922637939453125 };
  g_autoptr(TildeModel) model = infer_test_model ("parameters { real q; }\n"
                                                  "model { q ~ std_normal(); }\n", NULL);
  g_autoptr(TildeMetric) metric = tilde_metric_new (TILDE_METRIC_UNIT, 1);
  g_autoptr(TildeNuts) nuts = tilde_nuts_new (model, metric, 10);
  Script s = { uniforms, G_N_ELEMENTS (uniforms), 0 };
  gsl_rng *rng = gsl_rng_alloc (&script_type);
  double q0 = 0, gradient0 = 0, momentum = 1, mean_weight = 0, H0 = 0.5;
  TildeNutsStats stats;

  for (int k = 1; k <= 7; k++)
    mean_weight += MIN (1, exp (H0 - 0.5 * (q[k] * q[k] + p[k] * p[k]))) / 7;
  script = &s;
  tilde_nuts_set_point (nuts, &q0, 0.0, &gradient0);
  tilde_nuts_set_stepsize (nuts, 0.5);
  tilde_nuts_transition_from (nuts, rng, &momentum, &stats);
  script = NULL;
  gsl_rng_free (rng);

  g_assert_cmpuint (s.next, ==, s.n);
  g_assert_cmpuint (stats.treedepth, ==, 3);
  g_assert_cmpuint (stats.n_leapfrog, ==, 7);
  g_assert_false (stats.divergent);
  g_assert_cmpfloat (tilde_nuts_get_position (nuts)[0], ==, q[4]);
  g_assert_cmpfloat (stats.lp, ==, -0.5 * q[4] * q[4]);
  g_assert_cmpfloat (stats.energy, ==, 0.5 * (q[4] * q[4] + p[4] * p[4]));
  g_assert_cmpfloat (fabs (stats.accept_stat - mean_weight), <, 1e-15);
  g_assert_cmpfloat (stats.stepsize, ==, 0.5);
  g_assert_cmpuint (tilde_nuts_get_gradient_count (nuts), ==, 7);
}

/* With a maximum depth of 2 the same trajectory stops after depth 2 (3
 * steps), before its U-turn could be seen. */
static void
test_max_depth (void)
{
  static const double uniforms[] = { 0.9, 0.5, 0.9, 0.3, 0.2 };
  g_autoptr(TildeModel) model = infer_test_model ("parameters { real q; }\n"
                                                  "model { q ~ std_normal(); }\n", NULL);
  g_autoptr(TildeMetric) metric = tilde_metric_new (TILDE_METRIC_UNIT, 1);
  g_autoptr(TildeNuts) nuts = tilde_nuts_new (model, metric, 2);
  Script s = { uniforms, G_N_ELEMENTS (uniforms), 0 };
  gsl_rng *rng = gsl_rng_alloc (&script_type);
  double q0 = 0, gradient0 = 0, momentum = 1;
  TildeNutsStats stats;

  script = &s;
  tilde_nuts_set_point (nuts, &q0, 0.0, &gradient0);
  tilde_nuts_set_stepsize (nuts, 0.5);
  tilde_nuts_transition_from (nuts, rng, &momentum, &stats);
  script = NULL;
  gsl_rng_free (rng);
  g_assert_cmpuint (s.next, ==, s.n);
  g_assert_cmpuint (stats.treedepth, ==, 2);
  g_assert_cmpuint (stats.n_leapfrog, ==, 3);
  g_assert_cmpfloat (tilde_nuts_get_position (nuts)[0], ==, 1.03125);
}

/* A step of 100 on a standard normal: the first leapfrog step's energy
 * error is far above 1000, so the transition stops there, divergent,
 * keeping the starting point; accept_stat is that step's (zero) weight. */
static void
test_divergence (void)
{
  g_autoptr(TildeModel) model = infer_test_model ("parameters { real q; }\n"
                                                  "model { q ~ std_normal(); }\n", NULL);
  g_autoptr(TildeMetric) metric = tilde_metric_new (TILDE_METRIC_DIAG, 1);
  g_autoptr(TildeNuts) nuts = tilde_nuts_new (model, metric, 10);
  gsl_rng *rng = tilde_rng_new_stream (1, 1);
  double q0 = 0.5, gradient0 = -0.5, momentum = 1;
  TildeNutsStats stats;

  tilde_nuts_set_point (nuts, &q0, -0.125, &gradient0);
  tilde_nuts_set_stepsize (nuts, 100);
  tilde_nuts_transition_from (nuts, rng, &momentum, &stats);
  gsl_rng_free (rng);
  g_assert_true (stats.divergent);
  g_assert_cmpuint (stats.treedepth, ==, 0);
  g_assert_cmpuint (stats.n_leapfrog, ==, 1);
  g_assert_cmpfloat (stats.accept_stat, <, 1e-300);
  g_assert_cmpfloat (tilde_nuts_get_position (nuts)[0], ==, 0.5);
  g_assert_cmpfloat (stats.lp, ==, -0.125);
}

/* A model error at a proposed point is a rejection, reported with the
 * model's message, and the step counts as divergent (its energy is
 * infinite, as in Stan). */
typedef struct {
  guint  count;
  char  *first;
} Rejections;

static void
on_reject (const TildeModelError *error, gpointer data)
{
  Rejections *r = data;
  if (r->count++ == 0)
    r->first = g_strdup (error->message);
}

static void
test_model_error_rejects (void)
{
  g_autoptr(TildeModel) model = infer_test_model (
    "parameters { real q; }\n"
    "model { q ~ normal(0, 1); if (q > 1) reject(\"q is too large: \", q); }\n", NULL);
  g_autoptr(TildeMetric) metric = tilde_metric_new (TILDE_METRIC_DIAG, 1);
  g_autoptr(TildeNuts) nuts = tilde_nuts_new (model, metric, 10);
  gsl_rng *rng = tilde_rng_new_stream (7, 1);
  double q0 = 0.9, gradient0 = -0.9, momentum = 3;
  Rejections r = { 0 };
  TildeNutsStats stats;

  tilde_nuts_set_reject_func (nuts, on_reject, &r);
  tilde_nuts_set_point (nuts, &q0, -0.405, &gradient0);
  tilde_nuts_set_stepsize (nuts, 0.5);
  /* forward or backward, the trajectory crosses q = 1 within a few steps */
  for (int i = 0; i < 20 && r.count == 0; i++)
    tilde_nuts_transition_from (nuts, rng, &momentum, &stats);
  gsl_rng_free (rng);
  g_assert_cmpuint (r.count, >, 0);
  g_assert_true (stats.divergent);
  g_assert_nonnull (strstr (r.first, "q is too large"));
  g_assert_cmpfloat (tilde_nuts_get_position (nuts)[0], <=, 1.0);
  g_free (r.first);
}

/* Momenta have covariance M: with a dense inverse metric S, p ~ N(0, S^-1),
 * so that p' S p is chi-square with n degrees of freedom. */
static void
test_dense_momenta (void)
{
  const double inverse[] = { 2.0, 0.6, 0.6, 0.5 };   /* S */
  g_autoptr(TildeMetric) metric = tilde_metric_new (TILDE_METRIC_DENSE, 2);
  gsl_rng *rng = tilde_rng_new_stream (3, 1);
  double p[2], v[2], mean = 0, c01 = 0;
  const double det = 2.0 * 0.5 - 0.36;
  const int n = 100000;

  g_assert_true (tilde_metric_set_inverse (metric, inverse));
  for (int i = 0; i < n; i++)
    {
      tilde_metric_sample_momentum (metric, rng, p);
      tilde_metric_velocity (metric, p, v);
      mean += 2 * tilde_metric_kinetic (metric, p, v) / n;
      c01 += p[0] * p[1] / n;
    }
  gsl_rng_free (rng);
  /* E[p'Sp] = 2 (sd 2 / sqrt(n)); cov(p0, p1) = (S^-1)_01 = -0.6 / det */
  g_assert_cmpfloat (fabs (mean - 2.0), <, 5 * 2 / sqrt (n));
  g_assert_cmpfloat (fabs (c01 - (-0.6 / det)), <, 0.03);
  /* a matrix that is not positive definite is refused, the metric kept */
  {
    const double bad[] = { 1.0, 2.0, 2.0, 1.0 };
    g_assert_false (tilde_metric_set_inverse (metric, bad));
    g_assert_cmpfloat (metric->inverse[1], ==, 0.6);
  }
}

/* v = S p, for a few coordinates (a loop) and for many (BLAS), against
 * the product summed here. */
static void
test_dense_velocity (void)
{
  const gsize sizes[] = { 3, 40 };

  for (gsize k = 0; k < G_N_ELEMENTS (sizes); k++)
    {
      gsize n = sizes[k];
      g_autoptr(TildeMetric) metric = tilde_metric_new (TILDE_METRIC_DENSE, n);
      g_autofree double *s = g_new (double, n * n), *p = g_new (double, n), *v = g_new (double, n);
      GRand *rand = g_rand_new_with_seed (8);

      /* diagonally dominant, so positive definite */
      for (gsize i = 0; i < n; i++)
        for (gsize j = 0; j <= i; j++)
          s[i * n + j] = s[j * n + i] = i == j ? (double) n + 1.0 : g_rand_double_range (rand, -1, 1);
      for (gsize i = 0; i < n; i++)
        p[i] = g_rand_double_range (rand, -3, 3);
      g_rand_free (rand);
      g_assert_true (tilde_metric_set_inverse (metric, s));
      tilde_metric_velocity (metric, p, v);
      for (gsize i = 0; i < n; i++)
        {
          double expected = 0;
          for (gsize j = 0; j < n; j++)
            expected += s[i * n + j] * p[j];
          g_assert_cmpfloat (fabs (v[i] - expected), <, 1e-12 * (double) n);
        }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/infer/nuts/tree-by-hand", test_tree_by_hand);
  g_test_add_func ("/infer/nuts/max-depth", test_max_depth);
  g_test_add_func ("/infer/nuts/divergence", test_divergence);
  g_test_add_func ("/infer/nuts/model-error-rejects", test_model_error_rejects);
  g_test_add_func ("/infer/nuts/dense-momenta", test_dense_momenta);
  g_test_add_func ("/infer/nuts/dense-velocity", test_dense_velocity);
  return g_test_run ();
}
