/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "check-private.h"

#include <string.h>

/* ------------------------------------------------------------ flow */

static TildeFlow
flow_in_sequence (TildeFlow a, TildeFlow b)
{
  if ((a == TILDE_FLOW_COMPLETE || a == TILDE_FLOW_INCOMPLETE) && b == TILDE_FLOW_COMPLETE)
    return TILDE_FLOW_COMPLETE;
  if (a == TILDE_FLOW_NONLOCAL || b == TILDE_FLOW_NONLOCAL)
    return TILDE_FLOW_NONLOCAL;
  return TILDE_FLOW_INCOMPLETE;
}

static TildeFlow
flow_of_branches (TildeFlow a, TildeFlow b)
{
  if (a == TILDE_FLOW_COMPLETE && b == TILDE_FLOW_COMPLETE)
    return TILDE_FLOW_COMPLETE;
  if (a == TILDE_FLOW_NONLOCAL || b == TILDE_FLOW_NONLOCAL)
    return TILDE_FLOW_NONLOCAL;
  return TILDE_FLOW_INCOMPLETE;
}

static TildeFlow
flow_of_loop (TildeFlow body)
{
  return body == TILDE_FLOW_COMPLETE ? TILDE_FLOW_COMPLETE : TILDE_FLOW_INCOMPLETE;
}

static gboolean
is_escape (const TildeStmt *s)
{
  switch (s->kind)
    {
    case TILDE_STMT_BREAK:
    case TILDE_STMT_CONTINUE:
    case TILDE_STMT_REJECT:
    case TILDE_STMT_FATAL_ERROR:
    case TILDE_STMT_RETURN:
      return TRUE;
    default:
      return FALSE;
    }
}

TildeFlow
_tilde_check_stmt_list (TildeChecker *c, TildeStmt **stmts, int n)
{
  TildeFlow flow = TILDE_FLOW_INCOMPLETE;
  gboolean reachable = TRUE;

  for (int i = 0; i < n; i++)
    {
      TildeFlow f = _tilde_check_stmt (c, stmts[i]);

      if (!reachable)
        continue;
      flow = flow_in_sequence (flow, f);
      if (is_escape (stmts[i]) && i + 1 < n)
        {
          /* what follows is never run and does not count towards returning */
          _tilde_check_warning (c, &stmts[i + 1]->span,
                                "Unreachable statement (following a reject, fatal_error, break, "
                                "continue, or return) found, is this intended?");
          reachable = FALSE;
        }
    }
  return flow;
}

/* ------------------------------------------------------------ simple statements */

static gboolean
is_function_type (const TildeType *t)
{
  return tilde_type_kind (t) == TILDE_TYPE_FUNCTION
         || tilde_type_kind (t) == TILDE_TYPE_MATH_FUNCTION;
}

static void
check_printables (TildeChecker *c, TildeStmt *s)
{
  for (int i = 0; i < s->u.printables.n_items; i++)
    {
      TildeExpr *e = s->u.printables.items[i];

      if (!_tilde_check_expr (c, e))
        continue;
      if (is_function_type (e->type))
        _tilde_check_error (c, &e->span, "Functions cannot be printed.");
    }
}

static void
check_increment (TildeChecker *c, TildeStmt *s)
{
  TildeExpr *e = s->u.increment.expr;
  gboolean jacobian = s->kind == TILDE_STMT_JACOBIAN_PLUS;

  if (!_tilde_check_expr (c, e))
    return;
  if (jacobian && !((c->in_function && c->fun_kind == TILDE_FUN_JACOBIAN)
                    || c->block == TILDE_BLOCK_TRANSFORMED_PARAMETERS))
    {
      _tilde_check_error (c, &s->span, "The jacobian adjustment can only be applied in the "
                          "transformed parameters block or in functions ending with _jacobian");
      return;
    }
  if (!jacobian && !((c->in_function && c->fun_kind == TILDE_FUN_LP)
                     || c->block == TILDE_BLOCK_MODEL))
    {
      _tilde_check_error (c, &s->span, "Target can only be accessed in the model block or in "
                          "definitions of functions with the suffix _lp.");
      return;
    }
  if (is_function_type (e->type))
    {
      const TildeType *expected[2] = { tilde_type_real (), tilde_type_int () };
      g_autofree char *list = _tilde_expected_types (expected, 2);
      g_autofree char *found = _tilde_found_type (e->type);

      _tilde_check_error (c, &s->span, "@[A (container of) %s was expected.%s@]", list, found);
    }
}

static TildeFlow
check_return (TildeChecker *c, TildeStmt *s)
{
  TildeExpr *e = s->u.ret.expr;

  if (e == NULL)
    {
      if (!c->in_function || c->fun_return != NULL)
        _tilde_check_error (c, &s->span, "Void return statements may only be used inside "
                            "non-returning function definitions.");
      return TILDE_FLOW_COMPLETE;
    }
  if (!c->in_function || c->fun_return == NULL)
    {
      _tilde_check_error (c, &s->span, "Expression return statements may only be used inside "
                          "returning function definitions.");
      /* still typed, for whoever looks at the tree */
      _tilde_check_expr (c, e);
      return TILDE_FLOW_COMPLETE;
    }
  if (_tilde_check_expr (c, e) && !_tilde_assignable (c->fun_return, e->type))
    {
      const TildeType *expected[1] = { c->fun_return };
      g_autofree char *list = _tilde_expected_types (expected, 1);

      _tilde_check_error (c, &s->span, "Invalid return statement. Function is declared to "
                          "return %s, but this statement returns %s instead.", list,
                          _tilde_type_name (e->type));
    }
  return TILDE_FLOW_COMPLETE;
}

/* ------------------------------------------------------------ compound statements */

/* A branch or loop body: its own scope, even when it is a lone declaration. */
static TildeFlow
check_body (TildeChecker *c, TildeStmt *body)
{
  TildeFlow flow;

  if (body == NULL)
    return TILDE_FLOW_INCOMPLETE;
  tilde_scope_open (c->scope);
  flow = _tilde_check_stmt (c, body);
  tilde_scope_close (c->scope);
  return flow;
}

static TildeFlow
check_if (TildeChecker *c, TildeStmt *s)
{
  TildeFlow t, f;

  _tilde_check_int_expr (c, s->u.if_stmt.cond, "Condition in conditional");
  t = check_body (c, s->u.if_stmt.then_stmt);
  f = s->u.if_stmt.else_stmt ? check_body (c, s->u.if_stmt.else_stmt) : TILDE_FLOW_INCOMPLETE;
  return flow_of_branches (t, f);
}

/* stanc's heuristic for `while (1)`: an int literal with a non-zero digit. */
static gboolean
is_hardcoded_true (const TildeExpr *e)
{
  if (e->kind != TILDE_EXPR_INT)
    return FALSE;
  for (const char *p = e->u.literal.text; *p; p++)
    if (*p > '0' && *p <= '9')
      return TRUE;
  return FALSE;
}

static TildeFlow
check_while (TildeChecker *c, TildeStmt *s)
{
  TildeFlow body;

  _tilde_check_int_expr (c, s->u.while_stmt.cond, "Condition in while-loop");
  c->loop_depth++;
  body = check_body (c, s->u.while_stmt.body);
  c->loop_depth--;
  if (body == TILDE_FLOW_COMPLETE)
    return TILDE_FLOW_COMPLETE;
  if (body == TILDE_FLOW_INCOMPLETE && is_hardcoded_true (s->u.while_stmt.cond))
    return TILDE_FLOW_COMPLETE;
  return TILDE_FLOW_INCOMPLETE;
}

static TildeFlow
check_loop_body (TildeChecker *c, TildeStmt *s, const TildeIdent *var, const TildeType *type,
                 TildeStmt *body)
{
  TildeFlow flow;

  tilde_scope_open (c->scope);
  _tilde_check_variable_name (c, var);
  if (type && _tilde_check_fresh_variable (c, var))
    {
      TildeVariable *v = tilde_scope_new_variable (c->scope, var->name, type, TILDE_VAR_LOOP,
                                                   c->block, &var->span, s);

      tilde_scope_add_variable (c->scope, v);
    }
  c->loop_depth++;
  flow = _tilde_check_stmt (c, body);
  c->loop_depth--;
  tilde_scope_close (c->scope);
  return flow_of_loop (flow);
}

static TildeFlow
check_for (TildeChecker *c, TildeStmt *s)
{
  gboolean ok = _tilde_check_int_expr (c, s->u.for_stmt.lower, "Lower bound of for-loop");

  ok &= _tilde_check_int_expr (c, s->u.for_stmt.upper, "Upper bound of for-loop");
  ok &= _tilde_check_identifier (c, s->u.for_stmt.var.name, &s->u.for_stmt.var.span);
  /* the body is checked even when the bounds are wrong: i is still an int */
  (void) ok;
  return check_loop_body (c, s, &s->u.for_stmt.var, tilde_type_int (), s->u.for_stmt.body);
}

static const TildeType *
foreach_element (TildeChecker *c, TildeExpr *container)
{
  const TildeType *t = container->type;

  if (tilde_type_kind (t) == TILDE_TYPE_ARRAY)
    return tilde_type_element (t);
  if (t == tilde_type_vector () || t == tilde_type_row_vector () || t == tilde_type_matrix ())
    return tilde_type_real ();
  {
    const TildeType *expected[3] = { tilde_type_vector (), tilde_type_row_vector (),
                                     tilde_type_matrix () };
    g_autofree char *list = _tilde_expected_types (expected, 3);
    g_autofree char *found = _tilde_found_type (t);

    _tilde_check_error (c, &container->span, "@[Foreach-loop must be over array, %s.%s@]",
                        list, found);
  }
  return NULL;
}

static TildeFlow
check_foreach (TildeChecker *c, TildeStmt *s)
{
  TildeExpr *container = s->u.foreach_stmt.container;
  const TildeType *elem = NULL;

  if (_tilde_check_expr (c, container)
      && _tilde_check_identifier (c, s->u.foreach_stmt.var.name, &s->u.foreach_stmt.var.span))
    elem = foreach_element (c, container);
  return check_loop_body (c, s, &s->u.foreach_stmt.var, elem, s->u.foreach_stmt.body);
}

static TildeFlow
check_scoped_list (TildeChecker *c, TildeStmt **stmts, int n)
{
  TildeFlow flow;

  tilde_scope_open (c->scope);
  flow = _tilde_check_stmt_list (c, stmts, n);
  tilde_scope_close (c->scope);
  return flow;
}

/* ------------------------------------------------------------ dispatch */

TildeFlow
_tilde_check_stmt (TildeChecker *c, TildeStmt *s)
{
  switch (s->kind)
    {
    case TILDE_STMT_ERROR:
    case TILDE_STMT_SKIP:
      return TILDE_FLOW_INCOMPLETE;
    case TILDE_STMT_VAR_DECL:
      _tilde_check_var_decl (c, s);
      return TILDE_FLOW_INCOMPLETE;
    case TILDE_STMT_FUN_DEF:
      _tilde_check_fun_def (c, s);
      return TILDE_FLOW_INCOMPLETE;
    case TILDE_STMT_ASSIGN:
      _tilde_check_assign (c, s);
      return TILDE_FLOW_INCOMPLETE;
    case TILDE_STMT_TILDE:
      _tilde_check_tilde (c, s);
      return TILDE_FLOW_INCOMPLETE;
    case TILDE_STMT_JACOBIAN_PLUS:
      if (tilde_scope_lookup_variable (c->scope, s->u.increment.variable->u.variable.name) != NULL)
        {
          /* A variable named jacobian is in scope (names are interned: the
           * word's own name is the key): as stanc 2.36 reads it, this adds to
           * that variable (the name is reserved from 2.38 on, which its
           * declaration warns about). */
          TildeExpr *variable = s->u.increment.variable, *value = s->u.increment.expr;

          s->kind = TILDE_STMT_ASSIGN;
          s->u.assign.lhs = variable;
          s->u.assign.op = TILDE_ASSIGN_PLUS;
          s->u.assign.rhs = value;
          _tilde_check_assign (c, s);
          return TILDE_FLOW_INCOMPLETE;
        }
      check_increment (c, s);
      return TILDE_FLOW_INCOMPLETE;
    case TILDE_STMT_TARGET_PLUS:
      check_increment (c, s);
      return TILDE_FLOW_INCOMPLETE;
    case TILDE_STMT_CALL:
      _tilde_check_call_stmt (c, s);
      return TILDE_FLOW_INCOMPLETE;
    case TILDE_STMT_PRINT:
      check_printables (c, s);
      return TILDE_FLOW_INCOMPLETE;
    case TILDE_STMT_REJECT:
    case TILDE_STMT_FATAL_ERROR:
      check_printables (c, s);
      return TILDE_FLOW_COMPLETE;
    case TILDE_STMT_BREAK:
      if (c->loop_depth == 0)
        _tilde_check_error (c, &s->span, "Break statements may only be used in loops.");
      return TILDE_FLOW_NONLOCAL;
    case TILDE_STMT_CONTINUE:
      if (c->loop_depth == 0)
        _tilde_check_error (c, &s->span, "Continue statements may only be used in loops.");
      return TILDE_FLOW_INCOMPLETE;
    case TILDE_STMT_RETURN:
      return check_return (c, s);
    case TILDE_STMT_IF:
      return check_if (c, s);
    case TILDE_STMT_WHILE:
      return check_while (c, s);
    case TILDE_STMT_FOR:
      return check_for (c, s);
    case TILDE_STMT_FOREACH:
      return check_foreach (c, s);
    case TILDE_STMT_PROFILE:
      return check_scoped_list (c, s->u.profile.stmts, s->u.profile.n_stmts);
    case TILDE_STMT_BLOCK:
      return check_scoped_list (c, s->u.block.stmts, s->u.block.n_stmts);
    }
  return TILDE_FLOW_INCOMPLETE;
}
