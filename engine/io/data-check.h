/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The text of a CmdStan JSON data file checked against a model's data
 * block, with every problem placed in the text (lines from 1, columns from
 * 0 in bytes, as stanc counts them), so that an editor can underline it:
 *
 *  - a syntax error, at the token that is out of place (nothing else is
 *    checked then);
 *  - a top-level value that is not an object, over that value;
 *  - a variable of the data block missing from the data, at the object's
 *    closing brace, naming the variable and the type it is declared with;
 *  - a variable the data block does not declare (a warning), at its key,
 *    and a key given twice (a warning), at the one that does not count;
 *  - a value that does not fit its declaration (shape, type, size, a size
 *    that disagrees with earlier data, a constraint), over the value, in
 *    the runtime's own words (runtime/model.h: tilde_model_check_data,
 *    the statements tilde_model_new reads data with).
 *
 * A problem that has no place in the text (blank text, a data block that
 * cannot be evaluated) has begin_line 0. Diagnostics are of kind
 * TILDE_DIAG_DATA, errors before warnings where they share a place, in
 * the order of the text.
 */
#pragma once

#include <glib.h>

#include "syntax/ast.h"

G_BEGIN_DECLS

/* `len` -1: NUL-terminated. `file` names the text in the diagnostics (may
 * be NULL). `program` is a typed program without errors, or NULL: then
 * only the syntax is checked. Returns a list from
 * tilde_diagnostic_list_new(). */
GPtrArray *tilde_data_check (const char         *text,
                             gssize              len,
                             const char         *file,
                             const TildeProgram *program);

G_END_DECLS
