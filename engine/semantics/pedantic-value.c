/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

/*
 * What pedantic mode knows about a value before the model runs.
 *
 * stanc looks at distribution arguments after constant propagation, copy
 * propagation and partial evaluation of the MIR. The same facts come from the
 * typed tree here: literals and arithmetic on them fold, and a variable whose
 * only reaching definition (the MIR's, through the flow) is a plain
 * assignment takes that value, carrying the place of the assigned expression
 * as stanc's substitution does.
 */

#include "semantics/pedantic-private.h"

#include <math.h>
#include <string.h>

/* Propagation follows chains of copies this far at most. */
#define MAX_CHAIN 32

/* OCaml's way of printing a float: the shortest of %.12g, %.15g, %.17g
 * that reads back the same, with a trailing "." when it looks integral. */
static char *
float_text (double v)
{
  static const char *const formats[] = { "%.12g", "%.15g", "%.17g" };
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_ascii_formatd (buf, sizeof buf, formats[i], v);
      if (g_ascii_strtod (buf, NULL) == v)
        break;
    }
  if (strpbrk (buf, ".eEni") == NULL)
    return g_strconcat (buf, ".", NULL);
  return g_strdup (buf);
}

void
_ped_number_clear (PedNumber *number)
{
  g_clear_pointer (&number->text, g_free);
}

const TildeExpr *
_ped_defined_value (Pedantic *P, const TildeStmt *def, const PedVar *var)
{
  const TildeExpr *lhs;

  switch (def->kind)
    {
    case TILDE_STMT_ASSIGN:
      lhs = _ped_strip_parens (def->u.assign.lhs);
      if (def->u.assign.op == TILDE_ASSIGN_PLAIN && lhs->kind == TILDE_EXPR_VARIABLE
          && _ped_var_of_expr (P, lhs) == var)
        return def->u.assign.rhs;
      return NULL;
    case TILDE_STMT_VAR_DECL:
      for (int i = 0; i < def->u.var_decl.n_items; i++)
        if (def->u.var_decl.items[i].ident.name == var->name && def == var->stmt)
          return def->u.var_decl.items[i].init;
      return NULL;
    default:
      return NULL;
    }
}

/* The whole value the variable read by `use` has for sure: its only
 * reaching definition, when that writes all of it with a known
 * expression. */
static const TildeExpr *
unique_value (Pedantic *P, const TildeExpr *use)
{
  PedVar *var;
  const TildeStmt *def;

  if (P == NULL || P->flow == NULL)
    return NULL;
  var = _ped_var_of_expr (P, use);
  def = var ? _ped_definition (P, use) : NULL;
  return def ? _ped_defined_value (P, def, var) : NULL;
}

static gboolean number_at (Pedantic *P, const TildeExpr *e, PedNumber *out, int depth);

static gboolean
literal (const TildeExpr *e, gboolean is_int, PedNumber *out)
{
  out->value = tilde_literal_value (e->u.literal.text);
  out->is_int = is_int;
  out->text = g_strdup (e->u.literal.text);
  out->span = e->span;
  return TRUE;
}

/* Stan's int arithmetic is 32-bit; what would overflow is not folded. */
static gboolean
fold_int (TildeBinaryOp op, gint64 a, gint64 b, gint64 *result)
{
  switch (op)
    {
    case TILDE_OP_PLUS:
      *result = a + b;
      break;
    case TILDE_OP_MINUS:
      *result = a - b;
      break;
    case TILDE_OP_TIMES:
      *result = a * b;
      break;
    case TILDE_OP_DIVIDE:
      if (b == 0)
        return FALSE;
      *result = a / b;
      break;
    default:
      return FALSE;
    }
  return *result >= G_MININT32 && *result <= G_MAXINT32;
}

static gboolean
fold_real (TildeBinaryOp op, double a, double b, double *result)
{
  switch (op)
    {
    case TILDE_OP_PLUS:
      *result = a + b;
      return TRUE;
    case TILDE_OP_MINUS:
      *result = a - b;
      return TRUE;
    case TILDE_OP_TIMES:
      *result = a * b;
      return TRUE;
    case TILDE_OP_DIVIDE:
      *result = a / b;
      return b != 0;
    default:
      return FALSE;
    }
}

static gboolean
binary (Pedantic *P, const TildeExpr *e, PedNumber *out, int depth)
{
  PedNumber a = { 0 }, b = { 0 };
  gboolean ok = FALSE;

  if (number_at (P, e->u.binary.lhs, &a, depth) && number_at (P, e->u.binary.rhs, &b, depth))
    {
      gint64 i;
      double r;

      if (a.is_int && b.is_int)
        {
          ok = fold_int (e->u.binary.op, (gint64) a.value, (gint64) b.value, &i);
          if (ok)
            {
              out->value = (double) i;
              out->is_int = TRUE;
              out->text = g_strdup_printf ("%" G_GINT64_FORMAT, i);
            }
        }
      else
        {
          ok = fold_real (e->u.binary.op, a.value, b.value, &r) && isfinite (r);
          if (ok)
            {
              out->value = r;
              out->is_int = FALSE;
              out->text = float_text (r);
            }
        }
      out->span = e->span;
    }
  _ped_number_clear (&a);
  _ped_number_clear (&b);
  return ok;
}

static gboolean
number_at (Pedantic *P, const TildeExpr *e, PedNumber *out, int depth)
{
  const TildeExpr *value;

  if (e == NULL || depth > MAX_CHAIN)
    return FALSE;
  switch (e->kind)
    {
    case TILDE_EXPR_INT:
      return literal (e, TRUE, out);
    case TILDE_EXPR_REAL:
      return literal (e, FALSE, out);
    case TILDE_EXPR_PAREN:
      return number_at (P, e->u.paren.inner, out, depth);
    case TILDE_EXPR_PREFIX:
      if (e->u.prefix.op == TILDE_OP_PROMOTE)
        return number_at (P, e->u.prefix.operand, out, depth);
      if (e->u.prefix.op != TILDE_OP_NEGATE
          || !number_at (P, e->u.prefix.operand, out, depth))
        return FALSE;
      {
        char *text = g_strconcat ("-", out->text, NULL);

        g_free (out->text);
        out->text = text;
        out->value = -out->value;
        out->span = e->span;
      }
      return TRUE;
    case TILDE_EXPR_BINARY:
      return binary (P, e, out, depth);
    case TILDE_EXPR_VARIABLE:
      value = unique_value (P, e);
      return value && number_at (P, value, out, depth + 1);
    default:
      return FALSE;
    }
}

gboolean
_ped_number (Pedantic *P, const TildeExpr *e, PedNumber *out)
{
  memset (out, 0, sizeof *out);
  if (number_at (P, e, out, 0))
    return TRUE;
  _ped_number_clear (out);
  return FALSE;
}

void
_ped_value_clear (PedValue *value)
{
  _ped_number_clear (&value->number);
}

static void
value_at (Pedantic *P, const TildeExpr *e, PedValue *out, int depth)
{
  const TildeExpr *stripped = _ped_strip_parens (e);

  out->span = stripped->span;
  if (stripped->kind == TILDE_EXPR_VARIABLE)
    {
      PedVar *var = _ped_var_of_expr (P, stripped);
      const TildeExpr *value;

      if (var && var->kind == PED_VAR_PARAM)
        {
          out->kind = PED_VALUE_PARAM;
          out->var = var;
          return;
        }
      if (var && _ped_var_is_data (var))
        {
          out->kind = PED_VALUE_DATA;
          out->var = var;
          return;
        }
      value = depth < MAX_CHAIN ? unique_value (P, stripped) : NULL;
      if (value)
        value_at (P, value, out, depth + 1);
      return;
    }
  if (number_at (P, stripped, &out->number, depth))
    {
      out->kind = PED_VALUE_NUMBER;
      out->span = out->number.span;
    }
  else
    _ped_number_clear (&out->number);
}

void
_ped_value (Pedantic *P, const TildeExpr *e, PedValue *out)
{
  memset (out, 0, sizeof *out);
  out->kind = PED_VALUE_OPAQUE;
  if (e)
    value_at (P, e, out, 0);
}

/* The variables number_at and value_at may look through. */
void
_ped_value_variables (Pedantic *P, const TildeExpr *e, GHashTable *seen, GPtrArray *names)
{
  const PedVar *var;

  e = _ped_strip_parens (e);
  if (e == NULL)
    return;
  switch (e->kind)
    {
    case TILDE_EXPR_VARIABLE:
      var = _ped_var_of_expr (P, e);
      if (var && var->kind != PED_VAR_PARAM && !_ped_var_is_data (var)
          && g_hash_table_add (seen, (gpointer) var->name))
        g_ptr_array_add (names, (gpointer) var->name);
      break;
    case TILDE_EXPR_PREFIX:
      _ped_value_variables (P, e->u.prefix.operand, seen, names);
      break;
    case TILDE_EXPR_BINARY:
      _ped_value_variables (P, e->u.binary.lhs, seen, names);
      _ped_value_variables (P, e->u.binary.rhs, seen, names);
      break;
    default:
      break;
    }
}


/* ---- declared constraints ---- */

static PedBound
bound_of (const TildeExpr *e)
{
  PedBound bound = { PED_BOUND_NONE, 0 };
  PedNumber number;

  if (e == NULL)
    return bound;
  bound.kind = PED_BOUND_NONLIT;
  if (_ped_number (NULL, e, &number))
    {
      bound.kind = PED_BOUND_LIT;
      bound.value = number.value;
      _ped_number_clear (&number);
    }
  return bound;
}

static void
set_range (PedTransform *out, PedTransKind kind, PedBoundKind lower, double lo,
           PedBoundKind upper, double hi)
{
  out->kind = kind;
  out->lower.kind = lower;
  out->lower.value = lo;
  out->upper.kind = upper;
  out->upper.value = hi;
}

void
_ped_transform (const PedVar *var, PedTransform *out)
{
  const TildeSizedType *t = var->type;

  set_range (out, PED_TRANS_IDENTITY, PED_BOUND_NONE, 0, PED_BOUND_NONE, 0);
  if (t && t->kind == TILDE_DECL_ARRAY)
    t = t->element;
  if (t == NULL)
    return;
  switch (t->kind)
    {
    case TILDE_DECL_ORDERED:
      out->kind = PED_TRANS_ORDERED;
      break;
    case TILDE_DECL_POSITIVE_ORDERED:
      set_range (out, PED_TRANS_POSITIVE_ORDERED, PED_BOUND_LIT, 0, PED_BOUND_NONE, 0);
      break;
    case TILDE_DECL_SIMPLEX:
      set_range (out, PED_TRANS_SIMPLEX, PED_BOUND_LIT, 0, PED_BOUND_LIT, 1);
      break;
    case TILDE_DECL_COLUMN_STOCHASTIC_MATRIX:
    case TILDE_DECL_ROW_STOCHASTIC_MATRIX:
      set_range (out, PED_TRANS_STOCHASTIC, PED_BOUND_LIT, 0, PED_BOUND_LIT, 1);
      break;
    case TILDE_DECL_UNIT_VECTOR:
      set_range (out, PED_TRANS_UNIT_VECTOR, PED_BOUND_LIT, -1, PED_BOUND_LIT, 1);
      break;
    case TILDE_DECL_SUM_TO_ZERO_VECTOR:
    case TILDE_DECL_SUM_TO_ZERO_MATRIX:
      out->kind = PED_TRANS_SUM_TO_ZERO;
      break;
    case TILDE_DECL_CHOLESKY_FACTOR_CORR:
      out->kind = PED_TRANS_CHOLESKY_CORR;
      break;
    case TILDE_DECL_CHOLESKY_FACTOR_COV:
      out->kind = PED_TRANS_CHOLESKY_COV;
      break;
    case TILDE_DECL_CORR_MATRIX:
      out->kind = PED_TRANS_CORRELATION;
      break;
    case TILDE_DECL_COV_MATRIX:
      out->kind = PED_TRANS_COVARIANCE;
      break;
    case TILDE_DECL_TUPLE:
      break;
    default:
      if (t->bounds.lower || t->bounds.upper)
        {
          out->kind = PED_TRANS_BOUNDED;
          out->lower = bound_of (t->bounds.lower);
          out->upper = bound_of (t->bounds.upper);
        }
      else if (t->bounds.offset || t->bounds.multiplier)
        out->kind = PED_TRANS_OFFSET_MULTIPLIER;
      break;
    }
}
