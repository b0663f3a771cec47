/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The start of a data file for a model: CmdStan JSON with every variable
 * of the data block, in the block's order, in the shape its declaration
 * gives it, with sizes that agree with each other and values that satisfy
 * the constraints (io/generate-data.h makes them). For people to read and
 * overwrite: one variable a line, a matrix one row a line, reals to three
 * significant digits unless the rounded value would break a constraint
 * (a simplex that no longer sums to one keeps its full digits). The same
 * model gives the same template.
 */
#pragma once

#include <glib.h>

#include "syntax/ast.h"

G_BEGIN_DECLS

/* `program`: typed, without errors. NULL with `*problem` set when the
 * data block asks for more than the generator can evaluate. */
char *tilde_data_template (const TildeProgram *program, char **problem);

G_END_DECLS
