/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The MIR as text, in the shape of stanc's --debug-mir-pretty and
 * --debug-transformed-mir-pretty: the program parts as `name { ... }`
 * blocks, statements one a line, operators in parentheses, library and
 * user functions by name, compiler-internal functions as stanc writes them
 * (FnReadData__, (FnCheck(trans(Lower 0))(var_name N)(var N))__).
 *
 * Documented differences from stanc: lines are never wrapped (stanc's
 * formatter folds lines longer than 80 columns), stanc's empty
 * reverse-mode copy of log_prob (rev_log_prob) is not printed, and an
 * empty block prints as `{ }`.
 */
#pragma once

#include <glib.h>

#include "mir/mir.h"

G_BEGIN_DECLS

typedef enum {
  MIR_PRINT_DEFAULT     = 0,
  /* After each `target +=`, a comment saying where it came from:
   * `// ~ likelihood`, `// ~ prior`, `// likelihood`, `// prior`, and in
   * functions `// ~ by arguments` (once a line; mir-terms.h). */
  MIR_PRINT_TERM_ROLES  = 1 << 0,
  /* Declaration and function annotations before them (`@gpu data ...`). */
  MIR_PRINT_ANNOTATIONS = 1 << 1,
} MirPrintFlags;

/* The whole program. When `line_spans` is not NULL it receives a new
 * GArray of TildeSpan with one element per line of the text: the span of
 * the statement (or declaration, function, variable) the line came from, a
 * zeroed span (file NULL) for lines that come from no source, such as block
 * headers. */
char *mir_print_program (const MirProgram *program, MirPrintFlags flags,
                         GArray **line_spans);

/* One statement (possibly several lines, indented from column 0). */
char *mir_print_stmt    (const MirStmt *stmt, MirPrintFlags flags);
/* One expression, on one line. */
char *mir_print_expr    (const MirExpr *expr);
void  mir_append_expr   (GString *out, const MirExpr *expr);
/* "vector[N]", "array[real, N]", "tuple(real, int)". */
char *mir_print_sized_type (const MirSizedType *type);
/* "Lower 0", "(LowerUpper 0 1)" (parenthesised when it has arguments). */
char *mir_print_transform  (const MirTransform *trans);

G_END_DECLS
