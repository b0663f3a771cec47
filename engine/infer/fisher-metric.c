/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "infer/fisher-metric.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

/* Relative floor of the eigenvalues, so that directions the draws have not
 * explored yet keep a finite scale. */
#define EIGEN_FLOOR 1e-12

struct TildeFisherMetric {
  gsize   n;
  double *vectors, *values;     /* an eigen-decomposition */
  double *scaled;               /* a power of the values */
  double *root, *inverse_root;  /* G^1/2, G^-1/2 */
  double *middle, *tmp;         /* G^1/2 S G^1/2, products */
};

TildeFisherMetric *
tilde_fisher_metric_new (gsize n)
{
  TildeFisherMetric *f = g_new0 (TildeFisherMetric, 1);
  gsize nn = MAX (n * n, 1);

  f->n = n;
  f->vectors = g_new (double, nn);
  f->values = g_new (double, MAX (n, 1));
  f->scaled = g_new (double, MAX (n, 1));
  f->root = g_new (double, nn);
  f->inverse_root = g_new (double, nn);
  f->middle = g_new (double, nn);
  f->tmp = g_new (double, nn);
  return f;
}

void
tilde_fisher_metric_free (TildeFisherMetric *f)
{
  if (f == NULL)
    return;
  g_free (f->vectors);
  g_free (f->values);
  g_free (f->scaled);
  g_free (f->root);
  g_free (f->inverse_root);
  g_free (f->middle);
  g_free (f->tmp);
  g_free (f);
}

/* Eigen-decomposes the symmetric `a` into f->vectors (columns) and
 * f->values, floored; FALSE when none is positive. */
static gboolean
decompose (TildeFisherMetric *f, const double *a)
{
  gsize n = f->n;
  double largest;

  memcpy (f->vectors, a, sizeof (double) * n * n);
  if (LAPACKE_dsyevd (LAPACK_ROW_MAJOR, 'V', 'L', (lapack_int) n, f->vectors, (lapack_int) n,
                      f->values) != 0)
    return FALSE;
  largest = f->values[n - 1];   /* ascending */
  if (!(largest > 0) || !isfinite (largest))
    return FALSE;
  for (gsize j = 0; j < n; j++)
    f->values[j] = MAX (f->values[j], EIGEN_FLOOR * largest);
  return TRUE;
}

/* out = V diag (values^power) V' from the last decomposition. */
static void
power (TildeFisherMetric *f, double p, double *out)
{
  gsize n = f->n;

  for (gsize j = 0; j < n; j++)
    f->scaled[j] = pow (f->values[j], p);
  for (gsize i = 0; i < n; i++)
    for (gsize j = 0; j < n; j++)
      f->tmp[i * n + j] = f->vectors[i * n + j] * f->scaled[j];
  cblas_dgemm (CblasRowMajor, CblasNoTrans, CblasTrans, (blasint) n, (blasint) n, (blasint) n, 1.0,
               f->tmp, (blasint) n, f->vectors, (blasint) n, 0.0, out, (blasint) n);
}

/* out = a b c, through f->tmp (a, b, c distinct from it) */
static void
product3 (TildeFisherMetric *f, const double *a, const double *b, const double *c, double *out)
{
  blasint n = (blasint) f->n;

  cblas_dgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, f->tmp, n);
  cblas_dgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, f->tmp, n, c, n, 0.0, out, n);
}

static void
symmetrise (double *a, gsize n)
{
  for (gsize i = 0; i < n; i++)
    for (gsize j = 0; j < i; j++)
      a[i * n + j] = a[j * n + i] = 0.5 * (a[i * n + j] + a[j * n + i]);
}

gboolean
tilde_fisher_metric_solve (TildeFisherMetric *f, const double *s, const double *g, double *out)
{
  gsize n = f->n;

  if (n == 0)
    return TRUE;
  if (!decompose (f, g))
    return FALSE;
  power (f, 0.5, f->root);
  power (f, -0.5, f->inverse_root);
  product3 (f, f->root, s, f->root, f->middle);
  symmetrise (f->middle, n);
  if (!decompose (f, f->middle))
    return FALSE;
  power (f, 0.5, f->middle);
  product3 (f, f->inverse_root, f->middle, f->inverse_root, f->root);
  symmetrise (f->root, n);
  for (gsize i = 0; i < n * n; i++)
    if (!isfinite (f->root[i]))
      return FALSE;
  memcpy (out, f->root, sizeof (double) * n * n);
  return TRUE;
}
