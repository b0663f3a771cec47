/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Scalar special functions beyond functions.c's, vectorised by rt_map:
 * Bessel functions, incomplete gamma and beta functions, factorials,
 * Owen's T, Lambert's W, quantiles, log_inv_logit_diff, lmultiply,
 * lmgamma, binary_log_loss, ldexp, the logical functions, log_mix over
 * vectors, and norms and distances.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/runtime-private.h"
#include "runtime/math/special.h"

#include <math.h>
#include <string.h>

/* Fails with Stan's wording unless every element of argument k (scalar or
 * container, nested too) satisfies ok. */
typedef gboolean (*Pred) (double x);

static void
check_each (RtCtx *cx, const TildeValue *v, Pred ok, const char *what, const char *must)
{
  if (v->kind == TILDE_VALUE_ARRAY && !tilde_value_is_flat (v))
    {
      for (gint32 i = 0; i < v->rows; i++)
        check_each (cx, &v->u.elems[i], ok, what, must);
      return;
    }
  gint32 n = tilde_value_flat_size (v);
  const double *x = rt_values (cx, v);
  for (gint32 i = 0; i < n; i++)
    if (!ok (x[i]))
      rt_domain_error (cx, what, x[i], must);
}

static gboolean is_nonneg (double x) { return x >= 0; }
static gboolean is_positive (double x) { return x > 0; }
static gboolean is_unit (double x) { return x >= 0 && x <= 1; }

#define MAP(name, n)                                                        \
  static void k_##name (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out) \
  {                                                                         \
    rt_map (cx, n, a, out, f_##name);                                       \
  }

/* ---- Bessel functions ---- */

static double
f_bessel_first_kind (const double *x, double *d)
{
  int v = (int) x[0];
  d[1] = 0.5 * (tilde_bessel_j (v - 1, x[1]) - tilde_bessel_j (v + 1, x[1]));
  return tilde_bessel_j (v, x[1]);
}

static double
f_bessel_second_kind (const double *x, double *d)
{
  int v = (int) x[0];
  d[1] = 0.5 * (tilde_bessel_y (v - 1, x[1]) - tilde_bessel_y (v + 1, x[1]));
  return tilde_bessel_y (v, x[1]);
}

static double
f_modified_bessel_first_kind (const double *x, double *d)
{
  int v = (int) x[0];
  d[1] = 0.5 * (tilde_bessel_i (v - 1, x[1]) + tilde_bessel_i (v + 1, x[1]));
  return tilde_bessel_i (v, x[1]);
}

static double
f_modified_bessel_second_kind (const double *x, double *d)
{
  int v = (int) x[0];
  d[1] = -0.5 * (tilde_bessel_k (v - 1, x[1]) + tilde_bessel_k (v + 1, x[1]));
  return tilde_bessel_k (v, x[1]);
}

static double
f_log_modified_bessel_first_kind (const double *x, double *d)
{
  return tilde_log_bessel_i (x[0], x[1], &d[0], &d[1]);
}

static void
k_bessel_first_kind (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  rt_map (cx, 2, a, out, f_bessel_first_kind);
}

static void
k_bessel_second_kind (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  check_each (cx, &a[1], is_positive, "second argument (variable)", "positive");
  rt_map (cx, 2, a, out, f_bessel_second_kind);
}

MAP (modified_bessel_first_kind, 2)

static void
k_modified_bessel_second_kind (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  check_each (cx, &a[1], is_positive, "second argument (variable)", "positive");
  rt_map (cx, 2, a, out, f_modified_bessel_second_kind);
}

static void
k_log_modified_bessel_first_kind (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  check_each (cx, &a[0], is_nonneg, "first argument (order)", "nonnegative");
  check_each (cx, &a[1], is_nonneg, "second argument (variable)", "nonnegative");
  rt_map (cx, 2, a, out, f_log_modified_bessel_first_kind);
}

/* ---- incomplete gamma and beta functions ---- */

static double
f_gamma_p (const double *x, double *d)
{
  double lf = tilde_log_gamma_p_grad (x[0], x[1], FALSE, &d[0], &d[1]), v = exp (lf);
  d[0] *= v;
  d[1] *= v;
  return v;
}

static double
f_gamma_q (const double *x, double *d)
{
  double lf = tilde_log_gamma_p_grad (x[0], x[1], TRUE, &d[0], &d[1]), v = exp (lf);
  d[0] *= v;
  d[1] *= v;
  return v;
}

static double
f_inc_beta (const double *x, double *d)
{
  double lf = tilde_log_inc_beta_grad (x[0], x[1], x[2], FALSE, &d[0], &d[1], &d[2]);
  double v = exp (lf);
  for (int k = 0; k < 3; k++)
    d[k] *= v;
  return v;
}

static double
f_inv_inc_beta (const double *x, double *d)
{
  double a = x[0], b = x[1], p = x[2], r = tilde_inv_inc_beta (a, b, p);
  /* implicit differentiation of I_r (a, b) = p */
  double da, db, dr;
  double lf = tilde_log_inc_beta_grad (a, b, r, FALSE, &da, &db, &dr);
  double f = exp (lf);
  double dens = dr * f;   /* d I / d r */
  d[0] = -da * f / dens;
  d[1] = -db * f / dens;
  d[2] = 1 / dens;
  return r;
}

static void
k_gamma_p (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  check_each (cx, &a[0], is_positive, "first argument", "positive");
  check_each (cx, &a[1], is_nonneg, "second argument", "nonnegative");
  rt_map (cx, 2, a, out, f_gamma_p);
}

static void
k_gamma_q (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  check_each (cx, &a[0], is_positive, "first argument", "positive");
  check_each (cx, &a[1], is_nonneg, "second argument", "nonnegative");
  rt_map (cx, 2, a, out, f_gamma_q);
}

static void
k_inc_beta (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  check_each (cx, &a[0], is_positive, "First argument", "positive");
  check_each (cx, &a[1], is_positive, "Second argument", "positive");
  check_each (cx, &a[2], is_unit, "Third argument", "in the interval [0, 1]");
  rt_map (cx, 3, a, out, f_inc_beta);
}

static void
k_inv_inc_beta (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  check_each (cx, &a[0], is_positive, "First argument", "positive");
  check_each (cx, &a[1], is_positive, "Second argument", "positive");
  check_each (cx, &a[2], is_unit, "Third argument", "in the interval [0, 1]");
  rt_map (cx, 3, a, out, f_inv_inc_beta);
}

/* ---- factorials and gamma-like functions ---- */

static double
f_beta (const double *x, double *d)
{
  double v = exp (tilde_lbeta (x[0], x[1])), dab = tilde_digamma (x[0] + x[1]);
  d[0] = v * (tilde_digamma (x[0]) - dab);
  d[1] = v * (tilde_digamma (x[1]) - dab);
  return v;
}

static double
f_falling_factorial (const double *x, double *d)
{
  double v = exp (lgamma (x[0] + 1) - lgamma (x[0] - x[1] + 1));
  d[0] = v * (tilde_digamma (x[0] + 1) - tilde_digamma (x[0] - x[1] + 1));
  return v;
}

static double
f_rising_factorial (const double *x, double *d)
{
  double v = exp (lgamma (x[0] + x[1]) - lgamma (x[0]));
  d[0] = v * (tilde_digamma (x[0] + x[1]) - tilde_digamma (x[0]));
  return v;
}

static double
f_log_falling_factorial (const double *x, double *d)
{
  d[0] = tilde_digamma (x[0] + 1) - tilde_digamma (x[0] - x[1] + 1);
  d[1] = tilde_digamma (x[0] - x[1] + 1);
  return lgamma (x[0] + 1) - lgamma (x[0] - x[1] + 1);
}

static double
f_log_rising_factorial (const double *x, double *d)
{
  d[0] = tilde_digamma (x[0] + x[1]) - tilde_digamma (x[0]);
  d[1] = tilde_digamma (x[0] + x[1]);
  return lgamma (x[0] + x[1]) - lgamma (x[0]);
}

static double
f_lmgamma (const double *x, double *d)
{
  int k = (int) x[0];
  double v = 0.25 * k * (k - 1) * TILDE_LOG_PI;
  d[1] = 0;
  for (int j = 1; j <= k; j++)
    {
      v += lgamma (x[1] + 0.5 * (1 - j));
      d[1] += tilde_digamma (x[1] + 0.5 * (1 - j));
    }
  return v;
}

MAP (beta, 2)
MAP (log_falling_factorial, 2)
MAP (log_rising_factorial, 2)
MAP (lmgamma, 2)

/* falling_factorial (x, n) = x (x - 1) ... (x - n + 1): int for int x */
static int
int_factorial (RtCtx *cx, const double *xn, gboolean falling)
{
  gint64 x = (gint64) xn[0], n = (gint64) xn[1], r = 1;
  if (x < 0 && falling)
    rt_domain_error (cx, "first argument", (double) x, "nonnegative");
  for (gint64 i = 0; i < n; i++)
    {
      r *= falling ? x - i : x + i;
      if (r > G_MAXINT || r < G_MININT)
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: integer overflow", cx->fn_name);
    }
  return (int) r;
}

static int f_int_falling (RtCtx *cx, const double *x) { return int_factorial (cx, x, TRUE); }
static int f_int_rising (RtCtx *cx, const double *x) { return int_factorial (cx, x, FALSE); }

static void
factorial (RtCtx *cx, const TildeValue *a, gboolean falling, TildeValue *out)
{
  check_each (cx, &a[1], is_nonneg, "second argument", "nonnegative");
  if (rt_all_ints (2, a))
    rt_map_int (cx, 2, a, out, falling ? f_int_falling : f_int_rising);
  else
    rt_map (cx, 2, a, out, falling ? f_falling_factorial : f_rising_factorial);
}

static void k_falling_factorial (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { factorial (cx, a, TRUE, out); }
static void k_rising_factorial (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { factorial (cx, a, FALSE, out); }

/* ---- logistic and normal helpers ---- */

static double
f_log_inv_logit_diff (const double *x, double *d)
{
  double a = x[0], b = x[1];
  d[0] = -tilde_inv_logit (a) - 1 / expm1 (b - a);
  d[1] = -1 / expm1 (a - b) - tilde_inv_logit (b);
  return a - tilde_log1p_exp (a) + tilde_log1m_exp (b - a) - tilde_log1p_exp (b);
}

static double
f_lmultiply (const double *x, double *d)
{
  d[0] = log (x[1]);
  d[1] = x[0] / x[1];
  if (x[0] == 0 && x[1] == 0)
    {
      d[0] = 0;
      return 0;
    }
  return x[0] * log (x[1]);
}

static double
f_binary_log_loss (const double *x, double *d)
{
  if (x[0] != 0)
    {
      d[1] = -1 / x[1];
      return -log (x[1]);
    }
  d[1] = 1 / (1 - x[1]);
  return -log1p (-x[1]);
}

static double
f_owens_t (const double *x, double *d)
{
  double h = x[0], a = x[1];
  d[0] = -exp (tilde_std_normal_log_density (h)) * 0.5 * erf (a * h / TILDE_SQRT_TWO);
  d[1] = exp (-0.5 * h * h * (1 + a * a)) / (2 * M_PI * (1 + a * a));
  return tilde_owens_t (h, a);
}

static double
f_ldexp (const double *x, double *d)
{
  d[0] = ldexp (1.0, (int) x[1]);
  return ldexp (x[0], (int) x[1]);
}

static double
f_lambert_w0 (const double *x, double *d)
{
  double w = tilde_lambert_w0 (x[0]);
  d[0] = x[0] == 0 ? 1 : w / (x[0] * (1 + w));
  return w;
}

static double
f_lambert_wm1 (const double *x, double *d)
{
  double w = tilde_lambert_wm1 (x[0]);
  d[0] = w / (x[0] * (1 + w));
  return w;
}

static double
f_inv_erfc (const double *x, double *d)
{
  /* erfc (y) = 2 Phi (-y sqrt 2) */
  double y = -tilde_inv_Phi (0.5 * x[0]) / TILDE_SQRT_TWO;
  d[0] = -0.5 * sqrt (M_PI) * exp (y * y);
  return y;
}

static double
f_std_normal_log_qf (const double *x, double *d)
{
  double q = tilde_std_normal_log_qf (x[0]);
  d[0] = 1 / tilde_std_normal_dlcdf (q);
  return q;
}

static double
f_std_normal_qf (const double *x, double *d)
{
  double q = tilde_inv_Phi (x[0]);
  d[0] = TILDE_SQRT_TWO_PI * exp (0.5 * q * q);
  return q;
}

static double
f_trigamma (const double *x, double *d)
{
  d[0] = tilde_tetragamma (x[0]);
  return tilde_trigamma (x[0]);
}

static void
k_log_inv_logit_diff (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  rt_map (cx, 2, a, out, f_log_inv_logit_diff);
}

MAP (lmultiply, 2)
MAP (owens_t, 2)
MAP (ldexp, 2)
MAP (lambert_w0, 1)
MAP (lambert_wm1, 1)
MAP (std_normal_log_qf, 1)
MAP (std_normal_qf, 1)
MAP (trigamma, 1)

static void
k_binary_log_loss (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  check_each (cx, &a[0], is_unit, "y", "in the interval [0, 1]");
  check_each (cx, &a[1], is_unit, "y_hat", "in the interval [0, 1]");
  rt_map (cx, 2, a, out, f_binary_log_loss);
}

static void
k_inv_erfc (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  rt_map (cx, 1, a, out, f_inv_erfc);
}

/* ---- logical functions: ints ---- */

static gboolean
truth_of (RtCtx *cx, const TildeValue *v)
{
  return v->kind == TILDE_VALUE_INT ? v->u.i != 0 : rt_scalar (cx, v) != 0;
}

static double
scalar_of (RtCtx *cx, const TildeValue *v)
{
  return v->kind == TILDE_VALUE_INT ? v->u.i : rt_scalar (cx, v);
}

#define LOGICAL2(name, expr)                                                     \
  static void k_##name (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out) \
  {                                                                              \
    double x = scalar_of (cx, &a[0]), y = scalar_of (cx, &a[1]);                 \
    gboolean p = truth_of (cx, &a[0]), q = truth_of (cx, &a[1]);                 \
    (void) x; (void) y; (void) p; (void) q;                                      \
    *out = tilde_value_int ((expr) ? 1 : 0);                                     \
  }

LOGICAL2 (logical_and, p && q)
LOGICAL2 (logical_or, p || q)
LOGICAL2 (logical_eq, x == y)
LOGICAL2 (logical_neq, x != y)
LOGICAL2 (logical_lt, x < y)
LOGICAL2 (logical_lte, x <= y)
LOGICAL2 (logical_gt, x > y)
LOGICAL2 (logical_gte, x >= y)

static void
k_logical_negation (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  *out = tilde_value_int (!truth_of (cx, &a[0]));
}

/* ---- log_mix over vectors ---- */

/* log sum_k theta_k exp (lambda_k), for one lambda vector or summed over
 * an array of them; theta a simplex-like vector of mixing proportions */
static void
k_log_mix_vec (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  const TildeValue *th = &a[0];
  int K = tilde_value_flat_size (th);
  const double *tx = rt_values (cx, th);
  for (int k = 0; k < K; k++)
    if (!(tx[k] >= 0 && tx[k] <= 1))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: theta[%d] is %g, but must be in the interval "
                "[0, 1]!", cx->fn_name, k + 1, tx[k]);
  gint32 n;
  const TildeValue *ls;
  if (a[1].kind == TILDE_VALUE_ARRAY && !tilde_value_is_flat (&a[1]))
    {
      n = a[1].rows;
      ls = a[1].u.elems;
    }
  else
    {
      n = 1;
      ls = &a[1];
    }
  double *pt = th->ad ? tilde_arena_alloc0 (cx->arena, sizeof (double) * (gsize) K) : NULL;
  AdOperand *ops = tilde_arena_alloc (cx->arena, sizeof (AdOperand) * (gsize) (n + 1));
  guint n_ops = 0;
  double total = 0;
  double *lt = rt_alloc_d (cx, (gsize) K);
  for (int k = 0; k < K; k++)
    lt[k] = log (tx[k]);
  for (gint32 i = 0; i < n; i++)
    {
      rt_check_size (cx, "theta and lambda", tilde_value_flat_size (&ls[i]), K);
      const double *lx = rt_values (cx, &ls[i]);
      double m = -INFINITY, s = 0;
      for (int k = 0; k < K; k++)
        m = fmax (m, lt[k] + lx[k]);
      for (int k = 0; k < K; k++)
        s += exp (lt[k] + lx[k] - m);
      double v = m + log (s);
      total += v;
      double *pl = ls[i].ad ? rt_alloc_d (cx, (gsize) K) : NULL;
      for (int k = 0; k < K; k++)
        {
          /* d v / d lambda_k = theta_k exp (lambda_k - v); d v / d theta_k = exp (lambda_k - v) */
          double w = exp (lx[k] - v);
          if (pl)
            pl[k] = tx[k] * w;
          if (pt)
            pt[k] += w;
        }
      if (pl)
        ops[n_ops++] = rt_operand (&ls[i], pl);
    }
  if (pt)
    ops[n_ops++] = rt_operand (th, pt);
  *out = rt_reduce (cx, total, n_ops, ops);
}

/* ---- norms and distances ---- */

static void
norm (RtCtx *cx, const TildeValue *v, int p, TildeValue *out)
{
  gint32 n = tilde_value_flat_size (v);
  const double *x = rt_values (cx, v);
  double s = 0;
  for (gint32 i = 0; i < n; i++)
    s += p == 1 ? fabs (x[i]) : x[i] * x[i];
  double r = p == 1 ? s : sqrt (s);
  if (!v->ad)
    {
      *out = tilde_value_real (r);
      return;
    }
  double *d = rt_alloc_d (cx, (gsize) n);
  for (gint32 i = 0; i < n; i++)
    d[i] = p == 1 ? (x[i] > 0 ? 1 : x[i] < 0 ? -1 : 0) : (r > 0 ? x[i] / r : 0);
  AdOperand op = rt_operand (v, d);
  *out = rt_reduce (cx, r, 1, &op);
}

static void k_norm1 (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { norm (cx, &a[0], 1, out); }
static void k_norm2 (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { norm (cx, &a[0], 2, out); }

static void
distance (RtCtx *cx, const TildeValue *a, gboolean squared, TildeValue *out)
{
  gint32 n = tilde_value_flat_size (&a[0]);
  rt_check_size (cx, "x1 and x2", n, tilde_value_flat_size (&a[1]));
  const double *x = rt_values (cx, &a[0]), *y = rt_values (cx, &a[1]);
  double s = 0;
  for (gint32 i = 0; i < n; i++)
    s += (x[i] - y[i]) * (x[i] - y[i]);
  double r = squared ? s : sqrt (s);
  double *dx = rt_alloc_d (cx, (gsize) n), *dy = rt_alloc_d (cx, (gsize) n);
  for (gint32 i = 0; i < n; i++)
    {
      dx[i] = squared ? 2 * (x[i] - y[i]) : (r > 0 ? (x[i] - y[i]) / r : 0);
      dy[i] = -dx[i];
    }
  AdOperand ops[2];
  guint n_ops = 0;
  if (a[0].ad)
    ops[n_ops++] = rt_operand (&a[0], dx);
  if (a[1].ad)
    ops[n_ops++] = rt_operand (&a[1], dy);
  *out = rt_reduce (cx, r, n_ops, ops);
}

static void k_distance (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { distance (cx, a, FALSE, out); }
static void k_squared_distance (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { distance (cx, a, TRUE, out); }

#define E1(name) { #name, k_##name, 1, 1 }
#define E2(name) { #name, k_##name, 2, 2 }
#define E3(name) { #name, k_##name, 3, 3 }

const RtBuiltin rt_builtins_scalar[] = {
  E2 (bessel_first_kind), E2 (bessel_second_kind), E2 (modified_bessel_first_kind),
  E2 (modified_bessel_second_kind), E2 (log_modified_bessel_first_kind),
  E2 (gamma_p), E2 (gamma_q), E3 (inc_beta), E3 (inv_inc_beta),
  E2 (beta), E2 (falling_factorial), E2 (rising_factorial), E2 (log_falling_factorial),
  E2 (log_rising_factorial), E2 (lmgamma),
  E2 (log_inv_logit_diff), E2 (lmultiply), E2 (binary_log_loss), E2 (owens_t), E2 (ldexp),
  E1 (lambert_w0), E1 (lambert_wm1), E1 (inv_erfc), E1 (std_normal_qf), E1 (std_normal_log_qf),
  E1 (trigamma),
  E2 (logical_and), E2 (logical_or), E2 (logical_eq), E2 (logical_neq), E2 (logical_lt),
  E2 (logical_lte), E2 (logical_gt), E2 (logical_gte), E1 (logical_negation),
  { "log_mix", k_log_mix_vec, 2, 2 },
  E1 (norm1), E1 (norm2), E2 (distance), E2 (squared_distance),
  { NULL, NULL, 0, 0 },
};
