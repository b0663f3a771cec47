/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Data for a model that has none: CmdStan JSON that satisfies the
 * declarations of a typed program's data block (stanc's
 * --debug-generate-data does the same job).
 *
 * Int scalars are small (3..5, or within their bounds), so that they make
 * sensible sizes; sizes and bounds are evaluated from earlier data (int and
 * real literals, variables, + - * / %/% %, unary minus, size,
 * num_elements, rows, cols, min, max). Reals are drawn within their bounds;
 * constrained types (simplex, ordered, unit_vector, Cholesky factors,
 * correlation and covariance matrices, stochastic matrices, sum-to-zero)
 * are built to satisfy their constraints; complex values are [re, im]. The same seed gives the same
 * data. A declaration whose sizes or bounds need more than that is a
 * problem, reported in words that name the variable.
 */
#pragma once

#include <glib.h>

#include "syntax/ast.h"

G_BEGIN_DECLS

/* The JSON text (pretty-printed), or NULL with `*problem` set. */
char *tilde_generate_data (const TildeProgram *program, guint32 seed, char **problem);

G_END_DECLS
