/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/math/expm.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

/* The degrees tried and the largest 1-norm each is accurate for. */
static const int degrees[] = { 3, 5, 7, 9, 13 };
static const double theta[] = { 1.495585217958292e-2, 2.539398330063230e-1,
                                9.504178996162932e-1, 2.097847961257068e0,
                                5.371920351148152e0 };
static const double b3[] = { 120, 60, 12, 1 };
static const double b5[] = { 30240, 15120, 3360, 420, 30, 1 };
static const double b7[] = { 17297280, 8648640, 1995840, 277200, 25200, 1512, 56, 1 };
static const double b9[] = { 17643225600., 8821612800., 2075673600, 302702400, 30270240,
                             2162160, 110880, 3960, 90, 1 };
static const double b13[] = { 64764752532480000., 32382376266240000., 7771770303897600.,
                              1187353796428800., 129060195264000., 10559470521600.,
                              670442572800., 33522128640., 1323241920., 40840800., 960960.,
                              16380., 182., 1. };

static double
norm1 (const double *a, int n)
{
  double m = 0;
  for (int j = 0; j < n; j++)
    {
      double s = 0;
      for (int i = 0; i < n; i++)
        s += fabs (a[i + j * n]);
      m = fmax (m, s);
    }
  return m;
}

static void
mul (const double *a, const double *b, double *c, int n)
{
  cblas_dgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
}

/* x += s * y (n x n) */
static void
axpy (double *x, double s, const double *y, int n)
{
  for (int i = 0; i < n * n; i++)
    x[i] += s * y[i];
}

static void
add_identity (double *x, double s, int n)
{
  for (int i = 0; i < n; i++)
    x[i + i * n] += s;
}

/* U (odd part, times A) and V (even part) of the degree-m approximant. */
static void
pade (const double *a, int n, int m, double *u, double *v)
{
  gsize nn = (gsize) n * n;
  double *pw[7];   /* A^2, A^4, A^6, A^8 */
  double *w = g_new0 (double, nn), *t = g_new0 (double, nn);
  for (int k = 0; k < 7; k++)
    pw[k] = g_new0 (double, nn);
  mul (a, a, pw[1], n);
  for (int k = 2; k <= 4; k++)
    mul (pw[k - 1], pw[1], pw[k], n);   /* pw[k] = A^(2k) */
  memset (u, 0, sizeof (double) * nn);
  memset (v, 0, sizeof (double) * nn);
  if (m < 13)
    {
      const double *b = m == 3 ? b3 : m == 5 ? b5 : m == 7 ? b7 : b9;
      add_identity (w, b[1], n);
      add_identity (v, b[0], n);
      for (int k = 1; 2 * k <= m; k++)
        {
          axpy (w, b[2 * k + 1], pw[k], n);
          axpy (v, b[2 * k], pw[k], n);
        }
      mul (a, w, u, n);
    }
  else
    {
      const double *b = b13;
      const double *a2 = pw[1], *a4 = pw[2], *a6 = pw[3];
      /* U = A [A6 (b13 A6 + b11 A4 + b9 A2) + b7 A6 + b5 A4 + b3 A2 + b1 I] */
      memset (t, 0, sizeof (double) * nn);
      axpy (t, b[13], a6, n);
      axpy (t, b[11], a4, n);
      axpy (t, b[9], a2, n);
      mul (a6, t, w, n);
      axpy (w, b[7], a6, n);
      axpy (w, b[5], a4, n);
      axpy (w, b[3], a2, n);
      add_identity (w, b[1], n);
      mul (a, w, u, n);
      /* V = A6 (b12 A6 + b10 A4 + b8 A2) + b6 A6 + b4 A4 + b2 A2 + b0 I */
      memset (t, 0, sizeof (double) * nn);
      axpy (t, b[12], a6, n);
      axpy (t, b[10], a4, n);
      axpy (t, b[8], a2, n);
      mul (a6, t, v, n);
      axpy (v, b[6], a6, n);
      axpy (v, b[4], a4, n);
      axpy (v, b[2], a2, n);
      add_identity (v, b[0], n);
    }
  for (int k = 0; k < 7; k++)
    g_free (pw[k]);
  g_free (w);
  g_free (t);
}

gboolean
rt_expm (const double *a, int n, double *e)
{
  gsize nn = (gsize) n * n;
  for (gsize i = 0; i < nn; i++)
    if (!isfinite (a[i]))
      return FALSE;
  double nrm = norm1 (a, n);
  int m = 13, s = 0;
  for (int k = 0; k < 4; k++)
    if (nrm <= theta[k])
      {
        m = degrees[k];
        break;
      }
  double *as = g_memdup2 (a, sizeof (double) * MAX (nn, 1));
  if (m == 13 && nrm > theta[4])
    {
      s = (int) ceil (log2 (nrm / theta[4]));
      double scale = ldexp (1.0, -s);
      for (gsize i = 0; i < nn; i++)
        as[i] *= scale;
    }
  double *u = g_new (double, MAX (nn, 1)), *v = g_new (double, MAX (nn, 1));
  pade (as, n, m, u, v);
  /* (V - U) R = V + U */
  double *p = g_new (double, MAX (nn, 1));
  for (gsize i = 0; i < nn; i++)
    {
      p[i] = v[i] - u[i];
      e[i] = v[i] + u[i];
    }
  int *piv = g_new (int, MAX (n, 1));
  gboolean ok = n == 0 || LAPACKE_dgesv (LAPACK_COL_MAJOR, n, n, p, n, piv, e, n) == 0;
  for (int k = 0; ok && k < s; k++)
    {
      mul (e, e, p, n);
      memcpy (e, p, sizeof (double) * nn);
    }
  g_free (as);
  g_free (u);
  g_free (v);
  g_free (p);
  g_free (piv);
  return ok;
}
