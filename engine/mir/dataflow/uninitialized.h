/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Definitely assigned variables (forward, must) and the warning of
 * `--warn-uninitialized`, as the Stan compiler gives it:
 *
 *   The variable x may not have been assigned a value before its use.
 *
 * A variable is assigned at a point when every path there gives it a value
 * (x = e, x[i] = e, a declaration with a value, a loop variable) or reads
 * it: a use that is warned about counts as assigning, so each unassigned
 * variable is reported once on each path, at its first use. A declaration
 * without a value starts the variable unassigned, and it is forgotten at
 * the end of its scope. Following the Stan compiler, loops are taken to run
 * their body at least once (MIR_FLOW_GRAPH_LOOPS_RUN).
 *
 * The compiler's own checks of declared variables (constraint checks,
 * size checks, writes of outputs) are not uses, and a variable declared
 * @silent is not warned about.
 */
#pragma once

#include "mir/mir.h"
#include "mir/dataflow/set-facts.h"

G_BEGIN_DECLS

/* Facts are the sets of assigned variables; `outside` (NULL-terminated,
 * may be NULL) are assigned at entry. */
MirSetFacts *mir_assigned_variables (MirFlowGraph *graph, const char *const *outside,
                                     gboolean record);

/* Appends a warning (TILDE_DIAG_UNINITIALIZED) for each use of a variable
 * that may be unassigned in `graph`. */
void         mir_uninitialized_uses (MirFlowGraph *graph, const char *const *outside,
                                     GPtrArray *diagnostics);

/* The warnings of a whole program, in the order stanc prints them:
 * prepare_data with the data assigned; log_prob and generate_quantities
 * after prepare_data, with the parameters assigned too; function bodies
 * with their arguments assigned. */
void         mir_uninitialized_warnings (const MirProgram *program, GPtrArray *diagnostics);

G_END_DECLS
