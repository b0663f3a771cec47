/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Continuous univariate densities beyond the common ones of dist.c:
 * double_exponential, logistic, gumbel, chi_square, inv_chi_square,
 * scaled_inv_chi_square, weibull, frechet, rayleigh, pareto,
 * pareto_type_2, beta_proportion, von_mises, skew_normal, exp_mod_normal,
 * loglogistic, skew_double_exponential.
 *
 * Each checks its arguments in Stan's order and with its wording, and keeps
 * under propto the terms Stan's include_summand keeps: the bit masks name
 * the arguments a term depends on (bit k for argument k).
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/dist/dist-private.h"
#include "runtime/math/special.h"

#include <math.h>

#define ARGS3(n0, n1, n2)                       \
  DArg a[3];                                    \
  dist_arg (cx, &a[0], &v[0], n0);              \
  dist_arg (cx, &a[1], &v[1], n1);              \
  dist_arg (cx, &a[2], &v[2], n2);              \
  gint32 N = dist_size (cx, a, 3)

#define ARGS4(n0, n1, n2, n3)                   \
  DArg a[4];                                    \
  dist_arg (cx, &a[0], &v[0], n0);              \
  dist_arg (cx, &a[1], &v[1], n1);              \
  dist_arg (cx, &a[2], &v[2], n2);              \
  dist_arg (cx, &a[3], &v[3], n3);              \
  gint32 N = dist_size (cx, a, 4)

static void
k_double_exponential (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  ARGS3 ("Random variable", "Location parameter", "Scale parameter");
  dist_check_finite (cx, &a[0]);
  dist_check_finite (cx, &a[1]);
  dist_check_positive_finite (cx, &a[2]);
  if (dist_dropped (cx, a, 3, out))
    return;
  gboolean k_const = dist_keep (cx, a, 0), k_s = dist_keep (cx, a, 4);
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double d = AT (&a[0], i) - AT (&a[1], i), s = AT (&a[2], i), inv_s = 1 / s;
      double ad = fabs (d) * inv_s;
      if (k_const)
        logp -= TILDE_LOG_TWO;
      if (k_s)
        logp -= log (s);
      logp -= ad;
      double sign = d > 0 ? 1 : d < 0 ? -1 : 0;
      dist_grad (&a[0], i, -sign * inv_s);
      dist_grad (&a[1], i, sign * inv_s);
      dist_grad (&a[2], i, inv_s * (ad - 1));
    }
  dist_finish (cx, a, 3, logp, out);
}

static void
k_logistic (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  ARGS3 ("Random variable", "Location parameter", "Scale parameter");
  dist_check_finite (cx, &a[0]);
  dist_check_finite (cx, &a[1]);
  dist_check_positive_finite (cx, &a[2]);
  if (dist_dropped (cx, a, 3, out))
    return;
  gboolean k_s = dist_keep (cx, a, 4);
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double s = AT (&a[2], i), z = (AT (&a[0], i) - AT (&a[1], i)) / s;
      logp -= z + 2 * tilde_log1p_exp (-z);
      if (k_s)
        logp -= log (s);
      double fz = 1 - 2 * tilde_inv_logit (z);
      dist_grad (&a[0], i, fz / s);
      dist_grad (&a[1], i, -fz / s);
      dist_grad (&a[2], i, -(z * fz + 1) / s);
    }
  dist_finish (cx, a, 3, logp, out);
}

static void
k_gumbel (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  ARGS3 ("Random variable", "Location parameter", "Scale parameter");
  dist_check_not_nan (cx, &a[0]);
  dist_check_finite (cx, &a[1]);
  dist_check_positive (cx, &a[2]);
  if (dist_dropped (cx, a, 3, out))
    return;
  gboolean k_b = dist_keep (cx, a, 4);
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double b = AT (&a[2], i), z = (AT (&a[0], i) - AT (&a[1], i)) / b, e = exp (-z);
      logp -= z + e;
      if (k_b)
        logp -= log (b);
      double fz = e - 1;
      dist_grad (&a[0], i, fz / b);
      dist_grad (&a[1], i, -fz / b);
      dist_grad (&a[2], i, -(z * fz + 1) / b);
    }
  dist_finish (cx, a, 3, logp, out);
}

/* the chi-square family's terms in nu: nu/2 log 2 + lgamma (nu/2), its
 * derivative's digamma, and the scaled inverse's nu/2 log (nu/2) - lgamma (nu/2) */
static double chi_nu_term (double nu) { return 0.5 * nu * TILDE_LOG_TWO + lgamma (0.5 * nu); }
static double chi_nu_digamma (double nu) { return tilde_digamma (0.5 * nu); }
static double scaled_nu_term (double nu) { return 0.5 * nu * log (0.5 * nu) - lgamma (0.5 * nu); }

static void
k_chi_square (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[2];
  dist_arg (cx, &a[0], &v[0], "Random variable");
  dist_arg (cx, &a[1], &v[1], "Degrees of freedom parameter");
  gint32 N = dist_size (cx, a, 2);
  dist_check_nonnegative (cx, &a[0]);
  dist_check_positive_finite (cx, &a[1]);
  if (dist_dropped (cx, a, 2, out))
    return;
  gboolean k_nu = dist_keep (cx, a, 2), k_ynu = dist_keep (cx, a, 3), k_y = dist_keep (cx, a, 1);
  double logp = 0, m_t = NAN, m_d = NAN;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (&a[0], i), nu = AT (&a[1], i), h = 0.5 * nu, ly = log (y);
      if (k_nu)
        logp -= dist_once (&a[1], i, &m_t, chi_nu_term);
      if (k_ynu)
        logp += (h - 1) * ly;
      if (k_y)
        logp -= 0.5 * y;
      dist_grad (&a[0], i, (h - 1) / y - 0.5);
      if (a[1].p)
        dist_grad (&a[1], i, 0.5 * (ly - TILDE_LOG_TWO - dist_once (&a[1], i, &m_d, chi_nu_digamma)));
    }
  dist_finish (cx, a, 2, logp, out);
}

static gboolean
nonpositive_variate (const DArg *y, TildeValue *out)
{
  for (gint32 i = 0; i < y->n; i++)
    if (y->x[i] <= 0)
      {
        *out = tilde_value_real (-INFINITY);
        return TRUE;
      }
  return FALSE;
}

static void
k_inv_chi_square (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[2];
  dist_arg (cx, &a[0], &v[0], "Random variable");
  dist_arg (cx, &a[1], &v[1], "Degrees of freedom parameter");
  gint32 N = dist_size (cx, a, 2);
  dist_check_positive_finite (cx, &a[1]);
  dist_check_not_nan (cx, &a[0]);
  if (dist_dropped (cx, a, 2, out) || nonpositive_variate (&a[0], out))
    return;
  gboolean k_nu = dist_keep (cx, a, 2), k_ynu = dist_keep (cx, a, 3), k_y = dist_keep (cx, a, 1);
  double logp = 0, m_t = NAN, m_d = NAN;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (&a[0], i), nu = AT (&a[1], i), h = 0.5 * nu, ly = log (y);
      if (k_nu)
        logp -= dist_once (&a[1], i, &m_t, chi_nu_term);
      if (k_ynu)
        logp -= (h + 1) * ly;
      if (k_y)
        logp -= 0.5 / y;
      dist_grad (&a[0], i, -(h + 1) / y + 0.5 / (y * y));
      if (a[1].p)
        dist_grad (&a[1], i, -0.5 * (TILDE_LOG_TWO + dist_once (&a[1], i, &m_d, chi_nu_digamma) + ly));
    }
  dist_finish (cx, a, 2, logp, out);
}

static void
k_scaled_inv_chi_square (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  ARGS3 ("Random variable", "Degrees of freedom parameter", "Scale parameter");
  dist_check_not_nan (cx, &a[0]);
  dist_check_positive_finite (cx, &a[1]);
  dist_check_positive_finite (cx, &a[2]);
  if (dist_dropped (cx, a, 3, out) || nonpositive_variate (&a[0], out))
    return;
  gboolean k_nu = dist_keep (cx, a, 2), k_nus = dist_keep (cx, a, 6), k_ynu = dist_keep (cx, a, 3),
    k_all = dist_keep (cx, a, 7);
  double logp = 0, m_t = NAN, m_d = NAN;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (&a[0], i), nu = AT (&a[1], i), s = AT (&a[2], i), h = 0.5 * nu;
      double ly = log (y), ls = log (s), s2y = s * s / y;
      if (k_nu)
        logp += dist_once (&a[1], i, &m_t, scaled_nu_term);
      if (k_nus)
        logp += nu * ls;
      if (k_ynu)
        logp -= (h + 1) * ly;
      if (k_all)
        logp -= h * s2y;
      dist_grad (&a[0], i, -(h + 1) / y + h * s2y / y);
      if (a[1].p)
        dist_grad (&a[1], i, 0.5 * log (h) + 0.5 - 0.5 * dist_once (&a[1], i, &m_d, chi_nu_digamma)
                   + ls - 0.5 * ly - 0.5 * s2y);
      dist_grad (&a[2], i, nu / s - nu * s / y);
    }
  dist_finish (cx, a, 3, logp, out);
}

static void
k_weibull (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  ARGS3 ("Random variable", "Shape parameter", "Scale parameter");
  dist_check_finite (cx, &a[0]);
  dist_check_positive_finite (cx, &a[1]);
  dist_check_positive_finite (cx, &a[2]);
  if (dist_dropped (cx, a, 3, out))
    return;
  for (gint32 i = 0; i < a[0].n; i++)
    if (a[0].x[i] < 0)
      {
        *out = tilde_value_real (-INFINITY);
        return;
      }
  gboolean k_al = dist_keep (cx, a, 2), k_yal = dist_keep (cx, a, 3), k_als = dist_keep (cx, a, 6);
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (&a[0], i), al = AT (&a[1], i), s = AT (&a[2], i);
      double ly = log (y), ls = log (s), p = pow (y / s, al);
      logp -= p;
      if (k_al)
        logp += log (al);
      if (k_yal)
        logp += (al - 1) * ly;
      if (k_als)
        logp -= al * ls;
      dist_grad (&a[0], i, (al * (1 - p) - 1) / y);
      dist_grad (&a[1], i, 1 / al + (1 - p) * (ly - ls));
      dist_grad (&a[2], i, al / s * (p - 1));
    }
  dist_finish (cx, a, 3, logp, out);
}

static void
k_frechet (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  ARGS3 ("Random variable", "Shape parameter", "Scale parameter");
  dist_check_positive (cx, &a[0]);
  dist_check_positive_finite (cx, &a[1]);
  dist_check_positive_finite (cx, &a[2]);
  if (dist_dropped (cx, a, 3, out))
    return;
  gboolean k_al = dist_keep (cx, a, 2), k_yal = dist_keep (cx, a, 3), k_als = dist_keep (cx, a, 6);
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (&a[0], i), al = AT (&a[1], i), s = AT (&a[2], i);
      double ly = log (y), ls = log (s), p = pow (s / y, al);
      logp -= p;
      if (k_al)
        logp += log (al);
      if (k_yal)
        logp -= (al + 1) * ly;
      if (k_als)
        logp += al * ls;
      dist_grad (&a[0], i, (al * p - (al + 1)) / y);
      dist_grad (&a[1], i, 1 / al + (1 - p) * (ls - ly));
      dist_grad (&a[2], i, al / s * (1 - p));
    }
  dist_finish (cx, a, 3, logp, out);
}

static void
k_rayleigh (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[2];
  dist_arg (cx, &a[0], &v[0], "Random variable");
  dist_arg (cx, &a[1], &v[1], "Scale parameter");
  gint32 N = dist_size (cx, a, 2);
  dist_check_positive (cx, &a[1]);
  dist_check_positive (cx, &a[0]);
  if (dist_dropped (cx, a, 2, out))
    return;
  gboolean k_s = dist_keep (cx, a, 2), k_y = dist_keep (cx, a, 1);
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (&a[0], i), s = AT (&a[1], i), inv_s = 1 / s, ys = y * inv_s;
      logp -= 0.5 * ys * ys;
      if (k_s)
        logp -= 2 * log (s);
      if (k_y)
        logp += log (y);
      dist_grad (&a[0], i, 1 / y - ys * inv_s);
      dist_grad (&a[1], i, (ys * ys - 2) * inv_s);
    }
  dist_finish (cx, a, 2, logp, out);
}

static void
k_pareto (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  ARGS3 ("Random variable", "Scale parameter", "Shape parameter");
  dist_check_not_nan (cx, &a[0]);
  dist_check_positive_finite (cx, &a[1]);
  dist_check_positive_finite (cx, &a[2]);
  if (dist_dropped (cx, a, 3, out))
    return;
  for (gint32 i = 0; i < N; i++)
    if (AT (&a[0], i) < AT (&a[1], i))
      {
        *out = tilde_value_real (-INFINITY);
        return;
      }
  gboolean k_al = dist_keep (cx, a, 4), k_mal = dist_keep (cx, a, 6), k_yal = dist_keep (cx, a, 5);
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (&a[0], i), ym = AT (&a[1], i), al = AT (&a[2], i);
      double ly = log (y), lm = log (ym);
      if (k_al)
        logp += log (al);
      if (k_mal)
        logp += al * lm;
      if (k_yal)
        logp -= (al + 1) * ly;
      dist_grad (&a[0], i, -(al + 1) / y);
      dist_grad (&a[1], i, al / ym);
      dist_grad (&a[2], i, 1 / al + lm - ly);
    }
  dist_finish (cx, a, 3, logp, out);
}

static void
k_pareto_type_2 (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  ARGS4 ("Random variable", "Location parameter", "Scale parameter", "Shape parameter");
  dist_check_greater_or_equal (cx, &a[0], &a[1], N);
  dist_check_positive_finite (cx, &a[2]);
  dist_check_positive_finite (cx, &a[3]);
  if (dist_dropped (cx, a, 4, out))
    return;
  gboolean k_al = dist_keep (cx, a, 8), k_l = dist_keep (cx, a, 4);
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (&a[0], i), mu = AT (&a[1], i), l = AT (&a[2], i), al = AT (&a[3], i);
      double l1p = log1p ((y - mu) / l), inv_sum = 1 / (l + y - mu);
      if (k_al)
        logp += log (al);
      if (k_l)
        logp -= log (l);
      logp -= (al + 1) * l1p;
      double dy = inv_sum + al * inv_sum;
      dist_grad (&a[0], i, -dy);
      dist_grad (&a[1], i, dy);
      dist_grad (&a[2], i, al * inv_sum * (y - mu) / l - inv_sum);
      dist_grad (&a[3], i, 1 / al - l1p);
    }
  dist_finish (cx, a, 4, logp, out);
}

static void
k_beta_proportion (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  ARGS3 ("Random variable", "Location parameter", "Precision parameter");
  dist_check_positive (cx, &a[1]);
  dist_check_less (cx, &a[1], 1.0);
  dist_check_positive_finite (cx, &a[2]);
  dist_check_bounded (cx, &a[0], 0, 1);
  if (dist_dropped (cx, a, 3, out))
    return;
  gboolean k_k = dist_keep (cx, a, 4), k_mk = dist_keep (cx, a, 6);
  double logp = 0, m_lg = NAN, m_dg = NAN;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (&a[0], i), mu = AT (&a[1], i), k = AT (&a[2], i), mk = mu * k;
      double ly = log (y), l1y = log1p (-y);
      if (k_k)
        logp += dist_once (&a[2], i, &m_lg, lgamma);
      if (k_mk)
        logp -= lgamma (mk) + lgamma (k - mk);
      logp += (mk - 1) * ly + (k - mk - 1) * l1y;
      dist_grad (&a[0], i, (mk - 1) / y + (k - mk - 1) / (y - 1));
      if (a[1].p || a[2].p)
        {
          double dm = tilde_digamma (mk), dkm = tilde_digamma (k - mk);
          dist_grad (&a[1], i, k * (dkm - dm + ly - l1y));
          if (a[2].p)
            dist_grad (&a[2], i, dist_once (&a[2], i, &m_dg, tilde_digamma) + mu * (ly - dm)
                       + (1 - mu) * (l1y - dkm));
        }
    }
  dist_finish (cx, a, 3, logp, out);
}

static void
k_von_mises (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  ARGS3 ("Random variable", "Location parameter", "Scale parameter");
  dist_check_finite (cx, &a[0]);
  dist_check_finite (cx, &a[1]);
  dist_check_nonnegative (cx, &a[2]);
  dist_check_finite (cx, &a[2]);
  if (dist_dropped (cx, a, 3, out))
    return;
  gboolean k_const = dist_keep (cx, a, 0), k_k = dist_keep (cx, a, 4);
  double logp = 0, m_l = NAN, m_r = NAN;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (&a[0], i), mu = AT (&a[1], i), k = AT (&a[2], i);
      double c = cos (mu - y), s = sin (y - mu);
      logp += k * c;
      if (k_const)
        logp -= TILDE_LOG_TWO + TILDE_LOG_PI;
      if (k_k)
        logp -= dist_once (&a[2], i, &m_l, tilde_log_bessel_i0);
      dist_grad (&a[0], i, -k * s);
      dist_grad (&a[1], i, k * s);
      if (a[2].p)
        dist_grad (&a[2], i, c - dist_once (&a[2], i, &m_r, tilde_bessel_i1_over_i0));
    }
  dist_finish (cx, a, 3, logp, out);
}

static void
k_skew_normal (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  ARGS4 ("Random variable", "Location parameter", "Scale parameter", "Shape parameter");
  dist_check_not_nan (cx, &a[0]);
  dist_check_finite (cx, &a[1]);
  dist_check_finite (cx, &a[3]);
  dist_check_positive (cx, &a[2]);
  if (dist_dropped (cx, a, 4, out))
    return;
  gboolean k_const = dist_keep (cx, a, 0), k_s = dist_keep (cx, a, 4), k_z = dist_keep (cx, a, 7);
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double s = AT (&a[2], i), al = AT (&a[3], i), z = (AT (&a[0], i) - AT (&a[1], i)) / s;
      double u = -al * z / TILDE_SQRT_TWO, le = tilde_log_erfc (u);
      logp += le;
      if (k_const)
        logp -= TILDE_LOG_SQRT_TWO_PI;
      if (k_s)
        logp -= log (s);
      if (k_z)
        logp -= 0.5 * z * z;
      /* d log erfc (-al z / sqrt 2) / d (al z) */
      double dle = sqrt (2 / M_PI) * exp (-u * u - le);
      double dyl = (z - dle * al) / s;
      dist_grad (&a[0], i, -dyl);
      dist_grad (&a[1], i, dyl);
      dist_grad (&a[2], i, ((z - dle * al) * z - 1) / s);
      dist_grad (&a[3], i, dle * z);
    }
  dist_finish (cx, a, 4, logp, out);
}

static void
k_exp_mod_normal (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  ARGS4 ("Random variable", "Location parameter", "Scale parameter", "Inv_scale parameter");
  dist_check_not_nan (cx, &a[0]);
  dist_check_finite (cx, &a[1]);
  dist_check_positive_finite (cx, &a[2]);
  dist_check_positive_finite (cx, &a[3]);
  if (dist_dropped (cx, a, 4, out))
    return;
  gboolean k_const = dist_keep (cx, a, 0), k_l = dist_keep (cx, a, 8);
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (&a[0], i), mu = AT (&a[1], i), s = AT (&a[2], i), l = AT (&a[3], i);
      double s2 = s * s, ls2 = l * s2, d = mu - y;
      double u = (d + ls2) / (TILDE_SQRT_TWO * s), le = tilde_log_erfc (u);
      double dle = -sqrt (2 / M_PI) * exp (-u * u - le);
      if (k_const)
        logp -= TILDE_LOG_TWO;
      if (k_l)
        logp += log (l);
      logp += l * (d + 0.5 * ls2) + le;
      dist_grad (&a[0], i, -(l + dle / s));
      dist_grad (&a[1], i, l + dle / s);
      dist_grad (&a[2], i, s * l * l + dle * (-d / s2 + l));
      dist_grad (&a[3], i, 1 / l + ls2 + d + dle * s);
    }
  dist_finish (cx, a, 4, logp, out);
}

static void
k_loglogistic (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  ARGS3 ("Random variable", "Scale parameter", "Shape parameter");
  dist_check_positive_finite (cx, &a[0]);
  dist_check_positive_finite (cx, &a[1]);
  dist_check_positive_finite (cx, &a[2]);
  if (dist_dropped (cx, a, 3, out))
    return;
  gboolean k_ab = dist_keep (cx, a, 6);
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (&a[0], i), al = AT (&a[1], i), b = AT (&a[2], i);
      double ly = log (y), la = log (al), p = exp (b * (ly - la)), q = 1 + p;
      logp += (b - 1) * ly - 2 * log1p (p);
      if (k_ab)
        logp += log (b) - b * la;
      dist_grad (&a[0], i, (b - 1) / y - 2 * b * p / (q * y));
      dist_grad (&a[1], i, -b / al + 2 * b * p / (q * al));
      dist_grad (&a[2], i, 1 / b + ly - la - 2 * p * (ly - la) / q);
    }
  dist_finish (cx, a, 3, logp, out);
}

static void
k_skew_double_exponential (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  ARGS4 ("Random variable", "Location parameter", "Scale parameter", "Skewness parameter");
  dist_check_not_nan (cx, &a[0]);
  dist_check_finite (cx, &a[1]);
  dist_check_positive_finite (cx, &a[2]);
  dist_check_bounded (cx, &a[3], 0, 1);
  if (dist_dropped (cx, a, 4, out))
    return;
  gboolean k_const = dist_keep (cx, a, 0), k_s = dist_keep (cx, a, 4), k_t = dist_keep (cx, a, 8);
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double d = AT (&a[0], i) - AT (&a[1], i), s = AT (&a[2], i), t = AT (&a[3], i);
      double sign = d > 0 ? 1 : d < 0 ? -1 : 0;
      /* the slope: 1 - tau below mu, tau above */
      double w = (sign < 0 ? 1 : 0) + sign * t;
      double expo = w * fabs (d) / s;
      logp -= 2 * expo;
      if (k_const)
        logp += TILDE_LOG_TWO;
      if (k_s)
        logp -= log (s);
      if (k_t)
        logp += log (t) + log1p (-t);
      double dd = 2 * w * sign / s;
      dist_grad (&a[0], i, -dd);
      dist_grad (&a[1], i, dd);
      dist_grad (&a[2], i, -1 / s + 2 * expo / s);
      dist_grad (&a[3], i, 1 / t - 1 / (1 - t) - 2 * sign * fabs (d) / s);
    }
  dist_finish (cx, a, 4, logp, out);
}

#define DIST(base, fn, n) \
  { base "_lpdf", fn, n, n }, { base "_lupdf", fn, n, n }

const RtBuiltin rt_builtins_dist_continuous[] = {
  DIST ("double_exponential", k_double_exponential, 3),
  DIST ("logistic", k_logistic, 3),
  DIST ("gumbel", k_gumbel, 3),
  DIST ("chi_square", k_chi_square, 2),
  DIST ("inv_chi_square", k_inv_chi_square, 2),
  DIST ("scaled_inv_chi_square", k_scaled_inv_chi_square, 3),
  DIST ("weibull", k_weibull, 3),
  DIST ("frechet", k_frechet, 3),
  DIST ("rayleigh", k_rayleigh, 2),
  DIST ("pareto", k_pareto, 3),
  DIST ("pareto_type_2", k_pareto_type_2, 4),
  DIST ("beta_proportion", k_beta_proportion, 3),
  DIST ("von_mises", k_von_mises, 3),
  DIST ("skew_normal", k_skew_normal, 4),
  DIST ("exp_mod_normal", k_exp_mod_normal, 4),
  DIST ("loglogistic", k_loglogistic, 3),
  DIST ("skew_double_exponential", k_skew_double_exponential, 4),
  { NULL, NULL, 0, 0 },
};
