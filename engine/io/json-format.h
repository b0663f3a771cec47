/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * JSON data laid out to be read and edited: each member of an object on a
 * line of its own, indented two spaces a level; an array of numbers (or of
 * other scalars) on the line of its key when it fits in 80 columns, else
 * filled line by line one level deeper; an array holding arrays or
 * objects one element a line. Every token stays as written (numbers to
 * the digit, strings in their quotes, words), and a comment stays before
 * the token it came before. A file a JSON writer put on one line comes
 * out in lines an editor lays out at once.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The text laid out (`out_len` its length), or NULL with the first error
 * of text that does not read as data (the check of io/json-locate.h:
 * JSON_PARSER_ERROR, "<data>:LINE:COLUMN: Parse error: ..."). Blank text
 * stays blank. */
char *tilde_json_format (const char *text, gsize len, gsize *out_len, GError **error);

G_END_DECLS
