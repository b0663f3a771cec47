/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The Stan lexer. It reads the main file of a source set and splices every
 * #include into the token stream, as stanc does. Comments and include
 * directives are not tokens; they are collected on a side list with their
 * spans so that a formatter can put them back.
 *
 * Problems become TILDE_DIAG_LEXING / TILDE_DIAG_INCLUDE diagnostics with
 * stanc's wording; the lexer then skips the offending character (or
 * directive) and carries on, so one pass reports everything.
 */
#pragma once

#include <glib.h>

#include "source.h"

G_BEGIN_DECLS

typedef enum {
  TILDE_TOK_EOF,
  TILDE_TOK_IDENT,
  TILDE_TOK_INT_LIT,
  TILDE_TOK_REAL_LIT,
  TILDE_TOK_DOT_NUMERAL,     /* ".5": a real literal, or the ".1" of x.1 */
  TILDE_TOK_IMAG_LIT,
  TILDE_TOK_STRING_LIT,
  /* block headers */
  TILDE_TOK_FUNCTIONS,
  TILDE_TOK_DATA,
  TILDE_TOK_TRANSFORMED_DATA,
  TILDE_TOK_PARAMETERS,
  TILDE_TOK_TRANSFORMED_PARAMETERS,
  TILDE_TOK_MODEL,
  TILDE_TOK_GENERATED_QUANTITIES,
  /* punctuation */
  TILDE_TOK_LBRACE, TILDE_TOK_RBRACE, TILDE_TOK_LPAREN, TILDE_TOK_RPAREN,
  TILDE_TOK_LBRACK, TILDE_TOK_RBRACK, TILDE_TOK_LABRACK, TILDE_TOK_RABRACK,
  TILDE_TOK_COMMA, TILDE_TOK_SEMICOLON, TILDE_TOK_BAR, TILDE_TOK_AT,
  /* control flow */
  TILDE_TOK_RETURN, TILDE_TOK_IF, TILDE_TOK_ELSE, TILDE_TOK_WHILE, TILDE_TOK_FOR,
  TILDE_TOK_IN, TILDE_TOK_BREAK, TILDE_TOK_CONTINUE, TILDE_TOK_PROFILE,
  /* types */
  TILDE_TOK_VOID, TILDE_TOK_INT, TILDE_TOK_REAL, TILDE_TOK_COMPLEX,
  TILDE_TOK_VECTOR, TILDE_TOK_ROW_VECTOR, TILDE_TOK_MATRIX,
  TILDE_TOK_COMPLEX_VECTOR, TILDE_TOK_COMPLEX_ROW_VECTOR, TILDE_TOK_COMPLEX_MATRIX,
  TILDE_TOK_ARRAY, TILDE_TOK_TUPLE,
  TILDE_TOK_ORDERED, TILDE_TOK_POSITIVE_ORDERED, TILDE_TOK_SIMPLEX, TILDE_TOK_UNIT_VECTOR,
  TILDE_TOK_SUM_TO_ZERO_VECTOR, TILDE_TOK_SUM_TO_ZERO_MATRIX,
  TILDE_TOK_CHOLESKY_FACTOR_CORR, TILDE_TOK_CHOLESKY_FACTOR_COV,
  TILDE_TOK_CORR_MATRIX, TILDE_TOK_COV_MATRIX,
  TILDE_TOK_COLUMN_STOCHASTIC_MATRIX, TILDE_TOK_ROW_STOCHASTIC_MATRIX,
  /* constraint keywords */
  TILDE_TOK_LOWER, TILDE_TOK_UPPER, TILDE_TOK_OFFSET, TILDE_TOK_MULTIPLIER,
  /* other keywords */
  TILDE_TOK_TARGET, TILDE_TOK_PRINT, TILDE_TOK_REJECT, TILDE_TOK_FATAL_ERROR,
  /* operators */
  TILDE_TOK_QMARK, TILDE_TOK_COLON, TILDE_TOK_BANG, TILDE_TOK_MINUS, TILDE_TOK_PLUS,
  TILDE_TOK_HAT, TILDE_TOK_ELTPOW, TILDE_TOK_TRANSPOSE, TILDE_TOK_TIMES, TILDE_TOK_DIVIDE,
  TILDE_TOK_MODULO, TILDE_TOK_IDIVIDE, TILDE_TOK_LDIVIDE, TILDE_TOK_ELTTIMES,
  TILDE_TOK_ELTDIVIDE, TILDE_TOK_OR, TILDE_TOK_AND, TILDE_TOK_EQUALS, TILDE_TOK_NEQUALS,
  TILDE_TOK_LEQ, TILDE_TOK_GEQ, TILDE_TOK_TILDE,
  TILDE_TOK_ASSIGN, TILDE_TOK_PLUSASSIGN, TILDE_TOK_MINUSASSIGN, TILDE_TOK_TIMESASSIGN,
  TILDE_TOK_DIVIDEASSIGN, TILDE_TOK_ELTTIMESASSIGN, TILDE_TOK_ELTDIVIDEASSIGN,
  TILDE_N_TOKEN_KINDS
} TildeTokenKind;

typedef struct {
  TildeTokenKind kind;
  const char    *text;         /* into the file's text; not NUL-terminated */
  guint          length;
  TildeSpan      span;
  gboolean       space_before; /* whitespace or a comment precedes it */
} TildeToken;

typedef enum {
  TILDE_COMMENT_LINE,      /* // ... (without the newline) */
  TILDE_COMMENT_BLOCK,     /* slash-star ... star-slash */
  TILDE_COMMENT_INCLUDE,   /* an #include directive, kept for the formatter */
} TildeCommentKind;

typedef struct {
  TildeCommentKind kind;
  TildeSpan        span;
  const char      *text;   /* into the file's text: the whole comment or directive */
  guint            length;
} TildeComment;

typedef struct TildeLexer TildeLexer;

/* Lexes `file` (usually the main file of `set`). Diagnostics are appended to
 * `diagnostics`; comments to `comments` (a GArray of TildeComment) when it is
 * not NULL. */
TildeLexer  *tilde_lexer_new  (TildeSourceSet        *set,
                               const TildeSourceFile *file,
                               GPtrArray             *diagnostics,
                               GArray                *comments);
void         tilde_lexer_free (TildeLexer *lexer);
/* The next token; TILDE_TOK_EOF at the end of the main file, forever after. */
void         tilde_lexer_next (TildeLexer *lexer, TildeToken *token);

/* How the token is written in messages: "while", "+=", "transformed data";
 * "identifier", "<EOF>" and so on for classes. */
const char  *tilde_token_kind_to_string (TildeTokenKind kind);
/* TRUE for reserved words (they cannot name variables or functions). */
gboolean     tilde_token_kind_is_keyword (TildeTokenKind kind);
/* TRUE for the keywords that start a type: int, real, vector, array, ... */
gboolean     tilde_token_kind_is_type_keyword (TildeTokenKind kind);

/* stanc's rule for names that lex as identifiers but may not be declared:
 * a "__" suffix, or a word kept for the future ("true", "struct", "then",
 * "generated", ...). The type checker reports these ("Identifier 'x__'
 * clashes with reserved keyword."). */
gboolean     tilde_identifier_is_reserved (const char *name);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeLexer, tilde_lexer_free)

G_END_DECLS
