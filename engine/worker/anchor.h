/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Where a place in a model lands when the formatter rewrites the model, so
 * that formatting leaves the cursor on the statement it was on.
 *
 * A place is tied to the innermost statement around it (each variable of a
 * `real a, b;` declaration counts as a statement of its own, since the
 * formatter splits such declarations), or else to the end of the statement
 * before it, or else to the start of the text; then to the number of
 * non-blank characters between that anchor and the place. The formatter
 * changes blanks and keeps the statements in order, so the same statement
 * in the new program, and the same count from it, is the same place.
 */
#pragma once

#include <glib.h>

#include "syntax/ast.h"

G_BEGIN_DECLS

/* `offset` is a byte offset in `before_text`, the main file `before` was
 * parsed from; returns the byte offset of the same place in `after_text`,
 * the main file of `after`. */
gsize tilde_anchor_map_offset (const TildeProgram *before,
                               const char         *before_text,
                               gsize               before_len,
                               const TildeProgram *after,
                               const char         *after_text,
                               gsize               after_len,
                               gsize               offset);

/* Byte offset of line (1-based) and byte column (0-based) in `text`, clamped
 * to the line's end and the text's end. */
gsize tilde_text_offset_at    (const char *text, gsize len, int line, int column);
/* The line and byte column of a byte offset. */
void  tilde_text_position_at  (const char *text, gsize len, gsize offset,
                               int *line, int *column);

G_END_DECLS
