/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "infer/newton.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>

#define STENCIL_STEP 1e-3
#define MIN_STEP_FACTOR 1e-50

gboolean
tilde_hessian_stencil (TildeObjective *objective, const double *x, double *hessian,
                       double *f, double *gradient)
{
  static const double offsets[4] = { -2.0, -1.0, 1.0, 2.0 };
  static const double weights[4] = { 1.0 / 12.0, -2.0 / 3.0, 2.0 / 3.0, -1.0 / 12.0 };
  gsize n = objective->n, m = MAX (n, 1);
  g_autofree double *point = g_memdup2 (x, sizeof (double) * m);
  g_autofree double *g = g_new (double, m);
  g_autofree double *g0 = g_new (double, m);
  double f0;

  if (!tilde_objective_eval (objective, x, &f0, g0))
    return FALSE;
  memset (hessian, 0, sizeof (double) * n * n);
  for (gsize d = 0; d < n; d++)
    {
      for (int k = 0; k < 4; k++)
        {
          double fk;

          point[d] = x[d] + offsets[k] * STENCIL_STEP;
          if (!tilde_objective_eval (objective, point, &fk, g))
            return FALSE;
          /* half into row d and half into column d: the mean of the two
           * one-sided estimates of each off-diagonal entry */
          for (gsize e = 0; e < n; e++)
            {
              double part = 0.5 * weights[k] * g[e] / STENCIL_STEP;
              hessian[d * n + e] += part;
              hessian[e * n + d] += part;
            }
        }
      point[d] = x[d];
    }
  if (f)
    *f = f0;
  if (gradient)
    memcpy (gradient, g0, sizeof (double) * n);
  return TRUE;
}

gboolean
tilde_hessian_central (TildeObjective *objective, const double *x, double *hessian)
{
  gsize n = objective->n, m = MAX (n, 1);
  g_autofree double *point = g_memdup2 (x, sizeof (double) * m);
  g_autofree double *plus = g_new (double, m);
  g_autofree double *minus = g_new (double, m);
  double h, f;

  memset (hessian, 0, sizeof (double) * n * n);
  for (gsize i = 0; i < n; i++)
    {
      h = cbrt (DBL_EPSILON) * MAX (1.0, fabs (x[i]));
      point[i] = x[i] + h;
      if (!tilde_objective_eval (objective, point, &f, plus))
        return FALSE;
      point[i] = x[i] - h;
      if (!tilde_objective_eval (objective, point, &f, minus))
        return FALSE;
      point[i] = x[i];
      for (gsize j = 0; j < n; j++)
        {
          double part = (plus[j] - minus[j]) / (4.0 * h);
          hessian[i * n + j] += part;
          hessian[j * n + i] += part;
        }
    }
  return TRUE;
}

void
tilde_newton_direction (const double *hessian, const double *gradient, gsize n,
                        double *direction)
{
  gsl_matrix *a, *v;
  gsl_vector *lambda;
  gsl_eigen_symmv_workspace *w;
  g_autofree double *projection = NULL;
  double largest = 0.0, floor_;

  if (n == 0)
    return;
  a = gsl_matrix_alloc (n, n);
  v = gsl_matrix_alloc (n, n);
  lambda = gsl_vector_alloc (n);
  w = gsl_eigen_symmv_alloc (n);
  projection = g_new (double, n);
  memcpy (a->data, hessian, sizeof (double) * n * n);
  gsl_eigen_symmv (a, lambda, v, w);
  for (gsize k = 0; k < n; k++)
    largest = MAX (largest, fabs (gsl_vector_get (lambda, k)));
  floor_ = MAX (sqrt (DBL_EPSILON) * largest, sqrt (DBL_EPSILON));
  for (gsize k = 0; k < n; k++)
    {
      double p = 0.0;
      for (gsize i = 0; i < n; i++)
        p += gsl_matrix_get (v, i, k) * gradient[i];
      projection[k] = -p / MAX (fabs (gsl_vector_get (lambda, k)), floor_);
    }
  for (gsize i = 0; i < n; i++)
    {
      double d = 0.0;
      for (gsize k = 0; k < n; k++)
        d += gsl_matrix_get (v, i, k) * projection[k];
      direction[i] = d;
    }
  gsl_eigen_symmv_free (w);
  gsl_vector_free (lambda);
  gsl_matrix_free (v);
  gsl_matrix_free (a);
}

static gboolean
all_finite (const double *v, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (!isfinite (v[i]))
      return FALSE;
  return TRUE;
}

TildeNewtonResult
tilde_newton_step (TildeObjective *objective, double *x, double *f)
{
  gsize n = objective->n, m = MAX (n, 1);
  g_autofree double *hessian = g_new (double, m * m);
  g_autofree double *gradient = g_new (double, m);
  g_autofree double *direction = g_new (double, m);
  g_autofree double *trial = g_new (double, m);
  g_autofree double *scratch = g_new (double, m);
  double f0, factor = 1.0;

  if (!tilde_hessian_stencil (objective, x, hessian, &f0, gradient))
    return TILDE_NEWTON_FAILED;
  *f = f0;
  if (n == 0)
    return TILDE_NEWTON_STAYED;
  tilde_newton_direction (hessian, gradient, n, direction);
  if (!all_finite (direction, n))
    return TILDE_NEWTON_STAYED;
  for (; factor >= MIN_STEP_FACTOR; factor *= 0.5)
    {
      double f1;

      for (gsize i = 0; i < n; i++)
        trial[i] = x[i] + factor * direction[i];
      if (!all_finite (trial, n) || !tilde_objective_eval (objective, trial, &f1, scratch))
        continue;
      if (f1 <= f0)
        {
          memcpy (x, trial, sizeof (double) * n);
          *f = f1;
          return TILDE_NEWTON_MOVED;
        }
    }
  return TILDE_NEWTON_STAYED;
}
