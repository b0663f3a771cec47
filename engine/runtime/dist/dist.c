/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Log densities and mass functions, vectorised like Stan's: every argument
 * may be a scalar or a one-dimensional container (array, vector, row
 * vector), containers must agree in size, and the result is the sum over
 * elements. Value and partials come out of one pass and become a single
 * reduction node on the tape.
 *
 * Under propto (a `~` statement or a _lupdf call when the evaluation drops
 * constants) a term is left out exactly when none of the arguments it
 * depends on is an autodiff variable, as Stan's include_summand does.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/dist/dist-private.h"
#include "runtime/math/special.h"
#include "runtime/math/linalg.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

/* ---- continuous ---- */

/* normal with three scalars, the inner statement of many loops */
static void
normal_scalars (RtCtx *cx, const TildeValue *v, TildeValue *out)
{
  double y = rt_scalar (cx, &v[0]), mu = rt_scalar (cx, &v[1]), s = rt_scalar (cx, &v[2]);
  if (isnan (y))
    rt_domain_error (cx, "Random variable", y, "not nan");
  if (!isfinite (mu))
    rt_domain_error (cx, "Location parameter", mu, "finite");
  if (!(s > 0))
    rt_domain_error (cx, "Scale parameter", s, "positive");
  gboolean yad = v[0].ad, mad = v[1].ad, sad = v[2].ad;
  if (cx->drop && !yad && !mad && !sad)
    {
      *out = tilde_value_real (0);
      return;
    }
  double inv_s = 1 / s, z = (y - mu) * inv_s;
  double logp = -0.5 * z * z;
  if (!cx->drop)
    logp -= TILDE_LOG_SQRT_TWO_PI;
  if (!cx->drop || sad)
    logp -= log (s);
  double *p = rt_alloc_d (cx, 3);
  AdOperand ops[3];
  guint n = 0;
  p[0] = -z * inv_s;
  p[1] = z * inv_s;
  p[2] = -inv_s + z * z * inv_s;
  if (yad)
    ops[n++] = (AdOperand) { .start = v[0].start, .n = 1, .partial = &p[0] };
  if (mad)
    ops[n++] = (AdOperand) { .start = v[1].start, .n = 1, .partial = &p[1] };
  if (sad)
    ops[n++] = (AdOperand) { .start = v[2].start, .n = 1, .partial = &p[2] };
  *out = rt_reduce (cx, logp, n, ops);
}

static void
k_normal (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  if (tilde_value_kind_is_scalar ((TildeValueKind) v[0].kind)
      && tilde_value_kind_is_scalar ((TildeValueKind) v[1].kind)
      && tilde_value_kind_is_scalar ((TildeValueKind) v[2].kind))
    {
      normal_scalars (cx, v, out);
      return;
    }
  DArg a[3];
  dist_arg (cx, &a[0], &v[0], "Random variable");
  dist_arg_unzeroed (cx, &a[1], &v[1], "Location parameter");
  dist_arg (cx, &a[2], &v[2], "Scale parameter");
  dist_check_positive (cx, &a[2]);
  gint32 N = dist_size (cx, a, 3);
  if (cx->drop && !dist_any_ad (a, 3))
    {
      dist_check_not_nan (cx, &a[0]);
      dist_check_finite (cx, &a[1]);
      *out = tilde_value_real (0);
      return;
    }
  gboolean tight = !a[2].vec && a[0].vec && a[1].vec && !a[0].p && a[1].p;
  /* the tightest loop sets the location's partials; the others add to them */
  if (!tight)
    dist_zero_partials (&a[1]);
  gboolean k_const = dist_keep (cx, a, 0), k_sigma = dist_keep (cx, a, 4), k_quad = dist_keep (cx, a, 7);
  double logp = 0;
  if (!a[2].vec && !a[0].vec && !a[1].vec)
    N = 1;
  if (k_const)
    logp -= N * TILDE_LOG_SQRT_TWO_PI;
  if (k_sigma)
    {
      if (a[2].vec)
        for (gint32 i = 0; i < N; i++)
          logp -= log (a[2].x[i]);
      else
        logp -= N * log (a[2].x[0]);
    }
  /* the commonest case, a data variate about autodiff locations with one
   * scale, gets the tightest loop */
  if (tight)
    {
      double inv_s = 1 / a[2].x[0], sq = 0;
      const double *y = a[0].x, *mu = a[1].x;
      double *pm = a[1].p;
      for (gint32 i = 0; i < N; i++)
        {
          double z = (y[i] - mu[i]) * inv_s;
          sq += z * z;
          pm[i] = z * inv_s;
        }
      if (!isfinite (sq))
        {
          dist_check_not_nan (cx, &a[0]);
          dist_check_finite (cx, &a[1]);
        }
      if (k_quad)
        logp -= 0.5 * sq;
      if (a[2].p)
        a[2].p[0] += -N * inv_s + sq * inv_s;
    }
  /* the common case gets a tight loop */
  else if (!a[2].vec)
    {
      double inv_s = 1 / a[2].x[0], sq = 0;
      /* y is checked for NaN and mu for finiteness in the same pass: z is
       * finite exactly when both are fine (sigma is positive) */
      for (gint32 i = 0; i < N; i++)
        {
          double z = (AT (&a[0], i) - AT (&a[1], i)) * inv_s;
          sq += z * z;
          double dy = -z * inv_s;
          dist_grad (&a[0], i, dy);
          dist_grad (&a[1], i, -dy);
        }
      if (!isfinite (sq))
        {
          dist_check_not_nan (cx, &a[0]);
          dist_check_finite (cx, &a[1]);
        }
      if (k_quad)
        logp -= 0.5 * sq;
      if (a[2].p)
        a[2].p[0] += -N * inv_s + sq * inv_s;
    }
  else
    {
      dist_check_not_nan (cx, &a[0]);
      dist_check_finite (cx, &a[1]);
      for (gint32 i = 0; i < N; i++)
        {
          double s = a[2].x[i], inv_s = 1 / s;
          double z = (AT (&a[0], i) - AT (&a[1], i)) * inv_s;
          if (k_quad)
            logp -= 0.5 * z * z;
          double dy = -z * inv_s;
          dist_grad (&a[0], i, dy);
          dist_grad (&a[1], i, -dy);
          dist_grad (&a[2], i, -inv_s + z * z * inv_s);
        }
    }
  dist_finish (cx, a, 3, logp, out);
}

static void
k_std_normal (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[1];
  dist_arg (cx, &a[0], &v[0], "Random variable");
  dist_check_not_nan (cx, &a[0]);
  gint32 N = a[0].n;
  if (cx->drop && !a[0].ad)
    {
      *out = tilde_value_real (0);
      return;
    }
  double logp = 0, sq = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double y = a[0].x[i];
      sq += y * y;
      dist_grad (&a[0], i, -y);
    }
  logp -= 0.5 * sq;
  if (!cx->drop)
    logp -= N * TILDE_LOG_SQRT_TWO_PI;
  dist_finish (cx, a, 1, logp, out);
}

static void
k_cauchy (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[3];
  dist_arg (cx, &a[0], &v[0], "Random variable");
  dist_arg (cx, &a[1], &v[1], "Location parameter");
  dist_arg (cx, &a[2], &v[2], "Scale parameter");
  dist_check_not_nan (cx, &a[0]);
  dist_check_finite (cx, &a[1]);
  dist_check_positive_finite (cx, &a[2]);
  gint32 N = dist_size (cx, a, 3);
  if (cx->drop && !dist_any_ad (a, 3))
    {
      *out = tilde_value_real (0);
      return;
    }
  double logp = 0;
  gboolean k_const = dist_keep (cx, a, 0), k_sigma = dist_keep (cx, a, 4), k_all = dist_keep (cx, a, 7);
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (&a[0], i), mu = AT (&a[1], i), s = AT (&a[2], i);
      double d = y - mu, d2 = d * d, s2 = s * s;
      if (k_const)
        logp -= TILDE_LOG_PI;
      if (k_sigma)
        logp -= log (s);
      if (k_all)
        logp -= log1p (d2 / s2);
      double dy = -2 * d / (s2 + d2);
      dist_grad (&a[0], i, dy);
      dist_grad (&a[1], i, -dy);
      dist_grad (&a[2], i, (d2 - s2) / (s * (s2 + d2)));
    }
  dist_finish (cx, a, 3, logp, out);
}

/* the degrees of freedom's own terms and derivative */
static double
student_nu_term (double nu)
{
  return lgamma (0.5 * (nu + 1)) - lgamma (0.5 * nu) - 0.5 * log (nu);
}

static double
student_nu_grad (double nu)
{
  return 0.5 * (tilde_digamma (0.5 * (nu + 1)) - tilde_digamma (0.5 * nu)) - 0.5 / nu;
}

static void
k_student_t (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[4];
  dist_arg (cx, &a[0], &v[0], "Random variable");
  dist_arg (cx, &a[1], &v[1], "Degrees of freedom parameter");
  dist_arg (cx, &a[2], &v[2], "Location parameter");
  dist_arg (cx, &a[3], &v[3], "Scale parameter");
  dist_check_not_nan (cx, &a[0]);
  dist_check_positive_finite (cx, &a[1]);
  dist_check_finite (cx, &a[2]);
  dist_check_positive_finite (cx, &a[3]);
  gint32 N = dist_size (cx, a, 4);
  if (cx->drop && !dist_any_ad (a, 4))
    {
      *out = tilde_value_real (0);
      return;
    }
  gboolean k_const = dist_keep (cx, a, 0), k_nu = dist_keep (cx, a, 2), k_sigma = dist_keep (cx, a, 8),
    k_all = dist_keep (cx, a, 15);
  double logp = 0, m_term = NAN, m_grad = NAN;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (&a[0], i), nu = AT (&a[1], i), mu = AT (&a[2], i), s = AT (&a[3], i);
      double r = (y - mu) / s, q = r * r / nu;
      double l1q = log1p (q);
      if (k_const)
        logp -= TILDE_LOG_SQRT_PI;
      if (k_nu)
        logp += dist_once (&a[1], i, &m_term, student_nu_term);
      if (k_sigma)
        logp -= log (s);
      if (k_all)
        logp -= 0.5 * (nu + 1) * l1q;
      double dy = -(nu + 1) * (y - mu) / (s * s * nu * (1 + q));
      dist_grad (&a[0], i, dy);
      dist_grad (&a[2], i, -dy);
      dist_grad (&a[3], i, -1 / s + (nu + 1) * q / (s * (1 + q)));
      if (a[1].p)
        dist_grad (&a[1], i, dist_once (&a[1], i, &m_grad, student_nu_grad)
                   - 0.5 * l1q + 0.5 * (nu + 1) * q / (nu * (1 + q)));
    }
  dist_finish (cx, a, 4, logp, out);
}

static void
k_exponential (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[2];
  dist_arg (cx, &a[0], &v[0], "Random variable");
  dist_arg (cx, &a[1], &v[1], "Inverse scale parameter");
  dist_check_nonnegative (cx, &a[0]);
  dist_check_positive_finite (cx, &a[1]);
  gint32 N = dist_size (cx, a, 2);
  if (cx->drop && !dist_any_ad (a, 2))
    {
      *out = tilde_value_real (0);
      return;
    }
  gboolean k_beta = dist_keep (cx, a, 2);
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (&a[0], i), b = AT (&a[1], i);
      if (k_beta)
        logp += log (b);
      logp -= b * y;
      dist_grad (&a[0], i, -b);
      dist_grad (&a[1], i, 1 / b - y);
    }
  dist_finish (cx, a, 2, logp, out);
}

static void
k_gamma (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[3];
  dist_arg (cx, &a[0], &v[0], "Random variable");
  dist_arg (cx, &a[1], &v[1], "Shape parameter");
  dist_arg (cx, &a[2], &v[2], "Inverse scale parameter");
  dist_check_positive_finite (cx, &a[1]);
  dist_check_positive_finite (cx, &a[2]);
  dist_check_not_nan (cx, &a[0]);
  gint32 N = dist_size (cx, a, 3);
  for (gint32 i = 0; i < a[0].n; i++)
    if (a[0].x[i] < 0)
      {
        *out = tilde_value_real (-INFINITY);
        return;
      }
  if (cx->drop && !dist_any_ad (a, 3))
    {
      *out = tilde_value_real (0);
      return;
    }
  gboolean k_al = dist_keep (cx, a, 2), k_ab = dist_keep (cx, a, 6), k_ya = dist_keep (cx, a, 3),
    k_yb = dist_keep (cx, a, 5);
  double logp = 0, m_lg = NAN, m_dg = NAN, m_lb = NAN;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (&a[0], i), al = AT (&a[1], i), b = AT (&a[2], i);
      double ly = log (y), lb = dist_once (&a[2], i, &m_lb, log);
      if (k_al)
        logp -= dist_once (&a[1], i, &m_lg, lgamma);
      if (k_ab)
        logp += al * lb;
      if (k_ya)
        logp += (al - 1) * ly;
      if (k_yb)
        logp -= b * y;
      dist_grad (&a[0], i, (al - 1) / y - b);
      if (a[1].p)
        dist_grad (&a[1], i, -dist_once (&a[1], i, &m_dg, tilde_digamma) + lb + ly);
      dist_grad (&a[2], i, al / b - y);
    }
  dist_finish (cx, a, 3, logp, out);
}

static void
k_inv_gamma (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[3];
  dist_arg (cx, &a[0], &v[0], "Random variable");
  dist_arg (cx, &a[1], &v[1], "Shape parameter");
  dist_arg (cx, &a[2], &v[2], "Scale parameter");
  dist_check_not_nan (cx, &a[0]);
  dist_check_positive_finite (cx, &a[1]);
  dist_check_positive_finite (cx, &a[2]);
  gint32 N = dist_size (cx, a, 3);
  for (gint32 i = 0; i < a[0].n; i++)
    if (a[0].x[i] <= 0)
      {
        *out = tilde_value_real (-INFINITY);
        return;
      }
  if (cx->drop && !dist_any_ad (a, 3))
    {
      *out = tilde_value_real (0);
      return;
    }
  gboolean k_al = dist_keep (cx, a, 2), k_ab = dist_keep (cx, a, 6), k_ya = dist_keep (cx, a, 3),
    k_yb = dist_keep (cx, a, 5);
  double logp = 0, m_lg = NAN, m_dg = NAN, m_lb = NAN;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (&a[0], i), al = AT (&a[1], i), b = AT (&a[2], i);
      double ly = log (y), lb = dist_once (&a[2], i, &m_lb, log);
      if (k_al)
        logp -= dist_once (&a[1], i, &m_lg, lgamma);
      if (k_ab)
        logp += al * lb;
      if (k_ya)
        logp -= (al + 1) * ly;
      if (k_yb)
        logp -= b / y;
      dist_grad (&a[0], i, -(al + 1) / y + b / (y * y));
      if (a[1].p)
        dist_grad (&a[1], i, -dist_once (&a[1], i, &m_dg, tilde_digamma) + lb - ly);
      dist_grad (&a[2], i, al / b - 1 / y);
    }
  dist_finish (cx, a, 3, logp, out);
}

static void
k_lognormal (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[3];
  dist_arg (cx, &a[0], &v[0], "Random variable");
  dist_arg (cx, &a[1], &v[1], "Location parameter");
  dist_arg (cx, &a[2], &v[2], "Scale parameter");
  dist_check_nonnegative (cx, &a[0]);
  dist_check_finite (cx, &a[1]);
  dist_check_positive_finite (cx, &a[2]);
  gint32 N = dist_size (cx, a, 3);
  for (gint32 i = 0; i < a[0].n; i++)
    if (a[0].x[i] == 0)
      {
        *out = tilde_value_real (-INFINITY);
        return;
      }
  if (cx->drop && !dist_any_ad (a, 3))
    {
      *out = tilde_value_real (0);
      return;
    }
  gboolean k_const = dist_keep (cx, a, 0), k_s = dist_keep (cx, a, 4), k_y = dist_keep (cx, a, 1),
    k_all = dist_keep (cx, a, 7);
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (&a[0], i), mu = AT (&a[1], i), s = AT (&a[2], i);
      double ly = log (y), d = ly - mu, s2 = s * s;
      if (k_const)
        logp -= TILDE_LOG_SQRT_TWO_PI;
      if (k_s)
        logp -= log (s);
      if (k_y)
        logp -= ly;
      if (k_all)
        logp -= 0.5 * d * d / s2;
      dist_grad (&a[0], i, -(1 + d / s2) / y);
      dist_grad (&a[1], i, d / s2);
      dist_grad (&a[2], i, -1 / s + d * d / (s2 * s));
    }
  dist_finish (cx, a, 3, logp, out);
}

static void
k_beta (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[3];
  dist_arg (cx, &a[0], &v[0], "Random variable");
  dist_arg (cx, &a[1], &v[1], "First shape parameter");
  dist_arg (cx, &a[2], &v[2], "Second shape parameter");
  dist_check_positive_finite (cx, &a[1]);
  dist_check_positive_finite (cx, &a[2]);
  dist_check_unit_interval (cx, &a[0]);
  gint32 N = dist_size (cx, a, 3);
  if (cx->drop && !dist_any_ad (a, 3))
    {
      *out = tilde_value_real (0);
      return;
    }
  gboolean k_ab = dist_keep (cx, a, 6), k_ya = dist_keep (cx, a, 3), k_yb = dist_keep (cx, a, 5);
  /* with both shapes shared, their special functions once */
  gboolean shared = !a[1].vec && !a[2].vec;
  double s_lb = 0, s_da = 0, s_db = 0;
  if (shared)
    {
      double al = a[1].x[0], b = a[2].x[0];
      s_lb = tilde_lbeta (al, b);
      if (a[1].p || a[2].p)
        {
          double dab = tilde_digamma (al + b);
          s_da = dab - tilde_digamma (al);
          s_db = dab - tilde_digamma (b);
        }
    }
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (&a[0], i), al = AT (&a[1], i), b = AT (&a[2], i);
      double ly = log (y), l1y = log1p (-y);
      if (k_ab)
        logp -= shared ? s_lb : tilde_lbeta (al, b);
      if (k_ya)
        logp += (al - 1) * ly;
      if (k_yb)
        logp += (b - 1) * l1y;
      dist_grad (&a[0], i, (al - 1) / y - (b - 1) / (1 - y));
      if (a[1].p || a[2].p)
        {
          double da = s_da, db = s_db;
          if (!shared)
            {
              double dab = tilde_digamma (al + b);
              da = dab - tilde_digamma (al);
              db = dab - tilde_digamma (b);
            }
          dist_grad (&a[1], i, da + ly);
          dist_grad (&a[2], i, db + l1y);
        }
    }
  dist_finish (cx, a, 3, logp, out);
}

static void
k_uniform (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[3];
  dist_arg (cx, &a[0], &v[0], "Random variable");
  dist_arg (cx, &a[1], &v[1], "Lower bound parameter");
  dist_arg (cx, &a[2], &v[2], "Upper bound parameter");
  dist_check_not_nan (cx, &a[0]);
  dist_check_finite (cx, &a[1]);
  dist_check_finite (cx, &a[2]);
  gint32 N = dist_size (cx, a, 3);
  for (gint32 i = 0; i < N; i++)
    {
      if (!(AT (&a[2], i) > AT (&a[1], i)))
        {
          char must[64];
          g_snprintf (must, sizeof must, "greater than %g", AT (&a[1], i));
          dist_fail (cx, &a[2], i, AT (&a[2], i), must);
        }
      double y = AT (&a[0], i);
      if (y < AT (&a[1], i) || y > AT (&a[2], i))
        {
          *out = tilde_value_real (-INFINITY);
          return;
        }
    }
  if (cx->drop && !dist_any_ad (a, 3))
    {
      *out = tilde_value_real (0);
      return;
    }
  gboolean k_ab = dist_keep (cx, a, 6);
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double w = AT (&a[2], i) - AT (&a[1], i);
      if (k_ab)
        logp -= log (w);
      dist_grad (&a[1], i, 1 / w);
      dist_grad (&a[2], i, -1 / w);
    }
  dist_finish (cx, a, 3, logp, out);
}

/* ---- discrete ---- */

static void
k_bernoulli (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[2];
  dist_arg (cx, &a[0], &v[0], "n");
  dist_arg (cx, &a[1], &v[1], "Probability parameter");
  dist_check_range (cx, &a[0], 0, 1, "in the interval [0, 1]");
  dist_check_unit_interval (cx, &a[1]);
  gint32 N = dist_size (cx, a, 2);
  if (cx->drop && !a[1].ad)
    {
      *out = tilde_value_real (0);
      return;
    }
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double n = AT (&a[0], i), th = AT (&a[1], i);
      if (n == 1)
        {
          logp += log (th);
          dist_grad (&a[1], i, 1 / th);
        }
      else
        {
          logp += log1p (-th);
          dist_grad (&a[1], i, -1 / (1 - th));
        }
    }
  dist_finish (cx, a, 2, logp, out);
}

static void
k_bernoulli_logit (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[2];
  dist_arg (cx, &a[0], &v[0], "n");
  dist_arg (cx, &a[1], &v[1], "Logit transformed probability parameter");
  dist_check_range (cx, &a[0], 0, 1, "in the interval [0, 1]");
  dist_check_not_nan (cx, &a[1]);
  gint32 N = dist_size (cx, a, 2);
  if (cx->drop && !a[1].ad)
    {
      *out = tilde_value_real (0);
      return;
    }
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double sign = 2 * AT (&a[0], i) - 1, th = AT (&a[1], i);
      double nt = sign * th;
      /* one exponential for both the value and the derivative */
      double e = exp (-fabs (nt));
      logp += (nt < 0 ? nt : 0) - log1p (e);
      dist_grad (&a[1], i, sign * (nt > 0 ? e : 1) / (1 + e));
    }
  dist_finish (cx, a, 2, logp, out);
}

static void
k_binomial (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[3];
  dist_arg (cx, &a[0], &v[0], "Successes variable");
  dist_arg (cx, &a[1], &v[1], "Population size parameter");
  dist_arg (cx, &a[2], &v[2], "Probability parameter");
  dist_check_nonnegative (cx, &a[0]);
  dist_check_nonnegative (cx, &a[1]);
  dist_check_unit_interval (cx, &a[2]);
  gint32 N = dist_size (cx, a, 3);
  for (gint32 i = 0; i < N; i++)
    if (AT (&a[0], i) > AT (&a[1], i))
      dist_fail (cx, &a[0], i, AT (&a[0], i), "less than or equal to the population size");
  if (cx->drop && !a[2].ad)
    {
      *out = tilde_value_real (0);
      return;
    }
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double n = AT (&a[0], i), Nn = AT (&a[1], i), th = AT (&a[2], i);
      if (!cx->drop)
        logp += tilde_lchoose (Nn, n);
      if (n > 0)
        logp += n * log (th);
      if (Nn - n > 0)
        logp += (Nn - n) * log1p (-th);
      dist_grad (&a[2], i, (n > 0 ? n / th : 0) - (Nn - n > 0 ? (Nn - n) / (1 - th) : 0));
    }
  dist_finish (cx, a, 3, logp, out);
}

static void
k_binomial_logit (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[3];
  dist_arg (cx, &a[0], &v[0], "Successes variable");
  dist_arg (cx, &a[1], &v[1], "Population size parameter");
  dist_arg (cx, &a[2], &v[2], "Probability parameter");
  dist_check_nonnegative (cx, &a[0]);
  dist_check_nonnegative (cx, &a[1]);
  dist_check_finite (cx, &a[2]);
  gint32 N = dist_size (cx, a, 3);
  for (gint32 i = 0; i < N; i++)
    if (AT (&a[0], i) > AT (&a[1], i))
      dist_fail (cx, &a[0], i, AT (&a[0], i), "less than or equal to the population size");
  if (cx->drop && !a[2].ad)
    {
      *out = tilde_value_real (0);
      return;
    }
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double n = AT (&a[0], i), Nn = AT (&a[1], i), al = AT (&a[2], i);
      if (!cx->drop)
        logp += tilde_lchoose (Nn, n);
      logp += n * tilde_log_inv_logit (al) + (Nn - n) * tilde_log1m_inv_logit (al);
      dist_grad (&a[2], i, n - Nn * tilde_inv_logit (al));
    }
  dist_finish (cx, a, 3, logp, out);
}

static void
k_poisson (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[2];
  dist_arg (cx, &a[0], &v[0], "Random variable");
  dist_arg (cx, &a[1], &v[1], "Rate parameter");
  dist_check_nonnegative (cx, &a[0]);
  for (gint32 i = 0; i < a[1].n; i++)
    if (!(a[1].x[i] >= 0) || isinf (a[1].x[i]))
      dist_fail (cx, &a[1], i, a[1].x[i], "nonnegative and finite");
  gint32 N = dist_size (cx, a, 2);
  for (gint32 i = 0; i < N; i++)
    if (AT (&a[1], i) == 0 && AT (&a[0], i) != 0)
      {
        *out = tilde_value_real (-INFINITY);
        return;
      }
  if (cx->drop && !a[1].ad)
    {
      *out = tilde_value_real (0);
      return;
    }
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double n = AT (&a[0], i), l = AT (&a[1], i);
      if (!cx->drop)
        logp -= lgamma (n + 1);
      if (n > 0)
        logp += n * log (l);
      logp -= l;
      dist_grad (&a[1], i, n / l - 1);
    }
  dist_finish (cx, a, 2, logp, out);
}

static void
k_poisson_log (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[2];
  dist_arg (cx, &a[0], &v[0], "Random variable");
  dist_arg (cx, &a[1], &v[1], "Log rate parameter");
  dist_check_nonnegative (cx, &a[0]);
  dist_check_not_nan (cx, &a[1]);
  gint32 N = dist_size (cx, a, 2);
  for (gint32 i = 0; i < N; i++)
    {
      double al = AT (&a[1], i);
      if (al == INFINITY || (al == -INFINITY && AT (&a[0], i) != 0))
        {
          *out = tilde_value_real (-INFINITY);
          return;
        }
    }
  if (cx->drop && !a[1].ad)
    {
      *out = tilde_value_real (0);
      return;
    }
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double n = AT (&a[0], i), al = AT (&a[1], i);
      double e = exp (al);
      if (!cx->drop)
        logp -= lgamma (n + 1);
      if (!(al == -INFINITY && n == 0))
        logp += n * al - e;
      dist_grad (&a[1], i, n - e);
    }
  dist_finish (cx, a, 2, logp, out);
}

static void
k_neg_binomial_2 (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[3];
  dist_arg (cx, &a[0], &v[0], "Failures variable");
  dist_arg (cx, &a[1], &v[1], "Location parameter");
  dist_arg (cx, &a[2], &v[2], "Precision parameter");
  dist_check_nonnegative (cx, &a[0]);
  dist_check_positive_finite (cx, &a[1]);
  dist_check_positive_finite (cx, &a[2]);
  gint32 N = dist_size (cx, a, 3);
  if (cx->drop && !dist_any_ad (a, 3))
    {
      *out = tilde_value_real (0);
      return;
    }
  gboolean k_phi = dist_keep (cx, a, 4), k_mu = dist_keep (cx, a, 2), k_both = dist_keep (cx, a, 6);
  double logp = 0, m_dg = NAN;
  for (gint32 i = 0; i < N; i++)
    {
      double n = AT (&a[0], i), mu = AT (&a[1], i), phi = AT (&a[2], i);
      double lmp = log (mu + phi);
      if (k_phi)
        logp += tilde_lchoose_count (n, phi);
      if (k_mu && n > 0)
        logp += n * log (mu);
      if (k_both)
        logp += -phi * log1p (mu / phi) - n * lmp;
      dist_grad (&a[1], i, n / mu - (n + phi) / (mu + phi));
      if (a[2].p)
        dist_grad (&a[2], i, 1 - (n + phi) / (mu + phi) + log (phi) - lmp
                   - dist_once (&a[2], i, &m_dg, tilde_digamma) + tilde_digamma (n + phi));
    }
  dist_finish (cx, a, 3, logp, out);
}

static void
k_neg_binomial_2_log (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[3];
  dist_arg (cx, &a[0], &v[0], "Failures variable");
  dist_arg (cx, &a[1], &v[1], "Log location parameter");
  dist_arg (cx, &a[2], &v[2], "Precision parameter");
  dist_check_nonnegative (cx, &a[0]);
  dist_check_finite (cx, &a[1]);
  dist_check_positive_finite (cx, &a[2]);
  gint32 N = dist_size (cx, a, 3);
  if (cx->drop && !dist_any_ad (a, 3))
    {
      *out = tilde_value_real (0);
      return;
    }
  gboolean k_phi = dist_keep (cx, a, 4), k_eta = dist_keep (cx, a, 2), k_both = dist_keep (cx, a, 6);
  double logp = 0, block = 0, m_dg = NAN;
  for (gint32 i = 0; i < N; i++)
    {
      double n = AT (&a[0], i), eta = AT (&a[1], i), phi = AT (&a[2], i);
      double lphi = log (phi);
      double L = tilde_log1p_exp (eta - lphi);       /* log (1 + exp (eta) / phi) */
      double w = tilde_inv_logit (eta - lphi);       /* exp (eta) / (exp (eta) + phi) */
      double term = 0;
      if (k_phi)
        term += tilde_lchoose_count (n, phi);
      if (k_eta)
        term += n * eta;
      if (k_both)
        term += -phi * L - n * (lphi + L);
      /* a row's terms together, and the rows in blocks: with a million rows
       * a running sum near 10^6 lost 6e-12 of itself to rounding */
      block += term;
      if ((i & 1023) == 1023)
        {
          logp += block;
          block = 0;
        }
      dist_grad (&a[1], i, n - (n + phi) * w);
      if (a[2].p)
        dist_grad (&a[2], i, tilde_digamma (n + phi) - dist_once (&a[2], i, &m_dg, tilde_digamma) - L
               + w - n * (1 - w) / phi);
    }
  logp += block;
  dist_finish (cx, a, 3, logp, out);
}

/* ---- generalised linear models: y ~ f (alpha + x * beta, ...) ----
 * The linear predictor is a product node and a sum node; the density then
 * adds one reduction, as the expanded statement would. Under propto Stan's
 * normal_id_glm, bernoulli_logit_glm and poisson_log_glm drop the terms
 * their densities of the linear predictor drop; neg_binomial_2_log_glm
 * does not (see below), so a call the optimiser wrote in place of
 * neg_binomial_2_log (and marked so) has a form of its own that keeps the
 * replaced statement's value. */

static void
linear_predictor (RtCtx *cx, const TildeValue *x, const TildeValue *alpha, const TildeValue *beta,
                  TildeValue *eta)
{
  TildeValue xb;
  rt_matmul (cx, x, beta, &xb);
  rt_add (cx, &xb, alpha, eta);
}

static void
k_normal_id_glm (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  TildeValue eta, args[3];
  linear_predictor (cx, &v[1], &v[2], &v[3], &eta);
  args[0] = v[0];
  args[1] = eta;
  args[2] = v[4];
  k_normal (cx, 3, args, out);
}

static void
k_bernoulli_logit_glm (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  TildeValue eta, args[2];
  linear_predictor (cx, &v[1], &v[2], &v[3], &eta);
  args[0] = v[0];
  args[1] = eta;
  k_bernoulli_logit (cx, 2, args, out);
}

static void
k_binomial_logit_glm (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  TildeValue eta, args[3];
  linear_predictor (cx, &v[2], &v[3], &v[4], &eta);
  args[0] = v[0];
  args[1] = v[1];
  args[2] = eta;
  k_binomial_logit (cx, 3, args, out);
}

static void
k_poisson_log_glm (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  TildeValue eta, args[2];
  linear_predictor (cx, &v[1], &v[2], &v[3], &eta);
  args[0] = v[0];
  args[1] = eta;
  k_poisson_log (cx, 2, args, out);
}

/* neg_binomial_2_log of the linear predictor: for a call the optimiser
 * wrote in place of that density. */
static void
k_neg_binomial_2_log_glm_expanded (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  TildeValue eta, args[3];
  linear_predictor (cx, &v[1], &v[2], &v[3], &eta);
  args[0] = v[0];
  args[1] = eta;
  args[2] = v[4];
  k_neg_binomial_2_log (cx, 3, args, out);
}

/* Stan's own: under propto it drops -lgamma (n + 1) even when phi is a
 * parameter, and when phi is data it keeps the -phi log (phi) that the
 * density of the linear predictor drops. The partials are the same. */
static void
k_neg_binomial_2_log_glm (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  TildeValue eta, args[3], lp;
  linear_predictor (cx, &v[1], &v[2], &v[3], &eta);
  args[0] = v[0];
  args[1] = eta;
  args[2] = v[4];
  k_neg_binomial_2_log (cx, 3, args, &lp);
  gboolean phi_ad = rt_is_ad (&v[4]);
  if (!cx->drop || !(phi_ad || rt_is_ad (&eta)))
    {
      *out = lp;
      return;
    }
  gint32 n_y = tilde_value_flat_size (&v[0]), n_phi = tilde_value_flat_size (&v[4]);
  gint32 N = MAX (n_y, tilde_value_flat_size (&eta));
  const double *y = rt_values (cx, &v[0]), *phi = rt_values (cx, &v[4]);
  double c = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double yi = y[n_y == 1 ? 0 : i], p = phi[n_phi == 1 ? 0 : i];
      c += phi_ad ? lgamma (yi + 1) : -p * log (p);
    }
  TildeValue k = tilde_value_real (c);
  rt_arith_scalar (cx, 0, &lp, &k, out);
}

#define DIST(base, fn, n) \
  { base "_lpdf", fn, n, n }, { base "_lupdf", fn, n, n }
#define MASS(base, fn, n) \
  { base "_lpmf", fn, n, n }, { base "_lupmf", fn, n, n }

const RtBuiltin rt_builtins_dist[] = {
  DIST ("normal", k_normal, 3),
  DIST ("std_normal", k_std_normal, 1),
  DIST ("cauchy", k_cauchy, 3),
  DIST ("student_t", k_student_t, 4),
  DIST ("exponential", k_exponential, 2),
  DIST ("gamma", k_gamma, 3),
  DIST ("inv_gamma", k_inv_gamma, 3),
  DIST ("lognormal", k_lognormal, 3),
  DIST ("beta", k_beta, 3),
  DIST ("uniform", k_uniform, 3),
  MASS ("bernoulli", k_bernoulli, 2),
  MASS ("bernoulli_logit", k_bernoulli_logit, 2),
  MASS ("binomial", k_binomial, 3),
  MASS ("binomial_logit", k_binomial_logit, 3),
  MASS ("poisson", k_poisson, 2),
  MASS ("poisson_log", k_poisson_log, 2),
  MASS ("neg_binomial_2", k_neg_binomial_2, 3),
  MASS ("neg_binomial_2_log", k_neg_binomial_2_log, 3),
  DIST ("normal_id_glm", k_normal_id_glm, 5),
  MASS ("bernoulli_logit_glm", k_bernoulli_logit_glm, 4),
  MASS ("poisson_log_glm", k_poisson_log_glm, 4),
  MASS ("binomial_logit_glm", k_binomial_logit_glm, 5),
  MASS ("neg_binomial_2_log_glm", k_neg_binomial_2_log_glm, 5),
  /* mir.h: MirFun.rewritten */
  { "neg_binomial_2_log_glm_lpmf expanded", k_neg_binomial_2_log_glm_expanded, 5, 5 },
  { "neg_binomial_2_log_glm_lupmf expanded", k_neg_binomial_2_log_glm_expanded, 5, 5 },
  { NULL, NULL, 0, 0 },
};
