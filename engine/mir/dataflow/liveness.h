/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Live variables (backward, may): a variable is live at a point when its
 * value there may be read later. A node makes the variables it reads live
 * before it and kills those it replaces as a whole (x = e, declarations,
 * loop variables); partial assignments (x[i] = e) kill nothing. Variables
 * die at the end of the block that declares them.
 *
 * Facts are sets of variable names. `live_at_exit` says what the code
 * after the graph reads: for a program part, what later parts use.
 */
#pragma once

#include "mir/mir.h"
#include "mir/dataflow/set-facts.h"

G_BEGIN_DECLS

MirSetFacts *mir_liveness         (MirFlowGraph *graph, const char *const *live_at_exit,
                                   gboolean record);
/* A function body or any statement, with nothing live after it. */
MirSetFacts *mir_liveness_of_stmt (const MirStmt *body);
/* A program part: `target` is live at the end of every part, and the data
 * and transformed data at the end of prepare_data, since the other parts
 * read them. */
MirSetFacts *mir_liveness_of_part (const MirProgram *program, MirPart part);

G_END_DECLS
