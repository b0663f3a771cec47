/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Cumulative distribution functions: foo_cdf, foo_lcdf and foo_lccdf,
 * vectorised like the densities. foo_cdf is the product of the elements'
 * distribution functions, foo_lcdf the sum of their logarithms and
 * foo_lccdf the sum of the logarithms of their complements.
 *
 * Each family is one scalar function that returns log F (or, for the upper
 * tail, log (1 - F)) computed on the side that keeps its digits, with the
 * derivative of that logarithm in each argument the caller needs. The
 * three kernels of a family differ only in how they combine the elements.
 * Derivatives in the shapes of the gamma and beta families come from
 * tilde_log_gamma_p_grad and tilde_log_inc_beta_grad.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/dist/dist-private.h"
#include "runtime/math/special.h"

#include <float.h>
#include <math.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_sf_bessel.h>

typedef enum {
  CK_NONE,
  CK_NOT_NAN,
  CK_FINITE,
  CK_POSITIVE,
  CK_POSITIVE_FINITE,
  CK_NONNEGATIVE,
  CK_UNIT,              /* in [0, 1] */
  CK_OPEN_UNIT,         /* in (0, 1) */
  CK_ANGLE,             /* in [-pi, pi] */
} CheckKind;

/* x: the element's arguments; upper: the complement; need: bit k when the
 * derivative in argument k is wanted (d[k] is then set, others may be
 * left alone). */
typedef double (*LogCdf) (const double *x, gboolean upper, unsigned need, double *d);

typedef struct {
  int        nargs;
  const char *what[5];
  CheckKind  check[5];
  LogCdf     fn;
  /* a check across arguments (greater-than bounds), or NULL */
  void     (*check_more) (RtCtx *cx, const DArg *a, gint32 N);
} CdfSpec;

typedef enum { MODE_CDF, MODE_LCDF, MODE_LCCDF } CdfMode;

static void
check_arg (RtCtx *cx, const DArg *a, CheckKind k)
{
  switch (k)
    {
    case CK_NONE: break;
    case CK_NOT_NAN: dist_check_not_nan (cx, a); break;
    case CK_FINITE: dist_check_finite (cx, a); break;
    case CK_POSITIVE: dist_check_positive (cx, a); break;
    case CK_POSITIVE_FINITE: dist_check_positive_finite (cx, a); break;
    case CK_NONNEGATIVE: dist_check_nonnegative (cx, a); break;
    case CK_UNIT: dist_check_bounded (cx, a, 0, 1); break;
    case CK_OPEN_UNIT:
      dist_check_positive (cx, a);
      dist_check_less (cx, a, 1.0);
      break;
    case CK_ANGLE: dist_check_bounded (cx, a, -M_PI, M_PI); break;
    }
}

static void
cdf_run (RtCtx *cx, const TildeValue *v, TildeValue *out, const CdfSpec *s, CdfMode mode)
{
  DArg a[5];
  int n = s->nargs;
  for (int k = 0; k < n; k++)
    dist_arg (cx, &a[k], &v[k], s->what[k]);
  gint32 N = dist_size (cx, a, n);
  for (int k = 0; k < n; k++)
    check_arg (cx, &a[k], s->check[k]);
  if (s->check_more)
    s->check_more (cx, a, N);
  unsigned need = 0;
  for (int k = 0; k < n; k++)
    if (a[k].ad)
      need |= 1u << k;
  gboolean upper = mode == MODE_LCCDF;
  double total = 0, x[5], d[5];
  for (gint32 i = 0; i < N; i++)
    {
      for (int k = 0; k < n; k++)
        {
          x[k] = AT (&a[k], i);
          d[k] = 0;
        }
      double lf = s->fn (x, upper, need, d);
      total += lf;
      for (int k = 0; k < n; k++)
        if (need & (1u << k))
          dist_grad (&a[k], i, isinf (lf) ? 0 : d[k]);
    }
  if (mode == MODE_CDF)
    {
      /* the product of the elements' values: d F / dx = F d log F / dx */
      double F = exp (total);
      for (int k = 0; k < n; k++)
        if (a[k].p)
          for (gint32 i = 0; i < a[k].n; i++)
            a[k].p[i] *= F;
      total = F;
    }
  dist_finish (cx, a, n, total, out);
}

#define CDF_KERNELS(fam)                                                              \
  static void k_##fam##_cdf (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)   \
  { cdf_run (cx, v, out, &spec_##fam, MODE_CDF); }                                   \
  static void k_##fam##_lcdf (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)  \
  { cdf_run (cx, v, out, &spec_##fam, MODE_LCDF); }                                  \
  static void k_##fam##_lccdf (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out) \
  { cdf_run (cx, v, out, &spec_##fam, MODE_LCCDF); }

/* ---- location-scale families ----
 * log F ((y - mu) / sigma) from a standard log F (z) and its derivative. */

static double
loc_scale (double lf, double dz, const double *x, unsigned need, double *d)
{
  double s = x[2], z = (x[0] - x[1]) / s;
  d[0] = dz / s;
  d[1] = -dz / s;
  d[2] = -dz * z / s;
  return lf;
}

static double
std_normal_side (double z, gboolean upper, double *dz)
{
  double lf = tilde_std_normal_lcdf (upper ? -z : z);
  *dz = (upper ? -1 : 1) * tilde_std_normal_dlcdf (upper ? -z : z);
  return lf;
}

static double
c_normal (const double *x, gboolean upper, unsigned need, double *d)
{
  double dz, lf = std_normal_side ((x[0] - x[1]) / x[2], upper, &dz);
  return loc_scale (lf, dz, x, need, d);
}

static double
c_std_normal (const double *x, gboolean upper, unsigned need, double *d)
{
  return std_normal_side (x[0], upper, &d[0]);
}

static double
c_cauchy (const double *x, gboolean upper, unsigned need, double *d)
{
  double z = (x[0] - x[1]) / x[2];
  /* F = atan2 (1, -z) / pi keeps its digits in the lower tail */
  double F = atan2 (1, upper ? z : -z) / M_PI;
  double dz = (upper ? -1 : 1) / (M_PI * (1 + z * z) * F);
  return loc_scale (log (F), dz, x, need, d);
}

static double
c_double_exponential (const double *x, gboolean upper, unsigned need, double *d)
{
  double z = (x[0] - x[1]) / x[2], u = upper ? -z : z, lf, du;
  if (u < 0)
    {
      lf = u - TILDE_LOG_TWO;
      du = 1;
    }
  else
    {
      double e = 0.5 * exp (-u);
      lf = log1p (-e);
      du = e / (1 - e);
    }
  return loc_scale (lf, upper ? -du : du, x, need, d);
}

static double
c_logistic (const double *x, gboolean upper, unsigned need, double *d)
{
  double z = (x[0] - x[1]) / x[2];
  double lf = upper ? tilde_log1m_inv_logit (z) : tilde_log_inv_logit (z);
  double dz = upper ? -tilde_inv_logit (z) : tilde_inv_logit (-z);
  return loc_scale (lf, dz, x, need, d);
}

static double
c_gumbel (const double *x, gboolean upper, unsigned need, double *d)
{
  double z = (x[0] - x[1]) / x[2], e = exp (-z);
  /* F = exp (-exp (-z)) */
  double lf = upper ? tilde_log1m_exp (-e) : -e;
  double dz = upper ? -e / expm1 (e) : e;
  return loc_scale (lf, dz, x, need, d);
}

/* Student's t: the tail beyond |t| is I_{nu / (nu + t^2)} (nu / 2, 1 / 2) / 2 */
static double
c_student_t (const double *x, gboolean upper, unsigned need, double *d)
{
  double y = x[0], nu = x[1], mu = x[2], s = x[3];
  double t = (y - mu) / s, t2 = t * t, dshape = 0, dx;
  /* the far tail G = P (T > |t|) = I_r (nu / 2, 1 / 2) / 2 with r = nu / (nu + t^2);
   * near the centre through 1 - I_q (1 / 2, nu / 2), q = t^2 / (nu + t^2) = 1 - r,
   * so that r is never formed next to 1 */
  double lg, dx_dnu = t2 / ((nu + t2) * (nu + t2));
  if (t2 < nu)
    {
      lg = tilde_log_inc_beta_grad (0.5, 0.5 * nu, t2 / (nu + t2), TRUE, NULL,
                                    (need & 2) ? &dshape : NULL, &dx);
      dx_dnu = -dx_dnu;
    }
  else
    lg = tilde_log_inc_beta_grad (0.5 * nu, 0.5, nu / (nu + t2), FALSE,
                                  (need & 2) ? &dshape : NULL, NULL, &dx);
  lg -= TILDE_LOG_TWO;
  /* d log G / d nu through the shape and x */
  double dg_dnu = (need & 2) && t != 0 ? 0.5 * dshape + dx * dx_dnu : 0;
  /* the wanted side is G itself when it lies beyond |t|, else 1 - G */
  gboolean tail = upper ? t > 0 : t < 0;
  double lf, dnu;
  if (tail)
    {
      lf = lg;
      dnu = dg_dnu;
    }
  else
    {
      double G = exp (lg);
      lf = log1p (-G);
      dnu = -G / (1 - G) * dg_dnu;
    }
  /* d side / dt is the density, with the sign of the side */
  double lft = lgamma (0.5 * (nu + 1)) - lgamma (0.5 * nu) - 0.5 * log (nu * M_PI)
    - 0.5 * (nu + 1) * log1p (t2 / nu);
  double dt = (upper ? -1 : 1) * exp (lft - lf);
  d[0] = dt / s;
  d[1] = dnu;
  d[2] = -dt / s;
  d[3] = -dt * t / s;
  return lf;
}

/* ---- the gamma family: F = P (a, u) or Q (a, u) ---- */

static double
c_gamma (const double *x, gboolean upper, unsigned need, double *d)
{
  double y = x[0], al = x[1], b = x[2], da, du;
  double lf = tilde_log_gamma_p_grad (al, b * y, upper, (need & 2) ? &da : NULL, &du);
  d[0] = du * b;
  d[1] = (need & 2) ? da : 0;
  d[2] = du * y;
  return lf;
}

static double
c_inv_gamma (const double *x, gboolean upper, unsigned need, double *d)
{
  double y = x[0], al = x[1], b = x[2], da, du;
  if (y <= 0)
    return upper ? 0 : -INFINITY;
  /* F (y) = Q (alpha, beta / y) */
  double lf = tilde_log_gamma_p_grad (al, b / y, !upper, (need & 2) ? &da : NULL, &du);
  d[0] = -du * b / (y * y);
  d[1] = (need & 2) ? da : 0;
  d[2] = du / y;
  return lf;
}

static double
c_chi_square (const double *x, gboolean upper, unsigned need, double *d)
{
  double y = x[0], nu = x[1], da, du;
  double lf = tilde_log_gamma_p_grad (0.5 * nu, 0.5 * y, upper, (need & 2) ? &da : NULL, &du);
  d[0] = 0.5 * du;
  d[1] = (need & 2) ? 0.5 * da : 0;
  return lf;
}

static double
c_inv_chi_square (const double *x, gboolean upper, unsigned need, double *d)
{
  double y = x[0], nu = x[1], da, du;
  if (y <= 0)
    return upper ? 0 : -INFINITY;
  double lf = tilde_log_gamma_p_grad (0.5 * nu, 0.5 / y, !upper, (need & 2) ? &da : NULL, &du);
  d[0] = -0.5 * du / (y * y);
  d[1] = (need & 2) ? 0.5 * da : 0;
  return lf;
}

static double
c_scaled_inv_chi_square (const double *x, gboolean upper, unsigned need, double *d)
{
  double y = x[0], nu = x[1], s = x[2], da, du;
  if (y <= 0)
    return upper ? 0 : -INFINITY;
  double u = 0.5 * nu * s * s / y;
  double lf = tilde_log_gamma_p_grad (0.5 * nu, u, !upper, (need & 2) ? &da : NULL, &du);
  d[0] = -du * u / y;
  d[1] = (need & 2) ? 0.5 * da + du * u / nu : 0;
  d[2] = du * 2 * u / s;
  return lf;
}

static double
c_exponential (const double *x, gboolean upper, unsigned need, double *d)
{
  double y = x[0], b = x[1], u = b * y;
  if (upper)
    {
      d[0] = -b;
      d[1] = -y;
      return -u;
    }
  /* log (1 - exp (-u)), d / du = 1 / expm1 (u) */
  double du = 1 / expm1 (u);
  d[0] = du * b;
  d[1] = du * y;
  return tilde_log1m_exp (-u);
}

/* F = 1 - exp (-w) (or exp (-w) when flipped): log F and d log F / dw */
static double
one_minus_exp (double w, gboolean complement, double *dw)
{
  if (complement)
    {
      *dw = -1;
      return -w;
    }
  *dw = 1 / expm1 (w);
  return tilde_log1m_exp (-w);
}

static double
c_weibull (const double *x, gboolean upper, unsigned need, double *d)
{
  double y = x[0], al = x[1], s = x[2];
  if (y <= 0)
    return upper ? 0 : -INFINITY;
  double ly = log (y / s), w = exp (al * ly), dw;
  double lf = one_minus_exp (w, upper, &dw);
  d[0] = dw * w * al / y;
  d[1] = dw * w * ly;
  d[2] = -dw * w * al / s;
  return lf;
}

static double
c_frechet (const double *x, gboolean upper, unsigned need, double *d)
{
  double y = x[0], al = x[1], s = x[2];
  double ly = log (y / s), w = exp (-al * ly), dw;
  /* F = exp (-w) */
  double lf = one_minus_exp (w, !upper, &dw);
  d[0] = dw * -w * al / y;
  d[1] = dw * -w * ly;
  d[2] = dw * w * al / s;
  return lf;
}

static double
c_rayleigh (const double *x, gboolean upper, unsigned need, double *d)
{
  double y = x[0], s = x[1];
  if (y <= 0)
    return upper ? 0 : -INFINITY;
  double w = 0.5 * y * y / (s * s), dw;
  double lf = one_minus_exp (w, upper, &dw);
  d[0] = dw * 2 * w / y;
  d[1] = -dw * 2 * w / s;
  return lf;
}

static double
c_pareto (const double *x, gboolean upper, unsigned need, double *d)
{
  double y = x[0], ym = x[1], al = x[2];
  if (y < ym)
    return upper ? 0 : -INFINITY;
  if (isinf (y))
    return upper ? -INFINITY : 0;
  double l = log (ym / y), w = -al * l, dw;   /* Q = exp (-w) */
  double lf = one_minus_exp (w, upper, &dw);
  d[0] = dw * al / y;
  d[1] = -dw * al / ym;
  d[2] = -dw * l;
  return lf;
}

static double
c_pareto_type_2 (const double *x, gboolean upper, unsigned need, double *d)
{
  double y = x[0], mu = x[1], l = x[2], al = x[3];
  double r = (y - mu) / l, lr = log1p (r), w = al * lr, dw;   /* Q = exp (-w) */
  double lf = one_minus_exp (w, upper, &dw);
  double dr = dw * al / (1 + r);
  d[0] = dr / l;
  d[1] = -dr / l;
  d[2] = -dr * r / l;
  d[3] = dw * lr;
  return lf;
}

static double
c_lognormal (const double *x, gboolean upper, unsigned need, double *d)
{
  double y = x[0], mu = x[1], s = x[2];
  if (y <= 0)
    return upper ? 0 : -INFINITY;
  double z = (log (y) - mu) / s, dz;
  double lf = std_normal_side (z, upper, &dz);
  d[0] = dz / (s * y);
  d[1] = -dz / s;
  d[2] = -dz * z / s;
  return lf;
}

/* ---- the beta family ---- */

static double
c_beta (const double *x, gboolean upper, unsigned need, double *d)
{
  double da, db, dx;
  double lf = tilde_log_inc_beta_grad (x[1], x[2], x[0], upper, (need & 2) ? &da : NULL,
                                       (need & 4) ? &db : NULL, &dx);
  d[0] = dx;
  d[1] = (need & 2) ? da : 0;
  d[2] = (need & 4) ? db : 0;
  return lf;
}

static double
c_beta_proportion (const double *x, gboolean upper, unsigned need, double *d)
{
  double mu = x[1], k = x[2], da, db, dx;
  gboolean shapes = (need & 6) != 0;
  double lf = tilde_log_inc_beta_grad (mu * k, (1 - mu) * k, x[0], upper, shapes ? &da : NULL,
                                       shapes ? &db : NULL, &dx);
  d[0] = dx;
  if (shapes)
    {
      d[1] = k * (da - db);
      d[2] = mu * da + (1 - mu) * db;
    }
  return lf;
}

/* ---- others ---- */

static double
c_uniform (const double *x, gboolean upper, unsigned need, double *d)
{
  double y = x[0], lo = x[1], hi = x[2];
  if (y <= lo)
    return upper ? 0 : -INFINITY;
  if (y >= hi)
    return upper ? -INFINITY : 0;
  double w = hi - lo, part = upper ? hi - y : y - lo;
  d[0] = (upper ? -1 : 1) / part;
  d[1] = (upper ? 0 : -1 / part) + 1 / w;
  d[2] = (upper ? 1 / part : 0) - 1 / w;
  return log (part) - log (w);
}

/* ---- tails by quadrature ----
 * Where a closed form subtracts nearly equal numbers (skew normal and
 * exponentially modified normal far in a tail), the tail is integrated
 * from the density instead: log F = ld (y) + log int_0^inf exp (ld (y - s)
 * - ld (y)) ds, and d log F / d theta is the mean of the density's score
 * over the tail. */

typedef double (*ScoredLogPdf) (double t, const double *x, double *score);

typedef struct {
  ScoredLogPdf ld;
  const double *x;
  double y, ly, sign;
  int k;          /* -1: the density; else its score in argument k */
} TailParams;

static double
tail_integrand (double s, void *p)
{
  const TailParams *q = p;
  double score[4] = { 0 };
  double v = exp (q->ld (q->y + q->sign * s, q->x, score) - q->ly);
  return q->k < 0 ? v : v * score[q->k];
}

static gsl_integration_workspace *
cdf_workspace (void)
{
  static GPrivate key = G_PRIVATE_INIT ((GDestroyNotify) gsl_integration_workspace_free);
  gsl_integration_workspace *w = g_private_get (&key);
  if (!w)
    {
      w = gsl_integration_workspace_alloc (256);
      g_private_set (&key, w);
    }
  gsl_set_error_handler_off ();
  return w;
}

static double
tail_quad (TailParams *q)
{
  gsl_function f = { tail_integrand, q };
  double r = 0, err = 0;
  gsl_integration_qagiu (&f, 0, 0, 1e-11, 256, cdf_workspace (), &r, &err);
  return r;
}

/* log of the lower (upper) tail at x[0], with the scores of arguments
 * 1 .. n - 1 in d (d[0], the variate's, from the density) */
static double
tail_by_quadrature (ScoredLogPdf ld, const double *x, int n, gboolean upper, unsigned need,
                    double *d)
{
  double score[4];
  TailParams q = { ld, x, x[0], ld (x[0], x, score), upper ? 1 : -1, -1 };
  double mass = tail_quad (&q);
  double lf = q.ly + log (mass);
  d[0] = (upper ? -1 : 1) * exp (q.ly - lf);
  for (int k = 1; k < n; k++)
    if (need & (1u << k))
      {
        q.k = k;
        d[k] = tail_quad (&q) / mass;
      }
  return lf;
}

/* the skew normal's log density and its derivatives in (xi, omega, alpha) */
static double
ld_skew_normal (double y, const double *x, double *score)
{
  double xi = x[1], om = x[2], al = x[3], z = (y - xi) / om;
  double lphi = tilde_std_normal_lcdf (al * z), dl = tilde_std_normal_dlcdf (al * z);
  score[1] = (z - al * dl) / om;
  score[2] = (z * (z - al * dl) - 1) / om;
  score[3] = z * dl;
  return TILDE_LOG_TWO - log (om) + tilde_std_normal_log_density (z) + lphi;
}

static double
c_skew_normal (const double *x, gboolean upper, unsigned need, double *d)
{
  double y = x[0], xi = x[1], om = x[2], al = x[3];
  double z = (y - xi) / om;
  /* F = Phi (z) - 2 T (z, alpha) */
  double T = tilde_owens_t (z, al);
  double F = upper ? 0.5 * erfc (z / TILDE_SQRT_TWO) + 2 * T : 0.5 * erfc (-z / TILDE_SQRT_TWO) - 2 * T;
  if (!(F > 1e-4))
    return tail_by_quadrature (ld_skew_normal, x, 4, upper, need, d);
  double sign = upper ? -1 : 1;
  /* dF/dz is the density: 2 phi (z) Phi (alpha z) */
  double dz = sign * 2 * exp (tilde_std_normal_log_density (z)) * 0.5
    * erfc (-al * z / TILDE_SQRT_TWO) / F;
  d[0] = dz / om;
  d[1] = -dz / om;
  d[2] = -dz * z / om;
  d[3] = sign * -exp (-0.5 * z * z * (1 + al * al)) / (M_PI * (1 + al * al)) / F;
  return log (F);
}

/* the exponentially modified normal's log density and its derivatives */
static double
ld_exp_mod_normal (double y, const double *x, double *score)
{
  double mu = x[1], s = x[2], l = x[3];
  double s2 = s * s, d = mu - y, u = (d + l * s2) / (TILDE_SQRT_TWO * s), le = tilde_log_erfc (u);
  double dle = -sqrt (2 / M_PI) * exp (-u * u - le);
  score[1] = l + dle / s;
  score[2] = s * l * l + dle * (-d / s2 + l);
  score[3] = 1 / l + l * s2 + d + dle * s;
  return log (l) - TILDE_LOG_TWO + l * (d + 0.5 * l * s2) + le;
}

static double
c_exp_mod_normal (const double *x, gboolean upper, unsigned need, double *d)
{
  double y = x[0], mu = x[1], s = x[2], l = x[3];
  double u = (y - mu) / s, w = u - l * s;
  /* F = Phi (u) - exp (l^2 s^2 / 2 - l (y - mu)) Phi (w) */
  double le = 0.5 * l * l * s * s - l * (y - mu) + tilde_std_normal_lcdf (w);
  double E = exp (le);
  double F = upper ? 0.5 * erfc (u / TILDE_SQRT_TWO) + E : 0.5 * erfc (-u / TILDE_SQRT_TWO) - E;
  if (!(F > 1e-4))
    return tail_by_quadrature (ld_exp_mod_normal, x, 4, upper, need, d);
  double phiu = exp (tilde_std_normal_log_density (u));
  double phiw_E = exp (0.5 * l * l * s * s - l * (y - mu) + tilde_std_normal_log_density (w));
  /* derivatives of E through its exponent and Phi (w) */
  double dE_dy = -l * E + phiw_E / s;
  double dE_dmu = l * E - phiw_E / s;
  double dE_ds = l * l * s * E + phiw_E * (-u / s - l);
  double dE_dl = (l * s * s - (y - mu)) * E - phiw_E * s;
  double sign = upper ? -1 : 1;
  d[0] = sign * (phiu / s - dE_dy) / F;
  d[1] = sign * (-phiu / s - dE_dmu) / F;
  d[2] = sign * (-phiu * u / s - dE_ds) / F;
  d[3] = sign * (-dE_dl) / F;
  return log (F);
}

/* von Mises on [-pi, pi]: F (y) = int_{-pi}^y exp (kappa cos (t - mu)) dt / (2 pi I0 (kappa)) */
typedef struct {
  double mu, kappa;
  int what;   /* 0 density, 1 density times cos (t - mu) */
} VmParams;

static double
vm_integrand (double t, void *p)
{
  const VmParams *q = p;
  double c = cos (t - q->mu), f = exp (q->kappa * (c - 1));
  return q->what ? f * c : f;
}

static double
vm_integral (double lo, double hi, double mu, double kappa, int what)
{
  VmParams q = { mu, kappa, what };
  gsl_function f = { vm_integrand, &q };
  double r = 0, err = 0;
  gsl_integration_qag (&f, lo, hi, 0, 1e-12, 256, GSL_INTEG_GAUSS41, cdf_workspace (), &r, &err);
  return r;
}

static double
c_von_mises (const double *x, gboolean upper, unsigned need, double *d)
{
  double y = x[0], mu = x[1], k = x[2];
  if (y <= -M_PI)
    return upper ? 0 : -INFINITY;
  if (y >= M_PI)
    return upper ? -INFINITY : 0;
  /* integrals scaled by exp (-kappa), as I0 is through gsl's scaled form */
  double norm = 2 * M_PI * gsl_sf_bessel_I0_scaled (k);
  double lo = upper ? y : -M_PI, hi = upper ? M_PI : y;
  double F = vm_integral (lo, hi, mu, k, 0) / norm;
  double sign = upper ? -1 : 1;
  double gy = exp (k * (cos (y - mu) - 1)) / norm, gpi = exp (k * (cos (M_PI + mu) - 1)) / norm;
  d[0] = sign * gy / F;
  /* moving mu moves the window the other way: F = int_{-pi - mu}^{y - mu} g */
  d[1] = sign * (gpi - gy) / F;
  if (need & 4)
    d[2] = vm_integral (lo, hi, mu, k, 1) / norm / F - tilde_bessel_i1_over_i0 (k);
  return log (F);
}

static double
c_loglogistic (const double *x, gboolean upper, unsigned need, double *d)
{
  double y = x[0], al = x[1], b = x[2];
  if (y <= 0)
    return upper ? 0 : -INFINITY;
  /* F = 1 / (1 + (y / alpha)^-beta) */
  double l = log (y / al), u = upper ? b * l : -b * l;
  double lf = -tilde_log1p_exp (u), du = -tilde_inv_logit (u);
  double sign = upper ? 1 : -1;
  d[0] = du * sign * b / y;
  d[1] = -du * sign * b / al;
  d[2] = du * sign * l;
  return lf;
}

static double
c_skew_double_exponential (const double *x, gboolean upper, unsigned need, double *d)
{
  double y = x[0], mu = x[1], s = x[2], t = x[3];
  /* below mu F = tau exp (-2 (1 - tau) (mu - y) / s); above, 1 - F =
   * (1 - tau) exp (-2 tau (y - mu) / s): the tail's own form, the other
   * side through log1m_exp */
  gboolean below = y < mu;
  double lt, g[4];
  if (below)
    {
      lt = log (t) - 2 * (1 - t) * (mu - y) / s;
      g[0] = 2 * (1 - t) / s;
      g[1] = -g[0];
      g[2] = 2 * (1 - t) * (mu - y) / (s * s);
      g[3] = 1 / t + 2 * (mu - y) / s;
    }
  else
    {
      lt = log1p (-t) - 2 * t * (y - mu) / s;
      g[0] = -2 * t / s;
      g[1] = -g[0];
      g[2] = 2 * t * (y - mu) / (s * s);
      g[3] = -1 / (1 - t) - 2 * (y - mu) / s;
    }
  /* lt is log F below mu and log (1 - F) above */
  if (below != upper)
    {
      for (int k = 0; k < 4; k++)
        d[k] = g[k];
      return lt;
    }
  /* d log (1 - e^lt) = -e^lt / (1 - e^lt) d lt */
  double w = 1 / expm1 (-lt);
  for (int k = 0; k < 4; k++)
    d[k] = -w * g[k];
  return tilde_log1m_exp (lt);
}

static double
c_discrete_range (const double *x, gboolean upper, unsigned need, double *d)
{
  double y = x[0], lo = x[1], hi = x[2];
  if (y < lo)
    return upper ? 0 : -INFINITY;
  if (y >= hi)
    return upper ? -INFINITY : 0;
  return upper ? log ((hi - y) / (hi - lo + 1)) : log ((y - lo + 1) / (hi - lo + 1));
}

static void
range_bounds (RtCtx *cx, const DArg *a, gint32 N)
{
  dist_check_greater_or_equal (cx, &a[2], &a[1], N);
}

/* ---- discrete ---- */

static double
c_bernoulli (const double *x, gboolean upper, unsigned need, double *d)
{
  double n = x[0], th = x[1];
  if (n < 0)
    return upper ? 0 : -INFINITY;
  if (n >= 1)
    return upper ? -INFINITY : 0;
  /* P (X <= 0) = 1 - theta */
  d[1] = upper ? 1 / th : -1 / (1 - th);
  return upper ? log (th) : log1p (-th);
}

static double
c_binomial (const double *x, gboolean upper, unsigned need, double *d)
{
  double n = x[0], N = x[1], th = x[2], dx;
  if (n < 0)
    return upper ? 0 : -INFINITY;
  if (n >= N)
    return upper ? -INFINITY : 0;
  /* P (X <= n) = I_{1 - theta} (N - n, n + 1) */
  double lf = tilde_log_inc_beta_grad (N - n, n + 1, 1 - th, upper, NULL, NULL, &dx);
  d[2] = -dx;
  return lf;
}

static double
c_poisson (const double *x, gboolean upper, unsigned need, double *d)
{
  double n = x[0], l = x[1], du;
  if (n < 0)
    return upper ? 0 : -INFINITY;
  /* P (X <= n) = Q (n + 1, lambda) */
  double lf = tilde_log_gamma_p_grad (n + 1, l, !upper, NULL, &du);
  d[1] = du;
  return lf;
}

static double
neg_binomial_core (double n, double a, double p, gboolean upper, unsigned need_a, double *da,
                   double *dp)
{
  /* P (X <= n) = I_p (a, n + 1) with p the probability of a success */
  return tilde_log_inc_beta_grad (a, n + 1, p, upper, need_a ? da : NULL, NULL, dp);
}

static double
c_neg_binomial (const double *x, gboolean upper, unsigned need, double *d)
{
  double n = x[0], al = x[1], b = x[2], da = 0, dp;
  if (n < 0)
    return upper ? 0 : -INFINITY;
  double lf = neg_binomial_core (n, al, b / (1 + b), upper, need & 2, &da, &dp);
  d[1] = da;
  d[2] = dp / ((1 + b) * (1 + b));
  return lf;
}

static double
c_neg_binomial_2 (const double *x, gboolean upper, unsigned need, double *d)
{
  double n = x[0], mu = x[1], phi = x[2], da = 0, dp;
  if (n < 0)
    return upper ? 0 : -INFINITY;
  double s = mu + phi;
  double lf = neg_binomial_core (n, phi, phi / s, upper, need & 4, &da, &dp);
  d[1] = -dp * phi / (s * s);
  d[2] = da + dp * mu / (s * s);
  return lf;
}

static double
c_beta_binomial (const double *x, gboolean upper, unsigned need, double *d)
{
  double n = x[0], N = x[1], al = x[2], b = x[3];
  if (n < 0)
    return upper ? 0 : -INFINITY;
  if (n >= N)
    return upper ? -INFINITY : 0;
  /* a finite sum of the mass function over the requested side */
  double lo = upper ? n + 1 : 0, hi = upper ? N : n;
  double lbab = tilde_lbeta (al, b), m = -INFINITY;
  /* log terms, summed stably */
  double s = 0, sa = 0, sb = 0;
  double dab = tilde_digamma (al + b) - tilde_digamma (N + al + b);
  double dal = tilde_digamma (al), dbe = tilde_digamma (b);
  for (int pass = 0; pass < 2; pass++)
    for (double k = lo; k <= hi; k++)
      {
        double lt = tilde_lchoose (N, k) + tilde_lbeta (k + al, N - k + b) - lbab;
        if (pass == 0)
          {
            m = fmax (m, lt);
            continue;
          }
        double w = exp (lt - m);
        s += w;
        if (need & 4)
          sa += w * (tilde_digamma (k + al) + dab - dal);
        if (need & 8)
          sb += w * (tilde_digamma (N - k + b) + dab - dbe);
      }
  d[2] = sa / s;
  d[3] = sb / s;
  return m + log (s);
}

/* log F of beta_neg_binomial (n | r, alpha, beta): the mass function summed
 * over 0..n (in logs, stably); the upper tail, which has no finite sum, is
 * log (1 - F), exact until F is within rounding of 1. */
static double
c_beta_neg_binomial (const double *x, gboolean upper, unsigned need, double *d)
{
  double n = x[0], r = x[1], al = x[2], b = x[3];
  if (n < 0)
    return upper ? 0 : -INFINITY;
  double base = -tilde_lbeta (r, al) - lgamma (b), m = -INFINITY;
  double dr0 = tilde_digamma (r + al) - tilde_digamma (r);
  double da0 = tilde_digamma (r + al) - tilde_digamma (al);
  double s = 0, sr = 0, sa = 0, sb = 0;
  for (int pass = 0; pass < 2; pass++)
    for (double k = 0; k <= n; k++)
      {
        double lt = tilde_lbeta (k + r, al + b) + lgamma (k + b) - lgamma (k + 1) + base;
        if (pass == 0)
          {
            m = fmax (m, lt);
            continue;
          }
        double w = exp (lt - m), dall = tilde_digamma (k + r + al + b);
        double dab = tilde_digamma (al + b);
        s += w;
        if (need & 2)
          sr += w * (tilde_digamma (k + r) - dall + dr0);
        if (need & 4)
          sa += w * (dab - dall + da0);
        if (need & 8)
          sb += w * (dab - dall + tilde_digamma (k + b) - tilde_digamma (b));
      }
  double lf = m + log (s);
  d[1] = sr / s;
  d[2] = sa / s;
  d[3] = sb / s;
  if (!upper)
    return lf;
  /* d log (1 - F) = -F / (1 - F) d log F */
  double lc = tilde_log1m_exp (fmin (lf, -DBL_MIN)), q = -exp (lf - lc);
  for (int k = 1; k < 4; k++)
    d[k] *= q;
  return lc;
}

/* ---- cross-argument checks ---- */

static void
uniform_bounds (RtCtx *cx, const DArg *a, gint32 N)
{
  for (gint32 i = 0; i < N; i++)
    if (!(AT (&a[2], i) > AT (&a[1], i)))
      {
        char must[64];
        g_snprintf (must, sizeof must, "greater than %g", AT (&a[1], i));
        dist_fail (cx, &a[2], i, AT (&a[2], i), must);
      }
}

static void
above_location (RtCtx *cx, const DArg *a, gint32 N)
{
  dist_check_greater_or_equal (cx, &a[0], &a[1], N);
}

/* ---- the families ---- */

#define Y "Random variable"
#define LOC "Location parameter"
#define SCALE "Scale parameter"
#define SHAPE "Shape parameter"
#define DOF "Degrees of freedom parameter"
#define INV_SCALE "Inverse scale parameter"

static const CdfSpec spec_normal = { 3, { Y, LOC, SCALE }, { CK_NOT_NAN, CK_FINITE, CK_POSITIVE }, c_normal, NULL };
static const CdfSpec spec_std_normal = { 1, { Y }, { CK_NOT_NAN }, c_std_normal, NULL };
static const CdfSpec spec_student_t = { 4, { Y, DOF, LOC, SCALE }, { CK_NOT_NAN, CK_POSITIVE_FINITE, CK_FINITE, CK_POSITIVE_FINITE }, c_student_t, NULL };
static const CdfSpec spec_cauchy = { 3, { Y, LOC, SCALE }, { CK_NOT_NAN, CK_FINITE, CK_POSITIVE_FINITE }, c_cauchy, NULL };
static const CdfSpec spec_double_exponential = { 3, { Y, LOC, SCALE }, { CK_NOT_NAN, CK_FINITE, CK_POSITIVE_FINITE }, c_double_exponential, NULL };
static const CdfSpec spec_logistic = { 3, { Y, LOC, SCALE }, { CK_NOT_NAN, CK_FINITE, CK_POSITIVE_FINITE }, c_logistic, NULL };
static const CdfSpec spec_gumbel = { 3, { Y, LOC, SCALE }, { CK_NOT_NAN, CK_FINITE, CK_POSITIVE }, c_gumbel, NULL };
static const CdfSpec spec_lognormal = { 3, { Y, LOC, SCALE }, { CK_NONNEGATIVE, CK_FINITE, CK_POSITIVE_FINITE }, c_lognormal, NULL };
static const CdfSpec spec_chi_square = { 2, { Y, DOF }, { CK_NONNEGATIVE, CK_POSITIVE_FINITE }, c_chi_square, NULL };
static const CdfSpec spec_inv_chi_square = { 2, { Y, DOF }, { CK_NONNEGATIVE, CK_POSITIVE_FINITE }, c_inv_chi_square, NULL };
static const CdfSpec spec_scaled_inv_chi_square = { 3, { Y, DOF, SCALE }, { CK_NONNEGATIVE, CK_POSITIVE_FINITE, CK_POSITIVE_FINITE }, c_scaled_inv_chi_square, NULL };
static const CdfSpec spec_exponential = { 2, { Y, INV_SCALE }, { CK_NONNEGATIVE, CK_POSITIVE_FINITE }, c_exponential, NULL };
static const CdfSpec spec_gamma = { 3, { Y, SHAPE, INV_SCALE }, { CK_NONNEGATIVE, CK_POSITIVE_FINITE, CK_POSITIVE_FINITE }, c_gamma, NULL };
static const CdfSpec spec_inv_gamma = { 3, { Y, SHAPE, SCALE }, { CK_NONNEGATIVE, CK_POSITIVE_FINITE, CK_POSITIVE_FINITE }, c_inv_gamma, NULL };
static const CdfSpec spec_weibull = { 3, { Y, SHAPE, SCALE }, { CK_NONNEGATIVE, CK_POSITIVE_FINITE, CK_POSITIVE_FINITE }, c_weibull, NULL };
static const CdfSpec spec_frechet = { 3, { Y, SHAPE, SCALE }, { CK_POSITIVE, CK_POSITIVE_FINITE, CK_POSITIVE_FINITE }, c_frechet, NULL };
static const CdfSpec spec_rayleigh = { 2, { Y, SCALE }, { CK_NONNEGATIVE, CK_POSITIVE }, c_rayleigh, NULL };
static const CdfSpec spec_pareto = { 3, { Y, SCALE, SHAPE }, { CK_NONNEGATIVE, CK_POSITIVE_FINITE, CK_POSITIVE_FINITE }, c_pareto, NULL };
static const CdfSpec spec_pareto_type_2 = { 4, { Y, LOC, SCALE, SHAPE }, { CK_NOT_NAN, CK_FINITE, CK_POSITIVE_FINITE, CK_POSITIVE_FINITE }, c_pareto_type_2, above_location };
static const CdfSpec spec_beta = { 3, { Y, "First shape parameter", "Second shape parameter" }, { CK_UNIT, CK_POSITIVE_FINITE, CK_POSITIVE_FINITE }, c_beta, NULL };
static const CdfSpec spec_beta_proportion = { 3, { Y, LOC, "Precision parameter" }, { CK_UNIT, CK_OPEN_UNIT, CK_POSITIVE_FINITE }, c_beta_proportion, NULL };
static const CdfSpec spec_uniform = { 3, { Y, "Lower bound parameter", "Upper bound parameter" }, { CK_NOT_NAN, CK_FINITE, CK_FINITE }, c_uniform, uniform_bounds };
static const CdfSpec spec_skew_normal = { 4, { Y, LOC, SCALE, SHAPE }, { CK_NOT_NAN, CK_FINITE, CK_POSITIVE, CK_FINITE }, c_skew_normal, NULL };
static const CdfSpec spec_exp_mod_normal = { 4, { Y, LOC, SCALE, "Inv_scale parameter" }, { CK_NOT_NAN, CK_FINITE, CK_POSITIVE_FINITE, CK_POSITIVE_FINITE }, c_exp_mod_normal, NULL };
static const CdfSpec spec_von_mises = { 3, { Y, LOC, SCALE }, { CK_ANGLE, CK_FINITE, CK_POSITIVE }, c_von_mises, NULL };
static const CdfSpec spec_loglogistic = { 3, { Y, SCALE, SHAPE }, { CK_NONNEGATIVE, CK_POSITIVE_FINITE, CK_POSITIVE_FINITE }, c_loglogistic, NULL };
static const CdfSpec spec_skew_double_exponential = { 4, { Y, LOC, SCALE, "Skewness parameter" }, { CK_NOT_NAN, CK_FINITE, CK_POSITIVE_FINITE, CK_UNIT }, c_skew_double_exponential, NULL };
static const CdfSpec spec_discrete_range = { 3, { Y, "Lower bound parameter", "Upper bound parameter" }, { CK_NONE, CK_NONE, CK_NONE }, c_discrete_range, range_bounds };
static const CdfSpec spec_bernoulli = { 2, { "n", "Probability parameter" }, { CK_NONE, CK_UNIT }, c_bernoulli, NULL };
static const CdfSpec spec_binomial = { 3, { "Successes variable", "Population size parameter", "Probability parameter" }, { CK_NONE, CK_NONNEGATIVE, CK_UNIT }, c_binomial, NULL };
static const CdfSpec spec_poisson = { 2, { Y, "Rate parameter" }, { CK_NONE, CK_NONNEGATIVE }, c_poisson, NULL };
static const CdfSpec spec_neg_binomial = { 3, { "Failures variable", SHAPE, INV_SCALE }, { CK_NONE, CK_POSITIVE_FINITE, CK_POSITIVE_FINITE }, c_neg_binomial, NULL };
static const CdfSpec spec_neg_binomial_2 = { 3, { "Failures variable", LOC, "Precision parameter" }, { CK_NONE, CK_POSITIVE_FINITE, CK_POSITIVE_FINITE }, c_neg_binomial_2, NULL };
static const CdfSpec spec_beta_neg_binomial = { 4, { "Failures variable", "Number of successes parameter", "Prior success parameter", "Prior failure parameter" }, { CK_NONE, CK_POSITIVE_FINITE, CK_POSITIVE_FINITE, CK_POSITIVE_FINITE }, c_beta_neg_binomial, NULL };
static const CdfSpec spec_beta_binomial = { 4, { "Successes variable", "Population size parameter", "First prior sample size parameter", "Second prior sample size parameter" }, { CK_NONE, CK_NONNEGATIVE, CK_POSITIVE_FINITE, CK_POSITIVE_FINITE }, c_beta_binomial, NULL };

CDF_KERNELS (normal)
CDF_KERNELS (std_normal)
CDF_KERNELS (student_t)
CDF_KERNELS (cauchy)
CDF_KERNELS (double_exponential)
CDF_KERNELS (logistic)
CDF_KERNELS (gumbel)
CDF_KERNELS (lognormal)
CDF_KERNELS (chi_square)
CDF_KERNELS (inv_chi_square)
CDF_KERNELS (scaled_inv_chi_square)
CDF_KERNELS (exponential)
CDF_KERNELS (gamma)
CDF_KERNELS (inv_gamma)
CDF_KERNELS (weibull)
CDF_KERNELS (frechet)
CDF_KERNELS (rayleigh)
CDF_KERNELS (pareto)
CDF_KERNELS (pareto_type_2)
CDF_KERNELS (beta)
CDF_KERNELS (uniform)
CDF_KERNELS (skew_normal)
CDF_KERNELS (exp_mod_normal)
CDF_KERNELS (von_mises)
CDF_KERNELS (bernoulli)
CDF_KERNELS (binomial)
CDF_KERNELS (poisson)
CDF_KERNELS (neg_binomial)
CDF_KERNELS (neg_binomial_2)
CDF_KERNELS (beta_binomial)
CDF_KERNELS (beta_neg_binomial)
CDF_KERNELS (skew_double_exponential)
CDF_KERNELS (discrete_range)

/* Stan has only loglogistic_cdf */
static void
k_loglogistic_cdf (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  cdf_run (cx, v, out, &spec_loglogistic, MODE_CDF);
}

/* Stan has no beta_proportion_cdf */
#undef CDF_KERNELS
#define CDF_KERNELS(fam)                                                              \
  static void k_##fam##_lcdf (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)  \
  { cdf_run (cx, v, out, &spec_##fam, MODE_LCDF); }                                  \
  static void k_##fam##_lccdf (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out) \
  { cdf_run (cx, v, out, &spec_##fam, MODE_LCCDF); }
CDF_KERNELS (beta_proportion)

#define ALL3(fam, n)                                    \
  { #fam "_cdf", k_##fam##_cdf, n, n },                 \
  { #fam "_lcdf", k_##fam##_lcdf, n, n },               \
  { #fam "_lccdf", k_##fam##_lccdf, n, n }

const RtBuiltin rt_builtins_cdf[] = {
  ALL3 (normal, 3), ALL3 (std_normal, 1), ALL3 (student_t, 4), ALL3 (cauchy, 3),
  ALL3 (double_exponential, 3), ALL3 (logistic, 3), ALL3 (gumbel, 3), ALL3 (lognormal, 3),
  ALL3 (chi_square, 2), ALL3 (inv_chi_square, 2), ALL3 (scaled_inv_chi_square, 3),
  ALL3 (exponential, 2), ALL3 (gamma, 3), ALL3 (inv_gamma, 3), ALL3 (weibull, 3),
  ALL3 (frechet, 3), ALL3 (rayleigh, 2), ALL3 (pareto, 3), ALL3 (pareto_type_2, 4),
  ALL3 (beta, 3), ALL3 (uniform, 3), ALL3 (skew_normal, 4), ALL3 (exp_mod_normal, 4),
  ALL3 (von_mises, 3), ALL3 (bernoulli, 2), ALL3 (binomial, 3), ALL3 (poisson, 2),
  ALL3 (neg_binomial, 3), ALL3 (neg_binomial_2, 3), ALL3 (beta_binomial, 4),
  ALL3 (beta_neg_binomial, 4),
  ALL3 (skew_double_exponential, 4), ALL3 (discrete_range, 3),
  { "loglogistic_cdf", k_loglogistic_cdf, 3, 3 },
  { "beta_proportion_lcdf", k_beta_proportion_lcdf, 3, 3 },
  { "beta_proportion_lccdf", k_beta_proportion_lccdf, 3, 3 },
  { NULL, NULL, 0, 0 },
};
