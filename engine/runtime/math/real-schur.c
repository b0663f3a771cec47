/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Eigenvalues and eigenvectors of a general real matrix by the Francis
 * double-shift QR iteration on its Hessenberg form (Golub and Van Loan,
 * Matrix Computations, 7.5; EISPACK's hqr and hqr2). LAPACK's dhseqr finds
 * the same values but, shifting differently, often lists them in another
 * order; Stan's eigenvalues() lists them in the order this classical
 * iteration leaves on the diagonal of the real Schur form, and models
 * index them. Its eigenvectors come from the Schur vectors by
 * back-substitution, each of unit length.
 *
 * For the eigenvalues alone only the active window of the Schur form is
 * updated: they do not depend on the rest. The eigenvectors need the whole
 * form and the Schur vectors.
 */
#include "runtime/math/real-schur.h"

#include <complex.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#define MAX_ITERATIONS_PER_ROW 40

typedef struct {
  double  *t;
  double  *u;      /* the Schur vectors, when they are wanted (else NULL) */
  int      n;
} Schur;

#define T(s, i, j) ((s)->t[(gsize) (i) + (gsize) (j) * (gsize) (s)->n])
#define U(s, i, j) ((s)->u[(gsize) (i) + (gsize) (j) * (gsize) (s)->n])

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

/* Columns c .. c + len - 1 of the n-row column-major m times the
 * reflection, rows r0 .. r1. */
static void
reflect_columns (double *m, int n, int c, int len, int r0, int r1, const double *ess, double tau)
{
  for (int i = r0; i <= r1; i++)
    {
      double *row = m + i;
      double t = 0;
      for (int j = 1; j < len; j++)
        t += row[(gsize) (c + j) * n] * ess[j - 1];
      t += row[(gsize) c * n];
      row[(gsize) c * n] -= tau * t;
      for (int j = 1; j < len; j++)
        row[(gsize) (c + j) * n] -= tau * t * ess[j - 1];
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
      /* with the Schur vectors wanted, the whole form is kept (the
       * eigenvectors need it); for the eigenvalues the window is enough */
      reflect_rows (s, k, 3, k, s->u ? s->n - 1 : iu, ess, tau);
      reflect_columns (s->t, s->n, k, 3, s->u ? 0 : il, MIN (iu, k + 3), ess, tau);
      if (s->u)
        reflect_columns (s->u, s->n, k, 3, 0, s->n - 1, ess, tau);
    }
  v[0] = T (s, iu - 1, iu - 2);
  v[1] = T (s, iu, iu - 2);
  reflection (v, 2, ess, &tau, &beta);
  if (beta != 0)
    {
      T (s, iu - 1, iu - 2) = beta;
      reflect_rows (s, iu - 1, 2, iu - 1, s->u ? s->n - 1 : iu, ess, tau);
      reflect_columns (s->t, s->n, iu - 1, 2, s->u ? 0 : il, iu, ess, tau);
      if (s->u)
        reflect_columns (s->u, s->n, iu - 1, 2, 0, s->n - 1, ess, tau);
    }
  /* what rounding left below the subdiagonal */
  for (int i = m + 2; i <= iu; i++)
    {
      T (s, i, i - 2) = 0;
      if (i > m + 2)
        T (s, i, i - 3) = 0;
    }
}

/* Rows and columns iu - 1 and iu of the full form turned by the rotation
 * whose first column is (pz, T(iu, iu - 1)) up to scale, as Stan's (Eigen's
 * Givens rotation) turns them: the 2 x 2 block becomes upper triangular. */
static void
split_real_pair (Schur *s, int iu, double pz)
{
  double p = pz, q = T (s, iu, iu - 1), c, sn;
  int n = s->n;

  if (q == 0)
    {
      c = p < 0 ? -1 : 1;
      sn = 0;
    }
  else if (p == 0)
    {
      c = 0;
      sn = q < 0 ? 1 : -1;
    }
  else if (fabs (p) > fabs (q))
    {
      double t = q / p, u = sqrt (1 + t * t);
      if (p < 0)
        u = -u;
      c = 1 / u;
      sn = -t * c;
    }
  else
    {
      double t = p / q, u = sqrt (1 + t * t);
      if (q < 0)
        u = -u;
      sn = -1 / u;
      c = -t * sn;
    }
  /* rows by the rotation's adjoint (c, -s), columns by its transpose */
  for (int j = iu - 1; j < n; j++)
    {
      double x = T (s, iu - 1, j), y = T (s, iu, j);
      T (s, iu - 1, j) = c * x - sn * y;
      T (s, iu, j) = sn * x + c * y;
    }
  for (int i = 0; i <= iu; i++)
    {
      double x = T (s, i, iu - 1), y = T (s, i, iu);
      T (s, i, iu - 1) = c * x - sn * y;
      T (s, i, iu) = sn * x + c * y;
    }
  for (int i = 0; i < n; i++)
    {
      double x = U (s, i, iu - 1), y = U (s, i, iu);
      U (s, i, iu - 1) = c * x - sn * y;
      U (s, i, iu) = sn * x + c * y;
    }
  T (s, iu, iu - 1) = 0;
}

/* The quasi-triangular form: its eigenvalues in (re, im), of the matrix
 * s->t holds scaled; FALSE when the iteration does not converge. */
static gboolean
iterate (Schur *s, double *re, double *im)
{
  int n = s->n;
  double norm = 0;

  for (int j = 0; j < n; j++)
    for (int i = 0; i <= MIN (j + 1, n - 1); i++)
      norm += fabs (T (s, i, j));

  int iu = n - 1, iter = 0, total = 0;
  double exshift = 0;
  while (iu >= 0)
    {
      int il = split_row (s, iu, norm);
      if (il == iu)
        {
          T (s, iu, iu) += exshift;
          if (iu > 0)
            T (s, iu, iu - 1) = 0;
          re[iu] = T (s, iu, iu);
          im[iu] = 0;
          iu--;
          iter = 0;
          continue;
        }
      if (il == iu - 1)
        {
          double t00 = T (s, iu - 1, iu - 1), t01 = T (s, iu - 1, iu);
          double t10 = T (s, iu, iu - 1), t11 = T (s, iu, iu);
          double p = 0.5 * (t00 - t11), q = p * p + t10 * t01;
          T (s, iu, iu) += exshift;
          T (s, iu - 1, iu - 1) += exshift;
          if (q >= 0)
            {
              /* two real ones: first the one whose eigenvector is
               * (p + sign(p) z, t10), nearer t00 */
              double z = sqrt (q), pz = p >= 0 ? p + z : p - z;
              re[iu - 1] = t11 + pz + exshift;
              re[iu] = (pz != 0 ? t11 - t10 * t01 / pz : t11 + pz) + exshift;
              im[iu - 1] = im[iu] = 0;
              if (s->u)
                split_real_pair (s, iu, pz);
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
          if (iu > 1)
            T (s, iu - 1, iu - 2) = 0;
          iu -= 2;
          iter = 0;
          continue;
        }
      double x = T (s, iu, iu), y = T (s, iu - 1, iu - 1);
      double w = T (s, iu, iu - 1) * T (s, iu - 1, iu);
      /* exceptional shifts where the iteration stalls: Wilkinson's, then
       * the one MATLAB adopted */
      if (iter == 10)
        {
          exshift += x;
          for (int i = 0; i <= iu; i++)
            T (s, i, i) -= x;
          double d = fabs (T (s, iu, iu - 1)) + fabs (T (s, iu - 1, iu - 2));
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
                T (s, i, i) -= d;
              x = y = w = 0.964;
            }
        }
      iter++;
      if (++total > MAX_ITERATIONS_PER_ROW * n)
        return FALSE;
      francis_step (s, il, iu, x, y, w);
    }
  return TRUE;
}

/* The eigenvectors of the quasi-triangular T by back-substitution, from
 * the last eigenvalue up (EISPACK's hqr2): a real one's vector in its own
 * column, a conjugate pair's real and imaginary parts in the pair's two.
 * T is overwritten with them. */
static void
back_substitute (Schur *s, const double *re, const double *im)
{
  int n = s->n;
  double norm = 0;

  for (int j = 0; j < n; j++)
    for (int k = MAX (j - 1, 0); k < n; k++)
      norm += fabs (T (s, j, k));
  if (norm == 0)
    return;
  for (int k = n - 1; k >= 0; k--)
    {
      double p = re[k], q = im[k];
      if (q == 0)
        {
          double last_r = 0, last_w = 0;
          int l = k;
          T (s, k, k) = 1;
          for (int i = k - 1; i >= 0; i--)
            {
              double w = T (s, i, i) - p, r = 0;
              for (int j = l; j <= k; j++)
                r += T (s, i, j) * T (s, j, k);
              if (im[i] < 0)
                {
                  last_w = w;
                  last_r = r;
                  continue;
                }
              l = i;
              if (im[i] == 0)
                T (s, i, k) = w != 0 ? -r / w : -r / (DBL_EPSILON * norm);
              else
                {
                  /* a 2 x 2 block of a conjugate pair above */
                  double x = T (s, i, i + 1), y = T (s, i + 1, i);
                  double d = (re[i] - p) * (re[i] - p) + im[i] * im[i];
                  double t = (x * last_r - last_w * r) / d;
                  T (s, i, k) = t;
                  T (s, i + 1, k) = fabs (x) > fabs (last_w) ? (-r - w * t) / x
                                                             : (-last_r - y * t) / last_w;
                }
              double t = fabs (T (s, i, k));
              if (DBL_EPSILON * t * t > 1)
                for (int j = i; j <= k; j++)
                  T (s, j, k) /= t;
            }
        }
      else if (q < 0 && k > 0)
        {
          /* the pair (k - 1, k): real part in column k - 1, imaginary in k */
          double lr = 0, ls = 0, lw = 0;   /* the row below's, for a 2 x 2 block */
          int l = k - 1;
          if (fabs (T (s, k, k - 1)) > fabs (T (s, k - 1, k)))
            {
              T (s, k - 1, k - 1) = q / T (s, k, k - 1);
              T (s, k - 1, k) = -(T (s, k, k) - p) / T (s, k, k - 1);
            }
          else
            {
              double complex c = CMPLX (0, -T (s, k - 1, k)) / CMPLX (T (s, k - 1, k - 1) - p, q);
              T (s, k - 1, k - 1) = creal (c);
              T (s, k - 1, k) = cimag (c);
            }
          T (s, k, k - 1) = 0;
          T (s, k, k) = 1;
          for (int i = k - 2; i >= 0; i--)
            {
              double ra = 0, sa = 0;
              for (int j = l; j <= k; j++)
                {
                  ra += T (s, i, j) * T (s, j, k - 1);
                  sa += T (s, i, j) * T (s, j, k);
                }
              double w = T (s, i, i) - p;
              if (im[i] < 0)
                {
                  lw = w;
                  lr = ra;
                  ls = sa;
                  continue;
                }
              l = i;
              if (im[i] == 0)
                {
                  double complex c = CMPLX (-ra, -sa) / CMPLX (w, q);
                  T (s, i, k - 1) = creal (c);
                  T (s, i, k) = cimag (c);
                }
              else
                {
                  double x = T (s, i, i + 1), y = T (s, i + 1, i);
                  double vr = (re[i] - p) * (re[i] - p) + im[i] * im[i] - q * q;
                  double vi = (re[i] - p) * 2 * q;
                  if (vr == 0 && vi == 0)
                    vr = DBL_EPSILON * norm
                         * (fabs (w) + fabs (q) + fabs (x) + fabs (y) + fabs (lw));
                  double complex c = CMPLX (x * lr - lw * ra + q * sa, x * ls - lw * sa - q * ra)
                                     / CMPLX (vr, vi);
                  T (s, i, k - 1) = creal (c);
                  T (s, i, k) = cimag (c);
                  if (fabs (x) > fabs (lw) + fabs (q))
                    {
                      T (s, i + 1, k - 1) = (-ra - w * T (s, i, k - 1) + q * T (s, i, k)) / x;
                      T (s, i + 1, k) = (-sa - w * T (s, i, k) - q * T (s, i, k - 1)) / x;
                    }
                  else
                    {
                      c = CMPLX (-lr - y * T (s, i, k - 1), -ls - y * T (s, i, k)) / CMPLX (lw, q);
                      T (s, i + 1, k - 1) = creal (c);
                      T (s, i + 1, k) = cimag (c);
                    }
                }
              double t = fmax (fabs (T (s, i, k - 1)), fabs (T (s, i, k)));
              if (DBL_EPSILON * t * t > 1)
                for (int j = i; j <= k; j++)
                  {
                    T (s, j, k - 1) /= t;
                    T (s, j, k) /= t;
                  }
            }
        }
    }
}

/* The Schur form of a / scale, its Householder reduction's vectors in s->u
 * when they are wanted; FALSE when a is not finite (scale 0: all zero). */
static gboolean
start (Schur *s, const double *a, int n, double *scale, gboolean vectors)
{
  gsize nn = (gsize) n * (gsize) n;

  *scale = 0;
  for (gsize i = 0; i < nn; i++)
    {
      if (!isfinite (a[i]))
        return FALSE;
      *scale = fmax (*scale, fabs (a[i]));
    }
  s->n = n;
  s->t = g_new (double, MAX (nn, 1));
  s->u = vectors ? g_new (double, MAX (nn, 1)) : NULL;
  double *tau = g_new0 (double, MAX (n, 1));
  for (gsize i = 0; i < nn; i++)
    s->t[i] = *scale > 0 ? a[i] / *scale : 0;
  /* Householder reflections, as the Schur iteration's own are made */
  gboolean ok = n < 3 || LAPACKE_dgehrd (LAPACK_COL_MAJOR, n, 1, n, s->t, n, tau) == 0;
  if (ok && s->u)
    {
      memcpy (s->u, s->t, sizeof (double) * nn);
      ok = n < 3 || LAPACKE_dorghr (LAPACK_COL_MAJOR, n, 1, n, s->u, n, tau) == 0;
      if (n < 3)
        for (int j = 0; j < n; j++)
          for (int i = 0; i < n; i++)
            U (s, i, j) = i == j;
    }
  for (int j = 0; j < n; j++)
    for (int i = j + 2; i < n; i++)
      T (s, i, j) = 0;
  g_free (tau);
  return ok;
}

gboolean
rt_real_eigen (const double *a, int n, double *re, double *im, double complex *vectors)
{
  Schur s = { NULL, NULL, n };
  double scale;
  gboolean ok = start (&s, a, n, &scale, vectors != NULL);

  if (ok && scale == 0)
    {
      /* the zero matrix: zeros, and the unit vectors as Stan gives them */
      memset (re, 0, sizeof (double) * (gsize) n);
      memset (im, 0, sizeof (double) * (gsize) n);
      for (int j = 0; vectors && j < n; j++)
        for (int i = 0; i < n; i++)
          vectors[i + (gsize) j * n] = i == j;
      g_free (s.t);
      g_free (s.u);
      return TRUE;
    }
  else if (ok)
    ok = iterate (&s, re, im);
  for (int k = 0; ok && k < n; k++)
    {
      re[k] *= scale;
      im[k] *= scale;
      ok = isfinite (re[k]) && isfinite (im[k]);
    }
  if (ok && vectors)
    {
      gsize nn = (gsize) n * (gsize) n;
      for (gsize i = 0; i < nn; i++)
        s.t[i] *= scale;
      back_substitute (&s, re, im);
      /* V = U X, X the upper part back-substitution left in T */
      double *v = g_new0 (double, MAX (nn, 1));
      for (int j = 0; j < n; j++)
        for (int k = 0; k <= j; k++)
          for (int i = 0; i < n; i++)
            v[i + (gsize) j * n] += U (&s, i, k) * T (&s, k, j);
      for (int j = 0; j < n; j++)
        {
          /* real when the imaginary part is negligible beside the real */
          if (fabs (im[j]) <= fabs (re[j]) * 2 * DBL_EPSILON || j + 1 == n)
            {
              double len = 0;
              for (int i = 0; i < n; i++)
                len += v[i + (gsize) j * n] * v[i + (gsize) j * n];
              len = sqrt (len);
              for (int i = 0; i < n; i++)
                vectors[i + (gsize) j * n] = len > 0 ? v[i + (gsize) j * n] / len : 0;
              continue;
            }
          double len = 0;
          for (int i = 0; i < n; i++)
            len += v[i + (gsize) j * n] * v[i + (gsize) j * n]
                   + v[i + (gsize) (j + 1) * n] * v[i + (gsize) (j + 1) * n];
          len = sqrt (len);
          for (int i = 0; i < n; i++)
            {
              double complex z = CMPLX (v[i + (gsize) j * n], v[i + (gsize) (j + 1) * n]);
              vectors[i + (gsize) j * n] = len > 0 ? z / len : 0;
              vectors[i + (gsize) (j + 1) * n] = len > 0 ? conj (z) / len : 0;
            }
          j++;
        }
      g_free (v);
    }
  g_free (s.t);
  g_free (s.u);
  return ok;
}
