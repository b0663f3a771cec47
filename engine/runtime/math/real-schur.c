/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Eigenvalues of a general real matrix by the Francis double-shift QR
 * iteration on its Hessenberg form (Golub and Van Loan, Matrix
 * Computations, 7.5; EISPACK's hqr). LAPACK's dhseqr finds the same values
 * but, shifting differently, often lists them in another order; Stan's
 * eigenvalues() lists them in the order this classical iteration leaves on
 * the diagonal of the real Schur form, and models index them.
 *
 * Only the active window of the Schur form is updated: the eigenvalues do
 * not depend on the rest.
 */
#include "runtime/math/real-schur.h"

#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#define MAX_ITERATIONS_PER_ROW 40

typedef struct {
  double *t;
  int     n;
} Schur;

#define T(s, i, j) ((s)->t[(gsize) (i) + (gsize) (j) * (gsize) (s)->n])

/* A reflection I - tau u u^T, u = (1, ess), that maps x (len entries) to
 * (beta, 0, ...); tau = 0 when x's tail is already zero. */
static void
reflection (const double *x, int len, double *ess, double *tau, double *beta)
{
  double tail = 0;

  for (int i = 1; i < len; i++)
    tail += x[i] * x[i];
  if (tail <= DBL_MIN)
    {
      *tau = 0;
      *beta = x[0];
      for (int i = 1; i < len; i++)
        ess[i - 1] = 0;
      return;
    }
  *beta = sqrt (x[0] * x[0] + tail);
  if (x[0] >= 0)
    *beta = -*beta;
  for (int i = 1; i < len; i++)
    ess[i - 1] = x[i] / (x[0] - *beta);
  *tau = (*beta - x[0]) / *beta;
}

/* Rows r .. r + len - 1 times the reflection, columns c0 .. c1. */
static void
reflect_rows (Schur *s, int r, int len, int c0, int c1, const double *ess, double tau)
{
  for (int j = c0; j <= c1; j++)
    {
      double t = 0;
      for (int i = 1; i < len; i++)
        t += ess[i - 1] * T (s, r + i, j);
      t += T (s, r, j);
      T (s, r, j) -= tau * t;
      for (int i = 1; i < len; i++)
        T (s, r + i, j) -= tau * ess[i - 1] * t;
    }
}

/* Columns c .. c + len - 1 times the reflection, rows r0 .. r1. */
static void
reflect_columns (Schur *s, int c, int len, int r0, int r1, const double *ess, double tau)
{
  for (int i = r0; i <= r1; i++)
    {
      double t = 0;
      for (int j = 1; j < len; j++)
        t += T (s, i, c + j) * ess[j - 1];
      t += T (s, i, c);
      T (s, i, c) -= tau * t;
      for (int j = 1; j < len; j++)
        T (s, i, c + j) -= tau * t * ess[j - 1];
    }
}

/* The lowest row il <= iu whose subdiagonal entry is negligible beside
 * its neighbours on the diagonal (0 when none is). */
static int
split_row (const Schur *s, int iu, double norm)
{
  double tiny = fmax (norm * DBL_EPSILON * DBL_EPSILON, DBL_MIN);
  int k = iu;

  for (; k > 0; k--)
    {
      double beside = fabs (T (s, k - 1, k - 1)) + fabs (T (s, k, k));
      if (fabs (T (s, k, k - 1)) <= fmax (beside * DBL_EPSILON, tiny))
        break;
    }
  return k;
}

/* One double-shift step on rows and columns il .. iu: the shifts are the
 * eigenvalues of the trailing 2 x 2 block, given by its entries x, y and
 * the product w of its off-diagonal ones. */
static void
francis_step (Schur *s, int il, int iu, double x, double y, double w)
{
  double v[3], ess[2], tau, beta;
  int m;

  /* the step may start lower than il where two consecutive subdiagonal
   * entries are small together */
  for (m = iu - 2; m >= il; m--)
    {
      double tmm = T (s, m, m), r = x - tmm, q = y - tmm;
      v[0] = (r * q - w) / T (s, m + 1, m) + T (s, m, m + 1);
      v[1] = T (s, m + 1, m + 1) - tmm - r - q;
      v[2] = T (s, m + 2, m + 1);
      if (m == il)
        break;
      double lhs = T (s, m, m - 1) * (fabs (v[1]) + fabs (v[2]));
      double rhs = v[0] * (fabs (T (s, m - 1, m - 1)) + fabs (tmm) + fabs (T (s, m + 1, m + 1)));
      if (fabs (lhs) < DBL_EPSILON * rhs)
        break;
    }
  for (int k = m; k <= iu - 2; k++)
    {
      if (k > m)
        {
          v[0] = T (s, k, k - 1);
          v[1] = T (s, k + 1, k - 1);
          v[2] = T (s, k + 2, k - 1);
        }
      reflection (v, 3, ess, &tau, &beta);
      if (beta == 0)
        continue;
      if (k == m && k > il)
        T (s, k, k - 1) = -T (s, k, k - 1);
      else if (k > m)
        T (s, k, k - 1) = beta;
      reflect_rows (s, k, 3, k, iu, ess, tau);
      reflect_columns (s, k, 3, il, MIN (iu, k + 3), ess, tau);
    }
  v[0] = T (s, iu - 1, iu - 2);
  v[1] = T (s, iu, iu - 2);
  reflection (v, 2, ess, &tau, &beta);
  if (beta != 0)
    {
      T (s, iu - 1, iu - 2) = beta;
      reflect_rows (s, iu - 1, 2, iu - 1, iu, ess, tau);
      reflect_columns (s, iu - 1, 2, il, iu, ess, tau);
    }
  /* what rounding left below the subdiagonal */
  for (int i = m + 2; i <= iu; i++)
    {
      T (s, i, i - 2) = 0;
      if (i > m + 2)
        T (s, i, i - 3) = 0;
    }
}

gboolean
rt_real_eigenvalues (const double *a, int n, double *re, double *im)
{
  gsize nn = (gsize) n * (gsize) n;
  double scale = 0;

  for (gsize i = 0; i < nn; i++)
    {
      if (!isfinite (a[i]))
        return FALSE;
      scale = fmax (scale, fabs (a[i]));
    }
  if (scale == 0)
    {
      memset (re, 0, sizeof (double) * (gsize) n);
      memset (im, 0, sizeof (double) * (gsize) n);
      return TRUE;
    }

  Schur s = { g_new (double, MAX (nn, 1)), n };
  double *tau = g_new (double, MAX (n, 1));
  for (gsize i = 0; i < nn; i++)
    s.t[i] = a[i] / scale;
  /* Householder reflections, as the Schur iteration's own are made */
  gboolean ok = n < 3 || LAPACKE_dgehrd (LAPACK_COL_MAJOR, n, 1, n, s.t, n, tau) == 0;
  for (int j = 0; j < n; j++)
    for (int i = j + 2; i < n; i++)
      T (&s, i, j) = 0;
  g_free (tau);

  double norm = 0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i <= MIN (j + 1, n - 1); i++)
      norm += fabs (T (&s, i, j));

  int iu = n - 1, iter = 0, total = 0;
  double exshift = 0;
  while (ok && iu >= 0)
    {
      int il = split_row (&s, iu, norm);
      if (il == iu)
        {
          re[iu] = T (&s, iu, iu) + exshift;
          im[iu] = 0;
          iu--;
          iter = 0;
          continue;
        }
      if (il == iu - 1)
        {
          double t00 = T (&s, iu - 1, iu - 1), t01 = T (&s, iu - 1, iu);
          double t10 = T (&s, iu, iu - 1), t11 = T (&s, iu, iu);
          double p = 0.5 * (t00 - t11), q = p * p + t10 * t01;
          if (q >= 0)
            {
              /* two real ones: first the one whose eigenvector is
               * (p + sign(p) z, t10), nearer t00 */
              double z = sqrt (q), pz = p >= 0 ? p + z : p - z;
              re[iu - 1] = t11 + pz + exshift;
              re[iu] = (pz != 0 ? t11 - t10 * t01 / pz : t11 + pz) + exshift;
              im[iu - 1] = im[iu] = 0;
            }
          else
            {
              /* a conjugate pair, the positive imaginary part first */
              double big = fmax (fabs (p), fmax (fabs (t10), fabs (t01)));
              double z = big * sqrt (fabs ((p / big) * (p / big) + (t10 / big) * (t01 / big)));
              re[iu - 1] = re[iu] = t11 + exshift + p;
              im[iu - 1] = z;
              im[iu] = -z;
            }
          iu -= 2;
          iter = 0;
          continue;
        }
      double x = T (&s, iu, iu), y = T (&s, iu - 1, iu - 1);
      double w = T (&s, iu, iu - 1) * T (&s, iu - 1, iu);
      /* exceptional shifts where the iteration stalls: Wilkinson's, then
       * the one MATLAB adopted */
      if (iter == 10)
        {
          exshift += x;
          for (int i = 0; i <= iu; i++)
            T (&s, i, i) -= x;
          double d = fabs (T (&s, iu, iu - 1)) + fabs (T (&s, iu - 1, iu - 2));
          x = y = 0.75 * d;
          w = -0.4375 * d * d;
        }
      else if (iter == 30)
        {
          double d = (y - x) / 2;
          d = d * d + w;
          if (d > 0)
            {
              d = sqrt (d);
              if (y < x)
                d = -d;
              d = x - w / ((y - x) / 2 + d);
              exshift += d;
              for (int i = 0; i <= iu; i++)
                T (&s, i, i) -= d;
              x = y = w = 0.964;
            }
        }
      iter++;
      if (++total > MAX_ITERATIONS_PER_ROW * n)
        ok = FALSE;
      else
        francis_step (&s, il, iu, x, y, w);
    }
  g_free (s.t);
  for (int k = 0; ok && k < n; k++)
    {
      re[k] *= scale;
      im[k] *= scale;
      ok = isfinite (re[k]) && isfinite (im[k]);
    }
  return ok;
}
