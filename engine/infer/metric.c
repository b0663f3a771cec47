/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "infer/metric.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "infer/rng.h"

#define DENSE_BLAS_FROM 16

TildeMetric *
tilde_metric_new (TildeMetricKind kind, gsize n)
{
  TildeMetric *m = g_new0 (TildeMetric, 1);
  gsize size = kind == TILDE_METRIC_DENSE ? n * n : n;

  m->kind = kind;
  m->n = n;
  m->inverse = g_new0 (double, MAX (size, 1));
  if (kind == TILDE_METRIC_DENSE)
    {
      m->factor = g_new0 (double, MAX (size, 1));
      m->draws = g_new0 (double, MAX (n, 1));
      for (gsize i = 0; i < n; i++)
        m->inverse[i * n + i] = m->factor[i * n + i] = 1.0;
    }
  else
    for (gsize i = 0; i < n; i++)
      m->inverse[i] = 1.0;
  return m;
}

void
tilde_metric_free (TildeMetric *m)
{
  if (m == NULL)
    return;
  g_free (m->inverse);
  g_free (m->factor);
  g_free (m->draws);
  g_free (m);
}

static gboolean
set_dense (TildeMetric *m, const double *inverse)
{
  gsize n = m->n;

  for (gsize i = 0; i < n * n; i++)
    if (!isfinite (inverse[i]))
      return FALSE;
  /* factor into the draws' room first, so a failure leaves the metric alone */
  double *factor = g_memdup2 (inverse, sizeof (double) * n * n);
  if (n > 0 && LAPACKE_dpotrf (LAPACK_ROW_MAJOR, 'L', (lapack_int) n, factor, (lapack_int) n) != 0)
    {
      g_free (factor);
      return FALSE;
    }
  for (gsize i = 0; i < n; i++)
    for (gsize j = i + 1; j < n; j++)
      factor[i * n + j] = 0.0;
  memcpy (m->inverse, inverse, sizeof (double) * n * n);
  memcpy (m->factor, factor, sizeof (double) * n * n);
  g_free (factor);
  return TRUE;
}

gboolean
tilde_metric_set_inverse (TildeMetric *m, const double *inverse)
{
  switch (m->kind)
    {
    case TILDE_METRIC_UNIT:
      return TRUE;
    case TILDE_METRIC_DIAG:
      for (gsize i = 0; i < m->n; i++)
        if (!(isfinite (inverse[i]) && inverse[i] > 0))
          return FALSE;
      memcpy (m->inverse, inverse, sizeof (double) * m->n);
      return TRUE;
    case TILDE_METRIC_DENSE:
      return set_dense (m, inverse);
    }
  g_return_val_if_reached (FALSE);
}

void
tilde_metric_sample_momentum (TildeMetric *m, gsl_rng *rng, double *p)
{
  gsize n = m->n;

  switch (m->kind)
    {
    case TILDE_METRIC_UNIT:
      for (gsize i = 0; i < n; i++)
        p[i] = tilde_rng_normal (rng);
      break;
    case TILDE_METRIC_DIAG:
      for (gsize i = 0; i < n; i++)
        p[i] = tilde_rng_normal (rng) / sqrt (m->inverse[i]);
      break;
    case TILDE_METRIC_DENSE:
      /* p = L^-T u has covariance (L L')^-1 = M */
      for (gsize i = 0; i < n; i++)
        p[i] = tilde_rng_normal (rng);
      if (n > 0)
        cblas_dtrsv (CblasRowMajor, CblasLower, CblasTrans, CblasNonUnit, (blasint) n, m->factor,
                     (blasint) n, p, 1);
      break;
    }
}

void
tilde_metric_velocity (const TildeMetric *m, const double *p, double *v)
{
  gsize n = m->n;

  switch (m->kind)
    {
    case TILDE_METRIC_UNIT:
      memcpy (v, p, sizeof (double) * n);
      break;
    case TILDE_METRIC_DIAG:
      for (gsize i = 0; i < n; i++)
        v[i] = m->inverse[i] * p[i];
      break;
    case TILDE_METRIC_DENSE:
      /* A dot product a row in C waits on each addition: above 16
       * coordinates BLAS's kernel is several times faster (a 203-parameter
       * model's dense run 26.7 s -> 7.5 s), below that its call costs more
       * than the loop. */
      if (n > DENSE_BLAS_FROM)
        {
          cblas_dsymv (CblasRowMajor, CblasLower, (blasint) n, 1.0, m->inverse, (blasint) n, p, 1, 0.0,
                       v, 1);
          break;
        }
      for (gsize i = 0; i < n; i++)
        {
          const double *row = m->inverse + i * n;
          double s = 0.0;
          for (gsize j = 0; j < n; j++)
            s += row[j] * p[j];
          v[i] = s;
        }
      break;
    }
}

double
tilde_metric_kinetic (const TildeMetric *m, const double *p, const double *v)
{
  double s = 0.0;
  for (gsize i = 0; i < m->n; i++)
    s += p[i] * v[i];
  return 0.5 * s;
}

const char *
tilde_metric_kind_name (TildeMetricKind kind)
{
  switch (kind)
    {
    case TILDE_METRIC_UNIT:
      return "unit_e";
    case TILDE_METRIC_DIAG:
      return "diag_e";
    case TILDE_METRIC_DENSE:
      return "dense_e";
    }
  return "diag_e";
}

gboolean
tilde_metric_kind_parse (const char *text, TildeMetricKind *kind)
{
  static const struct { const char *name; TildeMetricKind kind; } names[] = {
    { "unit", TILDE_METRIC_UNIT }, { "unit_e", TILDE_METRIC_UNIT },
    { "diag", TILDE_METRIC_DIAG }, { "diag_e", TILDE_METRIC_DIAG },
    { "dense", TILDE_METRIC_DENSE }, { "dense_e", TILDE_METRIC_DENSE },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_strcmp0 (text, names[i].name) == 0)
      {
        *kind = names[i].kind;
        return TRUE;
      }
  return FALSE;
}
