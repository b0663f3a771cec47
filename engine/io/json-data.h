/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * CmdStan JSON data and inits: an object whose members are variables.
 * Scalars are numbers (or "inf", "-inf", "NaN" as strings), vectors and
 * arrays are JSON arrays, matrices arrays of rows, complex numbers
 * [re, im], tuples objects keyed "1", "2", ...
 *
 * A file is checked once (its syntax, and that it is UTF-8) and kept as
 * text; each variable is then read from the text against the shape its
 * declaration gives it, its numbers straight into its storage, and
 * anything that does not fit (a wrong size, an int variable holding 1.5, a
 * ragged array) is reported in words that name the variable, what was
 * expected and what was found. Numbers read as strtod reads them (in the
 * C locale); ints beyond 64 bits are reals.
 */
#pragma once

#include <glib.h>

#include "runtime/value.h"

G_BEGIN_DECLS

typedef struct TildeJsonData TildeJsonData;

TildeJsonData *tilde_json_data_new_from_file   (const char *path, GError **error);
TildeJsonData *tilde_json_data_new_from_string (const char *text, gssize len, GError **error);
/* An object with no variables (a model without data). */
TildeJsonData *tilde_json_data_new_empty       (void);
void           tilde_json_data_free            (TildeJsonData *data);

gboolean       tilde_json_data_has             (const TildeJsonData *data, const char *name);
/* The variables' names in the order of the text, a name given twice once
 * (where it is last, whose value counts). */
GStrv          tilde_json_data_names           (const TildeJsonData *data);
/* How the value of `name` looks, for a summary: a number, a string or a
 * word as written (cut at 40 characters), an array as its lengths along
 * its first elements ("1000 × 3"; "0" for []), an object as "{…}"; NULL
 * for a name not in the data. */
char          *tilde_json_data_describe        (const TildeJsonData *data, const char *name);

/* Reads `name` as a value of `shape`, its storage in `arena`. On failure
 * returns FALSE and sets `problem` to a message ("variable y: expected
 * array[8] real, found an array of 7 values"). */
gboolean       tilde_json_data_read            (const TildeJsonData *data,
                                                const char          *name,
                                                const TildeShape    *shape,
                                                TildeArena          *arena,
                                                TildeValue          *out,
                                                char               **problem);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeJsonData, tilde_json_data_free)

G_END_DECLS
