/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Stan source from a syntax tree.
 *
 * tilde_format_program() is the formatter of --auto-format,
 * --print-canonical, --canonicalize=... and --max-line-length=N. It lays a
 * program out as stanc 2.36 does (the Stan style guide's two-space
 * indentation, `for (i in 1 : N)`, lines wrapped at the same places), keeps
 * every comment near where it was and single blank lines between
 * statements. Its output parses back to the same program (up to the chosen
 * canonicalizations) and formatting it again changes nothing.
 *
 * The other functions print one piece on one line, for messages and tests.
 */
#pragma once

#include <glib.h>

#include "ast.h"

G_BEGIN_DECLS

/* stanc's --canonicalize=deprecations,parentheses,braces,includes */
typedef enum {
  TILDE_CANONICALIZE_NONE         = 0,
  /* Drop forward declarations of functions defined in the program, the one
   * deprecation stanc 2.36 still rewrites (the renamed functions and
   * distributions were removed in 2.33 and no longer parse). */
  TILDE_CANONICALIZE_DEPRECATIONS = 1 << 0,
  /* Drop parentheses that change nothing: around a whole argument,
   * initialiser, condition or index, around a name, literal or call, and
   * doubled ones. Those around an operation inside another are kept, and
   * chained comparisons get them: a < b < c becomes (a < b) < c. */
  TILDE_CANONICALIZE_PARENTHESES  = 1 << 1,
  /* Braces around the body of every if, else, for and while; `else { if }`
   * becomes `else if`. */
  TILDE_CANONICALIZE_BRACES       = 1 << 2,
  /* The statements (and comments) of included files in place of #include. */
  TILDE_CANONICALIZE_INCLUDES     = 1 << 3,
  /* --print-canonical */
  TILDE_CANONICALIZE_ALL          = 0xf,
} TildeCanonicalizeFlags;

#define TILDE_FORMAT_DEFAULT_LINE_LENGTH 78

typedef struct {
  TildeCanonicalizeFlags canonicalize;
  int                    max_line_length;   /* columns; 0 for the default */
  gboolean               strip_comments;    /* --canonicalize=strip-comments */
} TildeFormatOptions;

void      tilde_format_options_init (TildeFormatOptions *opts);
/* Adds the options of a --canonicalize value ("braces,parentheses"; also
 * "strip-comments") to `opts`; FALSE and an error for an unknown word. */
gboolean  tilde_format_parse_canonicalize (const char          *list,
                                           TildeFormatOptions  *opts,
                                           GError             **error);
/* The formatted program, ending with a newline after the last block (stanc
 * prints one more). `opts` may be NULL for --auto-format's defaults. */
char     *tilde_format_program (const TildeProgram *program, const TildeFormatOptions *opts);

typedef enum {
  TILDE_PRINT_DEFAULT          = 0,
  /* Print the contents of included files in place of the #include lines. */
  TILDE_PRINT_EXPAND_INCLUDES  = 1 << 0,
  /* Leave comments out. */
  TILDE_PRINT_NO_COMMENTS      = 1 << 1,
} TildePrintFlags;

/* tilde_format_program() with the default line length and no
 * canonicalization other than what `flags` ask. */
char *tilde_print_program        (const TildeProgram *program, TildePrintFlags flags);
/* One statement as the formatter lays it out. */
char *tilde_print_stmt           (const TildeStmt *stmt);
/* One line, parentheses where written and where precedence needs them. */
char *tilde_print_expr           (const TildeExpr *expr);
/* Every operator application wrapped in parentheses: shows how an expression
 * was grouped. */
char *tilde_print_expr_grouped   (const TildeExpr *expr);
/* "array[N] vector<lower=0>[K]" */
char *tilde_print_sized_type     (const TildeSizedType *type);
/* "array[,] real", "tuple(real, vector)" */
char *tilde_print_unsized_type   (const TildeUnsizedType *type);

G_END_DECLS
