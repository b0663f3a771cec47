/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "parser.h"

#include <string.h>

#include "printer.h"

/* ---- messages (stanc's wording where stanc has one) ---- */

#define MSG_UNEXPECTED_AFTER_EXPR \
  "Unexpected input after the conclusion of a valid expression.\n" \
  "You may be missing a \",\" between expressions, an operator, or a terminating \"}\", \")\", \"]\", or \";\"."
#define MSG_INCOMPLETE_BINARY \
  "Found an incomplete binary expression - are you missing the right hand side?"
#define MSG_INVALID_TYPE \
  "Invalid type in declaration. Valid types:\n" \
  "  int, real, vector, row_vector, matrix,\n" \
  "  unit_vector, simplex, sum_to_zero_vector, ordered, positive_ordered,\n" \
  "  corr_matrix, cov_matrix, cholesky_factor_corr, cholesky_factor_cov,\n" \
  "  sum_to_zero_matrix, row_stochastic_matrix, column_stochastic_matrix,\n" \
  "  tuple(...)\n" \
  "optionally preceded by a single array[...]"
#define MSG_ILL_FORMED_BLOCK \
  "Ill-formed block. Expected a statement, variable declaration, or just \"}\"."
#define MSG_BLOCK_EOF "Variable declaration, statement or \"}\" expected."
#define MSG_FUN_APP \
  "Ill-formed function application. Expect comma-separated list of expressions followed by \")\" after \"(\"."
#define MSG_COND_APP \
  "Ill-formed conditional distribution evaluation. Expect comma-separated list of expressions followed by \")\" after \"|\"."
#define MSG_ASSIGNABLE "Expected an assignable value but found a general expression."
#define MSG_EXPR_NOT_STMT \
  "Ill-formed phrase. Found an expression where we expected a statement. Did you forget a \";\"?"
#define MSG_LOCAL_IDENT \
  "Identifier expected after sized type in local (or model block) variable declaration. " \
  "(No transformations/constraints allowed.)"
#define MSG_TOP_IDENT "Identifier expected after type in top-level variable declaration."
#define MSG_AFTER_COMMA \
  "Expected a new identifier after comma in declaration.\n" \
  "All variables declared must be of the same type, and any initializing assignment must " \
  "follow the identifier before the next comma."
#define MSG_NO_ASSIGN \
  "Cannot assign to variables in the \"data\" or \"parameters\" blocks\n" \
  "Expected \";\" after variable declaration."
#define MSG_ARG_DECL \
  "An argument declaration (unsized and unconstrained type followed by identifier) is expected."
#define MSG_RETURN \
  "Ill-formed return statement. \";\" or expression followed by \";\" expected after \"return\"."
#define MSG_IF_TEST "Expected \"(\" expression \")\" for the test of the if statement."
#define MSG_WHILE_TEST "Expected \"(\" expression \")\" for the test of the while statement."
#define MSG_ARROW \
  "The arrow-style assignment operator '<-' was removed in Stan 2.32, use '=' instead."
#define MSG_FUN_BODY \
  "Either \"{\" statement \"}\" is expected for a function definition or \";\" for a function forward declaration."

static const char *const block_open_messages[TILDE_N_BLOCKS] = {
  "\"{\" expected after \"functions\".",
  "\"{\" followed by a list of top-level variable declarations is expected after seeing \"data\".",
  "We expect \"{\" after \"transformed data\".",
  "Expected \"{\" after \"parameters\".",
  "We expect \"{\" after \"transformed parameters\".",
  "Expected \"{\" after \"model\".",
  "Expected \"{\" after \"generated quantities\".",
};

static const char *const after_block_messages[TILDE_N_BLOCKS + 1] = {
  "Expected \"functions {\" or \"data {\" or \"transformed data {\" or \"parameters {\" or "
  "\"transformed parameters {\" or \"model {\" or \"generated quantities {\".",
  "Expected \"data {\" or \"transformed data {\" or \"parameters {\" or "
  "\"transformed parameters {\" or \"model {\" or \"generated quantities {\".",
  "Expected \"transformed data {\" or \"parameters {\" or \"transformed parameters {\" or "
  "\"model {\" or \"generated quantities {\".",
  "Expected \"parameters {\", \"transformed parameters {\", \"model {\", "
  "\"generated quantities {\" or end-of-file after end of transformed data block.",
  "\"transformed parameters {\", \"model {\" or \"generated quantities {\" expected after end "
  "of parameters block.",
  "\"model {\" or \"generated quantities {\" expected after end of transformed parameters block.",
  "Expected \"generated quantities {\" or end of file after end of model block.",
  "Expected end of file after end of generated quantities block.",
};

/* ---- parser state ---- */

typedef enum {
  LIST_FUNCTIONS,    /* functions block */
  LIST_DECLS_ONLY,   /* data, parameters */
  LIST_TOP,          /* transformed data, transformed parameters, generated quantities */
  LIST_LOCAL,        /* model block, nested blocks, profile bodies */
} ListKind;

typedef struct {
  TildeArena       *arena;
  TildeSourceSet   *set;
  TildeLexer       *lexer;
  GPtrArray        *diags;
  GPtrArray        *stack;       /* scratch for lists under construction */
  TildeToken        tok;
  TildeToken        prev;
  TildeToken        ahead;
  gboolean          has_ahead;
  int               depth;
  gboolean          err;         /* an error is reported and not yet recovered from */
  gboolean          panic;       /* the rest of the input is ignored */
  int               n_errors;
  gboolean          functions_only;
  gboolean          complete;    /* the erroneous statement was read to its end */
  const TildeExpr  *arrow;       /* an `a <-b` read as a < -b */
  TildeSpan         arrow_span;
  TildeExpr        *pending;     /* read already: the next primary expression */
} Parser;

static void
next_token (Parser *p, TildeToken *out)
{
  if (p->panic)
    {
      *out = p->tok;
      out->kind = TILDE_TOK_EOF;
      out->length = 0;
      return;
    }
  tilde_lexer_next (p->lexer, out);
}

static void
advance (Parser *p)
{
  p->prev = p->tok;
  if (p->has_ahead && !p->panic)
    {
      p->tok = p->ahead;
      p->has_ahead = FALSE;
    }
  else
    next_token (p, &p->tok);
}

static const TildeToken *
peek (Parser *p)
{
  if (!p->has_ahead)
    {
      next_token (p, &p->ahead);
      p->has_ahead = TRUE;
    }
  return &p->ahead;
}

static gboolean
at (Parser *p, TildeTokenKind kind)
{
  return p->tok.kind == kind;
}

static gboolean
accept (Parser *p, TildeTokenKind kind)
{
  if (p->tok.kind != kind)
    return FALSE;
  advance (p);
  return TRUE;
}

static void
report_span (Parser *p, const TildeSpan *span, const char *message)
{
  TildeDiagnostic *diag;

  if (p->err || p->panic)
    return;
  p->err = TRUE;
  diag = tilde_diagnostic_new (TILDE_SEVERITY_ERROR, TILDE_DIAG_PARSING,
                               span->file ? span->file->name : NULL,
                               span->begin_line, span->begin_column,
                               span->end_file == span->file ? span->end_line : span->begin_line,
                               span->end_file == span->file ? span->end_column : span->begin_column,
                               message);
  if (span->file)
    tilde_source_file_add_include_frames (span->file, diag);
  g_ptr_array_add (p->diags, diag);
  if (++p->n_errors >= TILDE_PARSE_MAX_ERRORS)
    p->panic = TRUE;
}

static void
report (Parser *p, const char *message)
{
  report_span (p, &p->tok.span, message);
}

static gboolean
enter (Parser *p)
{
  if (++p->depth <= TILDE_PARSE_MAX_DEPTH)
    return TRUE;
  {
    g_autofree char *msg = g_strdup_printf ("Expressions and statements may not be nested "
                                            "more than %d levels deep.",
                                            TILDE_PARSE_MAX_DEPTH);
    report (p, msg);
    p->panic = TRUE;
  }
  return FALSE;
}

static void
leave (Parser *p)
{
  p->depth--;
}

static TildeSpan
span_from (Parser *p, const TildeSpan *start)
{
  return tilde_span_join (start, &p->prev.span);
}

/* ---- lists ---- */

static guint
list_begin (Parser *p)
{
  return p->stack->len;
}

static void
list_push (Parser *p, gpointer item)
{
  g_ptr_array_add (p->stack, item);
}

static gpointer *
list_end (Parser *p, guint mark, int *n)
{
  guint count = p->stack->len - mark;
  gpointer *items = NULL;

  *n = (int) count;
  if (count)
    items = tilde_arena_memdup (p->arena, p->stack->pdata + mark, count * sizeof (gpointer));
  g_ptr_array_set_size (p->stack, mark);
  return items;
}

/* For lists of structs: the pushed pointers are copied into an array. */
static gpointer
struct_list_end (Parser *p, guint mark, gsize size, int *n)
{
  guint count = p->stack->len - mark;
  guint8 *items = NULL;

  *n = (int) count;
  if (count)
    {
      items = tilde_arena_alloc (p->arena, size * count);
      for (guint i = 0; i < count; i++)
        memcpy (items + i * size, p->stack->pdata[mark + i], size);
    }
  g_ptr_array_set_size (p->stack, mark);
  return items;
}

/* ---- tokens ---- */

static const char *
intern (const TildeToken *tok)
{
  char buf[128];

  if (tok->length < sizeof buf)
    {
      memcpy (buf, tok->text, tok->length);
      buf[tok->length] = '\0';
      return g_intern_string (buf);
    }
  else
    {
      g_autofree char *copy = g_strndup (tok->text, tok->length);
      return g_intern_string (copy);
    }
}

static TildeIdent
ident_of (const TildeToken *tok)
{
  TildeIdent id = { intern (tok), tok->span };

  return id;
}

static char *
token_text (Parser *p, const TildeToken *tok)
{
  return tilde_arena_strndup (p->arena, tok->text, tok->length);
}

static gboolean
token_is (const TildeToken *tok, TildeTokenKind kind, const char *text)
{
  return tok->kind == kind && tok->length == strlen (text)
         && memcmp (tok->text, text, tok->length) == 0;
}

static gboolean
starts_expr (TildeTokenKind kind)
{
  switch (kind)
    {
    case TILDE_TOK_IDENT:
    case TILDE_TOK_INT_LIT:
    case TILDE_TOK_REAL_LIT:
    case TILDE_TOK_DOT_NUMERAL:
    case TILDE_TOK_IMAG_LIT:
    case TILDE_TOK_LBRACE:
    case TILDE_TOK_LBRACK:
    case TILDE_TOK_LPAREN:
    case TILDE_TOK_TARGET:
    case TILDE_TOK_BANG:
    case TILDE_TOK_MINUS:
    case TILDE_TOK_PLUS:
      return TRUE;
    default:
      return FALSE;
    }
}

static gboolean
starts_statement (TildeTokenKind kind)
{
  switch (kind)
    {
    case TILDE_TOK_IF:
    case TILDE_TOK_WHILE:
    case TILDE_TOK_FOR:
    case TILDE_TOK_PROFILE:
    case TILDE_TOK_PRINT:
    case TILDE_TOK_REJECT:
    case TILDE_TOK_FATAL_ERROR:
    case TILDE_TOK_BREAK:
    case TILDE_TOK_CONTINUE:
    case TILDE_TOK_RETURN:
    case TILDE_TOK_SEMICOLON:
      return TRUE;
    default:
      return starts_expr (kind);
    }
}

static gboolean
is_block_header (TildeTokenKind kind)
{
  switch (kind)
    {
    case TILDE_TOK_FUNCTIONS:
    case TILDE_TOK_DATA:
    case TILDE_TOK_TRANSFORMED_DATA:
    case TILDE_TOK_PARAMETERS:
    case TILDE_TOK_TRANSFORMED_PARAMETERS:
    case TILDE_TOK_MODEL:
    case TILDE_TOK_GENERATED_QUANTITIES:
      return TRUE;
    default:
      return FALSE;
    }
}

/* "data" also qualifies function arguments; it opens a block only before "{". */
static gboolean
at_block_start (Parser *p)
{
  if (!is_block_header (p->tok.kind))
    return FALSE;
  return p->tok.kind != TILDE_TOK_DATA || peek (p)->kind == TILDE_TOK_LBRACE;
}

static TildeBlockKind
block_kind_of (TildeTokenKind kind)
{
  switch (kind)
    {
    case TILDE_TOK_FUNCTIONS: return TILDE_BLOCK_FUNCTIONS;
    case TILDE_TOK_DATA: return TILDE_BLOCK_DATA;
    case TILDE_TOK_TRANSFORMED_DATA: return TILDE_BLOCK_TRANSFORMED_DATA;
    case TILDE_TOK_PARAMETERS: return TILDE_BLOCK_PARAMETERS;
    case TILDE_TOK_TRANSFORMED_PARAMETERS: return TILDE_BLOCK_TRANSFORMED_PARAMETERS;
    case TILDE_TOK_MODEL: return TILDE_BLOCK_MODEL;
    default: return TILDE_BLOCK_GENERATED_QUANTITIES;
    }
}

/* ---- recovery ---- */

/* Skips to the end of the broken statement: past the next ";" or "}" that
 * closes a brace opened while skipping; stops before a "}" that closes the
 * enclosing block and before a block header. */
static void
synchronize (Parser *p)
{
  int depth = 0;

  while (!at (p, TILDE_TOK_EOF))
    {
      if (depth == 0 && (at (p, TILDE_TOK_RBRACE) || at_block_start (p)))
        break;
      if (at (p, TILDE_TOK_SEMICOLON) && depth == 0)
        {
          advance (p);
          break;
        }
      if (at (p, TILDE_TOK_LBRACE))
        depth++;
      else if (at (p, TILDE_TOK_RBRACE) && --depth == 0)
        {
          advance (p);
          break;
        }
      advance (p);
    }
  p->err = FALSE;
}

/* ---- nodes ---- */

static TildeExpr *
new_expr (Parser *p, TildeExprKind kind, const TildeSpan *span)
{
  TildeExpr *e = tilde_arena_new0 (p->arena, TildeExpr);

  e->kind = kind;
  e->span = *span;
  return e;
}

static TildeExpr *
error_expr (Parser *p)
{
  return new_expr (p, TILDE_EXPR_ERROR, &p->tok.span);
}

static TildeStmt *
new_stmt (Parser *p, TildeStmtKind kind, const TildeSpan *span)
{
  TildeStmt *s = tilde_arena_new0 (p->arena, TildeStmt);

  s->kind = kind;
  s->span = *span;
  return s;
}

static TildeStmt *
error_stmt (Parser *p, const TildeSpan *start)
{
  TildeSpan span = *start;

  if (p->prev.span.file && p->prev.span.begin_offset >= start->begin_offset
      && p->prev.span.file == start->file)
    span = span_from (p, start);
  return new_stmt (p, TILDE_STMT_ERROR, &span);
}

/* ---- expressions ---- */

static TildeExpr *parse_expr (Parser *p);

/* Binding strength of binary operators, stanc's table; 0 for none. */
enum {
  PREC_OR = 1,
  PREC_AND,
  PREC_EQUALITY,
  PREC_COMPARISON,
  PREC_ADDITIVE,
  PREC_MULTIPLICATIVE,
  PREC_LEFT_DIVISION,
  PREC_UNARY,
  PREC_POWER,
};

static int
binary_precedence (TildeTokenKind kind, TildeBinaryOp *op)
{
  switch (kind)
    {
    case TILDE_TOK_OR: *op = TILDE_OP_OR; return PREC_OR;
    case TILDE_TOK_AND: *op = TILDE_OP_AND; return PREC_AND;
    case TILDE_TOK_EQUALS: *op = TILDE_OP_EQUALS; return PREC_EQUALITY;
    case TILDE_TOK_NEQUALS: *op = TILDE_OP_NEQUALS; return PREC_EQUALITY;
    case TILDE_TOK_LABRACK: *op = TILDE_OP_LESS; return PREC_COMPARISON;
    case TILDE_TOK_LEQ: *op = TILDE_OP_LEQ; return PREC_COMPARISON;
    case TILDE_TOK_RABRACK: *op = TILDE_OP_GREATER; return PREC_COMPARISON;
    case TILDE_TOK_GEQ: *op = TILDE_OP_GEQ; return PREC_COMPARISON;
    case TILDE_TOK_PLUS: *op = TILDE_OP_PLUS; return PREC_ADDITIVE;
    case TILDE_TOK_MINUS: *op = TILDE_OP_MINUS; return PREC_ADDITIVE;
    case TILDE_TOK_TIMES: *op = TILDE_OP_TIMES; return PREC_MULTIPLICATIVE;
    case TILDE_TOK_DIVIDE: *op = TILDE_OP_DIVIDE; return PREC_MULTIPLICATIVE;
    case TILDE_TOK_MODULO: *op = TILDE_OP_MODULO; return PREC_MULTIPLICATIVE;
    case TILDE_TOK_ELTTIMES: *op = TILDE_OP_ELT_TIMES; return PREC_MULTIPLICATIVE;
    case TILDE_TOK_ELTDIVIDE: *op = TILDE_OP_ELT_DIVIDE; return PREC_MULTIPLICATIVE;
    case TILDE_TOK_IDIVIDE: *op = TILDE_OP_IDIVIDE; return PREC_LEFT_DIVISION;
    case TILDE_TOK_LDIVIDE: *op = TILDE_OP_LDIVIDE; return PREC_LEFT_DIVISION;
    case TILDE_TOK_HAT: *op = TILDE_OP_POW; return PREC_POWER;
    case TILDE_TOK_ELTPOW: *op = TILDE_OP_ELT_POW; return PREC_POWER;
    default: return 0;
    }
}

/* Parses "expr, expr, ... close" after an opening token; an item that cannot
 * start an expression, or a separator that is neither "," nor `close`, is
 * reported with the given messages. */
static TildeExpr **
parse_expr_list (Parser *p, TildeTokenKind close, gboolean allow_empty,
                 const char *bad_item, const char *bad_separator, int *n)
{
  guint mark = list_begin (p);

  if (!(allow_empty && at (p, close)))
    for (;;)
      {
        if (!starts_expr (p->tok.kind))
          {
            report (p, bad_item);
            break;
          }
        list_push (p, parse_expr (p));
        if (p->err || accept (p, close))
          break;
        if (!accept (p, TILDE_TOK_COMMA))
          {
            report (p, bad_separator);
            break;
          }
      }
  else
    advance (p);
  return (TildeExpr **) list_end (p, mark, n);
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

/* After "name(": arguments, with "|" after the first one for a conditional
 * distribution call. */
static TildeExpr *
parse_call (Parser *p, const TildeToken *name_tok)
{
  TildeExpr *call = new_expr (p, TILDE_EXPR_CALL, &name_tok->span);
  guint mark = list_begin (p);
  const char *message = MSG_FUN_APP;

  call->u.call.name = ident_of (name_tok);
  advance (p);                                  /* ( */
  if (!accept (p, TILDE_TOK_RPAREN))
    for (;;)
      {
        if (!starts_expr (p->tok.kind))
          {
            report (p, message);
            break;
          }
        list_push (p, parse_expr (p));
        if (p->err || accept (p, TILDE_TOK_RPAREN))
          break;
        if (call->kind == TILDE_EXPR_CALL && p->stack->len - mark == 1 && accept (p, TILDE_TOK_BAR))
          {
            call->kind = TILDE_EXPR_COND_CALL;
            message = MSG_COND_APP;
            if (accept (p, TILDE_TOK_RPAREN))
              break;
            continue;
          }
        if (!accept (p, TILDE_TOK_COMMA))
          {
            report (p, MSG_UNEXPECTED_AFTER_EXPR);
            break;
          }
      }
  call->u.call.args = (TildeExpr **) list_end (p, mark, &call->u.call.n_args);
  if (call->kind == TILDE_EXPR_CALL && call->u.call.n_args == 1
      && is_conditioning_name (call->u.call.name.name))
    call->kind = TILDE_EXPR_COND_CALL;
  call->span = span_from (p, &name_tok->span);
  return call;
}

static TildeExpr *
parse_paren_or_tuple (Parser *p)
{
  TildeSpan start = p->tok.span;
  TildeExpr *first, *e;
  guint mark;

  advance (p);
  if (!starts_expr (p->tok.kind))
    {
      report (p, "Expression or comma separated list of expressions followed by \")\" "
                 "expected after \"(\".");
      return error_expr (p);
    }
  first = parse_expr (p);
  if (p->err)
    return first;
  if (accept (p, TILDE_TOK_RPAREN))
    {
      e = new_expr (p, TILDE_EXPR_PAREN, &start);
      e->u.paren.inner = first;
      e->span = span_from (p, &start);
      return e;
    }
  if (!accept (p, TILDE_TOK_COMMA))
    {
      report (p, "Ill-formed phrase. Found \"(\" followed by expression. Expect a \"[\", \",\" "
                 "or \")\" or an infix or postfix operator.");
      return first;
    }
  e = new_expr (p, TILDE_EXPR_TUPLE, &start);
  mark = list_begin (p);
  list_push (p, first);
  for (;;)
    {
      if (!starts_expr (p->tok.kind))
        {
          report (p, "Ill-formed expression. Expected a comma-separated list of expressions.");
          break;
        }
      list_push (p, parse_expr (p));
      if (p->err || accept (p, TILDE_TOK_RPAREN))
        break;
      if (!accept (p, TILDE_TOK_COMMA))
        {
          report (p, MSG_UNEXPECTED_AFTER_EXPR);
          break;
        }
    }
  e->u.list.items = (TildeExpr **) list_end (p, mark, &e->u.list.n_items);
  e->span = span_from (p, &start);
  return e;
}

static TildeExpr *
literal (Parser *p, TildeExprKind kind)
{
  TildeExpr *e = new_expr (p, kind, &p->tok.span);
  guint length = p->tok.length;

  if (kind == TILDE_EXPR_IMAG)
    length--;                                   /* the trailing i */
  e->u.literal.text = tilde_arena_strndup (p->arena, p->tok.text, length);
  advance (p);
  return e;
}

static TildeExpr *
parse_primary (Parser *p)
{
  TildeSpan start = p->tok.span;
  TildeExpr *e;

  if (p->pending != NULL)
    {
      e = p->pending;
      p->pending = NULL;
      return e;
    }
  switch (p->tok.kind)
    {
    case TILDE_TOK_IDENT:
      if (peek (p)->kind == TILDE_TOK_LPAREN)
        {
          TildeToken name = p->tok;

          advance (p);
          return parse_call (p, &name);
        }
      e = new_expr (p, TILDE_EXPR_VARIABLE, &start);
      e->u.variable.name = intern (&p->tok);
      advance (p);
      return e;
    case TILDE_TOK_INT_LIT:
      return literal (p, TILDE_EXPR_INT);
    case TILDE_TOK_REAL_LIT:
    case TILDE_TOK_DOT_NUMERAL:
      return literal (p, TILDE_EXPR_REAL);
    case TILDE_TOK_IMAG_LIT:
      return literal (p, TILDE_EXPR_IMAG);
    case TILDE_TOK_LPAREN:
      return parse_paren_or_tuple (p);
    case TILDE_TOK_LBRACE:
      e = new_expr (p, TILDE_EXPR_ARRAY, &start);
      advance (p);
      e->u.list.items = parse_expr_list (p, TILDE_TOK_RBRACE, FALSE,
                                         "Expression expected after \"{\" in array expression.",
                                         MSG_UNEXPECTED_AFTER_EXPR, &e->u.list.n_items);
      e->span = span_from (p, &start);
      return e;
    case TILDE_TOK_LBRACK:
      e = new_expr (p, TILDE_EXPR_ROW_VECTOR, &start);
      advance (p);
      e->u.list.items = parse_expr_list (p, TILDE_TOK_RBRACK, TRUE,
                                         "Ill-formed expression. We expect a comma separated list "
                                         "of expressions, followed by \"]\".",
                                         MSG_UNEXPECTED_AFTER_EXPR, &e->u.list.n_items);
      e->span = span_from (p, &start);
      return e;
    case TILDE_TOK_TARGET:
      advance (p);
      if (!accept (p, TILDE_TOK_LPAREN) || !accept (p, TILDE_TOK_RPAREN))
        {
          report (p, "Ill-formed expression. \"target\" must be followed by \"()\" when read "
                     "or by \"+=\" when incremented.");
          return error_expr (p);
        }
      return new_expr (p, TILDE_EXPR_TARGET, (TildeSpan[]) { span_from (p, &start) });
    default:
      report (p, "Ill-formed expression. Expected an expression.");
      return error_expr (p);
    }
}

static void
parse_index (Parser *p, TildeIndex *index)
{
  TildeSpan start = p->tok.span;

  index->kind = TILDE_INDEX_ALL;
  if (accept (p, TILDE_TOK_COLON))
    {
      if (starts_expr (p->tok.kind))
        {
          index->kind = TILDE_INDEX_DOWNFROM;
          index->upper = parse_expr (p);
        }
    }
  else if (starts_expr (p->tok.kind))
    {
      index->kind = TILDE_INDEX_SINGLE;
      index->lower = parse_expr (p);
      if (!p->err && accept (p, TILDE_TOK_COLON))
        {
          index->kind = TILDE_INDEX_UPFROM;
          if (starts_expr (p->tok.kind))
            {
              index->kind = TILDE_INDEX_BETWEEN;
              index->upper = parse_expr (p);
            }
        }
    }
  else if (!at (p, TILDE_TOK_COMMA) && !at (p, TILDE_TOK_RBRACK))
    report (p, "Ill-formed expression. Expected expression followed by \"]\".");
  index->span = p->prev.span.begin_offset >= start.begin_offset && p->prev.span.file == start.file
                  ? span_from (p, &start) : start;
}

static TildeExpr *
parse_indexed (Parser *p, TildeExpr *base)
{
  TildeExpr *e = new_expr (p, TILDE_EXPR_INDEXED, &base->span);
  guint mark = list_begin (p);

  advance (p);                                  /* [ */
  for (;;)
    {
      TildeIndex *index = tilde_arena_new0 (p->arena, TildeIndex);

      parse_index (p, index);
      list_push (p, index);
      if (p->err || accept (p, TILDE_TOK_RBRACK))
        break;
      if (!accept (p, TILDE_TOK_COMMA))
        {
          report (p, MSG_UNEXPECTED_AFTER_EXPR);
          break;
        }
    }
  e->u.indexed.base = base;
  e->u.indexed.indices = struct_list_end (p, mark, sizeof (TildeIndex), &e->u.indexed.n_indices);
  e->span = span_from (p, &base->span);
  return e;
}

static TildeExpr *
parse_projection (Parser *p, TildeExpr *base)
{
  TildeExpr *e = new_expr (p, TILDE_EXPR_TUPLE_PROJ, &base->span);
  g_autofree char *digits = g_strndup (p->tok.text + 1, p->tok.length - 1);
  char *text = token_text (p, &p->tok);
  guint64 slot = 0;
  gboolean ok = TRUE;

  for (const char *c = digits; *c; c++)
    if (*c != '_')
      {
        slot = slot * 10 + (guint64) (*c - '0');
        if (slot > G_MAXINT)
          ok = FALSE;
      }
  if (!ok)
    {
      g_autofree char *msg = g_strdup_printf ("Failed to parse integer from string \"%s\" in "
                                              "tuple index. \nThe index is likely too large.",
                                              text);
      report (p, msg);
    }
  advance (p);
  e->u.proj.base = base;
  e->u.proj.slot = (int) slot;
  e->u.proj.text = text;
  e->span = span_from (p, &base->span);
  return e;
}

/* A primary followed by any number of indexes and tuple projections, then
 * any number of transposes (which bind tighter than every operator but may
 * not be indexed). */
static TildeExpr *
parse_postfix (Parser *p)
{
  TildeExpr *e = parse_primary (p);

  while (!p->err)
    {
      if (at (p, TILDE_TOK_LBRACK))
        e = parse_indexed (p, e);
      else if (at (p, TILDE_TOK_DOT_NUMERAL))
        e = parse_projection (p, e);
      else
        break;
    }
  while (!p->err && at (p, TILDE_TOK_TRANSPOSE))
    {
      TildeExpr *t = new_expr (p, TILDE_EXPR_TRANSPOSE, &e->span);

      advance (p);
      t->u.transpose.operand = e;
      t->span = span_from (p, &e->span);
      e = t;
    }
  return e;
}

static TildeExpr *parse_binary (Parser *p, int min_prec, gboolean constrained);

static TildeExpr *
parse_unary (Parser *p, gboolean constrained)
{
  TildeSpan start = p->tok.span;
  TildePrefixOp op;
  TildeExpr *e;

  if (p->pending != NULL)
    return parse_postfix (p);
  switch (p->tok.kind)
    {
    case TILDE_TOK_BANG: op = TILDE_OP_NOT; break;
    case TILDE_TOK_MINUS: op = TILDE_OP_NEGATE; break;
    case TILDE_TOK_PLUS: op = TILDE_OP_PROMOTE; break;
    default: return parse_postfix (p);
    }
  advance (p);
  if (!starts_expr (p->tok.kind))
    {
      g_autofree char *msg = g_strdup_printf ("Ill-formed expression. Expression expected after "
                                              "\"%s\".", tilde_prefix_op_to_string (op));
      report (p, msg);
      return error_expr (p);
    }
  if (!enter (p))
    return error_expr (p);
  e = new_expr (p, TILDE_EXPR_PREFIX, &start);
  e->u.prefix.op = op;
  /* A prefix operator binds tighter than every binary operator except ^ and .^:
   * -a^b is -(a^b). */
  e->u.prefix.operand = parse_binary (p, PREC_POWER, constrained);
  e->span = span_from (p, &start);
  leave (p);
  return e;
}

/* Precedence climbing. With `constrained`, logical and comparison operators
 * end the expression (they cannot appear unparenthesised in bounds). */
static TildeExpr *
parse_binary (Parser *p, int min_prec, gboolean constrained)
{
  TildeExpr *lhs = parse_unary (p, constrained);

  while (!p->err)
    {
      TildeBinaryOp op;
      int prec = binary_precedence (p->tok.kind, &op);
      TildeExpr *e;
      TildeToken op_tok = p->tok;

      if (prec == 0 || prec < min_prec || (constrained && prec < PREC_ADDITIVE))
        break;
      advance (p);
      if (!starts_expr (p->tok.kind))
        {
          report (p, constrained
                       ? "Ill-formed expression. Expected expression (not containing binary "
                         "logical operators)."
                       : MSG_INCOMPLETE_BINARY);
          break;
        }
      e = new_expr (p, TILDE_EXPR_BINARY, &lhs->span);
      e->u.binary.op = op;
      e->u.binary.lhs = lhs;
      if (op == TILDE_OP_LESS && at (p, TILDE_TOK_MINUS) && !p->tok.space_before)
        {
          p->arrow = e;
          p->arrow_span = tilde_span_join (&op_tok.span, &p->tok.span);
        }
      /* ^ and .^ group to the right, so only they can nest without end;
       * the others group to the left. */
      if (prec == PREC_POWER)
        {
          if (!enter (p))
            break;
          e->u.binary.rhs = parse_binary (p, prec, constrained);
          leave (p);
        }
      else
        e->u.binary.rhs = parse_binary (p, prec + 1, constrained);
      e->span = span_from (p, &lhs->span);
      lhs = e;
    }
  return lhs;
}

static TildeExpr *
parse_expr (Parser *p)
{
  TildeExpr *cond, *e;

  if (!enter (p))
    {
      p->pending = NULL;
      return error_expr (p);
    }
  cond = parse_binary (p, PREC_OR, FALSE);
  if (p->err || !at (p, TILDE_TOK_QMARK))
    {
      leave (p);
      return cond;
    }
  advance (p);
  e = new_expr (p, TILDE_EXPR_TERNARY, &cond->span);
  e->u.ternary.cond = cond;
  if (!starts_expr (p->tok.kind))
    report (p, "Ill-formed expression. Expected an expression after \"?\".");
  else
    e->u.ternary.if_true = parse_expr (p);
  if (!p->err && !accept (p, TILDE_TOK_COLON))
    report (p, "Ill-formed expression. Expected \":\" after the expression following \"?\".");
  else if (!p->err && !starts_expr (p->tok.kind))
    report (p, "Ill-formed expression. Expected an expression after \":\".");
  else if (!p->err)
    e->u.ternary.if_false = parse_expr (p);
  if (!e->u.ternary.if_true)
    e->u.ternary.if_true = error_expr (p);
  if (!e->u.ternary.if_false)
    e->u.ternary.if_false = error_expr (p);
  e->span = span_from (p, &cond->span);
  leave (p);
  return e;
}

/* Bounds and offsets: no logical operators and no conditional operator. */
static TildeExpr *
parse_constr_expr (Parser *p)
{
  return parse_binary (p, PREC_ADDITIVE, TRUE);
}

/* ---- declarations ---- */

static TildeSizedType *
new_sized_type (Parser *p, TildeDeclTypeKind kind, const TildeSpan *span)
{
  TildeSizedType *t = tilde_arena_new0 (p->arena, TildeSizedType);

  t->kind = kind;
  t->span = *span;
  return t;
}

static gboolean
decl_kind_of (TildeTokenKind tok, TildeDeclTypeKind *kind)
{
  static const struct { TildeTokenKind tok; TildeDeclTypeKind kind; } map[] = {
    { TILDE_TOK_INT, TILDE_DECL_INT }, { TILDE_TOK_REAL, TILDE_DECL_REAL },
    { TILDE_TOK_COMPLEX, TILDE_DECL_COMPLEX }, { TILDE_TOK_VECTOR, TILDE_DECL_VECTOR },
    { TILDE_TOK_ROW_VECTOR, TILDE_DECL_ROW_VECTOR }, { TILDE_TOK_MATRIX, TILDE_DECL_MATRIX },
    { TILDE_TOK_COMPLEX_VECTOR, TILDE_DECL_COMPLEX_VECTOR },
    { TILDE_TOK_COMPLEX_ROW_VECTOR, TILDE_DECL_COMPLEX_ROW_VECTOR },
    { TILDE_TOK_COMPLEX_MATRIX, TILDE_DECL_COMPLEX_MATRIX },
    { TILDE_TOK_ORDERED, TILDE_DECL_ORDERED },
    { TILDE_TOK_POSITIVE_ORDERED, TILDE_DECL_POSITIVE_ORDERED },
    { TILDE_TOK_SIMPLEX, TILDE_DECL_SIMPLEX }, { TILDE_TOK_UNIT_VECTOR, TILDE_DECL_UNIT_VECTOR },
    { TILDE_TOK_SUM_TO_ZERO_VECTOR, TILDE_DECL_SUM_TO_ZERO_VECTOR },
    { TILDE_TOK_SUM_TO_ZERO_MATRIX, TILDE_DECL_SUM_TO_ZERO_MATRIX },
    { TILDE_TOK_CHOLESKY_FACTOR_CORR, TILDE_DECL_CHOLESKY_FACTOR_CORR },
    { TILDE_TOK_CHOLESKY_FACTOR_COV, TILDE_DECL_CHOLESKY_FACTOR_COV },
    { TILDE_TOK_CORR_MATRIX, TILDE_DECL_CORR_MATRIX },
    { TILDE_TOK_COV_MATRIX, TILDE_DECL_COV_MATRIX },
    { TILDE_TOK_COLUMN_STOCHASTIC_MATRIX, TILDE_DECL_COLUMN_STOCHASTIC_MATRIX },
    { TILDE_TOK_ROW_STOCHASTIC_MATRIX, TILDE_DECL_ROW_STOCHASTIC_MATRIX },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (map); i++)
    if (map[i].tok == tok)
      {
        *kind = map[i].kind;
        return TRUE;
      }
  return FALSE;
}

/* How many sizes a type takes, and stanc's message when they are missing. */
static int
size_count (TildeDeclTypeKind kind, char **message, gboolean *after_open)
{
  const char *name = tilde_decl_type_kind_to_string (kind);

  *after_open = FALSE;
  switch (kind)
    {
    case TILDE_DECL_INT:
    case TILDE_DECL_REAL:
    case TILDE_DECL_COMPLEX:
      *message = NULL;
      return 0;
    case TILDE_DECL_VECTOR:
      *message = g_strdup ("Expected \"[\" expression \"]\" for vector size.");
      return 1;
    case TILDE_DECL_ROW_VECTOR:
      *message = g_strdup ("\"[\" expression \"]\" expected for row_vector size.");
      return 1;
    case TILDE_DECL_COMPLEX_VECTOR:
    case TILDE_DECL_COMPLEX_ROW_VECTOR:
      *message = g_strdup_printf ("Expected \"[\" expression \"]\" for %s size.", name);
      return 1;
    case TILDE_DECL_MATRIX:
    case TILDE_DECL_COMPLEX_MATRIX:
      *message = g_strdup_printf ("\"[\" expression \",\" expression \"]\" expected for %s sizes.",
                                  name);
      *after_open = TRUE;
      return 2;
    case TILDE_DECL_SUM_TO_ZERO_MATRIX:
    case TILDE_DECL_COLUMN_STOCHASTIC_MATRIX:
    case TILDE_DECL_ROW_STOCHASTIC_MATRIX:
      *message = g_strdup_printf ("Expected \"[\" expression \",\" expression \"]\" for sizes of %s.",
                                  name);
      return 2;
    case TILDE_DECL_CHOLESKY_FACTOR_COV:
      *message = g_strdup ("Expected \"[\" expression \"]\" or \"[\" expression \",\" expression "
                           "\"]\" for size of cholesky_factor_cov.");
      return 2;
    default:
      *message = g_strdup_printf ("Expected \"[\" expression \"]\" for size of %s.", name);
      return 1;
    }
}

/* "[" size ("," size) "]" for the type in t. */
static void
parse_sizes (Parser *p, TildeSizedType *t, int count, const char *message, gboolean after_open)
{
  if (!at (p, TILDE_TOK_LBRACK))
    {
      /* stanc words a matrix without any brackets differently. */
      if (after_open)
        {
          g_autofree char *msg = g_strdup_printf ("Expected \"[\" expression \",\" expression "
                                                  "\"]\" for sizes of %s.",
                                                  tilde_decl_type_kind_to_string (t->kind));
          report (p, msg);
        }
      else
        report (p, message);
      return;
    }
  advance (p);
  if (!starts_expr (p->tok.kind))
    {
      report (p, message);
      return;
    }
  t->size1 = parse_expr (p);
  if (p->err)
    return;
  if (count == 2 && at (p, TILDE_TOK_COMMA))
    {
      advance (p);
      if (!starts_expr (p->tok.kind))
        {
          report (p, message);
          return;
        }
      t->size2 = parse_expr (p);
      if (p->err)
        return;
    }
  else if (count == 2 && t->kind != TILDE_DECL_CHOLESKY_FACTOR_COV)
    {
      report (p, message);
      return;
    }
  if (!accept (p, TILDE_TOK_RBRACK))
    report (p, message);
}

typedef struct {
  TildeTokenKind first_tok, second_tok;
  const char    *first, *second;
} BoundPair;

/* One "name = expr" inside <...>. */
static TildeExpr *
parse_bound (Parser *p, const char *name)
{
  g_autofree char *msg = NULL;

  advance (p);                                  /* the keyword */
  if (!accept (p, TILDE_TOK_ASSIGN))
    {
      msg = g_strdup_printf ("Expected \"=\" after \"%s\" in the bounds of the type.", name);
      report (p, msg);
      return NULL;
    }
  if (!starts_expr (p->tok.kind))
    {
      msg = g_strdup_printf ("Ill-formed expression. Expression (not containing binary logical "
                             "operators) expected after \"%s =\".", name);
      report (p, msg);
      return NULL;
    }
  return parse_constr_expr (p);
}

static TildeExpr **
bound_slot (TildeBounds *b, TildeTokenKind kind)
{
  switch (kind)
    {
    case TILDE_TOK_LOWER: return &b->lower;
    case TILDE_TOK_UPPER: return &b->upper;
    case TILDE_TOK_OFFSET: return &b->offset;
    default: return &b->multiplier;
    }
}

/* "<" bounds ">" after int (lower/upper only) or another type. */
static void
parse_bounds (Parser *p, TildeBounds *bounds, gboolean int_only)
{
  TildeTokenKind first = p->tok.kind;
  TildeTokenKind partner;
  const char *first_name, *partner_name;
  g_autofree char *msg = NULL;

  advance (p);                                  /* < */
  first = p->tok.kind;
  switch (first)
    {
    case TILDE_TOK_LOWER: partner = TILDE_TOK_UPPER; break;
    case TILDE_TOK_UPPER: partner = TILDE_TOK_LOWER; break;
    case TILDE_TOK_OFFSET: partner = TILDE_TOK_MULTIPLIER; break;
    case TILDE_TOK_MULTIPLIER: partner = TILDE_TOK_OFFSET; break;
    default: partner = TILDE_TOK_EOF; break;
    }
  if (partner == TILDE_TOK_EOF || (int_only && (first == TILDE_TOK_OFFSET
                                                || first == TILDE_TOK_MULTIPLIER)))
    {
      report (p, int_only
                   ? "Expected \"lower = \" expression or \"upper = \" expression for integer bounds."
                   : "Expected \"lower = \" expression, \"upper = \" expression, \"offset = \" "
                     "expression or \"multiplier = \" expression for the bounds of the type.");
      return;
    }
  first_name = tilde_token_kind_to_string (first);
  partner_name = tilde_token_kind_to_string (partner);
  *bound_slot (bounds, first) = parse_bound (p, first_name);
  if (p->err)
    return;
  if (accept (p, TILDE_TOK_RABRACK))
    return;
  if (!at (p, TILDE_TOK_COMMA))
    {
      msg = g_strdup_printf ("\">\" or \", %s = expression>\" (with expression not containing "
                             "binary logical operators) expected after specifying %s bound for type.",
                             partner_name, first_name);
      if (first == TILDE_TOK_OFFSET || first == TILDE_TOK_MULTIPLIER)
        {
          g_free (msg);
          msg = g_strdup_printf ("\">\" or \", %s = expression>\" (with expression not "
                                 "containing binary logical operators) expected after "
                                 "specifying %s for type.", partner_name, first_name);
        }
      report (p, msg);
      return;
    }
  advance (p);
  if (!at (p, partner))
    {
      msg = g_strdup_printf ("Expected \"%s = \" expression after \",\" in the bounds of the type.",
                             partner_name);
      report (p, msg);
      return;
    }
  *bound_slot (bounds, partner) = parse_bound (p, partner_name);
  if (!p->err && !accept (p, TILDE_TOK_RABRACK))
    report (p, "\">\" expected after the bounds of the type (with expressions not containing "
               "binary logical operators).");
}

static TildeSizedType *parse_sized_type (Parser *p, gboolean global);

static TildeSizedType *
parse_tuple_type (Parser *p, gboolean global)
{
  TildeSpan start = p->tok.span;
  TildeSizedType *t = new_sized_type (p, TILDE_DECL_TUPLE, &start);
  guint mark;

  if (!enter (p))
    return t;
  mark = list_begin (p);
  advance (p);
  if (!accept (p, TILDE_TOK_LPAREN))
    {
      report (p, "Expected \"(\" followed by a comma-separated list of at least two types "
                 "after \"tuple\".");
      leave (p);
      return t;
    }
  for (;;)
    {
      TildeSizedType *element;

      if (!tilde_token_kind_is_type_keyword (p->tok.kind))
        {
          report (p, "Expected a type as an element of the tuple type.");
          break;
        }
      element = parse_sized_type (p, global);
      list_push (p, element);
      if (p->err)
        break;
      if (accept (p, TILDE_TOK_RPAREN))
        {
          if (p->stack->len - mark < 2)
            report_span (p, &p->prev.span, "A tuple type needs at least two elements.");
          break;
        }
      if (!accept (p, TILDE_TOK_COMMA))
        {
          report (p, "Expected \",\" or \")\" after an element of the tuple type.");
          break;
        }
    }
  t->elements = (TildeSizedType **) list_end (p, mark, &t->n_elements);
  t->span = span_from (p, &start);
  leave (p);
  return t;
}

static gboolean
allows_bounds (TildeDeclTypeKind kind)
{
  return kind <= TILDE_DECL_COMPLEX_MATRIX;
}

/* A type without array dimensions: a basic or constrained type, or a tuple. */
static TildeSizedType *
parse_base_type (Parser *p, gboolean global)
{
  TildeSpan start = p->tok.span;
  TildeDeclTypeKind kind;
  TildeSizedType *t;
  g_autofree char *message = NULL;
  gboolean after_open;
  int count;

  if (at (p, TILDE_TOK_TUPLE))
    return parse_tuple_type (p, global);
  if (!decl_kind_of (p->tok.kind, &kind))
    {
      report (p, MSG_INVALID_TYPE);
      return new_sized_type (p, TILDE_DECL_REAL, &start);
    }
  t = new_sized_type (p, kind, &start);
  if (!global && tilde_decl_type_kind_is_constrained (kind))
    {
      g_autofree char *msg = g_strdup_printf ("The constrained type %s may only be used for "
                                              "top-level variables of the data, transformed data, "
                                              "parameters, transformed parameters and generated "
                                              "quantities blocks.",
                                              tilde_decl_type_kind_to_string (kind));
      report (p, msg);
      return t;
    }
  advance (p);
  count = size_count (kind, &message, &after_open);
  if (at (p, TILDE_TOK_LABRACK) && allows_bounds (kind))
    {
      if (!global)
        {
          report (p, count == 0 ? MSG_LOCAL_IDENT : message);
          return t;
        }
      parse_bounds (p, &t->bounds, kind == TILDE_DECL_INT);
      if (p->err)
        return t;
    }
  if (count > 0)
    parse_sizes (p, t, count, message, after_open);
  t->span = span_from (p, &start);
  return t;
}

static TildeSizedType *
parse_sized_type (Parser *p, gboolean global)
{
  TildeSpan start = p->tok.span;
  TildeSizedType *t;
  guint mark;

  if (!at (p, TILDE_TOK_ARRAY))
    return parse_base_type (p, global);
  t = new_sized_type (p, TILDE_DECL_ARRAY, &start);
  advance (p);
  if (!accept (p, TILDE_TOK_LBRACK))
    {
      report (p, "Expected \"[\" followed by a comma-separated list of array sizes after \"array\".");
      return t;
    }
  mark = list_begin (p);
  for (;;)
    {
      if (!starts_expr (p->tok.kind))
        {
          report (p, "Expected an expression for the array size.");
          break;
        }
      list_push (p, parse_expr (p));
      if (p->err || accept (p, TILDE_TOK_RBRACK))
        break;
      if (!accept (p, TILDE_TOK_COMMA))
        {
          report (p, MSG_UNEXPECTED_AFTER_EXPR);
          break;
        }
    }
  t->dims = (TildeExpr **) list_end (p, mark, &t->n_dims);
  if (p->err)
    return t;
  if (at (p, TILDE_TOK_ARRAY))
    {
      report (p, "An array type cannot be the element type of an array; list all sizes in one "
                 "array[...].");
      return t;
    }
  t->element = parse_base_type (p, global);
  t->span = span_from (p, &start);
  return t;
}

/* The name being declared; reports stanc's message for a reserved word. */
static gboolean
parse_new_ident (Parser *p, TildeIdent *id, const char *otherwise)
{
  if (at (p, TILDE_TOK_IDENT))
    {
      *id = ident_of (&p->tok);
      advance (p);
      return TRUE;
    }
  if (tilde_token_kind_is_keyword (p->tok.kind))
    {
      g_autofree char *msg = g_strdup_printf ("Expected a new identifier but found reserved "
                                              "keyword \"%s\".",
                                              tilde_token_kind_to_string (p->tok.kind));
      report (p, msg);
    }
  else
    report (p, otherwise);
  return FALSE;
}

/* `real x[N]`: stanc points at the sizes and suggests the array syntax. */
static void
report_old_array_decl (Parser *p, TildeSizedType *type, const TildeIdent *id)
{
  TildeSizedType *array = new_sized_type (p, TILDE_DECL_ARRAY, &type->span);
  TildeSpan first_dim;
  g_autofree char *printed = NULL;
  g_autofree char *msg = NULL;
  guint mark = list_begin (p);

  advance (p);                                  /* [ */
  first_dim = p->tok.span;
  for (;;)
    {
      if (!starts_expr (p->tok.kind))
        {
          report (p, MSG_UNEXPECTED_AFTER_EXPR);
          break;
        }
      list_push (p, parse_expr (p));
      if (p->err || at (p, TILDE_TOK_RBRACK))
        break;
      if (!accept (p, TILDE_TOK_COMMA))
        {
          report (p, MSG_UNEXPECTED_AFTER_EXPR);
          break;
        }
    }
  array->dims = (TildeExpr **) list_end (p, mark, &array->n_dims);
  if (p->err)
    return;
  if (type->kind == TILDE_DECL_ARRAY)
    {
      TildeExpr **dims = tilde_arena_newv (p->arena, TildeExpr *, type->n_dims + array->n_dims);

      memcpy (dims, type->dims, sizeof (TildeExpr *) * (gsize) type->n_dims);
      memcpy (dims + type->n_dims, array->dims, sizeof (TildeExpr *) * (gsize) array->n_dims);
      array->dims = dims;
      array->n_dims += type->n_dims;
      array->element = type->element;
    }
  else
    array->element = type;
  printed = tilde_print_sized_type (array);
  msg = g_strdup_printf ("\";\" expected after variable declaration.\n"
                         "It looks like you are trying to use the old array syntax.\n"
                         "Please use the new syntax:\n%s %s;", printed, id->name);
  {
    TildeSpan span = span_from (p, &first_dim);
    report_span (p, &span, msg);
  }
}

typedef struct {
  gboolean         global;
  gboolean         allow_assign;
  TildeAnnotation *annotations;
  int              n_annotations;
  TildeSpan        start;
} DeclContext;

static TildeStmt *
parse_var_decl (Parser *p, const DeclContext *ctx)
{
  TildeStmt *s = new_stmt (p, TILDE_STMT_VAR_DECL, &ctx->start);
  TildeSizedType *type = parse_sized_type (p, ctx->global);
  guint mark = list_begin (p);
  gboolean after_comma = FALSE;

  s->u.var_decl.annotations = ctx->annotations;
  s->u.var_decl.n_annotations = ctx->n_annotations;
  s->u.var_decl.type = type;
  s->u.var_decl.is_global = ctx->global;
  while (!p->err)
    {
      TildeVarDeclItem *item = tilde_arena_new0 (p->arena, TildeVarDeclItem);
      const char *otherwise = after_comma ? MSG_AFTER_COMMA
                              : !ctx->global ? MSG_LOCAL_IDENT
                              : type->kind == TILDE_DECL_INT && !type->bounds.lower
                                  && !type->bounds.upper
                                ? "Expected range constraint or identifier as part of top-level "
                                  "variable declaration."
                                : MSG_TOP_IDENT;

      if (after_comma && tilde_token_kind_is_type_keyword (p->tok.kind))
        {
          g_autofree char *msg = g_strdup_printf ("Found a type (\"%s\") where an identifier was "
                                                  "expected.\nAll variables declared in a "
                                                  "comma-separated list must be of the same type.",
                                                  tilde_token_kind_to_string (p->tok.kind));
          report (p, msg);
          break;
        }
      if (!parse_new_ident (p, &item->ident, otherwise))
        break;
      list_push (p, item);
      if (at (p, TILDE_TOK_LBRACK))
        {
          report_old_array_decl (p, type, &item->ident);
          break;
        }
      if (at (p, TILDE_TOK_ASSIGN))
        {
          advance (p);
          if (!ctx->allow_assign)
            {
              report (p, MSG_NO_ASSIGN);
              break;
            }
          if (!starts_expr (p->tok.kind))
            {
              report (p, "Ill-formed expression. Expected an expression after \"=\" in the "
                         "variable declaration.");
              break;
            }
          item->init = parse_expr (p);
          if (p->err)
            break;
        }
      if (accept (p, TILDE_TOK_SEMICOLON))
        break;
      if (accept (p, TILDE_TOK_COMMA))
        {
          after_comma = TRUE;
          continue;
        }
      report (p, item->init ? MSG_UNEXPECTED_AFTER_EXPR
                 : ctx->global ? "\";\" is expected after a top-level variable declaration."
                 : "Expected \";\" or \"=\" after the variable name in the declaration.");
    }
  s->u.var_decl.items = struct_list_end (p, mark, sizeof (TildeVarDeclItem),
                                         &s->u.var_decl.n_items);
  s->span = span_from (p, &ctx->start);
  return s;
}

/* "@name" or "@name(args)", any number of them. */
static TildeAnnotation *
parse_annotations (Parser *p, int *n)
{
  guint mark = list_begin (p);

  while (!p->err && at (p, TILDE_TOK_AT))
    {
      TildeAnnotation *a = tilde_arena_new0 (p->arena, TildeAnnotation);
      TildeSpan start = p->tok.span;

      advance (p);
      if (!at (p, TILDE_TOK_IDENT) && !tilde_token_kind_is_keyword (p->tok.kind))
        {
          report (p, "Expected the name of an annotation after \"@\".");
          break;
        }
      a->name = ident_of (&p->tok);
      advance (p);
      if (at (p, TILDE_TOK_LPAREN) && !p->tok.space_before)
        {
          advance (p);
          a->has_parens = TRUE;
          a->args = parse_expr_list (p, TILDE_TOK_RPAREN, TRUE,
                                     "Expected a comma-separated list of expressions followed by "
                                     "\")\" as the arguments of the annotation.",
                                     MSG_UNEXPECTED_AFTER_EXPR, &a->n_args);
        }
      a->span = span_from (p, &start);
      list_push (p, a);
    }
  return struct_list_end (p, mark, sizeof (TildeAnnotation), n);
}

/* ---- function definitions ---- */

typedef enum {
  UNSIZED_RETURN,
  UNSIZED_ARG,
} UnsizedContext;

static gboolean
unsized_kind_of (TildeTokenKind tok, TildeUnsizedTypeKind *kind)
{
  switch (tok)
    {
    case TILDE_TOK_INT: *kind = TILDE_UTYPE_INT; return TRUE;
    case TILDE_TOK_REAL: *kind = TILDE_UTYPE_REAL; return TRUE;
    case TILDE_TOK_COMPLEX: *kind = TILDE_UTYPE_COMPLEX; return TRUE;
    case TILDE_TOK_VECTOR: *kind = TILDE_UTYPE_VECTOR; return TRUE;
    case TILDE_TOK_ROW_VECTOR: *kind = TILDE_UTYPE_ROW_VECTOR; return TRUE;
    case TILDE_TOK_MATRIX: *kind = TILDE_UTYPE_MATRIX; return TRUE;
    case TILDE_TOK_COMPLEX_VECTOR: *kind = TILDE_UTYPE_COMPLEX_VECTOR; return TRUE;
    case TILDE_TOK_COMPLEX_ROW_VECTOR: *kind = TILDE_UTYPE_COMPLEX_ROW_VECTOR; return TRUE;
    case TILDE_TOK_COMPLEX_MATRIX: *kind = TILDE_UTYPE_COMPLEX_MATRIX; return TRUE;
    default: return FALSE;
    }
}

static gboolean
starts_unsized_type (TildeTokenKind tok)
{
  TildeUnsizedTypeKind kind;

  return tok == TILDE_TOK_ARRAY || tok == TILDE_TOK_TUPLE || unsized_kind_of (tok, &kind);
}

static TildeUnsizedType *
new_unsized_type (Parser *p, TildeUnsizedTypeKind kind, const TildeSpan *span)
{
  TildeUnsizedType *t = tilde_arena_new0 (p->arena, TildeUnsizedType);

  t->kind = kind;
  t->span = *span;
  return t;
}

/* "[" ","* "]": the number of dimensions, or 0 after reporting `message`. */
static int
parse_unsized_dims (Parser *p, const char *message)
{
  int n = 1;

  advance (p);                                  /* [ */
  while (accept (p, TILDE_TOK_COMMA))
    n++;
  if (!accept (p, TILDE_TOK_RBRACK))
    {
      report (p, message);
      return 0;
    }
  return n;
}

static TildeUnsizedType *parse_unsized_type (Parser *p, UnsizedContext ctx);

static TildeUnsizedType *
parse_unsized_base (Parser *p, UnsizedContext ctx)
{
  TildeSpan start = p->tok.span;
  TildeUnsizedTypeKind kind;
  TildeUnsizedType *t;

  if (at (p, TILDE_TOK_TUPLE))
    {
      guint mark = list_begin (p);

      t = new_unsized_type (p, TILDE_UTYPE_TUPLE, &start);
      if (!enter (p))
        return t;
      advance (p);
      if (!accept (p, TILDE_TOK_LPAREN))
        {
          report (p, "Expected \"(\" followed by a comma-separated list of at least two types "
                     "after \"tuple\".");
          leave (p);
          return t;
        }
      for (;;)
        {
          if (!starts_unsized_type (p->tok.kind))
            {
              report (p, "Expected an unsized type as an element of the tuple type.");
              break;
            }
          list_push (p, parse_unsized_type (p, ctx));
          if (p->err)
            break;
          if (accept (p, TILDE_TOK_RPAREN))
            {
              if (p->stack->len - mark < 2)
                report_span (p, &p->prev.span, "A tuple type needs at least two elements.");
              break;
            }
          if (!accept (p, TILDE_TOK_COMMA))
            {
              report (p, "Expected \",\" or \")\" after an element of the tuple type.");
              break;
            }
        }
      t->elements = (TildeUnsizedType **) list_end (p, mark, &t->n_elements);
      t->span = span_from (p, &start);
      leave (p);
      return t;
    }
  if (!unsized_kind_of (p->tok.kind, &kind))
    {
      report (p, ctx == UNSIZED_ARG ? MSG_ARG_DECL
                 : "Expected a return type (void or an unsized type such as real, vector or "
                   "array[] real) for the function definition.");
      return new_unsized_type (p, TILDE_UTYPE_REAL, &start);
    }
  t = new_unsized_type (p, kind, &start);
  advance (p);
  if (at (p, TILDE_TOK_LBRACK))
    {
      TildeSpan dims_start = p->tok.span;
      int n = parse_unsized_dims (p, "List of commas expected.");

      if (n > 0)
        {
          g_autofree char *commas = g_strnfill ((gsize) n - 1, ',');
          g_autofree char *msg = g_strdup_printf ("An identifier is expected after the type as a "
                                                  "function argument name.\nIt looks like you are "
                                                  "trying to use the old array syntax.\nPlease use "
                                                  "the new syntax: \narray[%s] %s",
                                                  commas, tilde_unsized_type_kind_to_string (kind));
          TildeSpan span = span_from (p, &dims_start);

          report_span (p, &span, msg);
        }
    }
  return t;
}

static TildeUnsizedType *
parse_unsized_type (Parser *p, UnsizedContext ctx)
{
  TildeSpan start = p->tok.span;
  TildeUnsizedType *t;

  if (!at (p, TILDE_TOK_ARRAY))
    return parse_unsized_base (p, ctx);
  t = new_unsized_type (p, TILDE_UTYPE_ARRAY, &start);
  advance (p);
  if (!at (p, TILDE_TOK_LBRACK))
    {
      report (p, ctx == UNSIZED_RETURN
                   ? "\"[\" (list of commas) \"]\" expected in unsized return type of function "
                     "definition."
                   : "List of commas expected.");
      return t;
    }
  t->n_dims = parse_unsized_dims (p, ctx == UNSIZED_RETURN
                                       ? "\"[\" (list of commas) \"]\" expected in unsized "
                                         "return type of function definition."
                                       : "List of commas expected.");
  if (p->err)
    return t;
  if (at (p, TILDE_TOK_ARRAY))
    {
      report (p, "An array type cannot be the element type of an array; write array[,] for "
                 "more dimensions.");
      return t;
    }
  t->element = parse_unsized_base (p, ctx);
  t->span = span_from (p, &start);
  return t;
}

static TildeStmt *parse_statement (Parser *p);

static void
parse_fun_args (Parser *p, TildeStmt *s)
{
  guint mark = list_begin (p);

  if (accept (p, TILDE_TOK_RPAREN))
    {
      s->u.fun_def.args = NULL;
      s->u.fun_def.n_args = 0;
      return;
    }
  for (;;)
    {
      TildeFunArg *arg = tilde_arena_new0 (p->arena, TildeFunArg);
      TildeSpan start = p->tok.span;

      arg->data_only = accept (p, TILDE_TOK_DATA);
      if (!starts_unsized_type (p->tok.kind))
        {
          report (p, MSG_ARG_DECL);
          break;
        }
      arg->type = parse_unsized_type (p, UNSIZED_ARG);
      if (p->err || !parse_new_ident (p, &arg->ident,
                                      "An identifier is expected as a function argument name."))
        break;
      arg->span = span_from (p, &start);
      list_push (p, arg);
      if (accept (p, TILDE_TOK_RPAREN))
        break;
      if (!accept (p, TILDE_TOK_COMMA))
        {
          report (p, "\",\" or \")\" expected after function argument declaration.");
          break;
        }
    }
  s->u.fun_def.args = struct_list_end (p, mark, sizeof (TildeFunArg), &s->u.fun_def.n_args);
}

static TildeStmt *
parse_fun_def (Parser *p, TildeAnnotation *annotations, int n_annotations,
               const TildeSpan *start)
{
  TildeStmt *s = new_stmt (p, TILDE_STMT_FUN_DEF, start);

  s->u.fun_def.annotations = annotations;
  s->u.fun_def.n_annotations = n_annotations;
  if (at (p, TILDE_TOK_VOID))
    {
      s->u.fun_def.return_type = new_unsized_type (p, TILDE_UTYPE_VOID, &p->tok.span);
      advance (p);
    }
  else
    s->u.fun_def.return_type = parse_unsized_type (p, UNSIZED_RETURN);
  if (p->err || !parse_new_ident (p, &s->u.fun_def.name,
                                  "Expected the name of the function after its return type."))
    return s;
  if (!accept (p, TILDE_TOK_LPAREN))
    {
      report (p, "\"(\" expected after function name.");
      return s;
    }
  parse_fun_args (p, s);
  if (p->err)
    return s;
  if (accept (p, TILDE_TOK_SEMICOLON))
    s->u.fun_def.body = NULL;
  else if (at (p, TILDE_TOK_LBRACE) || starts_statement (p->tok.kind))
    s->u.fun_def.body = parse_statement (p);
  else
    report (p, MSG_FUN_BODY);
  s->span = span_from (p, start);
  return s;
}

/* ---- statements ---- */

static TildeStmt **parse_stmt_list (Parser *p, ListKind kind, TildeBlockKind block, int *n);
static TildeStmt **parse_stmt_list_after (Parser *p, ListKind kind, TildeBlockKind block,
                                          TildeStmt *first, int *n);
static TildeStmt *parse_expr_statement (Parser *p, const TildeSpan *start);

static gboolean
starts_decl (TildeTokenKind kind)
{
  return kind == TILDE_TOK_AT || tilde_token_kind_is_type_keyword (kind);
}

/* A body of if/while/for: a statement or (as stanc allows) a local declaration. */
static TildeStmt *
parse_body (Parser *p, const char *missing)
{
  TildeSpan start = p->tok.span;

  if (starts_decl (p->tok.kind))
    {
      DeclContext ctx = { FALSE, TRUE, NULL, 0, start };

      ctx.annotations = parse_annotations (p, &ctx.n_annotations);
      if (p->err)
        return error_stmt (p, &start);
      return parse_var_decl (p, &ctx);
    }
  if (at (p, TILDE_TOK_LBRACE) || starts_statement (p->tok.kind))
    return parse_statement (p);
  report (p, missing);
  return error_stmt (p, &start);
}

static void
expect_semicolon (Parser *p, const char *message)
{
  if (!p->err && !accept (p, TILDE_TOK_SEMICOLON))
    report (p, message);
}

static TildeStmt *
parse_if (Parser *p, const TildeSpan *start)
{
  TildeStmt *s = new_stmt (p, TILDE_STMT_IF, start);

  advance (p);
  if (!accept (p, TILDE_TOK_LPAREN) || !starts_expr (p->tok.kind))
    {
      report (p, MSG_IF_TEST);
      return s;
    }
  s->u.if_stmt.cond = parse_expr (p);
  if (!p->err && !accept (p, TILDE_TOK_RPAREN))
    report (p, MSG_UNEXPECTED_AFTER_EXPR);
  if (p->err)
    return s;
  s->u.if_stmt.then_stmt = parse_body (p, "Ill-formed statement. Statement expected for true "
                                          "branch of conditional.");
  if (!p->err && accept (p, TILDE_TOK_ELSE))
    s->u.if_stmt.else_stmt = parse_body (p, "Ill-formed statement. Statement expected for false "
                                            "branch of conditional.");
  return s;
}

static TildeStmt *
parse_while (Parser *p, const TildeSpan *start)
{
  TildeStmt *s = new_stmt (p, TILDE_STMT_WHILE, start);

  advance (p);
  if (!accept (p, TILDE_TOK_LPAREN) || !starts_expr (p->tok.kind))
    {
      report (p, MSG_WHILE_TEST);
      return s;
    }
  s->u.while_stmt.cond = parse_expr (p);
  if (!p->err && !accept (p, TILDE_TOK_RPAREN))
    report (p, MSG_UNEXPECTED_AFTER_EXPR);
  if (!p->err)
    s->u.while_stmt.body = parse_body (p, "Ill-formed statement. Statement expected as the body "
                                          "of the while loop.");
  return s;
}

static TildeStmt *
parse_for (Parser *p, const TildeSpan *start)
{
  TildeStmt *s = new_stmt (p, TILDE_STMT_FOR, start);
  TildeIdent var;
  TildeExpr *first;

  advance (p);
  if (!accept (p, TILDE_TOK_LPAREN))
    {
      report (p, "Expected \"(\" after \"for\", followed by a loop variable, \"in\" and a range "
                 "or container.");
      return s;
    }
  if (!parse_new_ident (p, &var, "Expected an identifier for the loop variable after \"for (\"."))
    return s;
  if (!accept (p, TILDE_TOK_IN))
    {
      report (p, "Expected \"in\" after the loop variable of the for statement.");
      return s;
    }
  if (!starts_expr (p->tok.kind))
    {
      report (p, "Expected a range (lower:upper) or a container expression after \"in\".");
      return s;
    }
  first = parse_expr (p);
  if (p->err)
    return s;
  if (accept (p, TILDE_TOK_COLON))
    {
      s->u.for_stmt.var = var;
      s->u.for_stmt.lower = first;
      if (!starts_expr (p->tok.kind))
        {
          report (p, "Expected an expression for the upper bound of the for loop after \":\".");
          return s;
        }
      s->u.for_stmt.upper = parse_expr (p);
    }
  else
    {
      s->kind = TILDE_STMT_FOREACH;
      s->u.foreach_stmt.var = var;
      s->u.foreach_stmt.container = first;
    }
  if (!p->err && !accept (p, TILDE_TOK_RPAREN))
    report (p, MSG_UNEXPECTED_AFTER_EXPR);
  if (p->err)
    return s;
  {
    TildeStmt *body = parse_body (p, "Ill-formed statement. Statement expected as the body of "
                                     "the for loop.");
    if (s->kind == TILDE_STMT_FOR)
      s->u.for_stmt.body = body;
    else
      s->u.foreach_stmt.body = body;
  }
  return s;
}

static TildeStmt *
parse_profile (Parser *p, const TildeSpan *start)
{
  TildeStmt *s = new_stmt (p, TILDE_STMT_PROFILE, start);

  advance (p);
  if (!accept (p, TILDE_TOK_LPAREN) || !at (p, TILDE_TOK_STRING_LIT))
    {
      report (p, "Expected \"(\" followed by a string literal naming the profile after \"profile\".");
      return s;
    }
  s->u.profile.name = token_text (p, &p->tok);
  s->u.profile.name_span = p->tok.span;
  advance (p);
  if (!accept (p, TILDE_TOK_RPAREN))
    {
      report (p, "Expected \")\" after the name of the profile.");
      return s;
    }
  if (!accept (p, TILDE_TOK_LBRACE))
    {
      report (p, "Expected \"{\" to open the body of the profile statement.");
      return s;
    }
  s->u.profile.stmts = parse_stmt_list (p, LIST_LOCAL, TILDE_BLOCK_MODEL, &s->u.profile.n_stmts);
  if (!p->err)
    accept (p, TILDE_TOK_RBRACE);
  return s;
}

/* Braces in the place of a statement: a block, or an array expression
 * that starts an expression statement ({y1, y2} ~ normal(mu, 1);). As in
 * stanc's grammar, an expression just inside the brace followed by "," or
 * "}" makes the braces an array; anything else after it, a block whose
 * first statement it starts. Exactly one of `*array` and `*block` is set. */
static void
parse_braces (Parser *p, const TildeSpan *start, TildeExpr **array, TildeStmt **block)
{
  TildeExpr *first = NULL;
  TildeStmt *first_stmt = NULL;

  *array = NULL;
  *block = NULL;
  advance (p);                                  /* the { */
  if (at (p, TILDE_TOK_LBRACE))
    {
      TildeSpan inner = p->tok.span;
      TildeExpr *inner_array;

      if (!enter (p))
        {
          *block = error_stmt (p, start);
          return;
        }
      parse_braces (p, &inner, &inner_array, &first_stmt);
      leave (p);
      if (inner_array != NULL)
        {
          p->pending = inner_array;
          first = parse_expr (p);
        }
    }
  else if (starts_expr (p->tok.kind)
           && !(at (p, TILDE_TOK_TARGET) && peek (p)->kind != TILDE_TOK_LPAREN))
    first = parse_expr (p);

  if (first != NULL && !p->err && (at (p, TILDE_TOK_COMMA) || at (p, TILDE_TOK_RBRACE)))
    {
      TildeExpr *e = new_expr (p, TILDE_EXPR_ARRAY, start);
      guint mark = list_begin (p);

      list_push (p, first);
      for (;;)
        {
          if (accept (p, TILDE_TOK_RBRACE))
            break;
          if (!accept (p, TILDE_TOK_COMMA))
            {
              report (p, MSG_UNEXPECTED_AFTER_EXPR);
              break;
            }
          if (!starts_expr (p->tok.kind))
            {
              report (p, "Expression expected after \"{\" in array expression.");
              break;
            }
          list_push (p, parse_expr (p));
          if (p->err)
            break;
        }
      e->u.list.items = (TildeExpr **) list_end (p, mark, &e->u.list.n_items);
      e->span = span_from (p, start);
      *array = e;
      return;
    }

  *block = new_stmt (p, TILDE_STMT_BLOCK, start);
  if (first != NULL)
    {
      /* the first statement, which this expression starts */
      TildeSpan first_start = first->span;

      p->pending = first;
      first_stmt = parse_expr_statement (p, &first_start);
    }
  (*block)->u.block.stmts = parse_stmt_list_after (p, LIST_LOCAL, TILDE_BLOCK_MODEL, first_stmt,
                                                   &(*block)->u.block.n_stmts);
  if (!p->err)
    accept (p, TILDE_TOK_RBRACE);
}

static TildeStmt *
parse_printables (Parser *p, TildeStmtKind kind, const TildeSpan *start)
{
  TildeStmt *s = new_stmt (p, kind, start);
  const char *name = tilde_token_kind_to_string (p->tok.kind);
  g_autofree char *msg = g_strdup_printf ("Ill-formed \"%s\" statement. Expected \"(\" followed by "
                                          "a comma-separated list of expressions and strings, "
                                          "then \")\" and \";\".", name);
  guint mark = list_begin (p);

  advance (p);
  if (!accept (p, TILDE_TOK_LPAREN))
    {
      report (p, msg);
      return s;
    }
  for (;;)
    {
      if (at (p, TILDE_TOK_STRING_LIT))
        {
          TildeExpr *e = new_expr (p, TILDE_EXPR_STRING, &p->tok.span);

          e->u.literal.text = token_text (p, &p->tok);
          advance (p);
          list_push (p, e);
        }
      else if (starts_expr (p->tok.kind))
        list_push (p, parse_expr (p));
      else
        {
          report (p, msg);
          break;
        }
      if (p->err || accept (p, TILDE_TOK_RPAREN))
        break;
      if (!accept (p, TILDE_TOK_COMMA))
        {
          report (p, MSG_UNEXPECTED_AFTER_EXPR);
          break;
        }
    }
  s->u.printables.items = (TildeExpr **) list_end (p, mark, &s->u.printables.n_items);
  expect_semicolon (p, msg);
  return s;
}

static TildeStmt *
parse_return (Parser *p, const TildeSpan *start)
{
  TildeStmt *s = new_stmt (p, TILDE_STMT_RETURN, start);

  advance (p);
  if (accept (p, TILDE_TOK_SEMICOLON))
    return s;
  if (!starts_expr (p->tok.kind))
    {
      report (p, MSG_RETURN);
      return s;
    }
  s->u.ret.expr = parse_expr (p);
  expect_semicolon (p, MSG_RETURN);
  return s;
}

static gboolean
is_lvalue (const TildeExpr *e)
{
  switch (e->kind)
    {
    case TILDE_EXPR_VARIABLE:
      return TRUE;
    case TILDE_EXPR_INDEXED:
      return is_lvalue (e->u.indexed.base);
    case TILDE_EXPR_TUPLE_PROJ:
      return is_lvalue (e->u.proj.base);
    case TILDE_EXPR_TUPLE:
      for (int i = 0; i < e->u.list.n_items; i++)
        if (!is_lvalue (e->u.list.items[i]))
          return FALSE;
      return TRUE;
    default:
      return FALSE;
    }
}

static gboolean
assign_op_of (TildeTokenKind kind, TildeAssignOp *op)
{
  switch (kind)
    {
    case TILDE_TOK_ASSIGN: *op = TILDE_ASSIGN_PLAIN; return TRUE;
    case TILDE_TOK_PLUSASSIGN: *op = TILDE_ASSIGN_PLUS; return TRUE;
    case TILDE_TOK_MINUSASSIGN: *op = TILDE_ASSIGN_MINUS; return TRUE;
    case TILDE_TOK_TIMESASSIGN: *op = TILDE_ASSIGN_TIMES; return TRUE;
    case TILDE_TOK_DIVIDEASSIGN: *op = TILDE_ASSIGN_DIVIDE; return TRUE;
    case TILDE_TOK_ELTTIMESASSIGN: *op = TILDE_ASSIGN_ELT_TIMES; return TRUE;
    case TILDE_TOK_ELTDIVIDEASSIGN: *op = TILDE_ASSIGN_ELT_DIVIDE; return TRUE;
    default: return FALSE;
    }
}

static void
parse_truncation (Parser *p, TildeStmt *s)
{
  const char *msg = "Ill-formed truncation. Expected \"T[\" lower bound \",\" upper bound \"]\", "
                    "where either bound may be left out.";

  advance (p);                                  /* T */
  if (!accept (p, TILDE_TOK_LBRACK))
    {
      report (p, msg);
      return;
    }
  if (starts_expr (p->tok.kind))
    s->u.tilde.trunc_lower = parse_expr (p);
  if (p->err)
    return;
  if (!accept (p, TILDE_TOK_COMMA))
    {
      report (p, s->u.tilde.trunc_lower ? MSG_UNEXPECTED_AFTER_EXPR : msg);
      return;
    }
  if (starts_expr (p->tok.kind))
    s->u.tilde.trunc_upper = parse_expr (p);
  if (!p->err && !accept (p, TILDE_TOK_RBRACK))
    report (p, s->u.tilde.trunc_upper ? MSG_UNEXPECTED_AFTER_EXPR : msg);
  s->u.tilde.truncation = s->u.tilde.trunc_lower
                            ? (s->u.tilde.trunc_upper ? TILDE_TRUNCATE_BOTH : TILDE_TRUNCATE_LOWER)
                            : (s->u.tilde.trunc_upper ? TILDE_TRUNCATE_UPPER : TILDE_TRUNCATE_NONE);
}

static TildeStmt *
parse_tilde (Parser *p, TildeExpr *arg, const TildeSpan *start)
{
  TildeStmt *s = new_stmt (p, TILDE_STMT_TILDE, start);
  const char *msg = "Ill-formed distribution statement. Expected the name of a distribution "
                    "followed by \"(\" after \"~\".";

  s->u.tilde.arg = arg;
  advance (p);                                  /* ~ */
  if (!at (p, TILDE_TOK_IDENT))
    {
      report (p, msg);
      return s;
    }
  s->u.tilde.distribution = ident_of (&p->tok);
  advance (p);
  if (!at (p, TILDE_TOK_LPAREN))
    {
      report (p, msg);
      return s;
    }
  advance (p);
  s->u.tilde.args = parse_expr_list (p, TILDE_TOK_RPAREN, TRUE, MSG_FUN_APP,
                                     MSG_UNEXPECTED_AFTER_EXPR,
                                     &s->u.tilde.n_args);
  if (p->err)
    return s;
  if (token_is (&p->tok, TILDE_TOK_IDENT, "T"))
    parse_truncation (p, s);
  expect_semicolon (p, MSG_UNEXPECTED_AFTER_EXPR);
  return s;
}

/* A statement that starts with an expression: assignment, ~, or a call. */
static TildeStmt *
parse_expr_statement (Parser *p, const TildeSpan *start)
{
  TildeExpr *e = parse_expr (p);
  TildeAssignOp op;
  TildeStmt *s;

  if (p->err)
    return error_stmt (p, start);
  if (assign_op_of (p->tok.kind, &op))
    {
      advance (p);
      if (e->kind == TILDE_EXPR_VARIABLE && op == TILDE_ASSIGN_PLUS
          && strcmp (e->u.variable.name, "jacobian") == 0)
        {
          s = new_stmt (p, TILDE_STMT_JACOBIAN_PLUS, start);
          s->u.increment.variable = e;
          if (!starts_expr (p->tok.kind))
            report (p, "Ill-formed expression. Expected an expression after \"jacobian +=\".");
          else
            s->u.increment.expr = parse_expr (p);
          expect_semicolon (p, MSG_UNEXPECTED_AFTER_EXPR);
          s->span = span_from (p, start);
          return s;
        }
      s = new_stmt (p, TILDE_STMT_ASSIGN, start);
      s->u.assign.lhs = e;
      s->u.assign.op = op;
      if (!starts_expr (p->tok.kind))
        {
          g_autofree char *msg = g_strdup_printf ("Ill-formed expression. Expected an expression "
                                                  "after \"%s\".", tilde_assign_op_to_string (op));
          report (p, msg);
          return s;
        }
      s->u.assign.rhs = parse_expr (p);
      expect_semicolon (p, MSG_UNEXPECTED_AFTER_EXPR);
      s->span = span_from (p, start);
      if (!p->err && !is_lvalue (e))
        {
          report_span (p, &s->span, MSG_ASSIGNABLE);
          p->complete = TRUE;
        }
      return s;
    }
  if (at (p, TILDE_TOK_TILDE))
    {
      s = parse_tilde (p, e, start);
      s->span = span_from (p, start);
      return s;
    }
  if (at (p, TILDE_TOK_SEMICOLON) && e->kind == TILDE_EXPR_CALL)
    {
      s = new_stmt (p, TILDE_STMT_CALL, start);
      s->u.call.name = e->u.call.name;
      s->u.call.args = e->u.call.args;
      s->u.call.n_args = e->u.call.n_args;
      advance (p);
      s->span = span_from (p, start);
      return s;
    }
  if (e == p->arrow)
    report_span (p, &p->arrow_span, MSG_ARROW);
  else if (at (p, TILDE_TOK_SEMICOLON) || at (p, TILDE_TOK_RBRACE) || at (p, TILDE_TOK_EOF)
           || at_block_start (p))
    report (p, MSG_EXPR_NOT_STMT);
  else
    report (p, MSG_UNEXPECTED_AFTER_EXPR);
  return error_stmt (p, start);
}

static TildeStmt *
parse_statement (Parser *p)
{
  TildeSpan start = p->tok.span;
  TildeStmt *s;

  if (!enter (p))
    return error_stmt (p, &start);
  switch (p->tok.kind)
    {
    case TILDE_TOK_IF: s = parse_if (p, &start); break;
    case TILDE_TOK_WHILE: s = parse_while (p, &start); break;
    case TILDE_TOK_FOR: s = parse_for (p, &start); break;
    case TILDE_TOK_PROFILE: s = parse_profile (p, &start); break;
    case TILDE_TOK_LBRACE:
      {
        TildeExpr *array;

        parse_braces (p, &start, &array, &s);
        if (array != NULL)
          {
            p->pending = array;
            s = parse_expr_statement (p, &start);
          }
        break;
      }
    case TILDE_TOK_PRINT: s = parse_printables (p, TILDE_STMT_PRINT, &start); break;
    case TILDE_TOK_REJECT: s = parse_printables (p, TILDE_STMT_REJECT, &start); break;
    case TILDE_TOK_FATAL_ERROR: s = parse_printables (p, TILDE_STMT_FATAL_ERROR, &start); break;
    case TILDE_TOK_RETURN: s = parse_return (p, &start); break;
    case TILDE_TOK_BREAK:
    case TILDE_TOK_CONTINUE:
      {
        g_autofree char *msg = g_strdup_printf ("Expected \";\" after \"%s\".",
                                                tilde_token_kind_to_string (p->tok.kind));
        s = new_stmt (p, at (p, TILDE_TOK_BREAK) ? TILDE_STMT_BREAK : TILDE_STMT_CONTINUE, &start);
        advance (p);
        expect_semicolon (p, msg);
        break;
      }
    case TILDE_TOK_SEMICOLON:
      s = new_stmt (p, TILDE_STMT_SKIP, &start);
      advance (p);
      break;
    case TILDE_TOK_TARGET:
      if (peek (p)->kind == TILDE_TOK_PLUSASSIGN)
        {
          s = new_stmt (p, TILDE_STMT_TARGET_PLUS, &start);
          advance (p);
          advance (p);
          if (!starts_expr (p->tok.kind))
            report (p, "Ill-formed expression. Expected an expression after \"target +=\".");
          else
            s->u.increment.expr = parse_expr (p);
          expect_semicolon (p, MSG_UNEXPECTED_AFTER_EXPR);
          break;
        }
      s = parse_expr_statement (p, &start);
      break;
    default:
      s = parse_expr_statement (p, &start);
      break;
    }
  if (p->err && s->kind != TILDE_STMT_ERROR)
    s = error_stmt (p, &start);
  else
    s->span = span_from (p, &start);
  leave (p);
  return s;
}

/* ---- blocks ---- */

static const char *
bad_item_message (Parser *p, ListKind kind, TildeBlockKind block, gboolean first)
{
  switch (kind)
    {
    case LIST_FUNCTIONS:
      if (p->functions_only)
        return "Expected a function definition or forward declaration.";
      return first ? "Function forward declaration, definition or \"}\" expected after "
                     "\"functions {\"."
                   : "A \"}\" or a function definition/declaration is expected.";
    case LIST_DECLS_ONLY:
      if (at (p, TILDE_TOK_IDENT))
        return MSG_INVALID_TYPE;
      return first ? "Expected top-level variable declaration or \"}\"."
                   : "Only top-level variable declarations allowed in data and parameters blocks.";
    case LIST_TOP:
      if (first && !at (p, TILDE_TOK_EOF))
        return block == TILDE_BLOCK_GENERATED_QUANTITIES
                 ? "Variable declaration or statement or \"}\" expected in generated quantities "
                   "block."
                 : "Expect a statement or top-level variable declaration.";
      return MSG_ILL_FORMED_BLOCK;
    case LIST_LOCAL:
    default:
      return at (p, TILDE_TOK_EOF) ? MSG_BLOCK_EOF : MSG_ILL_FORMED_BLOCK;
    }
}

/* One element of a block; NULL (after reporting) when the token cannot
 * start one. */
static TildeStmt *
parse_item (Parser *p, ListKind kind, TildeBlockKind block, gboolean first)
{
  TildeSpan start = p->tok.span;
  TildeAnnotation *annotations = NULL;
  int n_annotations = 0;

  if (at (p, TILDE_TOK_AT))
    {
      annotations = parse_annotations (p, &n_annotations);
      if (p->err)
        return error_stmt (p, &start);
    }
  if (kind == LIST_FUNCTIONS)
    {
      if (at (p, TILDE_TOK_VOID) || starts_unsized_type (p->tok.kind))
        return parse_fun_def (p, annotations, n_annotations, &start);
      report (p, bad_item_message (p, kind, block, first && n_annotations == 0));
      return NULL;
    }
  if (tilde_token_kind_is_type_keyword (p->tok.kind))
    {
      DeclContext ctx = { kind != LIST_LOCAL, kind != LIST_DECLS_ONLY, annotations,
                          n_annotations, start };
      return parse_var_decl (p, &ctx);
    }
  if (n_annotations > 0)
    {
      report (p, "Annotations must be followed by a variable declaration or, in the functions "
                 "block, a function definition.");
      return NULL;
    }
  if (kind == LIST_DECLS_ONLY)
    {
      if (at (p, TILDE_TOK_SEMICOLON))
        {
          TildeStmt *s = new_stmt (p, TILDE_STMT_SKIP, &start);
          advance (p);
          return s;
        }
      report (p, bad_item_message (p, kind, block, first));
      return NULL;
    }
  if (starts_statement (p->tok.kind) || at (p, TILDE_TOK_LBRACE))
    return parse_statement (p);
  report (p, bad_item_message (p, kind, block, first));
  return NULL;
}

/* After an item with an error: on with the next one, past the rest of
 * this one unless it was read to its end. */
static void
recover (Parser *p)
{
  if (!p->err)
    return;
  if (p->complete)
    p->err = FALSE;
  else
    synchronize (p);
  p->complete = FALSE;
}

/* Items up to (not including) the closing "}". Ends early, after reporting,
 * at the end of input or at a block header. */
static TildeStmt **
parse_stmt_list (Parser *p, ListKind kind, TildeBlockKind block, int *n)
{
  return parse_stmt_list_after (p, kind, block, NULL, n);
}

/* The same, after a first item `first_item` already read (when not NULL). */
static TildeStmt **
parse_stmt_list_after (Parser *p, ListKind kind, TildeBlockKind block, TildeStmt *first_item,
                       int *n)
{
  guint mark = list_begin (p);
  gboolean first = TRUE;

  if (first_item != NULL)
    {
      list_push (p, first_item);
      first = FALSE;
      recover (p);
    }
  while (!at (p, TILDE_TOK_RBRACE))
    {
      TildeStmt *s;

      if (at (p, TILDE_TOK_EOF) && p->functions_only)
        break;
      if (at (p, TILDE_TOK_EOF) || at_block_start (p))
        {
          report (p, bad_item_message (p, kind, block, first));
          break;
        }
      s = parse_item (p, kind, block, first);
      if (s)
        list_push (p, s);
      first = FALSE;
      recover (p);
    }
  return (TildeStmt **) list_end (p, mark, n);
}

static ListKind
list_kind_of (TildeBlockKind block)
{
  switch (block)
    {
    case TILDE_BLOCK_FUNCTIONS: return LIST_FUNCTIONS;
    case TILDE_BLOCK_DATA:
    case TILDE_BLOCK_PARAMETERS: return LIST_DECLS_ONLY;
    case TILDE_BLOCK_MODEL: return LIST_LOCAL;
    default: return LIST_TOP;
    }
}

static TildeBlock *
parse_block (Parser *p, TildeBlockKind kind)
{
  TildeBlock *block = tilde_arena_new0 (p->arena, TildeBlock);
  TildeSpan start = p->tok.span;

  block->kind = kind;
  advance (p);                                  /* the header */
  if (!at (p, TILDE_TOK_LBRACE))
    {
      report (p, block_open_messages[kind]);
      /* Resume at a "{" close by, as if the header had been followed by it. */
      while (!at (p, TILDE_TOK_EOF) && !at (p, TILDE_TOK_LBRACE) && !at_block_start (p))
        advance (p);
      p->err = FALSE;
      if (!at (p, TILDE_TOK_LBRACE))
        {
          block->span = span_from (p, &start);
          return block;
        }
    }
  advance (p);                                  /* { */
  block->stmts = parse_stmt_list (p, list_kind_of (kind), kind, &block->n_stmts);
  if (!accept (p, TILDE_TOK_RBRACE))
    p->err = FALSE;                             /* reported by the list */
  block->span = span_from (p, &start);
  return block;
}

/* Skips what stands between blocks, keeping braces balanced, up to the next
 * block header. */
static void
skip_to_block (Parser *p)
{
  int depth = 0;

  while (!at (p, TILDE_TOK_EOF) && !(depth == 0 && is_block_header (p->tok.kind)))
    {
      if (at (p, TILDE_TOK_LBRACE))
        depth++;
      else if (at (p, TILDE_TOK_RBRACE) && depth > 0)
        depth--;
      advance (p);
    }
  p->err = FALSE;
}

static void
parse_blocks (Parser *p, TildeProgram *program)
{
  int last = -1;

  while (!at (p, TILDE_TOK_EOF))
    {
      TildeBlockKind kind;
      TildeBlock *block;

      /* Between blocks "data" can only be a header. */
      if (!is_block_header (p->tok.kind))
        {
          report (p, after_block_messages[last + 1]);
          skip_to_block (p);
          continue;
        }
      kind = block_kind_of (p->tok.kind);
      if ((int) kind <= last)
        report (p, after_block_messages[last + 1]);
      p->err = FALSE;
      block = parse_block (p, kind);
      if (program->blocks[kind] == NULL)
        program->blocks[kind] = block;
      last = MAX (last, (int) kind);
    }
}

static void
parse_functions_only (Parser *p, TildeProgram *program)
{
  TildeBlock *block = tilde_arena_new0 (p->arena, TildeBlock);
  TildeSpan start = p->tok.span;

  block->kind = TILDE_BLOCK_FUNCTIONS;
  block->stmts = parse_stmt_list (p, LIST_FUNCTIONS, TILDE_BLOCK_FUNCTIONS, &block->n_stmts);
  while (!at (p, TILDE_TOK_EOF))
    {
      /* A stray "}": report it and carry on with what follows. */
      int n = 0;
      TildeStmt **more;
      TildeStmt **all;

      report (p, "Expected a function definition or forward declaration.");
      advance (p);
      p->err = FALSE;
      more = parse_stmt_list (p, LIST_FUNCTIONS, TILDE_BLOCK_FUNCTIONS, &n);
      all = tilde_arena_newv (p->arena, TildeStmt *, block->n_stmts + n);
      if (block->n_stmts)
        memcpy (all, block->stmts, sizeof (TildeStmt *) * (gsize) block->n_stmts);
      if (n)
        memcpy (all + block->n_stmts, more, sizeof (TildeStmt *) * (gsize) n);
      block->stmts = all;
      block->n_stmts += n;
    }
  block->span = span_from (p, &start);
  program->blocks[TILDE_BLOCK_FUNCTIONS] = block;
  program->functions_only = TRUE;
}

static gboolean
has_errors_since (GPtrArray *diags, guint first)
{
  for (guint i = first; i < diags->len; i++)
    if (tilde_diagnostic_is_error (g_ptr_array_index (diags, i)))
      return TRUE;
  return FALSE;
}

TildeProgram *
tilde_parse_program (TildeSourceSet *set, TildeParseFlags flags, GPtrArray *diagnostics)
{
  const TildeSourceFile *main = tilde_source_set_get_main (set);
  TildeArena *arena = tilde_arena_new (64 * 1024);
  TildeProgram *program = tilde_arena_new0 (arena, TildeProgram);
  g_autoptr(GArray) comments = g_array_new (FALSE, FALSE, sizeof (TildeComment));
  Parser parser = { 0 };
  Parser *p = &parser;
  guint first_diag = diagnostics->len;

  g_return_val_if_fail (main != NULL, NULL);
  program->arena = arena;
  program->sources = tilde_source_set_ref (set);
  p->arena = arena;
  p->set = set;
  p->diags = diagnostics;
  p->stack = g_ptr_array_new ();
  p->functions_only = (flags & TILDE_PARSE_FUNCTIONS_ONLY) != 0;
  p->lexer = tilde_lexer_new (set, main, diagnostics, comments);
  advance (p);

  if (p->functions_only)
    parse_functions_only (p, program);
  else
    parse_blocks (p, program);

  if (!p->functions_only && !has_errors_since (diagnostics, first_diag))
    {
      gboolean empty = TRUE;

      for (int k = 0; k < TILDE_N_BLOCKS; k++)
        empty &= program->blocks[k] == NULL;
      if (empty)
        {
          g_autofree char *msg = g_strdup_printf ("Empty file '%s' detected; this is a valid stan "
                                                  "model but likely unintended!", main->name);
          g_ptr_array_add (diagnostics, tilde_diagnostic_new (TILDE_SEVERITY_WARNING,
                                                              TILDE_DIAG_WARNING, main->name,
                                                              0, 0, 0, 0, msg));
        }
    }

  program->n_comments = (int) comments->len;
  program->comments = comments->len
    ? tilde_arena_memdup (arena, comments->data, comments->len * sizeof (TildeComment))
    : NULL;
  tilde_lexer_free (p->lexer);
  g_ptr_array_unref (p->stack);
  return program;
}

static TildeSourceSet *
set_with_paths (const char *const *include_paths)
{
  TildeSourceSet *set = tilde_source_set_new ();

  for (gsize i = 0; include_paths && include_paths[i]; i++)
    tilde_source_set_add_include_path (set, include_paths[i]);
  return set;
}

TildeProgram *
tilde_parse_buffer (const char        *display_name,
                    const char        *directory,
                    const char        *text,
                    gssize             len,
                    const char *const *include_paths,
                    TildeParseFlags    flags,
                    GPtrArray         *diagnostics)
{
  g_autoptr(TildeSourceSet) set = set_with_paths (include_paths);

  if (directory)
    tilde_source_set_set_search_own_directory (set, TRUE);
  tilde_source_set_set_main_buffer (set, display_name, directory, text, len);
  return tilde_parse_program (set, flags, diagnostics);
}

TildeProgram *
tilde_parse_file (const char        *path,
                  const char *const *include_paths,
                  TildeParseFlags    flags,
                  GPtrArray         *diagnostics,
                  GError           **error)
{
  g_autoptr(TildeSourceSet) set = set_with_paths (include_paths);

  if (!tilde_source_set_load_main (set, path, error))
    return NULL;
  if (g_str_has_suffix (path, ".stanfunctions"))
    flags |= TILDE_PARSE_FUNCTIONS_ONLY;
  return tilde_parse_program (set, flags, diagnostics);
}
