/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/math/special.h"

#include <float.h>
#include <math.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_bessel.h>
#include <gsl/gsl_sf_erf.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sf_psi.h>

/* GSL's default handler aborts; special functions report through their
 * return values instead (NaN out of domain). */
static void
quiet_gsl (void)
{
  static gsize done;
  if (g_once_init_enter (&done))
    {
      gsl_set_error_handler_off ();
      g_once_init_leave (&done, 1);
    }
}

double
tilde_lgamma (double x)
{
  return lgamma (x);
}

double
tilde_digamma (double x)
{
  quiet_gsl ();
  gsl_sf_result r;
  if (x <= 0 && x == floor (x))
    return NAN;
  if (gsl_sf_psi_e (x, &r) != GSL_SUCCESS)
    return NAN;
  return r.val;
}

double
tilde_trigamma (double x)
{
  quiet_gsl ();
  gsl_sf_result r;
  if (gsl_sf_psi_1_e (x, &r) != GSL_SUCCESS)
    return NAN;
  return r.val;
}

double
tilde_lbeta (double a, double b)
{
  if (isnan (a) || isnan (b))
    return NAN;
  quiet_gsl ();
  gsl_sf_result r;
  if (a > 0 && b > 0 && gsl_sf_lnbeta_e (a, b, &r) == GSL_SUCCESS)
    return r.val;
  return lgamma (a) + lgamma (b) - lgamma (a + b);
}

double
tilde_lchoose (double n, double k)
{
  if (k == 0)
    return 0;
  if (n > -1 && k > -1 && n - k > -1)
    return -log1p (n) - tilde_lbeta (n - k + 1, k + 1);
  return lgamma (n + 1) - lgamma (k + 1) - lgamma (n - k + 1);
}

double
tilde_inv_logit (double u)
{
  if (u < 0)
    {
      double e = exp (u);
      if (u < log (DBL_EPSILON))
        return e;
      return e / (1 + e);
    }
  return 1 / (1 + exp (-u));
}

double
tilde_logit (double p)
{
  return log (p / (1 - p));
}

double
tilde_log1p_exp (double a)
{
  if (a > 0)
    return a + log1p (exp (-a));
  return log1p (exp (a));
}

double
tilde_log_inv_logit (double u)
{
  if (u < 0)
    return u - log1p (exp (u));
  return -log1p (exp (-u));
}

double
tilde_log1m_inv_logit (double u)
{
  if (u > 0)
    return -u - log1p (exp (-u));
  return -log1p (exp (u));
}

double
tilde_log1m_exp (double a)
{
  if (a > 0)
    return NAN;
  if (a > -0.693147)
    return log (-expm1 (a));
  return log1p (-exp (a));
}

double
tilde_log1m (double x)
{
  return log1p (-x);
}

double
tilde_log_sum_exp2 (double a, double b)
{
  if (a == -INFINITY)
    return b;
  if (a == INFINITY && b == INFINITY)
    return INFINITY;
  if (a > b)
    return a + log1p (exp (b - a));
  return b + log1p (exp (a - b));
}

double
tilde_log_diff_exp (double a, double b)
{
  if (b > a)
    return NAN;
  if (b == -INFINITY)
    return a;
  return a + tilde_log1m_exp (b - a);
}

double
tilde_Phi (double x)
{
  if (x < -37.5)
    return 0;
  if (x < -5)
    return 0.5 * erfc (-x / TILDE_SQRT_TWO);
  if (x > 8.25)
    return 1;
  return 0.5 * (1 + erf (x / TILDE_SQRT_TWO));
}

double
tilde_inv_Phi (double p)
{
  if (p <= 0)
    return p == 0 ? -INFINITY : NAN;
  if (p >= 1)
    return p == 1 ? INFINITY : NAN;
  double x = gsl_cdf_ugaussian_Pinv (p);
  /* one Halley step against the accurate tail forms */
  for (int i = 0; i < 2; i++)
    {
      double e = (p < 0.5 ? 0.5 * erfc (-x / TILDE_SQRT_TWO) : 1 - 0.5 * erfc (x / TILDE_SQRT_TWO)) - p;
      double u = e * TILDE_SQRT_TWO_PI * exp (0.5 * x * x);
      x = x - u / (1 + 0.5 * x * u);
    }
  return x;
}

double
tilde_Phi_approx (double x)
{
  return tilde_inv_logit (0.07056 * x * x * x + 1.5976 * x);
}

double
tilde_std_normal_log_density (double x)
{
  return -0.5 * x * x - TILDE_LOG_SQRT_TWO_PI;
}

double
tilde_inc_beta (double a, double b, double x)
{
  quiet_gsl ();
  if (x <= 0)
    return 0;
  if (x >= 1)
    return 1;
  return gsl_cdf_beta_P (x, a, b);
}

double
tilde_inc_beta_q (double a, double b, double x)
{
  quiet_gsl ();
  if (x <= 0)
    return 1;
  if (x >= 1)
    return 0;
  return gsl_cdf_beta_Q (x, a, b);
}

double
tilde_gamma_p (double a, double x)
{
  quiet_gsl ();
  gsl_sf_result r;
  if (gsl_sf_gamma_inc_P_e (a, x, &r) != GSL_SUCCESS)
    return NAN;
  return r.val;
}

double
tilde_gamma_q (double a, double x)
{
  quiet_gsl ();
  gsl_sf_result r;
  if (gsl_sf_gamma_inc_Q_e (a, x, &r) != GSL_SUCCESS)
    return NAN;
  return r.val;
}

double
tilde_log_erfc (double x)
{
  if (isnan (x))
    return NAN;
  if (x < 1)
    return log (erfc (x));
  quiet_gsl ();
  gsl_sf_result r;
  if (gsl_sf_log_erfc_e (x, &r) != GSL_SUCCESS)
    return -INFINITY;
  return r.val;
}

double
tilde_log_bessel_i0 (double x)
{
  quiet_gsl ();
  gsl_sf_result r;
  x = fabs (x);
  if (gsl_sf_bessel_I0_scaled_e (x, &r) != GSL_SUCCESS)
    return NAN;
  return x + log (r.val);
}

double
tilde_bessel_i1_over_i0 (double x)
{
  quiet_gsl ();
  gsl_sf_result r0, r1;
  if (gsl_sf_bessel_I0_scaled_e (fabs (x), &r0) != GSL_SUCCESS
      || gsl_sf_bessel_I1_scaled_e (x, &r1) != GSL_SUCCESS)
    return NAN;
  return r1.val / r0.val;
}

double
tilde_std_normal_lcdf (double x)
{
  if (isnan (x))
    return NAN;
  if (x > 0)
    return log1p (-0.5 * erfc (x / TILDE_SQRT_TWO));
  return tilde_log_erfc (-x / TILDE_SQRT_TWO) - TILDE_LOG_TWO;
}

double
tilde_std_normal_dlcdf (double x)
{
  if (isnan (x))
    return NAN;
  if (x > 40)
    return 0;
  return exp (tilde_std_normal_log_density (x) - tilde_std_normal_lcdf (x));
}
