/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "printer.h"

#include <string.h>

/* Binding strength used to decide on parentheses; mirrors the parser. */
enum {
  P_TERNARY = 0,
  P_OR,
  P_AND,
  P_EQUALITY,
  P_COMPARISON,
  P_ADDITIVE,
  P_MULTIPLICATIVE,
  P_LEFT_DIVISION,
  P_UNARY,
  P_POWER,
  P_POSTFIX,
  P_PRIMARY,
};

typedef struct {
  GString  *out;
  gboolean  grouped;      /* parenthesise every operation */
} Printer;

static void print_expr (Printer *pr, const TildeExpr *e, int min_prec);

static int
binary_prec (TildeBinaryOp op)
{
  switch (op)
    {
    case TILDE_OP_OR: return P_OR;
    case TILDE_OP_AND: return P_AND;
    case TILDE_OP_EQUALS:
    case TILDE_OP_NEQUALS: return P_EQUALITY;
    case TILDE_OP_LESS:
    case TILDE_OP_LEQ:
    case TILDE_OP_GREATER:
    case TILDE_OP_GEQ: return P_COMPARISON;
    case TILDE_OP_PLUS:
    case TILDE_OP_MINUS: return P_ADDITIVE;
    case TILDE_OP_IDIVIDE:
    case TILDE_OP_LDIVIDE: return P_LEFT_DIVISION;
    case TILDE_OP_POW:
    case TILDE_OP_ELT_POW: return P_POWER;
    default: return P_MULTIPLICATIVE;
    }
}

static int
expr_prec (const TildeExpr *e)
{
  switch (e->kind)
    {
    case TILDE_EXPR_BINARY: return binary_prec (e->u.binary.op);
    case TILDE_EXPR_PREFIX: return P_UNARY;
    case TILDE_EXPR_TRANSPOSE: return P_POSTFIX;
    case TILDE_EXPR_TERNARY: return P_TERNARY;
    default: return P_PRIMARY;
    }
}

static void
print_list (Printer *pr, TildeExpr *const *items, int n)
{
  for (int i = 0; i < n; i++)
    {
      if (i)
        g_string_append (pr->out, ", ");
      print_expr (pr, items[i], P_TERNARY);
    }
}

static gboolean
is_conditioning_name (const char *name)
{
  static const char *const suffixes[] = {
    "_lpdf", "_lupdf", "_lpmf", "_lupmf", "_cdf", "_lcdf", "_lccdf",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (suffixes); i++)
    if (g_str_has_suffix (name, suffixes[i]))
      return TRUE;
  return FALSE;
}

static void
print_call (Printer *pr, const TildeExpr *e)
{
  g_string_append (pr->out, e->u.call.name.name);
  g_string_append_c (pr->out, '(');
  if (e->kind == TILDE_EXPR_COND_CALL && e->u.call.n_args > 0)
    {
      print_expr (pr, e->u.call.args[0], P_TERNARY);
      if (e->u.call.n_args > 1)
        {
          g_string_append (pr->out, " | ");
          print_list (pr, e->u.call.args + 1, e->u.call.n_args - 1);
        }
      else if (!is_conditioning_name (e->u.call.name.name))
        g_string_append (pr->out, " |");
    }
  else
    print_list (pr, e->u.call.args, e->u.call.n_args);
  g_string_append_c (pr->out, ')');
}

static void
print_index (Printer *pr, const TildeIndex *index)
{
  switch (index->kind)
    {
    case TILDE_INDEX_ALL:
      g_string_append_c (pr->out, ':');
      break;
    case TILDE_INDEX_SINGLE:
      print_expr (pr, index->lower, P_TERNARY);
      break;
    case TILDE_INDEX_UPFROM:
      print_expr (pr, index->lower, P_TERNARY);
      g_string_append_c (pr->out, ':');
      break;
    case TILDE_INDEX_DOWNFROM:
      g_string_append_c (pr->out, ':');
      print_expr (pr, index->upper, P_TERNARY);
      break;
    case TILDE_INDEX_BETWEEN:
      print_expr (pr, index->lower, P_TERNARY);
      g_string_append_c (pr->out, ':');
      print_expr (pr, index->upper, P_TERNARY);
      break;
    }
}

static void
print_expr_inner (Printer *pr, const TildeExpr *e)
{
  GString *out = pr->out;

  switch (e->kind)
    {
    case TILDE_EXPR_ERROR:
      g_string_append (out, "/* error */");
      break;
    case TILDE_EXPR_VARIABLE:
      g_string_append (out, e->u.variable.name);
      break;
    case TILDE_EXPR_INT:
    case TILDE_EXPR_REAL:
    case TILDE_EXPR_STRING:
      g_string_append (out, e->u.literal.text);
      break;
    case TILDE_EXPR_IMAG:
      g_string_append_printf (out, "%si", e->u.literal.text);
      break;
    case TILDE_EXPR_BINARY:
      {
        int prec = binary_prec (e->u.binary.op);
        gboolean right = prec == P_POWER;
        const TildeExpr *rhs = e->u.binary.rhs;

        print_expr (pr, e->u.binary.lhs, right ? prec + 1 : prec);
        g_string_append_printf (out, " %s ", tilde_binary_op_to_string (e->u.binary.op));
        /* The grammar lets a prefix operation stand unparenthesised after ^. */
        if (right && rhs->kind == TILDE_EXPR_PREFIX)
          print_expr (pr, rhs, P_UNARY);
        else
          print_expr (pr, rhs, right ? prec : prec + 1);
        break;
      }
    case TILDE_EXPR_PREFIX:
      g_string_append (out, tilde_prefix_op_to_string (e->u.prefix.op));
      print_expr (pr, e->u.prefix.operand, P_POWER);
      break;
    case TILDE_EXPR_TRANSPOSE:
      print_expr (pr, e->u.transpose.operand, P_POSTFIX);
      g_string_append_c (out, '\'');
      break;
    case TILDE_EXPR_TERNARY:
      print_expr (pr, e->u.ternary.cond, P_OR);
      g_string_append (out, " ? ");
      print_expr (pr, e->u.ternary.if_true, P_TERNARY);
      g_string_append (out, " : ");
      print_expr (pr, e->u.ternary.if_false, P_TERNARY);
      break;
    case TILDE_EXPR_CALL:
    case TILDE_EXPR_COND_CALL:
      print_call (pr, e);
      break;
    case TILDE_EXPR_TARGET:
      g_string_append (out, "target()");
      break;
    case TILDE_EXPR_INDEXED:
      print_expr (pr, e->u.indexed.base, P_PRIMARY);
      g_string_append_c (out, '[');
      for (int i = 0; i < e->u.indexed.n_indices; i++)
        {
          if (i)
            g_string_append (out, ", ");
          print_index (pr, &e->u.indexed.indices[i]);
        }
      g_string_append_c (out, ']');
      break;
    case TILDE_EXPR_TUPLE_PROJ:
      print_expr (pr, e->u.proj.base, P_PRIMARY);
      if (e->u.proj.text)
        g_string_append (out, e->u.proj.text);
      else
        g_string_append_printf (out, ".%d", e->u.proj.slot);
      break;
    case TILDE_EXPR_ARRAY:
      g_string_append_c (out, '{');
      print_list (pr, e->u.list.items, e->u.list.n_items);
      g_string_append_c (out, '}');
      break;
    case TILDE_EXPR_ROW_VECTOR:
      g_string_append_c (out, '[');
      print_list (pr, e->u.list.items, e->u.list.n_items);
      g_string_append_c (out, ']');
      break;
    case TILDE_EXPR_TUPLE:
      g_string_append_c (out, '(');
      print_list (pr, e->u.list.items, e->u.list.n_items);
      g_string_append_c (out, ')');
      break;
    case TILDE_EXPR_PAREN:
      g_string_append_c (out, '(');
      print_expr (pr, e->u.paren.inner, P_TERNARY);
      g_string_append_c (out, ')');
      break;
    }
}

static void
print_expr (Printer *pr, const TildeExpr *e, int min_prec)
{
  int prec;
  gboolean parens;

  if (e == NULL)
    return;
  prec = expr_prec (e);
  parens = prec < min_prec || (pr->grouped && prec < P_PRIMARY);
  if (parens)
    g_string_append_c (pr->out, '(');
  print_expr_inner (pr, e);
  if (parens)
    g_string_append_c (pr->out, ')');
}

/* ---- types ---- */

static void
print_bounds (Printer *pr, const TildeBounds *b)
{
  const char *names[] = { "lower", "upper", "offset", "multiplier" };
  const TildeExpr *exprs[] = { b->lower, b->upper, b->offset, b->multiplier };
  gboolean any = FALSE;

  for (int i = 0; i < 4; i++)
    {
      if (exprs[i] == NULL)
        continue;
      g_string_append (pr->out, any ? ", " : "<");
      g_string_append_printf (pr->out, "%s=", names[i]);
      /* Bounds may not hold unparenthesised comparisons or conditionals. */
      print_expr (pr, exprs[i], P_ADDITIVE);
      any = TRUE;
    }
  if (any)
    g_string_append_c (pr->out, '>');
}

static void
print_sized_type (Printer *pr, const TildeSizedType *t)
{
  if (t->kind == TILDE_DECL_ARRAY)
    {
      g_string_append (pr->out, "array[");
      print_list (pr, t->dims, t->n_dims);
      g_string_append (pr->out, "] ");
      if (t->element)
        print_sized_type (pr, t->element);
      return;
    }
  if (t->kind == TILDE_DECL_TUPLE)
    {
      g_string_append (pr->out, "tuple(");
      for (int i = 0; i < t->n_elements; i++)
        {
          if (i)
            g_string_append (pr->out, ", ");
          print_sized_type (pr, t->elements[i]);
        }
      g_string_append_c (pr->out, ')');
      return;
    }
  g_string_append (pr->out, tilde_decl_type_kind_to_string (t->kind));
  print_bounds (pr, &t->bounds);
  if (t->size1)
    {
      g_string_append_c (pr->out, '[');
      print_expr (pr, t->size1, P_TERNARY);
      if (t->size2)
        {
          g_string_append (pr->out, ", ");
          print_expr (pr, t->size2, P_TERNARY);
        }
      g_string_append_c (pr->out, ']');
    }
}

static void
print_unsized_type (Printer *pr, const TildeUnsizedType *t)
{
  switch (t->kind)
    {
    case TILDE_UTYPE_ARRAY:
      g_string_append (pr->out, "array[");
      for (int i = 1; i < t->n_dims; i++)
        g_string_append_c (pr->out, ',');
      g_string_append (pr->out, "] ");
      if (t->element)
        print_unsized_type (pr, t->element);
      break;
    case TILDE_UTYPE_TUPLE:
      g_string_append (pr->out, "tuple(");
      for (int i = 0; i < t->n_elements; i++)
        {
          if (i)
            g_string_append (pr->out, ", ");
          print_unsized_type (pr, t->elements[i]);
        }
      g_string_append_c (pr->out, ')');
      break;
    default:
      g_string_append (pr->out, tilde_unsized_type_kind_to_string (t->kind));
      break;
    }
}

char *
tilde_print_expr (const TildeExpr *expr)
{
  Printer pr = { g_string_new (NULL), FALSE };

  print_expr (&pr, expr, P_TERNARY);
  return g_string_free (pr.out, FALSE);
}

char *
tilde_print_expr_grouped (const TildeExpr *expr)
{
  Printer pr = { g_string_new (NULL), TRUE };

  print_expr (&pr, expr, P_TERNARY);
  return g_string_free (pr.out, FALSE);
}

char *
tilde_print_sized_type (const TildeSizedType *type)
{
  Printer pr = { g_string_new (NULL), FALSE };

  print_sized_type (&pr, type);
  return g_string_free (pr.out, FALSE);
}

char *
tilde_print_unsized_type (const TildeUnsizedType *type)
{
  Printer pr = { g_string_new (NULL), FALSE };

  print_unsized_type (&pr, type);
  return g_string_free (pr.out, FALSE);
}
