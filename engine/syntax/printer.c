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
  GString               *out;
  int                    indent;
  TildePrintFlags        flags;
  gboolean               grouped;      /* parenthesise every operation */
  const TildeSourceFile *root;
  const TildeComment   **comments;     /* of the main file, in order */
  int                    n_comments;
  int                    next_comment;
  int                    last_line;    /* source line where the last printed item ended */
} Printer;

static void print_expr (Printer *pr, const TildeExpr *e, int min_prec);
static void print_stmt (Printer *pr, const TildeStmt *s);

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

/* ---- layout and comments ---- */

static void
newline (Printer *pr)
{
  g_string_append_c (pr->out, '\n');
}

static void
indent (Printer *pr)
{
  for (int i = 0; i < pr->indent; i++)
    g_string_append (pr->out, "  ");
}

static gboolean
in_root (const Printer *pr, const TildeSpan *span)
{
  return pr->root == NULL || span->file == pr->root;
}

static gboolean
printable_here (const Printer *pr, const TildeSpan *span)
{
  return (pr->flags & TILDE_PRINT_EXPAND_INCLUDES) || in_root (pr, span);
}

static gsize
offset_of (const TildeSpan *span)
{
  return tilde_span_root_offset (span);
}

/* A blank line in the source before `line` is kept as one blank line. */
static void
blank_line_before (Printer *pr, int line)
{
  if (pr->last_line > 0 && line > pr->last_line + 1)
    newline (pr);
}

static void
print_comment_text (Printer *pr, const TildeComment *c)
{
  g_string_append_len (pr->out, c->text, c->length);
  /* A line comment must not swallow a trailing carriage return. */
  while (pr->out->len && pr->out->str[pr->out->len - 1] == '\r')
    g_string_truncate (pr->out, pr->out->len - 1);
}

/* Comments that begin before `limit`, each on a line of its own. */
static void
flush_comments (Printer *pr, gsize limit)
{
  while (pr->next_comment < pr->n_comments)
    {
      const TildeComment *c = pr->comments[pr->next_comment];

      if (c->span.begin_offset >= limit)
        break;
      pr->next_comment++;
      if (c->kind == TILDE_COMMENT_INCLUDE && (pr->flags & TILDE_PRINT_EXPAND_INCLUDES))
        continue;
      blank_line_before (pr, c->span.begin_line);
      indent (pr);
      print_comment_text (pr, c);
      newline (pr);
      pr->last_line = c->span.end_line;
    }
}

/* Comments inside or right after a statement that ended on `end_line`:
 * the first one on that line stays on the statement's line. */
static void
trailing_comments (Printer *pr, gsize end, int end_line)
{
  gboolean first = TRUE;

  while (pr->next_comment < pr->n_comments)
    {
      const TildeComment *c = pr->comments[pr->next_comment];
      gboolean inside = c->span.begin_offset < end;

      if (!inside && c->span.begin_line != end_line)
        break;
      pr->next_comment++;
      /* The text of an include inside a statement is already printed in it. */
      if (c->kind == TILDE_COMMENT_INCLUDE && inside)
        continue;
      if (first)
        {
          g_string_truncate (pr->out, pr->out->len - 1);   /* the newline */
          g_string_append (pr->out, "  ");
        }
      else
        indent (pr);
      print_comment_text (pr, c);
      newline (pr);
      pr->last_line = MAX (pr->last_line, c->span.end_line);
      first = FALSE;
      if (c->kind == TILDE_COMMENT_LINE && !inside)
        break;
    }
}

static void
print_annotations (Printer *pr, const TildeAnnotation *a, int n)
{
  for (int i = 0; i < n; i++)
    {
      g_string_append_printf (pr->out, "@%s", a[i].name.name);
      if (a[i].has_parens)
        {
          g_string_append_c (pr->out, '(');
          print_list (pr, a[i].args, a[i].n_args);
          g_string_append_c (pr->out, ')');
        }
      g_string_append_c (pr->out, ' ');
    }
}

/* Statements of a block, with the comments between them; `end` is where the
 * closing brace is. */
static void
print_stmts (Printer *pr, TildeStmt *const *stmts, int n, gsize end)
{
  for (int i = 0; i < n; i++)
    {
      const TildeStmt *s = stmts[i];

      if (!printable_here (pr, &s->span))
        continue;
      flush_comments (pr, offset_of (&s->span));
      if (in_root (pr, &s->span))
        blank_line_before (pr, s->span.begin_line);
      print_stmt (pr, s);
      if (in_root (pr, &s->span))
        {
          pr->last_line = s->span.end_line;
          trailing_comments (pr, s->span.end_offset, s->span.end_line);
        }
    }
  flush_comments (pr, end);
}

/* A comment on the line of an opening brace stays there. */
static void
same_line_comments (Printer *pr, const TildeSpan *span)
{
  while (pr->next_comment < pr->n_comments && in_root (pr, span))
    {
      const TildeComment *c = pr->comments[pr->next_comment];

      if (c->span.begin_line != span->begin_line || c->span.begin_offset < span->begin_offset
          || c->kind == TILDE_COMMENT_INCLUDE)
        break;
      pr->next_comment++;
      g_string_append (pr->out, "  ");
      print_comment_text (pr, c);
      if (c->kind == TILDE_COMMENT_LINE)
        break;
    }
}

static void
open_brace (Printer *pr, const TildeSpan *span)
{
  g_string_append (pr->out, " {");
  same_line_comments (pr, span);
  newline (pr);
  pr->indent++;
  if (in_root (pr, span))
    pr->last_line = span->begin_line;
}

static void
close_brace (Printer *pr)
{
  pr->indent--;
  indent (pr);
  g_string_append_c (pr->out, '}');
}

/* The position of the closing brace of a statement or block. */
static gsize
closing_offset (const Printer *pr, const TildeSpan *span)
{
  if (!in_root (pr, span) || span->end_file != span->file || span->end_offset == 0)
    return offset_of (span);
  return span->end_offset - 1;
}

static void
print_block_body (Printer *pr, const TildeStmt *block)
{
  open_brace (pr, &block->span);
  print_stmts (pr, block->u.block.stmts, block->u.block.n_stmts, closing_offset (pr, &block->span));
  close_brace (pr);
}

/* The body of if/while/for: a block opens on the same line, anything else
 * goes on the next line, indented. Ends without a newline. */
static void
print_body (Printer *pr, const TildeStmt *body)
{
  if (body == NULL)
    return;
  if (body->kind == TILDE_STMT_BLOCK)
    {
      print_block_body (pr, body);
      return;
    }
  newline (pr);
  pr->indent++;
  print_stmt (pr, body);
  g_string_truncate (pr->out, pr->out->len - 1);   /* print_stmt's newline */
  pr->indent--;
}

static void
print_var_decl (Printer *pr, const TildeStmt *s)
{
  /* One declaration per line: `real a, b;` becomes two lines. */
  for (int i = 0; i < s->u.var_decl.n_items; i++)
    {
      const TildeVarDeclItem *item = &s->u.var_decl.items[i];

      if (i)
        indent (pr);
      print_annotations (pr, s->u.var_decl.annotations, s->u.var_decl.n_annotations);
      print_sized_type (pr, s->u.var_decl.type);
      g_string_append_printf (pr->out, " %s", item->ident.name);
      if (item->init)
        {
          g_string_append (pr->out, " = ");
          print_expr (pr, item->init, P_TERNARY);
        }
      g_string_append_c (pr->out, ';');
      if (i + 1 < s->u.var_decl.n_items)
        newline (pr);
    }
}

static void
print_fun_def (Printer *pr, const TildeStmt *s)
{
  print_annotations (pr, s->u.fun_def.annotations, s->u.fun_def.n_annotations);
  print_unsized_type (pr, s->u.fun_def.return_type);
  g_string_append_printf (pr->out, " %s(", s->u.fun_def.name.name);
  for (int i = 0; i < s->u.fun_def.n_args; i++)
    {
      const TildeFunArg *arg = &s->u.fun_def.args[i];

      if (i)
        g_string_append (pr->out, ", ");
      if (arg->data_only)
        g_string_append (pr->out, "data ");
      print_unsized_type (pr, arg->type);
      g_string_append_printf (pr->out, " %s", arg->ident.name);
    }
  g_string_append_c (pr->out, ')');
  if (s->u.fun_def.body == NULL)
    g_string_append_c (pr->out, ';');
  else
    print_body (pr, s->u.fun_def.body);
}

static void
print_if (Printer *pr, const TildeStmt *s)
{
  const TildeStmt *then_stmt = s->u.if_stmt.then_stmt;
  const TildeStmt *else_stmt = s->u.if_stmt.else_stmt;

  g_string_append (pr->out, "if (");
  print_expr (pr, s->u.if_stmt.cond, P_TERNARY);
  g_string_append_c (pr->out, ')');
  print_body (pr, then_stmt);
  if (else_stmt == NULL)
    return;
  if (then_stmt && then_stmt->kind == TILDE_STMT_BLOCK)
    g_string_append (pr->out, " else");
  else
    {
      newline (pr);
      indent (pr);
      g_string_append (pr->out, "else");
    }
  if (else_stmt->kind == TILDE_STMT_IF)
    {
      g_string_append_c (pr->out, ' ');
      print_if (pr, else_stmt);
    }
  else
    print_body (pr, else_stmt);
}

static void
print_printables (Printer *pr, const char *keyword, const TildeStmt *s)
{
  g_string_append_printf (pr->out, "%s(", keyword);
  print_list (pr, s->u.printables.items, s->u.printables.n_items);
  g_string_append (pr->out, ");");
}

static void
print_tilde (Printer *pr, const TildeStmt *s)
{
  print_expr (pr, s->u.tilde.arg, P_TERNARY);
  g_string_append_printf (pr->out, " ~ %s(", s->u.tilde.distribution.name);
  print_list (pr, s->u.tilde.args, s->u.tilde.n_args);
  g_string_append_c (pr->out, ')');
  if (s->u.tilde.truncation != TILDE_TRUNCATE_NONE)
    {
      g_string_append (pr->out, " T[");
      print_expr (pr, s->u.tilde.trunc_lower, P_TERNARY);
      g_string_append (pr->out, ", ");
      print_expr (pr, s->u.tilde.trunc_upper, P_TERNARY);
      g_string_append_c (pr->out, ']');
    }
  g_string_append_c (pr->out, ';');
}

/* Prints one statement at the current indentation, ending with a newline. */
static void
print_stmt (Printer *pr, const TildeStmt *s)
{
  GString *out = pr->out;

  indent (pr);
  switch (s->kind)
    {
    case TILDE_STMT_ERROR:
      g_string_append (out, "/* error */;");
      break;
    case TILDE_STMT_VAR_DECL:
      print_var_decl (pr, s);
      break;
    case TILDE_STMT_FUN_DEF:
      print_fun_def (pr, s);
      break;
    case TILDE_STMT_ASSIGN:
      print_expr (pr, s->u.assign.lhs, P_TERNARY);
      g_string_append_printf (out, " %s ", tilde_assign_op_to_string (s->u.assign.op));
      print_expr (pr, s->u.assign.rhs, P_TERNARY);
      g_string_append_c (out, ';');
      break;
    case TILDE_STMT_TILDE:
      print_tilde (pr, s);
      break;
    case TILDE_STMT_TARGET_PLUS:
    case TILDE_STMT_JACOBIAN_PLUS:
      g_string_append (out, s->kind == TILDE_STMT_TARGET_PLUS ? "target += " : "jacobian += ");
      print_expr (pr, s->u.increment.expr, P_TERNARY);
      g_string_append_c (out, ';');
      break;
    case TILDE_STMT_CALL:
      g_string_append_printf (out, "%s(", s->u.call.name.name);
      print_list (pr, s->u.call.args, s->u.call.n_args);
      g_string_append (out, ");");
      break;
    case TILDE_STMT_PRINT:
      print_printables (pr, "print", s);
      break;
    case TILDE_STMT_REJECT:
      print_printables (pr, "reject", s);
      break;
    case TILDE_STMT_FATAL_ERROR:
      print_printables (pr, "fatal_error", s);
      break;
    case TILDE_STMT_BREAK:
      g_string_append (out, "break;");
      break;
    case TILDE_STMT_CONTINUE:
      g_string_append (out, "continue;");
      break;
    case TILDE_STMT_RETURN:
      g_string_append (out, "return");
      if (s->u.ret.expr)
        {
          g_string_append_c (out, ' ');
          print_expr (pr, s->u.ret.expr, P_TERNARY);
        }
      g_string_append_c (out, ';');
      break;
    case TILDE_STMT_IF:
      print_if (pr, s);
      break;
    case TILDE_STMT_WHILE:
      g_string_append (out, "while (");
      print_expr (pr, s->u.while_stmt.cond, P_TERNARY);
      g_string_append_c (out, ')');
      print_body (pr, s->u.while_stmt.body);
      break;
    case TILDE_STMT_FOR:
      g_string_append_printf (out, "for (%s in ", s->u.for_stmt.var.name);
      print_expr (pr, s->u.for_stmt.lower, P_TERNARY);
      g_string_append_c (out, ':');
      print_expr (pr, s->u.for_stmt.upper, P_TERNARY);
      g_string_append_c (out, ')');
      print_body (pr, s->u.for_stmt.body);
      break;
    case TILDE_STMT_FOREACH:
      g_string_append_printf (out, "for (%s in ", s->u.foreach_stmt.var.name);
      print_expr (pr, s->u.foreach_stmt.container, P_TERNARY);
      g_string_append_c (out, ')');
      print_body (pr, s->u.foreach_stmt.body);
      break;
    case TILDE_STMT_PROFILE:
      g_string_append_printf (out, "profile(%s)", s->u.profile.name);
      open_brace (pr, &s->span);
      print_stmts (pr, s->u.profile.stmts, s->u.profile.n_stmts, closing_offset (pr, &s->span));
      close_brace (pr);
      break;
    case TILDE_STMT_BLOCK:
      g_string_append_c (out, '{');
      same_line_comments (pr, &s->span);
      newline (pr);
      pr->indent++;
      if (in_root (pr, &s->span))
        pr->last_line = s->span.begin_line;
      print_stmts (pr, s->u.block.stmts, s->u.block.n_stmts, closing_offset (pr, &s->span));
      close_brace (pr);
      break;
    case TILDE_STMT_SKIP:
      g_string_append_c (out, ';');
      break;
    }
  newline (pr);
}

/* ---- programs ---- */

static int
compare_comments (gconstpointer a, gconstpointer b)
{
  const TildeComment *x = *(const TildeComment *const *) a;
  const TildeComment *y = *(const TildeComment *const *) b;

  return x->span.begin_offset < y->span.begin_offset ? -1
         : x->span.begin_offset > y->span.begin_offset;
}

static void
collect_comments (Printer *pr, const TildeProgram *program)
{
  int n = 0;

  if (pr->flags & TILDE_PRINT_NO_COMMENTS)
    return;
  pr->comments = g_new (const TildeComment *, program->n_comments + 1);
  for (int i = 0; i < program->n_comments; i++)
    if (program->comments[i].span.file == pr->root)
      pr->comments[n++] = &program->comments[i];
  qsort (pr->comments, (gsize) n, sizeof (const TildeComment *), compare_comments);
  pr->n_comments = n;
}

char *
tilde_print_program (const TildeProgram *program, TildePrintFlags flags)
{
  Printer pr = { g_string_new (NULL), 0, flags, FALSE, NULL, NULL, 0, 0, 0 };

  pr.root = program->sources ? tilde_source_set_get_main (program->sources) : NULL;
  collect_comments (&pr, program);
  for (int k = 0; k < TILDE_N_BLOCKS; k++)
    {
      const TildeBlock *block = program->blocks[k];

      if (block == NULL || !printable_here (&pr, &block->span))
        continue;
      if (program->functions_only)
        {
          print_stmts (&pr, block->stmts, block->n_stmts, G_MAXSIZE);
          continue;
        }
      flush_comments (&pr, offset_of (&block->span));
      if (in_root (&pr, &block->span))
        blank_line_before (&pr, block->span.begin_line);
      g_string_append (pr.out, tilde_block_kind_to_string (block->kind));
      open_brace (&pr, &block->span);
      print_stmts (&pr, block->stmts, block->n_stmts, closing_offset (&pr, &block->span));
      close_brace (&pr);
      newline (&pr);
      if (in_root (&pr, &block->span))
        {
          pr.last_line = block->span.end_line;
          trailing_comments (&pr, block->span.end_offset, block->span.end_line);
        }
    }
  flush_comments (&pr, G_MAXSIZE);
  g_free (pr.comments);
  return g_string_free (pr.out, FALSE);
}

char *
tilde_print_stmt (const TildeStmt *stmt)
{
  Printer pr = { g_string_new (NULL), 0, TILDE_PRINT_EXPAND_INCLUDES, FALSE, NULL, NULL, 0, 0, 0 };

  print_stmt (&pr, stmt);
  return g_string_free (pr.out, FALSE);
}

char *
tilde_print_expr (const TildeExpr *expr)
{
  Printer pr = { g_string_new (NULL), 0, 0, FALSE, NULL, NULL, 0, 0, 0 };

  print_expr (&pr, expr, P_TERNARY);
  return g_string_free (pr.out, FALSE);
}

char *
tilde_print_expr_grouped (const TildeExpr *expr)
{
  Printer pr = { g_string_new (NULL), 0, 0, TRUE, NULL, NULL, 0, 0, 0 };

  print_expr (&pr, expr, P_TERNARY);
  return g_string_free (pr.out, FALSE);
}

char *
tilde_print_sized_type (const TildeSizedType *type)
{
  Printer pr = { g_string_new (NULL), 0, 0, FALSE, NULL, NULL, 0, 0, 0 };

  print_sized_type (&pr, type);
  return g_string_free (pr.out, FALSE);
}

char *
tilde_print_unsized_type (const TildeUnsizedType *type)
{
  Printer pr = { g_string_new (NULL), 0, 0, FALSE, NULL, NULL, 0, 0, 0 };

  print_unsized_type (&pr, type);
  return g_string_free (pr.out, FALSE);
}
