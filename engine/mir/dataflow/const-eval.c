/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/const-eval.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "mir/dataflow/effects.h"

MirConstValue
mir_const_int (gint64 i)
{
  MirConstValue v = { MIR_CONST_INT, i, 0 };

  if (i < G_MININT32 || i > G_MAXINT32)
    return mir_const_nac ();
  return v;
}

MirConstValue
mir_const_real (double r)
{
  MirConstValue v = { MIR_CONST_REAL, 0, r };

  if (!isfinite (r))
    return mir_const_nac ();
  return v;
}

MirConstValue
mir_const_nac (void)
{
  return (MirConstValue) { MIR_CONST_NAC, 0, 0 };
}

MirConstValue
mir_const_undef (void)
{
  return (MirConstValue) { MIR_CONST_UNDEF, 0, 0 };
}

gboolean
mir_const_equal (MirConstValue a, MirConstValue b)
{
  if (a.kind != b.kind)
    return FALSE;
  switch (a.kind)
    {
    case MIR_CONST_INT:
      return a.i == b.i;
    case MIR_CONST_REAL:
      return memcmp (&a.r, &b.r, sizeof a.r) == 0;
    default:
      return TRUE;
    }
}

MirConstValue
mir_const_join (MirConstValue a, MirConstValue b)
{
  if (a.kind == MIR_CONST_UNDEF)
    return b;
  if (b.kind == MIR_CONST_UNDEF)
    return a;
  if (mir_const_equal (a, b))
    return a;
  return mir_const_nac ();
}

void
mir_const_append (GString *out, MirConstValue v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  switch (v.kind)
    {
    case MIR_CONST_UNDEF:
      g_string_append (out, "⊥");
      return;
    case MIR_CONST_NAC:
      g_string_append (out, "⊤");
      return;
    case MIR_CONST_INT:
      g_string_append_printf (out, "%" G_GINT64_FORMAT, v.i);
      return;
    case MIR_CONST_REAL:
      for (int precision = 1; precision <= 17; precision++)
        {
          char format[8];
          g_snprintf (format, sizeof format, "%%.%dg", precision);
          g_ascii_formatd (buf, sizeof buf, format, v.r);
          if (g_ascii_strtod (buf, NULL) == v.r)
            break;
        }
      g_string_append (out, buf);
      if (!strpbrk (buf, ".e"))
        g_string_append (out, ".0");
      return;
    }
}

/* ---- evaluation ---- */

typedef struct {
  MirConstLookup lookup;
  gpointer       user_data;
} Eval;

static MirConstValue eval (const MirExpr *e, const Eval *ev);

static gboolean
truth (MirConstValue v)
{
  return v.kind == MIR_CONST_INT ? v.i != 0 : v.r != 0.0;
}

static double
as_real (MirConstValue v)
{
  return v.kind == MIR_CONST_INT ? (double) v.i : v.r;
}

static gboolean
is_known (MirConstValue v)
{
  return v.kind == MIR_CONST_INT || v.kind == MIR_CONST_REAL;
}

/* The value converted to the type of the expression it is the value of. */
static MirConstValue
coerce (MirConstValue v, const TildeType *type)
{
  if (!is_known (v))
    return v;
  if (type && tilde_type_is_real (type))
    return mir_const_real (as_real (v));
  if (type && tilde_type_is_int (type) && v.kind == MIR_CONST_INT)
    return v;
  return mir_const_nac ();
}

static MirConstValue
eval_literal (const MirExpr *e)
{
  const char *text = e->u.lit.text;
  char *end = NULL;

  errno = 0;
  if (e->u.lit.kind == MIR_LIT_INT)
    {
      gint64 i = g_ascii_strtoll (text, &end, 10);
      if (errno || end == text || *end)
        return mir_const_nac ();
      return mir_const_int (i);
    }
  if (e->u.lit.kind == MIR_LIT_REAL)
    {
      double r = g_ascii_strtod (text, &end);
      if (errno == ERANGE || end == text || *end)
        return mir_const_nac ();
      return mir_const_real (r);
    }
  return mir_const_nac ();
}

static MirConstValue
compare (const char *op, MirConstValue a, MirConstValue b)
{
  int c;

  if (a.kind == MIR_CONST_INT && b.kind == MIR_CONST_INT)
    c = a.i < b.i ? -1 : a.i > b.i;
  else
    {
      double x = as_real (a), y = as_real (b);
      c = x < y ? -1 : x > y;
    }
  if (strcmp (op, "Less__") == 0)
    return mir_const_int (c < 0);
  if (strcmp (op, "Leq__") == 0)
    return mir_const_int (c <= 0);
  if (strcmp (op, "Greater__") == 0)
    return mir_const_int (c > 0);
  if (strcmp (op, "Geq__") == 0)
    return mir_const_int (c >= 0);
  if (strcmp (op, "Equals__") == 0)
    return mir_const_int (c == 0);
  return mir_const_int (c != 0);   /* NEquals__ */
}

static MirConstValue
int_binary (const char *op, gint64 a, gint64 b)
{
  if (strcmp (op, "Plus__") == 0)
    return mir_const_int (a + b);
  if (strcmp (op, "Minus__") == 0)
    return mir_const_int (a - b);
  if (strcmp (op, "Times__") == 0 || strcmp (op, "EltTimes__") == 0)
    return mir_const_int (a * b);
  if (strcmp (op, "Divide__") == 0 || strcmp (op, "IntDivide__") == 0
      || strcmp (op, "EltDivide__") == 0)
    return b == 0 ? mir_const_nac () : mir_const_int (a / b);
  if (strcmp (op, "Modulo__") == 0)
    {
      /* the quotient of the minimum int by -1 overflows in C++ */
      if (b == 0 || (a == G_MININT32 && b == -1))
        return mir_const_nac ();
      return mir_const_int (a % b);
    }
  return mir_const_nac ();
}

static MirConstValue
real_binary (const char *op, double a, double b)
{
  if (strcmp (op, "Plus__") == 0)
    return mir_const_real (a + b);
  if (strcmp (op, "Minus__") == 0)
    return mir_const_real (a - b);
  if (strcmp (op, "Times__") == 0 || strcmp (op, "EltTimes__") == 0)
    return mir_const_real (a * b);
  if (strcmp (op, "Divide__") == 0 || strcmp (op, "EltDivide__") == 0)
    return mir_const_real (a / b);
  if (strcmp (op, "Pow__") == 0 || strcmp (op, "EltPow__") == 0)
    return mir_const_real (pow (a, b));
  return mir_const_nac ();
}

static gboolean
is_comparison (const char *op)
{
  static const char *const ops[] = { "Less__", "Leq__", "Greater__", "Geq__",
                                     "Equals__", "NEquals__" };
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    if (strcmp (op, ops[i]) == 0)
      return TRUE;
  return FALSE;
}

static MirConstValue
apply_operator (const MirExpr *e, const char *op, const MirConstValue *args, guint n)
{
  const TildeType *type = e->type;

  if (n == 1)
    {
      if (strcmp (op, "PNot__") == 0)
        return mir_const_int (!truth (args[0]));
      if (strcmp (op, "PPlus__") == 0)
        return coerce (args[0], type);
      if (strcmp (op, "PMinus__") == 0)
        return args[0].kind == MIR_CONST_INT ? mir_const_int (-args[0].i)
                                             : mir_const_real (-args[0].r);
      return mir_const_nac ();
    }
  if (n != 2)
    return mir_const_nac ();
  if (is_comparison (op))
    return compare (op, args[0], args[1]);
  if (strcmp (op, "And__") == 0)
    return mir_const_int (truth (args[0]) && truth (args[1]));
  if (strcmp (op, "Or__") == 0)
    return mir_const_int (truth (args[0]) || truth (args[1]));
  if (type && tilde_type_is_int (type))
    {
      if (args[0].kind != MIR_CONST_INT || args[1].kind != MIR_CONST_INT)
        return mir_const_nac ();
      return int_binary (op, args[0].i, args[1].i);
    }
  if (type && tilde_type_is_real (type))
    return real_binary (op, as_real (args[0]), as_real (args[1]));
  return mir_const_nac ();
}

static MirConstValue
eval_call (const MirExpr *e, const Eval *ev)
{
  const MirFun *f = &e->u.call.fun;
  const GPtrArray *args = e->u.call.args;
  MirConstValue values[2];
  gboolean undef = FALSE;
  guint n = args ? args->len : 0;

  if (f->kind != MIR_FUN_STANLIB || !mir_operator_symbol (f->name) || n == 0 || n > 2)
    return mir_const_nac ();
  for (guint i = 0; i < n; i++)
    {
      values[i] = eval (g_ptr_array_index (args, i), ev);
      if (values[i].kind == MIR_CONST_NAC)
        return values[i];
      undef |= values[i].kind == MIR_CONST_UNDEF;
    }
  if (undef)
    return mir_const_undef ();
  return apply_operator (e, f->name, values, n);
}

static MirConstValue
eval_logical (const MirExpr *e, const Eval *ev)
{
  MirConstValue lhs = eval (e->u.logical.lhs, ev), rhs;
  gboolean is_and = e->kind == MIR_EXPR_AND;

  if (!is_known (lhs))
    return lhs;
  if (truth (lhs) != is_and)
    return mir_const_int (!is_and);
  rhs = eval (e->u.logical.rhs, ev);
  if (!is_known (rhs))
    return rhs;
  return mir_const_int (truth (rhs));
}

static MirConstValue
eval_ternary (const MirExpr *e, const Eval *ev)
{
  MirConstValue cond = eval (e->u.ternary.cond, ev);

  if (cond.kind == MIR_CONST_UNDEF)
    return cond;
  if (cond.kind == MIR_CONST_NAC)
    return mir_const_join (coerce (eval (e->u.ternary.if_true, ev), e->type),
                           coerce (eval (e->u.ternary.if_false, ev), e->type));
  return coerce (eval (truth (cond) ? e->u.ternary.if_true : e->u.ternary.if_false, ev),
                 e->type);
}

static gboolean
is_scalar_number (const TildeType *type)
{
  return type && (tilde_type_is_int (type) || tilde_type_is_real (type));
}

static MirConstValue
eval (const MirExpr *e, const Eval *ev)
{
  switch (e->kind)
    {
    case MIR_EXPR_LIT:
      return eval_literal (e);
    case MIR_EXPR_VAR:
      if (!mir_expr_is_variable (e) || !is_scalar_number (e->type) || !ev->lookup)
        return mir_const_nac ();
      return coerce (ev->lookup (e->u.var.name, ev->user_data), e->type);
    case MIR_EXPR_PROMOTION:
      if (!is_scalar_number (e->u.promotion.to))
        return mir_const_nac ();
      return coerce (eval (e->u.promotion.expr, ev), e->u.promotion.to);
    case MIR_EXPR_CALL:
      return eval_call (e, ev);
    case MIR_EXPR_AND:
    case MIR_EXPR_OR:
      return eval_logical (e, ev);
    case MIR_EXPR_TERNARY:
      return eval_ternary (e, ev);
    default:
      return mir_const_nac ();
    }
}

MirConstValue
mir_const_eval (const MirExpr *e, MirConstLookup lookup, gpointer user_data)
{
  Eval ev = { lookup, user_data };

  return eval (e, &ev);
}

gboolean
mir_const_never (const MirExpr *e, MirConstMayBe may_be_constant, gpointer user_data)
{
  const MirFun *f;
  guint n;

  switch (e->kind)
    {
    case MIR_EXPR_LIT:
      return e->u.lit.kind != MIR_LIT_INT && e->u.lit.kind != MIR_LIT_REAL;
    case MIR_EXPR_VAR:
      return !mir_expr_is_variable (e) || !is_scalar_number (e->type)
             || !may_be_constant (e->u.var.name, user_data);
    case MIR_EXPR_PROMOTION:
      return !is_scalar_number (e->u.promotion.to)
             || mir_const_never (e->u.promotion.expr, may_be_constant, user_data);
    case MIR_EXPR_CALL:
      /* an argument that is never a constant makes the call none */
      f = &e->u.call.fun;
      n = e->u.call.args ? e->u.call.args->len : 0;
      if (f->kind != MIR_FUN_STANLIB || !mir_operator_symbol (f->name) || n == 0 || n > 2)
        return TRUE;
      for (guint i = 0; i < n; i++)
        if (mir_const_never (g_ptr_array_index (e->u.call.args, i), may_be_constant, user_data))
          return TRUE;
      return FALSE;
    case MIR_EXPR_AND:
    case MIR_EXPR_OR:
      return mir_const_never (e->u.logical.lhs, may_be_constant, user_data);
    case MIR_EXPR_TERNARY:
      /* an unknown condition joins both branches */
      return mir_const_never (e->u.ternary.cond, may_be_constant, user_data)
             && (mir_const_never (e->u.ternary.if_true, may_be_constant, user_data)
                 || mir_const_never (e->u.ternary.if_false, may_be_constant, user_data));
    default:
      return TRUE;
    }
}
