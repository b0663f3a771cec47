/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/math/special.h"

#include <float.h>
#include <math.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_sf_bessel.h>
#include <gsl/gsl_sf_erf.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sf_lambert.h>
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
tilde_tetragamma (double x)
{
  quiet_gsl ();
  gsl_sf_result r;
  if (x <= 0)
    {
      /* GSL's polygamma takes positive arguments only; the reflection
       * psi2 (x) = psi2 (1 - x) - 2 pi^3 cos (pi x) / sin^3 (pi x) covers
       * the rest, with the poles at the non-positive integers */
      if (x == floor (x))
        return NAN;
      double s = sin (G_PI * x);
      return tilde_tetragamma (1 - x) - 2 * G_PI * G_PI * G_PI * cos (G_PI * x) / (s * s * s);
    }
  if (gsl_sf_psi_n_e (2, x, &r) != GSL_SUCCESS)
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
tilde_lchoose_count (double n, double r)
{
  if (n == 0)
    return 0;
  /* Gamma (n + r) / (Gamma (n + 1) Gamma (r)) = 1 / ((n + r) B (r, n + 1)) */
  if (n > 0 && r > 0)
    return -log (n + r) - tilde_lbeta (r, n + 1);
  return tilde_lchoose (n + r - 1, n);
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

/* ---- logarithms of the incomplete gamma and beta functions ----
 * GSL's values are relative-accurate down to the smallest doubles; past
 * that the series and continued fractions below are summed with their
 * prefactors kept as logarithms. */

#define TINY 1e-280

/* log P (a, x) by its series, good when x < a + 1 or P is tiny */
static double
log_gamma_p_series (double a, double x)
{
  double sum = 1, term = 1;
  for (int n = 1; n < 100000; n++)
    {
      term *= x / (a + n);
      sum += term;
      if (term < sum * 1e-17)
        break;
    }
  return a * log (x) - x - lgamma (a + 1) + log (sum);
}

/* log Q (a, x) by its continued fraction (modified Lentz), good for x > a + 1 */
static double
log_gamma_q_cf (double a, double x)
{
  double b = x + 1 - a, c = 1 / DBL_MIN, d = 1 / b, h = d;
  for (int i = 1; i < 100000; i++)
    {
      double an = -i * (i - a);
      b += 2;
      d = an * d + b;
      if (fabs (d) < DBL_MIN)
        d = DBL_MIN;
      c = b + an / c;
      if (fabs (c) < DBL_MIN)
        c = DBL_MIN;
      d = 1 / d;
      double del = d * c;
      h *= del;
      if (fabs (del - 1) < 1e-16)
        break;
    }
  return a * log (x) - x - lgamma (a) + log (h);
}

static double
log_gamma_side (double a, double x, gboolean upper)
{
  double v = upper ? tilde_gamma_q (a, x) : tilde_gamma_p (a, x);
  if (v > TINY || isnan (v))
    return log (v);
  if (upper)
    return x > a + 1 ? log_gamma_q_cf (a, x) : log (v);
  return log_gamma_p_series (a, x);
}

/* the continued fraction of the incomplete beta function (modified Lentz) */
static double
beta_cf (double a, double b, double x)
{
  double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d = 1 - qab * x / qap;
  if (fabs (d) < DBL_MIN)
    d = DBL_MIN;
  d = 1 / d;
  double h = d;
  for (int m = 1; m < 100000; m++)
    {
      int m2 = 2 * m;
      double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
      d = 1 + aa * d;
      if (fabs (d) < DBL_MIN)
        d = DBL_MIN;
      c = 1 + aa / c;
      if (fabs (c) < DBL_MIN)
        c = DBL_MIN;
      d = 1 / d;
      h *= d * c;
      aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
      d = 1 + aa * d;
      if (fabs (d) < DBL_MIN)
        d = DBL_MIN;
      c = 1 + aa / c;
      if (fabs (c) < DBL_MIN)
        c = DBL_MIN;
      d = 1 / d;
      double del = d * c;
      h *= del;
      if (fabs (del - 1) < 1e-16)
        break;
    }
  return h;
}

/* log I_x (a, b), or log (1 - I_x (a, b)) when upper */
static double
log_inc_beta_side (double a, double b, double x, gboolean upper)
{
  double v = upper ? tilde_inc_beta_q (a, b, x) : tilde_inc_beta (a, b, x);
  if (v > TINY || isnan (v))
    return log (v);
  /* 1 - I_x (a, b) = I_{1-x} (b, a) */
  if (upper)
    {
      double t = a;
      a = b;
      b = t;
      x = 1 - x;
    }
  return a * log (x) + b * log1p (-x) - tilde_lbeta (a, b) - log (a) + log (beta_cf (a, b, x));
}

/* ---- derivatives of the incomplete gamma and beta functions ----
 * d log P (a, x) / da = E [log t | t < x] - digamma (a) for t ~ Gamma (a, 1),
 * and likewise for Q with t > x and for the incomplete beta function with
 * t ~ Beta (a, b). The conditional means are integrals of log t against
 * the truncated density, normalised by the function's own value, so they
 * stay of order one however small the function is. */

#define QUAD_LIMIT 256

static void
free_workspace (gpointer w)
{
  gsl_integration_workspace_free (w);
}

static GPrivate quad_key = G_PRIVATE_INIT (free_workspace);

/* the calling thread's quadrature workspace, made once per thread */
static gsl_integration_workspace *
quad_workspace (void)
{
  gsl_integration_workspace *w = g_private_get (&quad_key);
  if (!w)
    {
      w = gsl_integration_workspace_alloc (QUAD_LIMIT);
      g_private_set (&quad_key, w);
    }
  return w;
}

typedef struct {
  double a, b;        /* shapes */
  double shift;       /* the log normalising constant, subtracted */
  int what;           /* 0 log t, 1 log (1 - t), 2 nothing (the density itself) */
  gboolean beta;
  int form;           /* 0: in t; 1: in u = t^a; 2: in u = (1 - t)^b */
} QuadParams;

/* The truncated density times log t or log (1 - t). Near an end where the
 * density has an integrable singularity (a < 1 at 0, b < 1 at 1) the
 * variable is u = t^a (or (1 - t)^b), which absorbs the singular factor. */
static double
truncated_integrand (double u, void *p)
{
  const QuadParams *q = p;
  double lt, l1t, ld;
  switch (q->form)
    {
    case 1:
      if (u <= 0)
        return 0;
      lt = log (u) / q->a;
      l1t = q->beta ? log1p (-exp (lt)) : 0;
      ld = (q->beta ? (q->b - 1) * l1t : -exp (lt)) - log (q->a);
      break;
    case 2:
      if (u <= 0)
        return 0;
      l1t = log (u) / q->b;
      lt = log1p (-exp (l1t));
      ld = (q->a - 1) * lt - log (q->b);
      break;
    default:
      if (u <= 0 || (q->beta && u >= 1))
        return 0;
      lt = log (u);
      l1t = q->beta ? log1p (-u) : 0;
      ld = q->beta ? (q->a - 1) * lt + (q->b - 1) * l1t : (q->a - 1) * lt - u;
      break;
    }
  double f = exp (ld - q->shift);
  return q->what == 0 ? f * lt : q->what == 1 ? f * l1t : f;
}

static double
integrate_piece (QuadParams *q, double lo, double hi, int form)
{
  gsl_function f = { truncated_integrand, q };
  double r = 0, err = 0;
  q->form = form;
  if (form == 1)
    {
      lo = pow (lo, q->a);
      hi = pow (hi, q->a);
    }
  else if (form == 2)
    {
      double l = pow (1 - hi, q->b);
      hi = pow (1 - lo, q->b);
      lo = l;
    }
  if (hi > lo)
    gsl_integration_qags (&f, lo, hi, 0, 1e-11, QUAD_LIMIT, quad_workspace (), &r, &err);
  return r;
}

/* int_lo^hi of the integrand: split at the mode (or the middle), the
 * pieces at a singular end in the variable that absorbs the singularity */
static double
integrate (QuadParams *q, double lo, double hi, double mode)
{
  quiet_gsl ();
  double m = mode > lo && mode < hi ? mode : q->beta ? 0.5 * (lo + hi) : -1;
  if (m < 0)
    return integrate_piece (q, lo, hi, lo == 0 && q->a < 1 ? 1 : 0);
  double left = integrate_piece (q, lo, m, lo == 0 && q->a < 1 ? 1 : 0);
  double right = integrate_piece (q, m, hi, q->beta && hi == 1 && q->b < 1 ? 2 : 0);
  return left + right;
}

double
tilde_log_gamma_p_grad (double a, double x, gboolean upper, double *da, double *dx)
{
  if (isnan (a) || isnan (x))
    return NAN;
  double lf;
  if (x <= 0)
    lf = upper ? 0 : -INFINITY;
  else if (x == INFINITY)
    lf = upper ? -INFINITY : 0;
  else
    lf = log_gamma_side (a, x, upper);
  double lga = lgamma (a);
  if (dx)
    *dx = (x <= 0 || isinf (x) || isinf (lf)) ? 0
      : (upper ? -1 : 1) * exp ((a - 1) * log (x) - x - lga - lf);
  if (da)
    {
      if (isinf (lf) || (x <= 0 && upper) || (isinf (x) && !upper))
        *da = 0;
      else
        {
          /* the density is negligible beyond a + 50 sqrt (a) + 60 */
          double far = a + 50 * sqrt (a) + 60;
          double lo = upper ? x : 0, hi = upper ? fmax (x, far) + 100 : fmin (x, far);
          QuadParams q = { .a = a, .shift = lga + lf, .what = 0 };
          *da = integrate (&q, lo, hi, a - 1) - tilde_digamma (a);
        }
    }
  return lf;
}

double
tilde_log_inc_beta_grad (double a, double b, double x, gboolean upper, double *da, double *db,
                         double *dx)
{
  if (isnan (a) || isnan (b) || isnan (x))
    return NAN;
  double lf;
  if (x <= 0)
    lf = upper ? 0 : -INFINITY;
  else if (x >= 1)
    lf = upper ? -INFINITY : 0;
  else
    lf = log_inc_beta_side (a, b, x, upper);
  double lb = tilde_lbeta (a, b);
  gboolean edge = isinf (lf) || x <= 0 || x >= 1;
  if (dx)
    *dx = edge ? 0 : (upper ? -1 : 1) * exp ((a - 1) * log (x) + (b - 1) * log1p (-x) - lb - lf);
  if (da || db)
    {
      double lo = upper ? x : 0, hi = upper ? 1 : x;
      double mode = a > 1 && b > 1 ? (a - 1) / (a + b - 2) : -1;
      QuadParams q = { .a = a, .b = b, .shift = lb + lf, .beta = TRUE };
      double dab = tilde_digamma (a + b);
      gboolean whole = (x >= 1 && !upper) || (x <= 0 && upper);
      if (da)
        {
          q.what = 0;
          *da = edge && !whole ? 0 : whole ? 0 : integrate (&q, lo, hi, mode) - tilde_digamma (a) + dab;
        }
      if (db)
        {
          q.what = 1;
          *db = edge && !whole ? 0 : whole ? 0 : integrate (&q, lo, hi, mode) - tilde_digamma (b) + dab;
        }
    }
  return lf;
}

typedef struct {
  double h2;
} OwenParams;

static double
owens_integrand (double x, void *p)
{
  const OwenParams *o = p;
  double s = 1 + x * x;
  return exp (-0.5 * o->h2 * s) / s;
}

double
tilde_owens_t (double h, double a)
{
  if (isnan (h) || isnan (a))
    return NAN;
  if (a == 0)
    return 0;
  if (isinf (a))
    return (a > 0 ? 0.25 : -0.25) * erfc (fabs (h) / TILDE_SQRT_TWO);
  quiet_gsl ();
  OwenParams o = { h * h };
  gsl_function f = { owens_integrand, &o };
  double r = 0, err = 0;
  gsl_integration_qags (&f, 0, fabs (a), 0, 1e-12, QUAD_LIMIT, quad_workspace (), &r, &err);
  return (a > 0 ? 1 : -1) * r / (2 * M_PI);
}

/* ---- Bessel, Lambert, quantiles ---- */

#define GSL_OR_NAN(call)                        \
  do {                                          \
    quiet_gsl ();                               \
    gsl_sf_result r_;                           \
    if ((call) != GSL_SUCCESS)                  \
      return NAN;                               \
    return r_.val;                              \
  } while (0)

double
tilde_bessel_j (int n, double x)
{
  GSL_OR_NAN (gsl_sf_bessel_Jn_e (n, x, &r_));
}

double
tilde_bessel_y (int n, double x)
{
  if (!(x > 0))
    return NAN;
  GSL_OR_NAN (gsl_sf_bessel_Yn_e (n, x, &r_));
}

double
tilde_bessel_i (int n, double x)
{
  GSL_OR_NAN (gsl_sf_bessel_In_e (n, x, &r_));
}

double
tilde_bessel_k (int n, double x)
{
  if (!(x > 0))
    return NAN;
  GSL_OR_NAN (gsl_sf_bessel_Kn_e (n, x, &r_));
}

double
tilde_lambert_w0 (double x)
{
  GSL_OR_NAN (gsl_sf_lambert_W0_e (x, &r_));
}

double
tilde_lambert_wm1 (double x)
{
  if (!(x < 0))
    return x == 0 ? -INFINITY : NAN;
  GSL_OR_NAN (gsl_sf_lambert_Wm1_e (x, &r_));
}

double
tilde_log_bessel_i (double v, double z, double *dv, double *dz)
{
  if (isnan (v) || isnan (z) || v < 0 || z < 0)
    return NAN;
  if (z == 0)
    {
      if (dz)
        *dz = v == 0 ? 0 : v == 1 ? 0.5 : INFINITY;
      if (dv)
        *dv = -INFINITY;
      return v == 0 ? 0 : -INFINITY;
    }
  quiet_gsl ();
  gsl_sf_result r, r1;
  double lv;
  if (gsl_sf_bessel_Inu_scaled_e (v, z, &r) == GSL_SUCCESS && r.val > 0)
    lv = z + log (r.val);
  else
    lv = NAN;
  if (dz)
    {
      /* I_v' / I_v = I_{v+1} / I_v + v / z */
      if (gsl_sf_bessel_Inu_scaled_e (v + 1, z, &r1) == GSL_SUCCESS && r.val > 0)
        *dz = r1.val / r.val + v / z;
      else
        *dz = NAN;
    }
  if (dv)
    {
      /* I_v (z) = sum_k (z/2)^(2k + v) / (k! Gamma (k + v + 1)): its log
       * derivative in v is the terms' weighted mean of log (z/2) - psi (k + v + 1) */
      double lh = log (0.5 * z), m = -INFINITY;
      double s = 0, sd = 0;
      /* the largest term sits near k where (z/2)^2 = k (k + v) */
      double kmax = 0.5 * (-v + sqrt (v * v + z * z));
      m = (2 * kmax + v) * lh - lgamma (kmax + 1) - lgamma (kmax + v + 1);
      for (int k = 0; k < 1000000; k++)
        {
          double lt = (2.0 * k + v) * lh - lgamma (k + 1.0) - lgamma (k + v + 1);
          double t = exp (lt - m);
          s += t;
          sd += t * (lh - tilde_digamma (k + v + 1));
          if (k > kmax && t < 1e-17 * s)
            break;
        }
      *dv = sd / s;
    }
  return lv;
}

double
tilde_inv_inc_beta (double a, double b, double p)
{
  if (isnan (a) || isnan (b) || isnan (p) || p < 0 || p > 1)
    return NAN;
  if (p == 0)
    return 0;
  if (p == 1)
    return 1;
  quiet_gsl ();
  double x = gsl_cdf_beta_Pinv (p, a, b);
  /* Newton steps against the accurate function */
  for (int i = 0; i < 3 && x > 0 && x < 1; i++)
    {
      double f = tilde_inc_beta (a, b, x) - p;
      double d = exp ((a - 1) * log (x) + (b - 1) * log1p (-x) - tilde_lbeta (a, b));
      if (!(d > 0))
        break;
      double nx = x - f / d;
      if (!(nx > 0 && nx < 1))
        break;
      x = nx;
    }
  return x;
}

double
tilde_std_normal_log_qf (double lp)
{
  if (isnan (lp) || lp > 0)
    return NAN;
  if (lp == 0)
    return INFINITY;
  if (lp == -INFINITY)
    return -INFINITY;
  if (lp > -0.5)
    return -tilde_inv_Phi (-expm1 (lp));
  if (lp > -700)
    return tilde_inv_Phi (exp (lp));
  /* beyond the doubles: Newton on log Phi (x) = lp from the tail's first
   * term log Phi (x) ~ -x^2 / 2 - log (-x sqrt (2 pi)) */
  double x = -sqrt (-2 * lp);
  for (int i = 0; i < 50; i++)
    {
      double f = tilde_std_normal_lcdf (x) - lp, step = f / tilde_std_normal_dlcdf (x);
      x -= step;
      if (fabs (step) < 1e-15 * fabs (x))
        break;
    }
  return x;
}
