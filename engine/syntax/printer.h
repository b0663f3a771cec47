/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Prints a syntax tree back as Stan source in the layout of the Stan style
 * guide: two-space indentation, one declaration per line, spaces around
 * binary operators, "} else {" on one line. Comments are kept where they
 * were (between the statements around them), as are single blank lines.
 *
 * Printing is idempotent (printing the parse of the output gives the output
 * again) and the output parses to a tree tilde_program_equal() to the input.
 * This backs --auto-format and --print-canonical.
 */
#pragma once

#include <glib.h>

#include "ast.h"

G_BEGIN_DECLS

typedef enum {
  TILDE_PRINT_DEFAULT          = 0,
  /* Print the contents of included files in place of the #include lines. */
  TILDE_PRINT_EXPAND_INCLUDES  = 1 << 0,
  /* Leave comments out. */
  TILDE_PRINT_NO_COMMENTS      = 1 << 1,
} TildePrintFlags;

char *tilde_print_program        (const TildeProgram *program, TildePrintFlags flags);
char *tilde_print_stmt           (const TildeStmt *stmt);
char *tilde_print_expr           (const TildeExpr *expr);
/* Every operator application wrapped in parentheses: shows how an expression
 * was grouped. */
char *tilde_print_expr_grouped   (const TildeExpr *expr);
/* "array[N] vector<lower=0>[K]" */
char *tilde_print_sized_type     (const TildeSizedType *type);
/* "array[,] real", "tuple(real, vector)" */
char *tilde_print_unsized_type   (const TildeUnsizedType *type);

G_END_DECLS
