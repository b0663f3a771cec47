/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The dense inverse metric from draws' and gradients' covariances against
 * what defines it: M G M = S with M symmetric positive definite, the
 * covariance itself for a normal posterior (G = S^-1), sqrt (S_ii / G_ii)
 * for diagonal matrices, and a common factor of S and G that cancels. */
#define G_LOG_DOMAIN "tilde-test"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "infer/fisher-metric.h"

/* A random symmetric positive definite matrix: A A' + 0.1 I, with A's
 * columns of very different scales so that the matrix is ill-conditioned. */
static void
random_spd (GRand *rand, gsize n, double *out)
{
  g_autofree double *a = g_new (double, n * n);

  for (gsize i = 0; i < n; i++)
    for (gsize j = 0; j < n; j++)
      a[i * n + j] = g_rand_double_range (rand, -1, 1) * pow (10, (double) i - 2.0);
  cblas_dgemm (CblasRowMajor, CblasNoTrans, CblasTrans, (blasint) n, (blasint) n, (blasint) n, 1.0, a,
               (blasint) n, a, (blasint) n, 0.0, out, (blasint) n);
  for (gsize i = 0; i < n; i++)
    out[i * n + i] += 0.1 * pow (10, 2.0 * ((double) i - 2.0));
}

static void
inverse_spd (const double *a, gsize n, double *out)
{
  memcpy (out, a, sizeof (double) * n * n);
  g_assert_cmpint (LAPACKE_dpotrf (LAPACK_ROW_MAJOR, 'L', (lapack_int) n, out, (lapack_int) n), ==, 0);
  g_assert_cmpint (LAPACKE_dpotri (LAPACK_ROW_MAJOR, 'L', (lapack_int) n, out, (lapack_int) n), ==, 0);
  for (gsize i = 0; i < n; i++)
    for (gsize j = i + 1; j < n; j++)
      out[i * n + j] = out[j * n + i];
}

/* max |a - b| / max |b| */
static double
relative_difference (const double *a, const double *b, gsize count)
{
  double diff = 0, scale = 0;

  for (gsize i = 0; i < count; i++)
    {
      diff = MAX (diff, fabs (a[i] - b[i]));
      scale = MAX (scale, fabs (b[i]));
    }
  return diff / scale;
}

/* A normal posterior of covariance C: S = C, G = C^-1 give C back. */
static void
test_normal_gives_covariance (void)
{
  const gsize n = 6;
  GRand *rand = g_rand_new_with_seed (3);
  g_autoptr(TildeFisherMetric) fisher = tilde_fisher_metric_new (n);
  double c[36], g[36], out[36];

  for (int round = 0; round < 5; round++)
    {
      random_spd (rand, n, c);
      inverse_spd (c, n, g);
      g_assert_true (tilde_fisher_metric_solve (fisher, c, g, out));
      g_assert_cmpfloat (relative_difference (out, c, n * n), <, 1e-8);
    }
  g_rand_free (rand);
}

/* S and G of two different posteriors (G the inverse of another random
 * covariance: scales as in a posterior, where G is near S^-1): M is
 * symmetric positive definite and M G M = S. */
static void
test_defining_equation (void)
{
  const gsize n = 5;
  GRand *rand = g_rand_new_with_seed (4);
  g_autoptr(TildeFisherMetric) fisher = tilde_fisher_metric_new (n);
  double s[25], g[25], m[25], mg[25], mgm[25], factor[25];

  for (int round = 0; round < 5; round++)
    {
      random_spd (rand, n, s);
      random_spd (rand, n, factor);
      inverse_spd (factor, n, g);
      g_assert_true (tilde_fisher_metric_solve (fisher, s, g, m));
      for (gsize i = 0; i < n; i++)
        for (gsize j = 0; j < n; j++)
          g_assert_cmpfloat (m[i * n + j], ==, m[j * n + i]);
      memcpy (factor, m, sizeof m);
      g_assert_cmpint (LAPACKE_dpotrf (LAPACK_ROW_MAJOR, 'L', (lapack_int) n, factor, (lapack_int) n), ==, 0);
      cblas_dgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint) n, (blasint) n, (blasint) n, 1.0, m,
                   (blasint) n, g, (blasint) n, 0.0, mg, (blasint) n);
      cblas_dgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint) n, (blasint) n, (blasint) n, 1.0, mg,
                   (blasint) n, m, (blasint) n, 0.0, mgm, (blasint) n);
      g_assert_cmpfloat (relative_difference (mgm, s, n * n), <, 1e-8);
    }
  g_rand_free (rand);
}

/* Diagonal S and G: the diagonal estimate, sqrt (S_ii / G_ii); S and G
 * scaled alike: the same M. */
static void
test_diagonal_and_scale (void)
{
  const double s[9] = { 4, 0, 0, 0, 1e-4, 0, 0, 0, 9e4 };
  const double g[9] = { 1, 0, 0, 0, 1e4, 0, 0, 0, 1 };
  const double expected[3] = { 2, 1e-4, 300 };
  double s7[9], g7[9], out[9], out7[9];
  g_autoptr(TildeFisherMetric) fisher = tilde_fisher_metric_new (3);

  g_assert_true (tilde_fisher_metric_solve (fisher, s, g, out));
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      g_assert_cmpfloat (fabs (out[i * 3 + j] - (i == j ? expected[i] : 0)), <, 1e-12 * expected[i]);
  for (int i = 0; i < 9; i++)
    s7[i] = 7 * s[i], g7[i] = 7 * g[i];
  g_assert_true (tilde_fisher_metric_solve (fisher, s7, g7, out7));
  g_assert_cmpfloat (relative_difference (out7, out, 9), <, 1e-12);
}

/* No positive eigenvalue in G: FALSE, and `out` as it was. */
static void
test_degenerate (void)
{
  const double s[4] = { 1, 0, 0, 1 }, zero[4] = { 0 }, negative[4] = { -1, 0, 0, -2 };
  double out[4] = { 5, 6, 7, 8 };
  g_autoptr(TildeFisherMetric) fisher = tilde_fisher_metric_new (2);

  g_assert_false (tilde_fisher_metric_solve (fisher, s, zero, out));
  g_assert_false (tilde_fisher_metric_solve (fisher, s, negative, out));
  g_assert_false (tilde_fisher_metric_solve (fisher, zero, s, out));
  g_assert_cmpfloat (out[0], ==, 5);
  g_assert_cmpfloat (out[3], ==, 8);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/infer/fisher-metric/normal-gives-covariance", test_normal_gives_covariance);
  g_test_add_func ("/infer/fisher-metric/defining-equation", test_defining_equation);
  g_test_add_func ("/infer/fisher-metric/diagonal-and-scale", test_diagonal_and_scale);
  g_test_add_func ("/infer/fisher-metric/degenerate", test_degenerate);
  return g_test_run ();
}
