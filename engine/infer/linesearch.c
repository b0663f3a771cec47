/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "infer/linesearch.h"

#include <math.h>

/* Floating point can stop a bracket from shrinking (its ends adjacent
 * doubles); past this many trials the search is taken to have failed. */
#define ZOOM_MAX_TRIALS 200
#define ZOOM_MIN_RANGE  1e-16

gboolean
tilde_objective_eval (TildeObjective *objective, const double *x, double *f, double *gradient)
{
  objective->evaluations++;
  if (!objective->func (x, f, gradient, objective->user_data) || !isfinite (*f))
    return FALSE;
  for (gsize i = 0; i < objective->n; i++)
    if (!isfinite (gradient[i]))
      return FALSE;
  return TRUE;
}

void
tilde_line_search_options_init (TildeLineSearchOptions *options)
{
  options->c1 = 1e-4;
  options->c2 = 0.9;
  options->min_alpha = 1e-12;
  options->max_iterations = 20;
  options->max_restarts = 10;
}

static double
cubic_value (double c1, double c2, double c3, double x)
{
  return x * (x * (x * c3 / 3.0 + c2) / 2.0 + c1);
}

double
tilde_cubic_interp (double df0, double x1, double f1, double df1, double lo, double hi)
{
  /* g(x) = c3 x^3/3 + c2 x^2/2 + c1 x with g(0) = 0, g'(0) = df0,
   * g(x1) = f1, g'(x1) = df1; its critical points are the roots of
   * c3 x^2 + c2 x + c1. */
  double c3 = (-12.0 * f1 + 6.0 * x1 * (df0 + df1)) / (x1 * x1 * x1);
  double c2 = -(4.0 * df0 + 2.0 * df1) / x1 + 6.0 * f1 / (x1 * x1);
  double c1 = df0;
  double root = sqrt (c2 * c2 - 2.0 * c1 * c3);
  double candidates[2] = { -(c2 + root) / c3, -(c2 - root) / c3 };
  double best_x = lo, best_f = cubic_value (c1, c2, c3, lo);
  double f_hi = cubic_value (c1, c2, c3, hi);

  if (f_hi < best_f)
    {
      best_f = f_hi;
      best_x = hi;
    }
  for (int i = 0; i < 2; i++)
    {
      double s = candidates[i];
      if (lo < s && s < hi)
        {
          double fs = cubic_value (c1, c2, c3, s);
          if (fs < best_f)
            {
              best_f = fs;
              best_x = s;
            }
        }
    }
  return best_x;
}

static double
dot (const double *a, const double *b, gsize n)
{
  double s = 0.0;
  for (gsize i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

static void
step_from (double *x, const double *x0, double alpha, const double *p, gsize n)
{
  for (gsize i = 0; i < n; i++)
    x[i] = x0[i] + alpha * p[i];
}

/* One end of a bracket: the step, the value there and the slope along p. */
typedef struct {
  double alpha, f, slope;
} Bracket;

/* The step between the ends that the cubic through them puts lowest, or
 * the midpoint when that falls outside the middle 98% of the bracket. */
static double
zoom_trial (const Bracket *lo, const Bracket *hi, int trial)
{
  double mid = 0.5 * (lo->alpha + hi->alpha);
  double width = fabs (lo->alpha - hi->alpha);
  double d1, d2, alpha;

  if (trial % 5 == 0)
    return mid;
  d1 = lo->slope + hi->slope - 3.0 * (lo->f - hi->f) / (lo->alpha - hi->alpha);
  d2 = sqrt (d1 * d1 - lo->slope * hi->slope);
  if (hi->alpha < lo->alpha)
    d2 = -d2;
  alpha = hi->alpha - (hi->alpha - lo->alpha) * (hi->slope + d2 - d1)
                      / (hi->slope - lo->slope + 2.0 * d2);
  if (!isfinite (alpha)
      || alpha < MIN (lo->alpha, hi->alpha) + 0.01 * width
      || alpha > MAX (lo->alpha, hi->alpha) - 0.01 * width)
    return mid;
  return alpha;
}

/* Narrows [lo, hi], lo being the end with the lower value, until a step
 * meets both Wolfe conditions. */
static gboolean
zoom (TildeObjective *objective, const TildeLineSearchOptions *options, Bracket lo, Bracket hi,
      const double *x0, double f0, double slope0, const double *p,
      double *alpha_out, double *x1, double *f1, double *g1)
{
  gsize n = objective->n;
  double c1_slope = options->c1 * slope0, c2_slope = options->c2 * slope0;

  for (int trial = 1; trial <= ZOOM_MAX_TRIALS; trial++)
    {
      double alpha, slope;

      if (fabs (lo.alpha - hi.alpha) < ZOOM_MIN_RANGE)
        return FALSE;
      alpha = zoom_trial (&lo, &hi, trial);
      step_from (x1, x0, alpha, p, n);
      while (!tilde_objective_eval (objective, x1, f1, g1))
        {
          double nearer = MIN (lo.alpha, hi.alpha);
          alpha = 0.5 * (alpha + nearer);
          if (fabs (nearer - alpha) < ZOOM_MIN_RANGE)
            return FALSE;
          step_from (x1, x0, alpha, p, n);
        }
      slope = dot (g1, p, n);
      if (*f1 > f0 + alpha * c1_slope || *f1 >= lo.f)
        hi = (Bracket) { alpha, *f1, slope };
      else
        {
          if (fabs (slope) <= -c2_slope)
            {
              *alpha_out = alpha;
              return TRUE;
            }
          if (slope * (hi.alpha - lo.alpha) >= 0)
            hi = lo;
          lo = (Bracket) { alpha, *f1, slope };
        }
    }
  return FALSE;
}

gboolean
tilde_wolfe_line_search (TildeObjective *objective, const TildeLineSearchOptions *options,
                         double *alpha, double *x1, double *f1, double *g1, const double *p,
                         const double *x0, double f0, const double *g0)
{
  gsize n = objective->n;
  double slope0 = dot (g0, p, n);
  double first = *alpha;
  Bracket prev = { options->min_alpha, f0, slope0 };
  double trial = first;
  int grown = 0, restarts = 0;

  while (grown < options->max_iterations)
    {
      double slope;

      step_from (x1, x0, trial, p, n);
      if (!tilde_objective_eval (objective, x1, f1, g1))
        {
          if (restarts >= options->max_restarts)
            return FALSE;
          trial = 0.5 * (prev.alpha + trial);
          restarts++;
          continue;
        }
      restarts = 0;
      slope = dot (g1, p, n);
      if (*f1 > f0 + first * options->c1 * slope0 || (*f1 >= prev.f && grown > 0))
        return zoom (objective, options, prev, (Bracket) { trial, *f1, slope },
                     x0, f0, slope0, p, alpha, x1, f1, g1);
      if (fabs (slope) <= -options->c2 * slope0)
        {
          *alpha = trial;
          return TRUE;
        }
      if (slope >= 0)
        return zoom (objective, options, (Bracket) { trial, *f1, slope }, prev,
                     x0, f0, slope0, p, alpha, x1, f1, g1);
      prev = (Bracket) { trial, *f1, slope };
      trial *= 10.0;
      grown++;
    }
  return FALSE;
}
