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
    rt_map (cx, 2, a, out, f_add);
}

static void
k_minus (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  if (all_int_scalars (2, a))
    int_overflow (cx, (gint64) a[0].u.i - a[1].u.i, out);
  else
    rt_map (cx, 2, a, out, f_sub);
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
    rt_map (cx, 2, a, out, f_mul);
  else
    rt_matmul (cx, &a[0], &a[1], out);
}

static void
k_elt_times (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  if (all_int_scalars (2, a))
    int_overflow (cx, (gint64) a[0].u.i * a[1].u.i, out);
  else
    rt_map (cx, 2, a, out, f_mul);
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
  else if (is_scalar (&a[1]))
    rt_map (cx, 2, a, out, f_div);
  else
    rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "matrix division (mdivide_right) is not supported yet");
}

static void
k_elt_divide (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  if (all_int_scalars (2, a))
    int_divide (cx, a, out);
  else
    rt_map (cx, 2, a, out, f_div);
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
