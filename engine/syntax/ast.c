/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "ast.h"

#include <string.h>

void
tilde_program_free (TildeProgram *program)
{
  TildeArena *arena;

  if (program == NULL)
    return;
  arena = program->arena;
  tilde_source_set_unref (program->sources);
  /* The program itself lives in its arena. */
  tilde_arena_free (arena);
}

const char *
tilde_block_kind_to_string (TildeBlockKind kind)
{
  static const char *const names[TILDE_N_BLOCKS] = {
    "functions", "data", "transformed data", "parameters",
    "transformed parameters", "model", "generated quantities",
  };

  return (guint) kind < TILDE_N_BLOCKS ? names[kind] : "?";
}

const char *
tilde_binary_op_to_string (TildeBinaryOp op)
{
  static const char *const names[] = {
    [TILDE_OP_OR] = "||", [TILDE_OP_AND] = "&&",
    [TILDE_OP_EQUALS] = "==", [TILDE_OP_NEQUALS] = "!=",
    [TILDE_OP_LESS] = "<", [TILDE_OP_LEQ] = "<=", [TILDE_OP_GREATER] = ">",
    [TILDE_OP_GEQ] = ">=", [TILDE_OP_PLUS] = "+", [TILDE_OP_MINUS] = "-",
    [TILDE_OP_TIMES] = "*", [TILDE_OP_DIVIDE] = "/", [TILDE_OP_MODULO] = "%",
    [TILDE_OP_ELT_TIMES] = ".*", [TILDE_OP_ELT_DIVIDE] = "./",
    [TILDE_OP_IDIVIDE] = "%/%", [TILDE_OP_LDIVIDE] = "\\",
    [TILDE_OP_POW] = "^", [TILDE_OP_ELT_POW] = ".^",
  };

  return (guint) op < G_N_ELEMENTS (names) ? names[op] : "?";
}

const char *
tilde_prefix_op_to_string (TildePrefixOp op)
{
  switch (op)
    {
    case TILDE_OP_NOT: return "!";
    case TILDE_OP_NEGATE: return "-";
    case TILDE_OP_PROMOTE: return "+";
    default: return "?";
    }
}

const char *
tilde_assign_op_to_string (TildeAssignOp op)
{
  static const char *const names[] = {
    "=", "+=", "-=", "*=", "/=", ".*=", "./=",
  };

  return (guint) op < G_N_ELEMENTS (names) ? names[op] : "?";
}

const char *
tilde_decl_type_kind_to_string (TildeDeclTypeKind kind)
{
  static const char *const names[] = {
    [TILDE_DECL_INT] = "int", [TILDE_DECL_REAL] = "real", [TILDE_DECL_COMPLEX] = "complex",
    [TILDE_DECL_VECTOR] = "vector", [TILDE_DECL_ROW_VECTOR] = "row_vector",
    [TILDE_DECL_MATRIX] = "matrix", [TILDE_DECL_COMPLEX_VECTOR] = "complex_vector",
    [TILDE_DECL_COMPLEX_ROW_VECTOR] = "complex_row_vector",
    [TILDE_DECL_COMPLEX_MATRIX] = "complex_matrix", [TILDE_DECL_ORDERED] = "ordered",
    [TILDE_DECL_POSITIVE_ORDERED] = "positive_ordered", [TILDE_DECL_SIMPLEX] = "simplex",
    [TILDE_DECL_UNIT_VECTOR] = "unit_vector",
    [TILDE_DECL_SUM_TO_ZERO_VECTOR] = "sum_to_zero_vector",
    [TILDE_DECL_SUM_TO_ZERO_MATRIX] = "sum_to_zero_matrix",
    [TILDE_DECL_CHOLESKY_FACTOR_CORR] = "cholesky_factor_corr",
    [TILDE_DECL_CHOLESKY_FACTOR_COV] = "cholesky_factor_cov",
    [TILDE_DECL_CORR_MATRIX] = "corr_matrix", [TILDE_DECL_COV_MATRIX] = "cov_matrix",
    [TILDE_DECL_COLUMN_STOCHASTIC_MATRIX] = "column_stochastic_matrix",
    [TILDE_DECL_ROW_STOCHASTIC_MATRIX] = "row_stochastic_matrix",
    [TILDE_DECL_ARRAY] = "array", [TILDE_DECL_TUPLE] = "tuple",
  };

  return (guint) kind < G_N_ELEMENTS (names) ? names[kind] : "?";
}

const char *
tilde_unsized_type_kind_to_string (TildeUnsizedTypeKind kind)
{
  static const char *const names[] = {
    [TILDE_UTYPE_INT] = "int", [TILDE_UTYPE_REAL] = "real",
    [TILDE_UTYPE_COMPLEX] = "complex", [TILDE_UTYPE_VECTOR] = "vector",
    [TILDE_UTYPE_ROW_VECTOR] = "row_vector", [TILDE_UTYPE_MATRIX] = "matrix",
    [TILDE_UTYPE_COMPLEX_VECTOR] = "complex_vector",
    [TILDE_UTYPE_COMPLEX_ROW_VECTOR] = "complex_row_vector",
    [TILDE_UTYPE_COMPLEX_MATRIX] = "complex_matrix", [TILDE_UTYPE_ARRAY] = "array",
    [TILDE_UTYPE_TUPLE] = "tuple", [TILDE_UTYPE_VOID] = "void",
  };

  return (guint) kind < G_N_ELEMENTS (names) ? names[kind] : "?";
}

const char *
tilde_stmt_kind_to_string (TildeStmtKind kind)
{
  static const char *const names[] = {
    [TILDE_STMT_ERROR] = "error", [TILDE_STMT_VAR_DECL] = "var-decl",
    [TILDE_STMT_FUN_DEF] = "fun-def", [TILDE_STMT_ASSIGN] = "assign",
    [TILDE_STMT_TILDE] = "tilde", [TILDE_STMT_TARGET_PLUS] = "target-plus",
    [TILDE_STMT_JACOBIAN_PLUS] = "jacobian-plus", [TILDE_STMT_CALL] = "call",
    [TILDE_STMT_PRINT] = "print", [TILDE_STMT_REJECT] = "reject",
    [TILDE_STMT_FATAL_ERROR] = "fatal-error", [TILDE_STMT_BREAK] = "break",
    [TILDE_STMT_CONTINUE] = "continue", [TILDE_STMT_RETURN] = "return",
    [TILDE_STMT_IF] = "if", [TILDE_STMT_WHILE] = "while", [TILDE_STMT_FOR] = "for",
    [TILDE_STMT_FOREACH] = "foreach", [TILDE_STMT_PROFILE] = "profile",
    [TILDE_STMT_BLOCK] = "block", [TILDE_STMT_SKIP] = "skip",
  };

  return (guint) kind < G_N_ELEMENTS (names) ? names[kind] : "?";
}

const char *
tilde_expr_kind_to_string (TildeExprKind kind)
{
  static const char *const names[] = {
    [TILDE_EXPR_ERROR] = "error", [TILDE_EXPR_VARIABLE] = "variable",
    [TILDE_EXPR_INT] = "int", [TILDE_EXPR_REAL] = "real", [TILDE_EXPR_IMAG] = "imag",
    [TILDE_EXPR_STRING] = "string", [TILDE_EXPR_BINARY] = "binary",
    [TILDE_EXPR_PREFIX] = "prefix", [TILDE_EXPR_TRANSPOSE] = "transpose",
    [TILDE_EXPR_TERNARY] = "ternary", [TILDE_EXPR_CALL] = "call",
    [TILDE_EXPR_COND_CALL] = "cond-call", [TILDE_EXPR_TARGET] = "target",
    [TILDE_EXPR_INDEXED] = "indexed", [TILDE_EXPR_TUPLE_PROJ] = "tuple-proj",
    [TILDE_EXPR_ARRAY] = "array", [TILDE_EXPR_ROW_VECTOR] = "row-vector",
    [TILDE_EXPR_TUPLE] = "tuple", [TILDE_EXPR_PAREN] = "paren",
  };

  return (guint) kind < G_N_ELEMENTS (names) ? names[kind] : "?";
}

gboolean
tilde_decl_type_kind_is_constrained (TildeDeclTypeKind kind)
{
  return kind >= TILDE_DECL_ORDERED && kind <= TILDE_DECL_ROW_STOCHASTIC_MATRIX;
}

/* ---- equality ---- */

static gboolean
name_equal (const char *a, const char *b)
{
  return a == b || g_strcmp0 (a, b) == 0;
}

static gboolean
expr_list_equal (TildeExpr *const *a, int na, TildeExpr *const *b, int nb)
{
  if (na != nb)
    return FALSE;
  for (int i = 0; i < na; i++)
    if (!tilde_expr_equal (a[i], b[i]))
      return FALSE;
  return TRUE;
}

static gboolean
index_equal (const TildeIndex *a, const TildeIndex *b)
{
  return a->kind == b->kind && tilde_expr_equal (a->lower, b->lower)
         && tilde_expr_equal (a->upper, b->upper);
}

gboolean
tilde_expr_equal (const TildeExpr *a, const TildeExpr *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  if (a->kind != b->kind)
    return FALSE;
  switch (a->kind)
    {
    case TILDE_EXPR_ERROR:
    case TILDE_EXPR_TARGET:
      return TRUE;
    case TILDE_EXPR_VARIABLE:
      return name_equal (a->u.variable.name, b->u.variable.name);
    case TILDE_EXPR_INT:
    case TILDE_EXPR_REAL:
    case TILDE_EXPR_IMAG:
    case TILDE_EXPR_STRING:
      return strcmp (a->u.literal.text, b->u.literal.text) == 0;
    case TILDE_EXPR_BINARY:
      return a->u.binary.op == b->u.binary.op
             && tilde_expr_equal (a->u.binary.lhs, b->u.binary.lhs)
             && tilde_expr_equal (a->u.binary.rhs, b->u.binary.rhs);
    case TILDE_EXPR_PREFIX:
      return a->u.prefix.op == b->u.prefix.op
             && tilde_expr_equal (a->u.prefix.operand, b->u.prefix.operand);
    case TILDE_EXPR_TRANSPOSE:
      return tilde_expr_equal (a->u.transpose.operand, b->u.transpose.operand);
    case TILDE_EXPR_TERNARY:
      return tilde_expr_equal (a->u.ternary.cond, b->u.ternary.cond)
             && tilde_expr_equal (a->u.ternary.if_true, b->u.ternary.if_true)
             && tilde_expr_equal (a->u.ternary.if_false, b->u.ternary.if_false);
    case TILDE_EXPR_CALL:
    case TILDE_EXPR_COND_CALL:
      return name_equal (a->u.call.name.name, b->u.call.name.name)
             && expr_list_equal (a->u.call.args, a->u.call.n_args,
                                 b->u.call.args, b->u.call.n_args);
    case TILDE_EXPR_INDEXED:
      if (!tilde_expr_equal (a->u.indexed.base, b->u.indexed.base)
          || a->u.indexed.n_indices != b->u.indexed.n_indices)
        return FALSE;
      for (int i = 0; i < a->u.indexed.n_indices; i++)
        if (!index_equal (&a->u.indexed.indices[i], &b->u.indexed.indices[i]))
          return FALSE;
      return TRUE;
    case TILDE_EXPR_TUPLE_PROJ:
      return a->u.proj.slot == b->u.proj.slot
             && tilde_expr_equal (a->u.proj.base, b->u.proj.base);
    case TILDE_EXPR_ARRAY:
    case TILDE_EXPR_ROW_VECTOR:
    case TILDE_EXPR_TUPLE:
      return expr_list_equal (a->u.list.items, a->u.list.n_items,
                              b->u.list.items, b->u.list.n_items);
    case TILDE_EXPR_PAREN:
      return tilde_expr_equal (a->u.paren.inner, b->u.paren.inner);
    default:
      return FALSE;
    }
}

static gboolean
bounds_equal (const TildeBounds *a, const TildeBounds *b)
{
  return tilde_expr_equal (a->lower, b->lower) && tilde_expr_equal (a->upper, b->upper)
         && tilde_expr_equal (a->offset, b->offset)
         && tilde_expr_equal (a->multiplier, b->multiplier);
}

static gboolean
sized_type_equal (const TildeSizedType *a, const TildeSizedType *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  if (a->kind != b->kind || !tilde_expr_equal (a->size1, b->size1)
      || !tilde_expr_equal (a->size2, b->size2) || !bounds_equal (&a->bounds, &b->bounds)
      || !expr_list_equal (a->dims, a->n_dims, b->dims, b->n_dims)
      || !sized_type_equal (a->element, b->element) || a->n_elements != b->n_elements)
    return FALSE;
  for (int i = 0; i < a->n_elements; i++)
    if (!sized_type_equal (a->elements[i], b->elements[i]))
      return FALSE;
  return TRUE;
}

static gboolean
unsized_type_equal (const TildeUnsizedType *a, const TildeUnsizedType *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  if (a->kind != b->kind || a->n_dims != b->n_dims
      || !unsized_type_equal (a->element, b->element) || a->n_elements != b->n_elements)
    return FALSE;
  for (int i = 0; i < a->n_elements; i++)
    if (!unsized_type_equal (a->elements[i], b->elements[i]))
      return FALSE;
  return TRUE;
}

static gboolean
annotations_equal (const TildeAnnotation *a, int na, const TildeAnnotation *b, int nb)
{
  if (na != nb)
    return FALSE;
  for (int i = 0; i < na; i++)
    if (!name_equal (a[i].name.name, b[i].name.name) || a[i].has_parens != b[i].has_parens
        || !expr_list_equal (a[i].args, a[i].n_args, b[i].args, b[i].n_args))
      return FALSE;
  return TRUE;
}

static gboolean stmt_list_equal (TildeStmt *const *a, int na, TildeStmt *const *b, int nb);

static gboolean
var_decl_item_equal (const TildeStmt *a, int ia, const TildeStmt *b, int ib)
{
  const TildeVarDeclItem *x = &a->u.var_decl.items[ia];
  const TildeVarDeclItem *y = &b->u.var_decl.items[ib];

  return annotations_equal (a->u.var_decl.annotations, a->u.var_decl.n_annotations,
                            b->u.var_decl.annotations, b->u.var_decl.n_annotations)
         && a->u.var_decl.is_global == b->u.var_decl.is_global
         && sized_type_equal (a->u.var_decl.type, b->u.var_decl.type)
         && name_equal (x->ident.name, y->ident.name) && tilde_expr_equal (x->init, y->init);
}

static gboolean
fun_args_equal (const TildeStmt *a, const TildeStmt *b)
{
  if (a->u.fun_def.n_args != b->u.fun_def.n_args)
    return FALSE;
  for (int i = 0; i < a->u.fun_def.n_args; i++)
    {
      const TildeFunArg *x = &a->u.fun_def.args[i], *y = &b->u.fun_def.args[i];

      if (x->data_only != y->data_only || !unsized_type_equal (x->type, y->type)
          || !name_equal (x->ident.name, y->ident.name))
        return FALSE;
    }
  return TRUE;
}

gboolean
tilde_stmt_equal (const TildeStmt *a, const TildeStmt *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  if (a->kind != b->kind)
    return FALSE;
  switch (a->kind)
    {
    case TILDE_STMT_ERROR:
    case TILDE_STMT_BREAK:
    case TILDE_STMT_CONTINUE:
    case TILDE_STMT_SKIP:
      return TRUE;
    case TILDE_STMT_VAR_DECL:
      if (a->u.var_decl.n_items != b->u.var_decl.n_items)
        return FALSE;
      for (int i = 0; i < a->u.var_decl.n_items; i++)
        if (!var_decl_item_equal (a, i, b, i))
          return FALSE;
      return TRUE;
    case TILDE_STMT_FUN_DEF:
      return annotations_equal (a->u.fun_def.annotations, a->u.fun_def.n_annotations,
                                b->u.fun_def.annotations, b->u.fun_def.n_annotations)
             && unsized_type_equal (a->u.fun_def.return_type, b->u.fun_def.return_type)
             && name_equal (a->u.fun_def.name.name, b->u.fun_def.name.name)
             && fun_args_equal (a, b) && tilde_stmt_equal (a->u.fun_def.body, b->u.fun_def.body);
    case TILDE_STMT_ASSIGN:
      return a->u.assign.op == b->u.assign.op
             && tilde_expr_equal (a->u.assign.lhs, b->u.assign.lhs)
             && tilde_expr_equal (a->u.assign.rhs, b->u.assign.rhs);
    case TILDE_STMT_TILDE:
      return tilde_expr_equal (a->u.tilde.arg, b->u.tilde.arg)
             && name_equal (a->u.tilde.distribution.name, b->u.tilde.distribution.name)
             && expr_list_equal (a->u.tilde.args, a->u.tilde.n_args,
                                 b->u.tilde.args, b->u.tilde.n_args)
             && a->u.tilde.truncation == b->u.tilde.truncation
             && tilde_expr_equal (a->u.tilde.trunc_lower, b->u.tilde.trunc_lower)
             && tilde_expr_equal (a->u.tilde.trunc_upper, b->u.tilde.trunc_upper);
    case TILDE_STMT_TARGET_PLUS:
    case TILDE_STMT_JACOBIAN_PLUS:
      return tilde_expr_equal (a->u.increment.expr, b->u.increment.expr);
    case TILDE_STMT_CALL:
      return name_equal (a->u.call.name.name, b->u.call.name.name)
             && expr_list_equal (a->u.call.args, a->u.call.n_args, b->u.call.args, b->u.call.n_args);
    case TILDE_STMT_PRINT:
    case TILDE_STMT_REJECT:
    case TILDE_STMT_FATAL_ERROR:
      return expr_list_equal (a->u.printables.items, a->u.printables.n_items,
                              b->u.printables.items, b->u.printables.n_items);
    case TILDE_STMT_RETURN:
      return tilde_expr_equal (a->u.ret.expr, b->u.ret.expr);
    case TILDE_STMT_IF:
      return tilde_expr_equal (a->u.if_stmt.cond, b->u.if_stmt.cond)
             && tilde_stmt_equal (a->u.if_stmt.then_stmt, b->u.if_stmt.then_stmt)
             && tilde_stmt_equal (a->u.if_stmt.else_stmt, b->u.if_stmt.else_stmt);
    case TILDE_STMT_WHILE:
      return tilde_expr_equal (a->u.while_stmt.cond, b->u.while_stmt.cond)
             && tilde_stmt_equal (a->u.while_stmt.body, b->u.while_stmt.body);
    case TILDE_STMT_FOR:
      return name_equal (a->u.for_stmt.var.name, b->u.for_stmt.var.name)
             && tilde_expr_equal (a->u.for_stmt.lower, b->u.for_stmt.lower)
             && tilde_expr_equal (a->u.for_stmt.upper, b->u.for_stmt.upper)
             && tilde_stmt_equal (a->u.for_stmt.body, b->u.for_stmt.body);
    case TILDE_STMT_FOREACH:
      return name_equal (a->u.foreach_stmt.var.name, b->u.foreach_stmt.var.name)
             && tilde_expr_equal (a->u.foreach_stmt.container, b->u.foreach_stmt.container)
             && tilde_stmt_equal (a->u.foreach_stmt.body, b->u.foreach_stmt.body);
    case TILDE_STMT_PROFILE:
      return strcmp (a->u.profile.name, b->u.profile.name) == 0
             && stmt_list_equal (a->u.profile.stmts, a->u.profile.n_stmts,
                                 b->u.profile.stmts, b->u.profile.n_stmts);
    case TILDE_STMT_BLOCK:
      return stmt_list_equal (a->u.block.stmts, a->u.block.n_stmts,
                              b->u.block.stmts, b->u.block.n_stmts);
    default:
      return FALSE;
    }
}

/* Walks a statement list one declared variable at a time, so that a
 * declaration of several variables lines up with single declarations. */
typedef struct {
  TildeStmt *const *stmts;
  int               n;
  int               i;
  int               item;
} Cursor;

static gboolean
cursor_next (Cursor *c, const TildeStmt **stmt, int *item)
{
  if (c->i >= c->n)
    return FALSE;
  *stmt = c->stmts[c->i];
  *item = c->item;
  if ((*stmt)->kind == TILDE_STMT_VAR_DECL && c->item + 1 < (*stmt)->u.var_decl.n_items)
    c->item++;
  else
    {
      c->i++;
      c->item = 0;
    }
  return TRUE;
}

static gboolean
stmt_list_equal (TildeStmt *const *a, int na, TildeStmt *const *b, int nb)
{
  Cursor ca = { a, na, 0, 0 }, cb = { b, nb, 0, 0 };
  const TildeStmt *x, *y;
  int ix, iy;

  for (;;)
    {
      gboolean more_a = cursor_next (&ca, &x, &ix);
      gboolean more_b = cursor_next (&cb, &y, &iy);

      if (!more_a || !more_b)
        return more_a == more_b;
      if (x->kind == TILDE_STMT_VAR_DECL && y->kind == TILDE_STMT_VAR_DECL)
        {
          if (!var_decl_item_equal (x, ix, y, iy))
            return FALSE;
        }
      else if (!tilde_stmt_equal (x, y))
        return FALSE;
    }
}

gboolean
tilde_program_equal (const TildeProgram *a, const TildeProgram *b)
{
  for (int k = 0; k < TILDE_N_BLOCKS; k++)
    {
      const TildeBlock *x = a->blocks[k], *y = b->blocks[k];

      if (x == NULL || y == NULL)
        {
          if (x != y)
            return FALSE;
          continue;
        }
      if (!stmt_list_equal (x->stmts, x->n_stmts, y->stmts, y->n_stmts))
        return FALSE;
    }
  return TRUE;
}

/* ---- traversal ---- */

static void
foreach_stmt (TildeStmt *stmt, TildeStmtVisitor visit, gpointer user_data)
{
  if (stmt == NULL)
    return;
  visit (stmt, user_data);
  switch (stmt->kind)
    {
    case TILDE_STMT_FUN_DEF:
      foreach_stmt (stmt->u.fun_def.body, visit, user_data);
      break;
    case TILDE_STMT_IF:
      foreach_stmt (stmt->u.if_stmt.then_stmt, visit, user_data);
      foreach_stmt (stmt->u.if_stmt.else_stmt, visit, user_data);
      break;
    case TILDE_STMT_WHILE:
      foreach_stmt (stmt->u.while_stmt.body, visit, user_data);
      break;
    case TILDE_STMT_FOR:
      foreach_stmt (stmt->u.for_stmt.body, visit, user_data);
      break;
    case TILDE_STMT_FOREACH:
      foreach_stmt (stmt->u.foreach_stmt.body, visit, user_data);
      break;
    case TILDE_STMT_PROFILE:
      for (int i = 0; i < stmt->u.profile.n_stmts; i++)
        foreach_stmt (stmt->u.profile.stmts[i], visit, user_data);
      break;
    case TILDE_STMT_BLOCK:
      for (int i = 0; i < stmt->u.block.n_stmts; i++)
        foreach_stmt (stmt->u.block.stmts[i], visit, user_data);
      break;
    default:
      break;
    }
}

void
tilde_program_foreach_stmt (TildeProgram *program, TildeStmtVisitor visit, gpointer user_data)
{
  for (int k = 0; k < TILDE_N_BLOCKS; k++)
    if (program->blocks[k])
      for (int i = 0; i < program->blocks[k]->n_stmts; i++)
        foreach_stmt (program->blocks[k]->stmts[i], visit, user_data);
}

double
tilde_literal_value (const char *text)
{
  g_autoptr (GString) digits = g_string_new (NULL);

  for (const char *p = text; *p; p++)
    if (*p != '_')
      g_string_append_c (digits, *p);
  return g_ascii_strtod (digits->str, NULL);
}
