/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Helpers shared by the tests of the optimisation passes. */
#pragma once

#include <glib.h>

#include "mir/mir.h"

G_BEGIN_DECLS

/* Checks, lowers and transforms `text` (the transformed MIR, which is what
 * the passes run on); the test fails when it does not check. */
MirProgram *pass_test_program (const char *name, const char *text);
/* The same for a file. */
MirProgram *pass_test_program_file (const char *path);

/* ---- comparing with the listings of stanc's documentation ----
 *
 * The documentation shows the printed MIR "simplified". Both texts are
 * brought to one form before they are compared; these are the only
 * differences allowed:
 *   - only the program part the listing shows is compared, and white space
 *     does not count;
 *   - a declaration followed by the assignment of its variable reads as a
 *     declaration with a value (`int i; i = 5;` = `int i = 5;`);
 *   - size checks (FnValidateSize__) are left out;
 *   - a promotion reads as the expression promoted (`promote(5, real, data)`
 *     = `5`: the MIR the documentation shows had no promotion nodes);
 *   - the model block's statements sit in a block of their own in log_prob
 *     (`log_prob { { ... } }` = `log_prob { ... }`);
 *   - the compiler's variables (`inline_sym3__`, `lcm_sym4__`) are numbered
 *     in the order they first appear, and a declaration of one that is
 *     never used again is left out;
 * and, where a test asks for them:
 *   - PASS_TEXT_NO_DATA: `data` qualifiers do not count (the documentation
 *     is not consistent about them);
 *   - PASS_TEXT_DECLS_FIRST: in each block, the declarations come first. */
typedef enum {
  PASS_TEXT_DEFAULT     = 0,
  PASS_TEXT_NO_DATA     = 1 << 0,
  PASS_TEXT_DECLS_FIRST = 1 << 1,
} PassTextFlags;

/* The part `part` ("log_prob", ...) of a printed program in that form. */
char *pass_test_canonical (const char *text, const char *part, PassTextFlags flags);
/* Fails the test unless the part of `program` and `documented` agree. */
void  pass_test_assert_documented (const MirProgram *program, const char *part,
                                   const char *documented, PassTextFlags flags);

/* ---- running programs ----
 *
 * A small interpreter of the MIR, enough for scalar programs: int and
 * real values and arrays of them, the operators, a few functions, user
 * functions, print and reject, and _rng functions that return 1, 2, 3, ...
 * in the order they are called (so that a draw moved, added or removed
 * shows). It runs prepare_data with the given data and returns what can be
 * seen of the run: the lines printed, the error that stopped it, and the
 * values of the transformed data at the end. NULL when the program uses
 * something the interpreter does not know. */
char *pass_test_run (const MirProgram *program, GHashTable *data);

/* Data for pass_test_run: "N=3,x=1.5" (ints and reals). */
GHashTable *pass_test_data (const char *spec);

/* Every expression and statement in the program has a type (expressions)
 * and a source span, and a value assigned to a whole variable has the
 * variable's type; fails the test otherwise. */
void pass_test_assert_nodes (const char *what, MirProgram *program);

G_END_DECLS
