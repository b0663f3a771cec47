/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Helpers shared by the data-flow tests. */
#pragma once

#include <glib.h>

#include "mir/mir.h"
#include "mir/dataflow/flow-graph.h"
#include "mir/dataflow/set-facts.h"

G_BEGIN_DECLS

/* Checks and lowers a program given as Stan source (the test fails when it
 * has errors). */
MirProgram   *df_lower          (const char *text);
/* The graph of the body of function `index`. */
MirFlowGraph *df_function_graph (const MirProgram *p, guint index, MirFlowGraphFlags flags);
/* The graph of one program part. */
MirFlowGraph *df_part_graph     (const MirProgram *p, MirPart part, MirFlowGraphFlags flags);
/* The graph's shape, one line per node: "3 if -> 4 5", "4 while -> 5 6 head",
 * with the statement kinds written as the tests name them. */
char         *df_graph_shape    (const MirFlowGraph *graph);
/* The node of the first statement of kind `kind` that starts on source
 * line `line` (fails the test when there is none). */
guint         df_node_at        (const MirFlowGraph *graph, int line, MirStmtKind kind);
/* Fails unless the set prints as `expected`. */
void          df_assert_set     (const MirSetFacts *facts, const MirBitset *set,
                                 const char *expected, const char *what);

G_END_DECLS
