/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The optional warnings of a type-checked program, as stanc's
 * --warn-pedantic and --warn-uninitialized give them. The program is
 * lowered to the MIR and analysed there (engine/mir/dataflow): reads of
 * variables that may not have been assigned, control flow that depends on
 * parameters. The other pedantic checks run on the typed tree
 * (semantics/pedantic.h) and ask the same analyses about the flow of
 * values: reaching definitions, and which data and parameters a value or
 * a statement depends on, matched to the tree by source spans.
 */
#pragma once

#include <glib.h>

#include "syntax/ast.h"

G_BEGIN_DECLS

/* Appends every pedantic warning (TILDE_DIAG_PEDANTIC, the
 * use-before-assignment ones included) in stanc's order: last position
 * first, then those without a location. `program` must have type-checked
 * without errors. */
void tilde_warnings_pedantic      (const TildeProgram *program, GPtrArray *diagnostics);
/* Appends only the "may not have been assigned a value before its use"
 * warnings (TILDE_DIAG_UNINITIALIZED), in the same order. */
void tilde_warnings_uninitialized (const TildeProgram *program, GPtrArray *diagnostics);

G_END_DECLS
