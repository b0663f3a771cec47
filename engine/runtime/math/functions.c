/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The elementwise and reducing functions of Stan's library, and the ones
 * that build or reshape containers. Elementwise functions are a scalar
 * function with its derivative, mapped by rt_map; containers are built by
 * gathering values or variable ids, which records nothing on the tape.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/runtime-private.h"
#include "runtime/math/linalg.h"
#include "runtime/math/special.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ---- elementwise ---- */

#define UNARY(name, value, deriv)                                    \
  static double f_##name (const double *x, double *d)                \
  {                                                                  \
    double a = x[0];                                                 \
    double v = (value);                                              \
    d[0] = (deriv);                                                  \
    return v;                                                        \
  }                                                                  \
  static void k_##name (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) \
  {                                                                  \
    rt_map (cx, 1, a, out, f_##name);                                \
  }

UNARY (exp, exp (a), v)
UNARY (exp2, exp2 (a), v * TILDE_LOG_TWO)
UNARY (log, log (a), 1 / a)
UNARY (log2, log2 (a), 1 / (a * TILDE_LOG_TWO))
UNARY (log10, log10 (a), 1 / (a * M_LN10))
UNARY (log1p, log1p (a), 1 / (1 + a))
UNARY (expm1, expm1 (a), v + 1)
UNARY (log1m, log1p (-a), -1 / (1 - a))
UNARY (sqrt, sqrt (a), 0.5 / v)
UNARY (cbrt, cbrt (a), 1 / (3 * v * v))
UNARY (square, a * a, 2 * a)
UNARY (inv, 1 / a, -1 / (a * a))
UNARY (inv_sqrt, 1 / sqrt (a), -0.5 * v / a)
UNARY (inv_square, 1 / (a * a), -2 / (a * a * a))
UNARY (fabs, fabs (a), a > 0 ? 1 : a < 0 ? -1 : 0)
UNARY (lgamma, lgamma (a), tilde_digamma (a))
UNARY (digamma, tilde_digamma (a), tilde_trigamma (a))
UNARY (tgamma, tgamma (a), v * tilde_digamma (a))
UNARY (inv_logit, tilde_inv_logit (a), v * (1 - v))
UNARY (logit, tilde_logit (a), 1 / (a - a * a))
UNARY (log_inv_logit, tilde_log_inv_logit (a), 1 - tilde_inv_logit (a))
UNARY (log1m_inv_logit, tilde_log1m_inv_logit (a), -tilde_inv_logit (a))
UNARY (log1p_exp, tilde_log1p_exp (a), tilde_inv_logit (a))
UNARY (log1m_exp, tilde_log1m_exp (a), -1 / expm1 (-a))
UNARY (inv_cloglog, 1 - exp (-exp (a)), exp (a - exp (a)))
UNARY (Phi, tilde_Phi (a), TILDE_INV_SQRT_TWO_PI * exp (-0.5 * a * a))
UNARY (inv_Phi, tilde_inv_Phi (a), TILDE_SQRT_TWO_PI * exp (0.5 * v * v))
UNARY (Phi_approx, tilde_Phi_approx (a), v * (1 - v) * (3 * 0.07056 * a * a + 1.5976))
UNARY (erf, erf (a), 2 / sqrt (M_PI) * exp (-a * a))
UNARY (erfc, erfc (a), -2 / sqrt (M_PI) * exp (-a * a))
UNARY (sin, sin (a), cos (a))
UNARY (cos, cos (a), -sin (a))
UNARY (tan, tan (a), 1 + v * v)
UNARY (asin, asin (a), 1 / sqrt (1 - a * a))
UNARY (acos, acos (a), -1 / sqrt (1 - a * a))
UNARY (atan, atan (a), 1 / (1 + a * a))
UNARY (sinh, sinh (a), cosh (a))
UNARY (cosh, cosh (a), sinh (a))
UNARY (tanh, tanh (a), 1 - v * v)
UNARY (asinh, asinh (a), 1 / sqrt (a * a + 1))
UNARY (acosh, acosh (a), 1 / sqrt (a * a - 1))
UNARY (atanh, atanh (a), 1 / (1 - a * a))
UNARY (floor, floor (a), 0)
UNARY (ceil, ceil (a), 0)
UNARY (round, round (a), 0)
UNARY (trunc, trunc (a), 0)
UNARY (step, a < 0 ? 0 : 1, 0)

#define BINARY(name, value, da, db)                                  \
  static double f_##name (const double *x, double *d)                \
  {                                                                  \
    double a = x[0], b = x[1];                                       \
    double v = (value);                                              \
    d[0] = (da);                                                     \
    d[1] = (db);                                                     \
    return v;                                                        \
  }                                                                  \
  static void k_##name (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) \
  {                                                                  \
    rt_map (cx, 2, a, out, f_##name);                                \
  }

BINARY (fmax, fmax (a, b), a >= b ? 1 : 0, a >= b ? 0 : 1)
BINARY (fmin, fmin (a, b), a <= b ? 1 : 0, a <= b ? 0 : 1)
BINARY (fdim, fdim (a, b), a > b ? 1 : 0, a > b ? -1 : 0)
BINARY (hypot, hypot (a, b), a / v, b / v)
BINARY (atan2, atan2 (a, b), b / (a * a + b * b), -a / (a * a + b * b))
BINARY (fmod, fmod (a, b), 1, -trunc (a / b))
BINARY (lbeta, tilde_lbeta (a, b), tilde_digamma (a) - tilde_digamma (a + b),
        tilde_digamma (b) - tilde_digamma (a + b))
BINARY (lchoose, tilde_lchoose (a, b), tilde_digamma (a + 1) - tilde_digamma (a - b + 1),
        tilde_digamma (a - b + 1) - tilde_digamma (b + 1))
BINARY (log_diff_exp, tilde_log_diff_exp (a, b), -1 / expm1 (b - a), -1 / expm1 (a - b))
static double
f_log_sum_exp2 (const double *x, double *d)
{
  double v = tilde_log_sum_exp2 (x[0], x[1]);
  d[0] = exp (x[0] - v);
  d[1] = exp (x[1] - v);
  return v;
}
static double
f_fma (const double *x, double *d)
{
  d[0] = x[1];
  d[1] = x[0];
  d[2] = 1;
  return fma (x[0], x[1], x[2]);
}

static void
k_fma (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  rt_map (cx, 3, a, out, f_fma);
}

/* log_mix (theta, lp1, lp2) = log (theta exp (lp1) + (1 - theta) exp (lp2)) */
static double
f_log_mix (const double *x, double *d)
{
  double theta = x[0], l1 = x[1], l2 = x[2];
  double a = log (theta) + l1, b = log1p (-theta) + l2;
  double v = tilde_log_sum_exp2 (a, b);
  double w1 = exp (a - v), w2 = exp (b - v);
  d[0] = (exp (l1 - v) - exp (l2 - v));
  d[1] = w1;
  d[2] = w2;
  return v;
}

static void
k_log_mix (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  if (n != 3 || !tilde_value_kind_is_scalar ((TildeValueKind) a[0].kind))
    rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "log_mix: only the form log_mix(theta, lp1, lp2) "
              "with a real theta is supported yet");
  double th = rt_scalar (cx, &a[0]);
  if (!(th >= 0 && th <= 1))
    rt_domain_error (cx, "Mixing proportion", th, "in the interval [0, 1]");
  rt_map (cx, 3, a, out, f_log_mix);
}

static void
k_abs (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  if (a[0].kind == TILDE_VALUE_INT)
    *out = tilde_value_int (ABS (a[0].u.i));
  else
    rt_map (cx, 1, a, out, f_fabs);
}

static void
k_log_sum_exp (RtCtx *cx, int n, const TildeValue *a, TildeValue *out);

static void
k_log_sum_exp_any (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  if (n == 2)
    rt_map (cx, 2, a, out, f_log_sum_exp2);
  else
    k_log_sum_exp (cx, n, a, out);
}

/* int-valued helpers */
static void
k_int_step (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  *out = tilde_value_int (rt_scalar (cx, &a[0]) > 0);
}

static void
k_is_inf (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  *out = tilde_value_int (isinf (rt_scalar (cx, &a[0])) != 0);
}

static void
k_is_nan (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  *out = tilde_value_int (isnan (rt_scalar (cx, &a[0])) != 0);
}

static int
f_to_int (RtCtx *cx, const double *x)
{
  if (!(x[0] >= G_MININT && x[0] <= G_MAXINT))
    rt_domain_error (cx, "x", x[0], "in int range");
  return (int) x[0];
}

static void
k_to_int (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  rt_map_int (cx, 1, a, out, f_to_int);
}

static int
f_choose (RtCtx *cx, const double *x)
{
  int N = (int) x[0], k = (int) x[1];
  if (N < 0)
    rt_domain_error (cx, "first argument", N, "nonnegative");
  if (k < 0)
    rt_domain_error (cx, "second argument", k, "nonnegative");
  if (k > N)
    return 0;
  double r = round (exp (tilde_lchoose (N, k)));
  if (r > G_MAXINT)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "choose: integer overflow");
  return (int) r;
}

static void
k_choose (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  rt_map_int (cx, 2, a, out, f_choose);
}

/* min and max: ints stay ints, reals keep the chosen variable */
static void
minmax (RtCtx *cx, int n, const TildeValue *a, TildeValue *out, gboolean is_max)
{
  if (n == 2)
    {
      if (a[0].kind == TILDE_VALUE_INT && a[1].kind == TILDE_VALUE_INT)
        *out = tilde_value_int (is_max ? MAX (a[0].u.i, a[1].u.i) : MIN (a[0].u.i, a[1].u.i));
      else
        rt_map (cx, 2, a, out, is_max ? f_fmax : f_fmin);
      return;
    }
  const TildeValue *v = &a[0];
  gint32 len = tilde_value_flat_size (v);
  if (v->kind == TILDE_VALUE_ARRAY && v->elem == TILDE_VALUE_INT)
    {
      if (len == 0)
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: size of x is 0, but must be greater than 0",
                  cx->fn_name);
      int m = v->u.iv[0];
      for (gint32 i = 1; i < len; i++)
        m = is_max ? MAX (m, v->u.iv[i]) : MIN (m, v->u.iv[i]);
      *out = tilde_value_int (m);
      return;
    }
  if (len == 0)
    {
      *out = tilde_value_real (is_max ? -INFINITY : INFINITY);
      return;
    }
  const double *x = rt_values (cx, v);
  gint32 best = 0;
  for (gint32 i = 1; i < len; i++)
    if (is_max ? x[i] > x[best] : x[i] < x[best])
      best = i;
  if (v->ad)
    *out = rt_ad_scalar (tilde_value_var (v, best));
  else
    *out = tilde_value_real (x[best]);
}

static void k_max (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { minmax (cx, n, a, out, TRUE); }
static void k_min (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { minmax (cx, n, a, out, FALSE); }

/* ---- reductions ---- */

/* All the scalars of a value (nested arrays flattened) as one flat
 * operand: values and, when ad, ids. */
typedef struct {
  gint32 n;
  const double *x;
  gboolean ad;
  gint32 start;
  const gint32 *idx;
} Flat;

static void
flatten_into (RtCtx *cx, const TildeValue *v, double *x, gint32 *ids, gint32 *k)
{
  if (tilde_value_is_flat (v) || tilde_value_kind_is_scalar ((TildeValueKind) v->kind))
    {
      gint32 n = tilde_value_flat_size (v);
      const double *vx = rt_values (cx, v);
      for (gint32 i = 0; i < n; i++, (*k)++)
        {
          x[*k] = vx[i];
          if (ids)
            ids[*k] = v->ad ? tilde_value_var (v, i) : ad_constant (cx->tape, vx[i]);
        }
      return;
    }
  for (gint32 i = 0; i < v->rows; i++)
    flatten_into (cx, &v->u.elems[i], x, ids, k);
}

static Flat
flatten (RtCtx *cx, const TildeValue *v)
{
  Flat f = { 0 };
  if (tilde_value_is_flat (v) || tilde_value_kind_is_scalar ((TildeValueKind) v->kind))
    {
      f.n = tilde_value_flat_size (v);
      f.x = rt_values (cx, v);
      f.ad = v->ad;
      f.start = v->start;
      f.idx = tilde_value_kind_is_scalar ((TildeValueKind) v->kind) ? NULL : v->idx;
      return f;
    }
  gsize total = tilde_value_count_scalars (v);
  double *x = rt_alloc_d (cx, total);
  gint32 *ids = NULL;
  f.ad = rt_is_ad (v);
  if (f.ad)
    ids = tilde_arena_alloc (cx->arena, sizeof (gint32) * MAX (total, 1));
  gint32 k = 0;
  flatten_into (cx, v, x, ids, &k);
  f.n = k;
  f.x = x;
  f.idx = ids;
  return f;
}

static AdOperand
flat_operand (const Flat *f, const double *partial)
{
  AdOperand op = { .start = f->start, .idx = f->idx, .n = f->n, .partial = partial };
  return op;
}

static void
k_sum (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  if (a[0].kind == TILDE_VALUE_ARRAY && a[0].elem == TILDE_VALUE_INT)
    {
      gint64 s = 0;
      for (gint32 i = 0; i < a[0].rows; i++)
        s += a[0].u.iv[i];
      *out = tilde_value_int ((int) s);
      return;
    }
  if (a[0].kind == TILDE_VALUE_INT || a[0].kind == TILDE_VALUE_REAL)
    {
      *out = a[0];
      return;
    }
  Flat f = flatten (cx, &a[0]);
  double s = 0;
  for (gint32 i = 0; i < f.n; i++)
    s += f.x[i];
  if (!f.ad)
    {
      *out = tilde_value_real (s);
      return;
    }
  double *ones = rt_alloc_d (cx, (gsize) f.n);
  for (gint32 i = 0; i < f.n; i++)
    ones[i] = 1;
  AdOperand op = flat_operand (&f, ones);
  *out = rt_reduce (cx, s, 1, &op);
}

void
rt_sum (RtCtx *cx, const TildeValue *v, TildeValue *out)
{
  k_sum (cx, 1, v, out);
}

static void
k_prod (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  if (a[0].kind == TILDE_VALUE_ARRAY && a[0].elem == TILDE_VALUE_INT)
    {
      gint64 s = 1;
      for (gint32 i = 0; i < a[0].rows; i++)
        s *= a[0].u.iv[i];
      *out = tilde_value_int ((int) s);
      return;
    }
  Flat f = flatten (cx, &a[0]);
  double s = 1;
  for (gint32 i = 0; i < f.n; i++)
    s *= f.x[i];
  if (!f.ad)
    {
      *out = tilde_value_real (s);
      return;
    }
  double *p = rt_alloc_d (cx, (gsize) f.n);
  for (gint32 i = 0; i < f.n; i++)
    {
      double q = 1;
      for (gint32 j = 0; j < f.n; j++)
        if (j != i)
          q *= f.x[j];
      p[i] = q;
    }
  AdOperand op = flat_operand (&f, p);
  *out = rt_reduce (cx, s, 1, &op);
}

static void
k_mean (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  Flat f = flatten (cx, &a[0]);
  if (f.n == 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "mean: size of x is 0, but must be greater than 0");
  double s = 0;
  for (gint32 i = 0; i < f.n; i++)
    s += f.x[i];
  s /= f.n;
  if (!f.ad)
    {
      *out = tilde_value_real (s);
      return;
    }
  double *p = rt_alloc_d (cx, (gsize) f.n);
  for (gint32 i = 0; i < f.n; i++)
    p[i] = 1.0 / f.n;
  AdOperand op = flat_operand (&f, p);
  *out = rt_reduce (cx, s, 1, &op);
}

static void
variance (RtCtx *cx, const TildeValue *a, TildeValue *out, gboolean sd)
{
  Flat f = flatten (cx, a);
  if (f.n < 2)
    {
      if (f.n == 0)
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: size of x is 0, but must be greater than 0",
                  cx->fn_name);
      *out = tilde_value_real (0);
      return;
    }
  double m = 0, ss = 0;
  for (gint32 i = 0; i < f.n; i++)
    m += f.x[i];
  m /= f.n;
  for (gint32 i = 0; i < f.n; i++)
    ss += (f.x[i] - m) * (f.x[i] - m);
  double var = ss / (f.n - 1);
  double v = sd ? sqrt (var) : var;
  if (!f.ad)
    {
      *out = tilde_value_real (v);
      return;
    }
  double *p = rt_alloc_d (cx, (gsize) f.n);
  for (gint32 i = 0; i < f.n; i++)
    {
      p[i] = 2 * (f.x[i] - m) / (f.n - 1);
      if (sd)
        p[i] /= 2 * v;
    }
  AdOperand op = flat_operand (&f, p);
  *out = rt_reduce (cx, v, 1, &op);
}

static void k_variance (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { variance (cx, &a[0], out, FALSE); }
static void k_sd (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { variance (cx, &a[0], out, TRUE); }

static void
k_log_sum_exp (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  Flat f = flatten (cx, &a[0]);
  if (f.n == 0)
    {
      *out = tilde_value_real (-INFINITY);
      return;
    }
  double m = -INFINITY;
  for (gint32 i = 0; i < f.n; i++)
    m = fmax (m, f.x[i]);
  double s = 0;
  if (isinf (m))
    {
      *out = tilde_value_real (m);
      if (!f.ad)
        return;
    }
  for (gint32 i = 0; i < f.n; i++)
    s += exp (f.x[i] - m);
  double v = isinf (m) ? m : m + log (s);
  if (!f.ad)
    {
      *out = tilde_value_real (v);
      return;
    }
  double *p = rt_alloc_d (cx, (gsize) f.n);
  for (gint32 i = 0; i < f.n; i++)
    p[i] = exp (f.x[i] - v);
  AdOperand op = flat_operand (&f, p);
  *out = rt_reduce (cx, v, 1, &op);
}

/* ---- sizes ---- */

static void k_size (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  *out = tilde_value_int (tilde_value_kind_is_scalar ((TildeValueKind) a[0].kind) ? 1
                          : a[0].kind == TILDE_VALUE_ARRAY ? a[0].rows : a[0].rows * a[0].cols);
}
static void k_rows (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { *out = tilde_value_int (a[0].rows); }
static void k_cols (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { *out = tilde_value_int (a[0].cols); }
static void k_num_elements (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  *out = tilde_value_int ((int) tilde_value_count_scalars (&a[0])
                          / (a[0].kind == TILDE_VALUE_COMPLEX ? 2 : 1));
}

/* ---- building containers ---- */

/* A flat container being filled element by element, data or ad. */
typedef struct {
  TildeValue v;
  double    *d;
} Builder;

static Builder
builder_new (RtCtx *cx, TildeValueKind kind, gint32 rows, gint32 cols, gboolean ad)
{
  Builder b = { 0 };
  b.v.kind = (guint8) kind;
  b.v.rows = rows;
  b.v.cols = cols;
  if (kind == TILDE_VALUE_ARRAY)
    b.v.elem = TILDE_VALUE_REAL;
  gint32 n = rows * cols;
  if (ad)
    {
      b.v.ad = 1;
      b.v.idx = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (n, 1));
    }
  else
    b.v.u.d = b.d = rt_alloc_d (cx, (gsize) n);
  return b;
}

/* element k of the result = element i of flat value src */
static void
builder_put (RtCtx *cx, Builder *b, gint32 k, const TildeValue *src, const double *srcx, gint32 i)
{
  if (!b->v.ad)
    b->d[k] = srcx[i];
  else if (src->ad)
    b->v.idx[k] = tilde_value_var (src, i);
  else
    b->v.idx[k] = ad_constant (cx->tape, srcx[i]);
}

static void
rep_scalar (RtCtx *cx, const TildeValue *x, TildeValueKind kind, gint32 rows, gint32 cols,
            TildeValue *out)
{
  if (rows < 0 || cols < 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: size must be nonnegative", cx->fn_name);
  if (x->kind == TILDE_VALUE_INT && kind == TILDE_VALUE_ARRAY)
    {
      TildeValue r = { .kind = TILDE_VALUE_ARRAY, .elem = TILDE_VALUE_INT, .rows = rows, .cols = 1 };
      r.u.iv = tilde_arena_alloc (cx->arena, sizeof (int) * (gsize) MAX (rows, 1));
      for (gint32 i = 0; i < rows; i++)
        r.u.iv[i] = x->u.i;
      *out = r;
      return;
    }
  const double *xv = rt_values (cx, x);
  Builder b = builder_new (cx, kind, rows, cols, x->ad);
  for (gint32 k = 0; k < rows * cols; k++)
    builder_put (cx, &b, k, x, xv, 0);
  *out = b.v;
}

static void
k_rep_vector (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  rep_scalar (cx, &a[0], TILDE_VALUE_VECTOR, rt_int (cx, &a[1]), 1, out);
}

static void
k_rep_row_vector (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  rep_scalar (cx, &a[0], TILDE_VALUE_ROW_VECTOR, 1, rt_int (cx, &a[1]), out);
}

static void
k_rep_matrix (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  if (n == 3)
    {
      rep_scalar (cx, &a[0], TILDE_VALUE_MATRIX, rt_int (cx, &a[1]), rt_int (cx, &a[2]), out);
      return;
    }
  /* rep_matrix (vector v, n): n columns v; (row_vector rv, m): m rows rv */
  const TildeValue *v = &a[0];
  gint32 m = rt_int (cx, &a[1]);
  gint32 len = tilde_value_flat_size (v);
  gboolean col = v->kind == TILDE_VALUE_VECTOR;
  gint32 rows = col ? len : m, cols = col ? m : len;
  const double *xv = rt_values (cx, v);
  Builder b = builder_new (cx, TILDE_VALUE_MATRIX, rows, cols, v->ad);
  for (gint32 j = 0; j < cols; j++)
    for (gint32 i = 0; i < rows; i++)
      builder_put (cx, &b, i + j * rows, v, xv, col ? i : j);
  *out = b.v;
}

static void
k_rep_array (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  const TildeValue *x = &a[0];
  if (n > 2)
    {
      /* rep_array (x, m, n[, k]): an array of arrays */
      TildeValue inner;
      TildeValue sub[3] = { a[0], a[2], n > 3 ? a[3] : a[0] };
      k_rep_array (cx, n - 1, sub, &inner);
      gint32 m = rt_int (cx, &a[1]);
      TildeValue r = { .kind = TILDE_VALUE_ARRAY, .elem = TILDE_VALUE_ARRAY, .rows = m, .cols = 1 };
      r.u.elems = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * (gsize) MAX (m, 1));
      for (gint32 i = 0; i < m; i++)
        r.u.elems[i] = tilde_value_copy (cx->arena, &inner);
      *out = r;
      return;
    }
  gint32 m = rt_int (cx, &a[1]);
  if (tilde_value_kind_is_scalar ((TildeValueKind) x->kind))
    {
      rep_scalar (cx, x, TILDE_VALUE_ARRAY, m, 1, out);
      return;
    }
  TildeValue r = { .kind = TILDE_VALUE_ARRAY, .elem = x->kind, .rows = m, .cols = 1 };
  r.u.elems = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * (gsize) MAX (m, 1));
  for (gint32 i = 0; i < m; i++)
    r.u.elems[i] = tilde_value_copy (cx->arena, x);
  *out = r;
}

static void
reshape_flat (RtCtx *cx, const TildeValue *v, TildeValueKind kind, gint32 rows, gint32 cols,
              TildeValue *out)
{
  if (tilde_value_is_flat (v) || tilde_value_kind_is_scalar ((TildeValueKind) v->kind))
    {
      gint32 n = tilde_value_flat_size (v);
      rt_check_size (cx, "reshape", n, rows * cols);
      if (v->ad)
        {
          TildeValue r = *v;
          r.kind = (guint8) kind;
          r.rows = rows;
          r.cols = cols;
          r.elem = TILDE_VALUE_REAL;
          if (tilde_value_kind_is_scalar ((TildeValueKind) v->kind))
            r.idx = NULL;
          *out = r;
          return;
        }
      const double *x = rt_values (cx, v);
      Builder b = builder_new (cx, kind, rows, cols, FALSE);
      memcpy (b.d, x, sizeof (double) * (gsize) n);
      *out = b.v;
      return;
    }
  /* arrays of arrays: row-major flattening of the array dimensions */
  Flat f = flatten (cx, v);
  rt_check_size (cx, "reshape", f.n, rows * cols);
  Builder b = builder_new (cx, kind, rows, cols, f.ad);
  for (gint32 i = 0; i < f.n; i++)
    {
      if (f.ad)
        b.v.idx[i] = f.idx ? f.idx[i] : f.start + i;
      else
        b.d[i] = f.x[i];
    }
  *out = b.v;
}

static void
k_to_vector (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  gint32 len = (gint32) tilde_value_count_scalars (&a[0]);
  if (n == 1 && a[0].kind == TILDE_VALUE_ARRAY && !tilde_value_is_flat (&a[0]))
    rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "to_vector of a nested array is not supported");
  reshape_flat (cx, &a[0], TILDE_VALUE_VECTOR, len, 1, out);
}

static void
k_to_row_vector (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  gint32 len = (gint32) tilde_value_count_scalars (&a[0]);
  reshape_flat (cx, &a[0], TILDE_VALUE_ROW_VECTOR, 1, len, out);
}

static void
k_to_array_1d (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  if (a[0].kind == TILDE_VALUE_ARRAY && a[0].elem == TILDE_VALUE_INT)
    {
      *out = a[0];
      return;
    }
  if (tilde_value_kind_is_eigen ((TildeValueKind) a[0].kind) || tilde_value_is_flat (&a[0]))
    {
      reshape_flat (cx, &a[0], TILDE_VALUE_ARRAY, tilde_value_flat_size (&a[0]), 1, out);
      return;
    }
  gint32 len = (gint32) tilde_value_count_scalars (&a[0]);
  reshape_flat (cx, &a[0], TILDE_VALUE_ARRAY, len, 1, out);
}

static void
k_to_matrix (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  const TildeValue *v = &a[0];
  if (n >= 3)
    {
      gint32 m = rt_int (cx, &a[1]), c = rt_int (cx, &a[2]);
      if (n == 4 && rt_int (cx, &a[3]) == 0)
        {
          /* row-major fill */
          TildeValue tmp;
          reshape_flat (cx, v, TILDE_VALUE_MATRIX, c, m, &tmp);
          rt_transpose (cx, &tmp, out);
          return;
        }
      reshape_flat (cx, v, TILDE_VALUE_MATRIX, m, c, out);
      return;
    }
  if (tilde_value_kind_is_eigen ((TildeValueKind) v->kind))
    {
      reshape_flat (cx, v, TILDE_VALUE_MATRIX, v->rows, v->cols, out);
      return;
    }
  /* a two-dimensional array: rows are the outer elements */
  gint32 rows = v->rows, cols = rows > 0 ? v->u.elems[0].rows : 0;
  TildeValue tmp;
  reshape_flat (cx, v, TILDE_VALUE_MATRIX, cols, rows, &tmp);
  rt_transpose (cx, &tmp, out);
}

/* append_row (a, b) / append_col (a, b) for vectors, row vectors, matrices
 * and scalars */
static void
append (RtCtx *cx, const TildeValue *a, const TildeValue *b, gboolean rows_dir, TildeValue *out)
{
  gboolean as = tilde_value_kind_is_scalar ((TildeValueKind) a->kind);
  gboolean bs = tilde_value_kind_is_scalar ((TildeValueKind) b->kind);
  gint32 ar = as ? 1 : a->rows, ac = as ? 1 : a->cols, br = bs ? 1 : b->rows, bc = bs ? 1 : b->cols;
  gint32 rows, cols;
  if (rows_dir)
    {
      rt_check_size (cx, "append_row columns", ac, bc);
      rows = ar + br;
      cols = ac;
    }
  else
    {
      rt_check_size (cx, "append_col rows", ar, br);
      rows = ar;
      cols = ac + bc;
    }
  TildeValueKind kind = rows_dir ? (cols == 1 && (a->kind == TILDE_VALUE_VECTOR || b->kind == TILDE_VALUE_VECTOR || (as && bs)) ? TILDE_VALUE_VECTOR : TILDE_VALUE_MATRIX)
    : (rows == 1 && (a->kind == TILDE_VALUE_ROW_VECTOR || b->kind == TILDE_VALUE_ROW_VECTOR || (as && bs)) ? TILDE_VALUE_ROW_VECTOR : TILDE_VALUE_MATRIX);
  const double *ax = rt_values (cx, a), *bx = rt_values (cx, b);
  Builder res = builder_new (cx, kind, rows, cols, a->ad || b->ad);
  for (gint32 j = 0; j < cols; j++)
    for (gint32 i = 0; i < rows; i++)
      {
        gint32 k = i + j * rows;
        if (rows_dir ? i < ar : j < ac)
          builder_put (cx, &res, k, a, ax, i + j * ar);
        else if (rows_dir)
          builder_put (cx, &res, k, b, bx, (i - ar) + j * br);
        else
          builder_put (cx, &res, k, b, bx, i + (j - ac) * br);
      }
  *out = res.v;
}

static void k_append_row (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { append (cx, &a[0], &a[1], TRUE, out); }
static void k_append_col (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { append (cx, &a[0], &a[1], FALSE, out); }

/* a contiguous slice [from, from + len) of a vector, row vector or flat array */
static void
slice (RtCtx *cx, const TildeValue *v, gint32 from, gint32 len, TildeValue *out)
{
  gint32 n = tilde_value_flat_size (v);
  if (from < 0 || len < 0 || from + len > n)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: index out of range (%d elements from %d of %d)",
              cx->fn_name, len, from + 1, n);
  if (!tilde_value_is_flat (v))
    {
      TildeValue r = *v;
      r.rows = len;
      r.u.elems = v->u.elems + from;
      *out = r;
      return;
    }
  TildeValue r = *v;
  if (v->kind == TILDE_VALUE_ROW_VECTOR)
    r.cols = len;
  else
    r.rows = len;
  if (v->ad)
    {
      if (v->idx)
        r.idx = v->idx + from;
      else
        r.start = v->start + from;
    }
  else if (v->kind == TILDE_VALUE_ARRAY && v->elem == TILDE_VALUE_INT)
    r.u.iv = v->u.iv + from;
  else
    r.u.d = v->u.d + from;
  *out = r;
}

static gint32
length_of (const TildeValue *v)
{
  return v->kind == TILDE_VALUE_ARRAY ? v->rows : tilde_value_flat_size (v);
}

static void
k_head (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  slice (cx, &a[0], 0, rt_int (cx, &a[1]), out);
}

static void
k_tail (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  gint32 len = rt_int (cx, &a[1]);
  slice (cx, &a[0], length_of (&a[0]) - len, len, out);
}

static void
k_segment (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  slice (cx, &a[0], rt_int (cx, &a[1]) - 1, rt_int (cx, &a[2]), out);
}

static void
k_reverse (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  const TildeValue *v = &a[0];
  gint32 len = length_of (v);
  if (!tilde_value_is_flat (v))
    {
      TildeValue r = *v;
      r.u.elems = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * (gsize) MAX (len, 1));
      for (gint32 i = 0; i < len; i++)
        r.u.elems[i] = v->u.elems[len - 1 - i];
      *out = r;
      return;
    }
  if (v->kind == TILDE_VALUE_ARRAY && v->elem == TILDE_VALUE_INT)
    {
      TildeValue r = *v;
      r.u.iv = tilde_arena_alloc (cx->arena, sizeof (int) * (gsize) MAX (len, 1));
      for (gint32 i = 0; i < len; i++)
        r.u.iv[i] = v->u.iv[len - 1 - i];
      *out = r;
      return;
    }
  const double *x = rt_values (cx, v);
  Builder b = builder_new (cx, (TildeValueKind) v->kind, v->rows, v->cols, v->ad);
  for (gint32 i = 0; i < len; i++)
    builder_put (cx, &b, i, v, x, len - 1 - i);
  *out = b.v;
}

static void
k_linspaced_vector (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  gint32 k = rt_int (cx, &a[0]);
  double lo = rt_scalar (cx, &a[1]), hi = rt_scalar (cx, &a[2]);
  TildeValue r = rt_new_data (cx, TILDE_VALUE_VECTOR, k, 1);
  for (gint32 i = 0; i < k; i++)
    r.u.d[i] = k == 1 ? hi : lo + (hi - lo) * i / (k - 1);
  *out = r;
}

static void
constant_vector (RtCtx *cx, TildeValueKind kind, gint32 rows, gint32 cols, double c, TildeValue *out)
{
  TildeValue r = rt_new_data (cx, kind, rows, cols);
  for (gint32 i = 0; i < rows * cols; i++)
    r.u.d[i] = c;
  *out = r;
}

static void k_zeros_vector (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { constant_vector (cx, TILDE_VALUE_VECTOR, rt_int (cx, &a[0]), 1, 0, out); }
static void k_ones_vector (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { constant_vector (cx, TILDE_VALUE_VECTOR, rt_int (cx, &a[0]), 1, 1, out); }
static void k_zeros_row_vector (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { constant_vector (cx, TILDE_VALUE_ROW_VECTOR, 1, rt_int (cx, &a[0]), 0, out); }
static void k_ones_row_vector (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { constant_vector (cx, TILDE_VALUE_ROW_VECTOR, 1, rt_int (cx, &a[0]), 1, out); }

static void
k_identity_matrix (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  gint32 k = rt_int (cx, &a[0]);
  constant_vector (cx, TILDE_VALUE_MATRIX, k, k, 0, out);
  for (gint32 i = 0; i < k; i++)
    out->u.d[i + i * k] = 1;
}

/* ---- cumulative sums and softmax ---- */

typedef struct {
  gint32 n, out;
  gint32 start;
  const gint32 *idx;
  const double *y;    /* softmax: the output values */
  int kind;           /* 0 cumulative sum, 1 softmax, 2 log_softmax */
} Seq;

static void
seq_backward (AdTape *t, const void *p)
{
  const Seq *s = p;
  const double *g = t->adj + s->out;
  double *adj = t->adj;
  gint32 n = s->n;
  if (s->kind == 0)
    {
      double acc = 0;
      for (gint32 i = n - 1; i >= 0; i--)
        {
          acc += g[i];
          adj[s->idx ? s->idx[i] : s->start + i] += acc;
        }
    }
  else if (s->kind == 1)
    {
      double dot = 0;
      for (gint32 i = 0; i < n; i++)
        dot += g[i] * s->y[i];
      for (gint32 i = 0; i < n; i++)
        adj[s->idx ? s->idx[i] : s->start + i] += s->y[i] * (g[i] - dot);
    }
  else
    {
      double gs = 0;
      for (gint32 i = 0; i < n; i++)
        gs += g[i];
      for (gint32 i = 0; i < n; i++)
        adj[s->idx ? s->idx[i] : s->start + i] += g[i] - exp (s->y[i]) * gs;
    }
}

static void
sequence (RtCtx *cx, const TildeValue *v, int kind, TildeValue *out)
{
  gint32 n = tilde_value_flat_size (v);
  if (v->kind == TILDE_VALUE_ARRAY && v->elem == TILDE_VALUE_INT && kind == 0)
    {
      TildeValue r = *v;
      r.u.iv = tilde_arena_alloc (cx->arena, sizeof (int) * (gsize) MAX (n, 1));
      int acc = 0;
      for (gint32 i = 0; i < n; i++)
        r.u.iv[i] = acc += v->u.iv[i];
      *out = r;
      return;
    }
  if (kind != 0 && n == 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: size of v is 0, but must be greater than 0",
              cx->fn_name);
  const double *x = rt_values (cx, v);
  TildeValueKind k = (TildeValueKind) v->kind;
  TildeValue r = v->ad ? rt_new_ad (cx, k, v->rows, v->cols) : rt_new_data (cx, k, v->rows, v->cols);
  double *y = v->ad ? cx->tape->val + r.start : r.u.d;
  if (kind == 0)
    {
      double acc = 0;
      for (gint32 i = 0; i < n; i++)
        y[i] = acc += x[i];
    }
  else
    {
      double m = -INFINITY, s = 0;
      for (gint32 i = 0; i < n; i++)
        m = fmax (m, x[i]);
      for (gint32 i = 0; i < n; i++)
        s += exp (x[i] - m);
      double lse = m + log (s);
      for (gint32 i = 0; i < n; i++)
        y[i] = kind == 1 ? exp (x[i] - lse) : x[i] - lse;
    }
  if (v->ad)
    {
      Seq *s = tilde_arena_alloc (cx->tape->arena, sizeof *s);
      s->n = n;
      s->out = r.start;
      s->start = v->start;
      s->idx = v->idx;
      s->y = y;
      s->kind = kind;
      ad_push (cx->tape, seq_backward, s);
    }
  *out = r;
}

static void k_cumulative_sum (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { sequence (cx, &a[0], 0, out); }
static void k_softmax (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { sequence (cx, &a[0], 1, out); }
static void k_log_softmax (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { sequence (cx, &a[0], 2, out); }

/* ---- constants ---- */

static void k_pi (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { *out = tilde_value_real (M_PI); }
static void k_e (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { *out = tilde_value_real (M_E); }
static void k_sqrt2 (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { *out = tilde_value_real (M_SQRT2); }
static void k_log2c (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { *out = tilde_value_real (M_LN2); }
static void k_log10c (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { *out = tilde_value_real (M_LN10); }
static void k_inf (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { *out = tilde_value_real (INFINITY); }
static void k_neg_inf (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { *out = tilde_value_real (-INFINITY); }
static void k_machine_precision (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { *out = tilde_value_real (DBL_EPSILON); }
static void k_not_a_number (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { *out = tilde_value_real (NAN); }

#define E1(name) { #name, k_##name, 1, 1 }
#define E2(name) { #name, k_##name, 2, 2 }

const RtBuiltin rt_builtins_funs[] = {
  E1 (exp), E1 (exp2), E1 (log), E1 (log2), E1 (log10), E1 (log1p), E1 (expm1), E1 (log1m),
  E1 (sqrt), E1 (cbrt), E1 (square), E1 (inv), E1 (inv_sqrt), E1 (inv_square), E1 (fabs),
  E1 (lgamma), E1 (digamma), E1 (tgamma), E1 (inv_logit), E1 (logit),
  E1 (log_inv_logit), E1 (log1m_inv_logit), E1 (log1p_exp), E1 (log1m_exp), E1 (inv_cloglog),
  E1 (Phi), E1 (inv_Phi), E1 (Phi_approx), E1 (erf), E1 (erfc), E1 (sin), E1 (cos), E1 (tan),
  E1 (asin), E1 (acos), E1 (atan), E1 (sinh), E1 (cosh), E1 (tanh), E1 (asinh), E1 (acosh),
  E1 (atanh), E1 (floor), E1 (ceil), E1 (round), E1 (trunc), E1 (step),
  E2 (fmax), E2 (fmin), E2 (fdim), E2 (hypot), E2 (atan2), E2 (fmod), E2 (lbeta), E2 (lchoose),
  E2 (log_diff_exp), E2 (choose),
  { "fma", k_fma, 3, 3 },
  { "log_mix", k_log_mix, 3, 3 },
  { "abs", k_abs, 1, 1 },
  { "log_sum_exp", k_log_sum_exp_any, 1, 2 },
  { "int_step", k_int_step, 1, 1 },
  { "is_inf", k_is_inf, 1, 1 },
  { "is_nan", k_is_nan, 1, 1 },
  { "to_int", k_to_int, 1, 1 },
  { "max", k_max, 1, 2 },
  { "min", k_min, 1, 2 },
  E1 (sum), E1 (prod), E1 (mean), E1 (variance), E1 (sd),
  E1 (size), E1 (rows), E1 (cols), E1 (num_elements),
  E2 (rep_vector), E2 (rep_row_vector),
  { "rep_matrix", k_rep_matrix, 2, 3 },
  { "rep_array", k_rep_array, 2, 4 },
  E1 (to_vector), E1 (to_row_vector), E1 (to_array_1d),
  { "to_matrix", k_to_matrix, 1, 4 },
  E2 (append_row), E2 (append_col), E2 (head), E2 (tail),
  { "segment", k_segment, 3, 3 },
  E1 (reverse),
  { "linspaced_vector", k_linspaced_vector, 3, 3 },
  E1 (zeros_vector), E1 (ones_vector), E1 (zeros_row_vector), E1 (ones_row_vector),
  E1 (identity_matrix),
  E1 (cumulative_sum), E1 (softmax), E1 (log_softmax),
  { "pi", k_pi, 0, 0 },
  { "e", k_e, 0, 0 },
  { "sqrt2", k_sqrt2, 0, 0 },
  { "log2", k_log2c, 0, 0 },
  { "log10", k_log10c, 0, 0 },
  { "positive_infinity", k_inf, 0, 0 },
  { "negative_infinity", k_neg_inf, 0, 0 },
  { "not_a_number", k_not_a_number, 0, 0 },
  { "machine_precision", k_machine_precision, 0, 0 },
  { NULL, NULL, 0, 0 },
};
