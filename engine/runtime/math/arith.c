/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Stan's operators: arithmetic, comparison, logical, transposition. */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/runtime-private.h"
#include "runtime/math/linalg.h"

#include <math.h>

static double f_add (const double *x, double *d) { d[0] = 1; d[1] = 1; return x[0] + x[1]; }
static double f_sub (const double *x, double *d) { d[0] = 1; d[1] = -1; return x[0] - x[1]; }
static double f_mul (const double *x, double *d) { d[0] = x[1]; d[1] = x[0]; return x[0] * x[1]; }
static double f_div (const double *x, double *d)
{
  d[0] = 1 / x[1];
  d[1] = -x[0] / (x[1] * x[1]);
  return x[0] / x[1];
}
static double f_neg (const double *x, double *d) { d[0] = -1; return -x[0]; }
static double f_pow (const double *x, double *d)
{
  double v = pow (x[0], x[1]);
  d[0] = x[1] == 0 ? 0 : x[1] * pow (x[0], x[1] - 1);
  d[1] = x[0] == 0 ? 0 : v * log (x[0]);
  return v;
}


/* ---- fast elementwise +, -, *, / ----
 * Sums need no stored partials and products by data point at the data, so
 * the common `a + b * x` records two light nodes and allocates no arrays of
 * partials. */

static gboolean is_scalar (const TildeValue *v);
static const double ONE = 1.0, MINUS_ONE = -1.0;

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV };

static double
scalar_op (int op, double a, double b, double *da, double *db)
{
  switch (op)
    {
    case OP_ADD: *da = 1; *db = 1; return a + b;
    case OP_SUB: *da = 1; *db = -1; return a - b;
    case OP_MUL: *da = b; *db = a; return a * b;
    default: *da = 1 / b; *db = -a / (b * b); return a / b;
    }
}

void
rt_arith_scalar (RtCtx *cx, int op, const TildeValue *a, const TildeValue *b, TildeValue *out)
{
  double x = a->ad ? cx->tape->val[a->start] : a->kind == TILDE_VALUE_INT ? a->u.i : a->u.r;
  double y = b->ad ? cx->tape->val[b->start] : b->kind == TILDE_VALUE_INT ? b->u.i : b->u.r;
  double da, db;
  double v = scalar_op (op, x, y, &da, &db);
  gint32 id;
  if (a->ad && b->ad)
    id = ad_binary (cx->tape, v, a->start, da, b->start, db);
  else if (a->ad)
    id = ad_unary (cx->tape, v, a->start, da);
  else if (b->ad)
    id = ad_unary (cx->tape, v, b->start, db);
  else
    {
      tilde_value_set_real (out, v);
      return;
    }
  if (id < 0)
    rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "the autodiff tape is full");
  tilde_value_set_var (out, id);
}

static void
arith (RtCtx *cx, int op, const TildeValue *a, const TildeValue *b, TildeValue *out)
{
  gboolean sa = is_scalar (a), sb = is_scalar (b);
  if (sa && sb)
    {
      rt_arith_scalar (cx, op, a, b, out);
      return;
    }
  const TildeValue *shape = sa ? b : a;
  if (!tilde_value_is_flat (shape) || (!sa && !tilde_value_is_flat (a))
      || (!sb && !tilde_value_is_flat (b)))
    {
      static const RtScalarFn fns[] = { f_add, f_sub, f_mul, f_div };
      TildeValue args[2] = { *a, *b };
      rt_map (cx, 2, args, out, fns[op]);
      return;
    }
  if (!sa && !sb)
    {
      rt_check_size (cx, "elementwise arguments", a->rows, b->rows);
      rt_check_size (cx, "elementwise arguments", a->cols, b->cols);
    }
  gint32 n = tilde_value_flat_size (shape);
  gboolean ad = a->ad || b->ad;
  /* products keep the other operand's values as partials */
  gboolean keep = ad && op == OP_MUL;
  const double *x = keep ? rt_stable_values (cx, a) : rt_values (cx, a);
  const double *y = keep ? rt_stable_values (cx, b) : rt_values (cx, b);
  TildeValueKind kind = (TildeValueKind) shape->kind;
  TildeValue r = ad ? rt_new_ad (cx, kind, shape->rows, shape->cols)
    : rt_new_data (cx, kind, shape->rows, shape->cols);
  double *o = ad ? cx->tape->val + r.start : r.u.d;
  double xs = x[0], ys = y[0];
  switch (op)
    {
    case OP_ADD:
      if (sa) for (gint32 i = 0; i < n; i++) o[i] = xs + y[i];
      else if (sb) for (gint32 i = 0; i < n; i++) o[i] = x[i] + ys;
      else for (gint32 i = 0; i < n; i++) o[i] = x[i] + y[i];
      break;
    case OP_SUB:
      if (sa) for (gint32 i = 0; i < n; i++) o[i] = xs - y[i];
      else if (sb) for (gint32 i = 0; i < n; i++) o[i] = x[i] - ys;
      else for (gint32 i = 0; i < n; i++) o[i] = x[i] - y[i];
      break;
    case OP_MUL:
      if (sa) for (gint32 i = 0; i < n; i++) o[i] = xs * y[i];
      else if (sb) for (gint32 i = 0; i < n; i++) o[i] = x[i] * ys;
      else for (gint32 i = 0; i < n; i++) o[i] = x[i] * y[i];
      break;
    default:
      if (sa) for (gint32 i = 0; i < n; i++) o[i] = xs / y[i];
      else if (sb) for (gint32 i = 0; i < n; i++) o[i] = x[i] / ys;
      else for (gint32 i = 0; i < n; i++) o[i] = x[i] / y[i];
      break;
    }
  if (ad)
    {
      AdOperand ops[2];
      guint n_ops = 0;
      if (a->ad)
        {
          AdOperand oa = rt_operand (a, NULL);
          switch (op)
            {
            case OP_ADD: case OP_SUB: oa.partial = &ONE; oa.same = TRUE; break;
            case OP_MUL: oa.partial = y; oa.same = sb; break;
            default:
              {
                double *p = rt_alloc_d (cx, sb ? 1 : (gsize) n);
                if (sb)
                  p[0] = 1 / ys;
                else
                  for (gint32 i = 0; i < n; i++)
                    p[i] = 1 / y[i];
                oa.partial = p;
                oa.same = sb;
              }
            }
          ops[n_ops++] = oa;
        }
      if (b->ad)
        {
          AdOperand ob = rt_operand (b, NULL);
          switch (op)
            {
            case OP_ADD: ob.partial = &ONE; ob.same = TRUE; break;
            case OP_SUB: ob.partial = &MINUS_ONE; ob.same = TRUE; break;
            case OP_MUL: ob.partial = x; ob.same = sa; break;
            default:
              {
                double *p = rt_alloc_d (cx, (gsize) n);
                for (gint32 i = 0; i < n; i++)
                  p[i] = -o[i] / y[sb ? 0 : i];
                ob.partial = p;
              }
            }
          ops[n_ops++] = ob;
        }
      ad_elementwise (cx->tape, r.start, n, n_ops, ops);
    }
  *out = r;
}

static gboolean
all_int_scalars (int nargs, const TildeValue *args)
{
  for (int k = 0; k < nargs; k++)
    if (args[k].kind != TILDE_VALUE_INT)
      return FALSE;
  return TRUE;
}

static gboolean
is_scalar (const TildeValue *v)
{
  return tilde_value_kind_is_scalar ((TildeValueKind) v->kind);
}

static void
int_overflow (RtCtx *cx, gint64 r, TildeValue *out)
{
  if (r > G_MAXINT || r < G_MININT)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: integer overflow", cx->fn_name);
  *out = tilde_value_int ((int) r);
}

static void
k_plus (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  if (all_int_scalars (2, a))
    int_overflow (cx, (gint64) a[0].u.i + a[1].u.i, out);
  else
    arith (cx, OP_ADD, &a[0], &a[1], out);
}

void
rt_add (RtCtx *cx, const TildeValue *a, const TildeValue *b, TildeValue *out)
{
  TildeValue args[2] = { *a, *b };
  k_plus (cx, 2, args, out);
}

static void
k_minus (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  if (all_int_scalars (2, a))
    int_overflow (cx, (gint64) a[0].u.i - a[1].u.i, out);
  else
    arith (cx, OP_SUB, &a[0], &a[1], out);
}

static void
k_neg (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  if (a[0].kind == TILDE_VALUE_INT)
    int_overflow (cx, -(gint64) a[0].u.i, out);
  else
    rt_map (cx, 1, a, out, f_neg);
}

static void
k_pplus (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  *out = a[0];
}

static void
k_times (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  if (all_int_scalars (2, a))
    int_overflow (cx, (gint64) a[0].u.i * a[1].u.i, out);
  else if (is_scalar (&a[0]) || is_scalar (&a[1]))
    arith (cx, OP_MUL, &a[0], &a[1], out);
  else
    rt_matmul (cx, &a[0], &a[1], out);
}

static void
k_elt_times (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  if (all_int_scalars (2, a))
    int_overflow (cx, (gint64) a[0].u.i * a[1].u.i, out);
  else
    arith (cx, OP_MUL, &a[0], &a[1], out);
}

static void
int_divide (RtCtx *cx, const TildeValue *a, TildeValue *out)
{
  if (a[1].u.i == 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: integer division by zero", cx->fn_name);
  int_overflow (cx, (gint64) a[0].u.i / a[1].u.i, out);
}

static void
k_divide (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  if (all_int_scalars (2, a))
    int_divide (cx, a, out);
  else if (a[1].kind == TILDE_VALUE_MATRIX && !is_scalar (&a[0]))
    rt_mdivide_right (cx, &a[0], &a[1], out);
  else
    arith (cx, OP_DIV, &a[0], &a[1], out);
}

static void
k_elt_divide (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  if (all_int_scalars (2, a))
    int_divide (cx, a, out);
  else
    arith (cx, OP_DIV, &a[0], &a[1], out);
}

static void
k_int_divide (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  int_divide (cx, a, out);
}

static void
k_modulo (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  if (a[1].u.i == 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: modulus by zero", cx->fn_name);
  *out = tilde_value_int (a[0].u.i % a[1].u.i);
}

static void
k_pow (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  rt_map (cx, 2, a, out, f_pow);
}

static void
k_ldivide (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  rt_mdivide_left (cx, &a[0], &a[1], out);
}

static void
k_transpose (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  rt_transpose (cx, &a[0], out);
}

/* comparisons read values (never derivatives) */
#define COMPARE(fname, op)                                                    \
  static void                                                                 \
  fname (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)          \
  {                                                                           \
    if (all_int_scalars (2, a))                                               \
      *out = tilde_value_int (a[0].u.i op a[1].u.i);                          \
    else                                                                      \
      *out = tilde_value_int (rt_scalar (cx, &a[0]) op rt_scalar (cx, &a[1])); \
  }
COMPARE (k_less, <)
COMPARE (k_leq, <=)
COMPARE (k_greater, >)
COMPARE (k_geq, >=)
COMPARE (k_equals, ==)
COMPARE (k_nequals, !=)

static void
k_not (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  *out = tilde_value_int (rt_scalar (cx, &a[0]) == 0);
}

const RtBuiltin rt_builtins_arith[] = {
  { "Plus__", k_plus, 2, 2 },
  { "add", k_plus, 2, 2 },
  { "Minus__", k_minus, 2, 2 },
  { "subtract", k_minus, 2, 2 },
  { "PMinus__", k_neg, 1, 1 },
  { "minus", k_neg, 1, 1 },
  { "PPlus__", k_pplus, 1, 1 },
  { "plus", k_pplus, 1, 1 },
  { "Times__", k_times, 2, 2 },
  { "multiply", k_times, 2, 2 },
  { "EltTimes__", k_elt_times, 2, 2 },
  { "elt_multiply", k_elt_times, 2, 2 },
  { "Divide__", k_divide, 2, 2 },
  { "divide", k_divide, 2, 2 },
  { "EltDivide__", k_elt_divide, 2, 2 },
  { "elt_divide", k_elt_divide, 2, 2 },
  { "IntDivide__", k_int_divide, 2, 2 },
  { "Modulo__", k_modulo, 2, 2 },
  { "modulus", k_modulo, 2, 2 },
  { "Pow__", k_pow, 2, 2 },
  { "EltPow__", k_pow, 2, 2 },
  { "pow", k_pow, 2, 2 },
  { "LDivide__", k_ldivide, 2, 2 },
  { "mdivide_left", k_ldivide, 2, 2 },
  { "Transpose__", k_transpose, 1, 1 },
  { "transpose", k_transpose, 1, 1 },
  { "Less__", k_less, 2, 2 },
  { "Leq__", k_leq, 2, 2 },
  { "Greater__", k_greater, 2, 2 },
  { "Geq__", k_geq, 2, 2 },
  { "Equals__", k_equals, 2, 2 },
  { "NEquals__", k_nequals, 2, 2 },
  { "PNot__", k_not, 1, 1 },
  { NULL, NULL, 0, 0 },
};
