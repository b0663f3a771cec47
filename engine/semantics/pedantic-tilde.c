/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

/*
 * The left-hand sides of distribution statements: a variable on the left of
 * several of them, and left-hand sides that may transform a parameter
 * non-linearly (which needs a Jacobian adjustment). `target +=
 * foo_lpdf(y | ...)` counts as `y ~ foo(...)`.
 *
 * Linearity is stanc's test: sums, differences, negation, transposition,
 * indexing, slicing and reshaping functions keep it, a product or quotient
 * keeps it when one side is constant, any other function of something
 * non-constant loses it. Unlike stanc, anything that depends only on data
 * counts as a constant.
 */

#include "semantics/pedantic-private.h"
#include "semantics/types.h"

#include <string.h>

/* The variate of a statement that adds a density to the target, or NULL. */
static const TildeExpr *
variate_of (const TildeStmt *s)
{
  const TildeExpr *e;

  if (s->kind == TILDE_STMT_TILDE)
    return s->u.tilde.arg;
  if (s->kind != TILDE_STMT_TARGET_PLUS)
    return NULL;
  e = _ped_strip_parens (s->u.increment.expr);
  if (e && (e->kind == TILDE_EXPR_CALL || e->kind == TILDE_EXPR_COND_CALL)
      && e->u.call.n_args > 0 && _ped_density_family (e->u.call.name.name, NULL))
    return e->u.call.args[0];
  return NULL;
}

/* ---- several `~` for one variable ---- */

typedef struct {
  const TildeSpan *first;
  int              count;
} TildeCount;

static gboolean
span_before (const TildeSpan *a, const TildeSpan *b)
{
  int c = strcmp (a->file->name, b->file->name);

  if (c != 0)
    return c < 0;
  if (a->begin_line != b->begin_line)
    return a->begin_line < b->begin_line;
  return a->begin_column < b->begin_column;
}

typedef struct {
  Pedantic   *P;
  TildeCount *counts;
} Counting;

static void
count_tilde (TildeStmt *s, gpointer data)
{
  Counting *c = data;
  const TildeExpr *variate = _ped_strip_parens (variate_of (s));
  PedVar *var;
  TildeCount *count;

  if (variate == NULL || (var = _ped_var_of_expr (c->P, variate)) == NULL)
    return;
  count = &c->counts[var->index];
  if (count->first == NULL || span_before (&s->span, count->first))
    count->first = &s->span;
  count->count++;
}

static void
check_multiple_tildes (Pedantic *P)
{
  g_autofree TildeCount *counts = g_new0 (TildeCount, MAX (P->vars->len, 1));
  Counting c = { P, counts };

  _ped_foreach_model_stmt (P, count_tilde, &c);
  for (guint v = 0; v < P->vars->len; v++)
    {
      const PedVar *var = g_ptr_array_index (P->vars, v);

      /* Data observed twice is not what this is about. */
      if (counts[v].count > 1 && !_ped_var_is_data (var) && !var->silent)
        _ped_warn (P, counts[v].first, "The parameter %s is on the left-hand side of more than "
                   "one tilde statement.", var->name);
    }
}

/* ---- non-linear left-hand sides ---- */

static gboolean
is_linear_function (const char *name)
{
  static const char *const names[] = {
    "add", "append_block", "append_row", "append_col", "block", "col", "cols", "row",
    "rows", "diagonal", "head", "tail", "minus", "negative_infinity", "not_a_number",
    "rep_matrix", "rep_vector", "rep_row_vector", "positive_infinity", "segment",
    "subtract", "sum", "to_vector", "to_row_vector", "to_matrix", "to_array_1d",
    "to_array_2d", "transpose",
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_str_equal (names[i], name))
      return TRUE;
  return FALSE;
}

static gboolean is_linear (const TildeExpr *e, gboolean allow_var);

static gboolean
all_linear (TildeExpr *const *items, int n, gboolean allow_var)
{
  for (int i = 0; i < n; i++)
    if (!is_linear (items[i], allow_var))
      return FALSE;
  return TRUE;
}

/* a * b, a / b: at most one side may vary. */
static gboolean
is_linear_product (const TildeExpr *a, const TildeExpr *b, gboolean allow_var)
{
  return (is_linear (a, allow_var) && is_linear (b, FALSE))
         || (is_linear (a, FALSE) && is_linear (b, allow_var));
}

static gboolean
is_linear_call (const TildeExpr *e, gboolean allow_var)
{
  TildeExpr *const *args = e->u.call.args;
  int n = e->u.call.n_args;

  if (e->u.call.decl)
    return FALSE;
  if (is_linear_function (e->u.call.name.name))
    return all_linear (args, n, allow_var);
  if (all_linear (args, n, FALSE))
    return TRUE;
  return g_str_equal (e->u.call.name.name, "fma") && n == 3 && is_linear (args[2], allow_var)
         && is_linear_product (args[0], args[1], allow_var);
}

static gboolean
is_linear_binary (const TildeExpr *e, gboolean allow_var)
{
  switch (e->u.binary.op)
    {
    case TILDE_OP_PLUS:
    case TILDE_OP_MINUS:
      return is_linear (e->u.binary.lhs, allow_var) && is_linear (e->u.binary.rhs, allow_var);
    case TILDE_OP_TIMES:
    case TILDE_OP_DIVIDE:
    case TILDE_OP_IDIVIDE:
      return is_linear_product (e->u.binary.lhs, e->u.binary.rhs, allow_var);
    case TILDE_OP_AND:
    case TILDE_OP_OR:
      return FALSE;
    default:
      return is_linear (e->u.binary.lhs, FALSE) && is_linear (e->u.binary.rhs, FALSE);
    }
}

/* allow_var: whether a variable may appear (stanc's rule for a * b). */
static gboolean
is_linear (const TildeExpr *e, gboolean allow_var)
{
  if (e == NULL)
    return FALSE;
  if (e->type && e->ad_level == TILDE_AD_DATA)
    return TRUE;
  switch (e->kind)
    {
    case TILDE_EXPR_VARIABLE:
      return allow_var;
    case TILDE_EXPR_INT:
    case TILDE_EXPR_REAL:
    case TILDE_EXPR_IMAG:
      return TRUE;
    case TILDE_EXPR_PAREN:
      return is_linear (e->u.paren.inner, allow_var);
    case TILDE_EXPR_INDEXED:
      return is_linear (e->u.indexed.base, allow_var);
    case TILDE_EXPR_TUPLE_PROJ:
      return is_linear (e->u.proj.base, allow_var);
    case TILDE_EXPR_TERNARY:
      return is_linear (e->u.ternary.cond, allow_var) && is_linear (e->u.ternary.if_true, allow_var)
             && is_linear (e->u.ternary.if_false, allow_var);
    case TILDE_EXPR_ARRAY:
    case TILDE_EXPR_ROW_VECTOR:
    case TILDE_EXPR_TUPLE:
      return all_linear (e->u.list.items, e->u.list.n_items, allow_var);
    case TILDE_EXPR_PREFIX:
      return is_linear (e->u.prefix.operand, allow_var);
    case TILDE_EXPR_TRANSPOSE:
      return is_linear (e->u.transpose.operand, allow_var);
    case TILDE_EXPR_BINARY:
      return is_linear_binary (e, allow_var);
    case TILDE_EXPR_CALL:
    case TILDE_EXPR_COND_CALL:
      return is_linear_call (e, allow_var);
    default:
      return FALSE;
    }
}

/* Whether every parameter-dependent variable of `e` is declared @silent. */
static gboolean
only_silent (Pedantic *P, const TildeExpr *e)
{
  g_autoptr(GArray) uses = g_array_new (FALSE, FALSE, sizeof (PedUse));
  gboolean any = FALSE;

  _ped_expr_uses (P, e, uses);
  for (guint u = 0; u < uses->len; u++)
    {
      const PedVar *var = g_array_index (uses, PedUse, u).var;

      if (_ped_var_is_data (var))
        continue;
      if (!var->silent)
        return FALSE;
      any = TRUE;
    }
  return any;
}

static void
check_nonlinear (TildeStmt *s, gpointer data)
{
  Pedantic *P = data;
  const TildeExpr *variate = variate_of (s);

  if (variate && !is_linear (variate, TRUE) && !only_silent (P, variate))
    _ped_warn (P, &s->span, "Left-hand side of distribution statement (~) may contain a "
               "non-linear transform of a parameter or local variable. If it does, you need "
               "to include a target += statement with the log absolute determinant of the "
               "Jacobian of the transform. You could also consider defining a transformed "
               "parameter and using jacobian += in the transformed parameters block.");
}

void
_ped_check_tildes (Pedantic *P)
{
  check_multiple_tildes (P);
  _ped_foreach_model_stmt (P, check_nonlinear, P);
}
