/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Dominators and post-dominators as data-flow problems over sets of nodes
 * (must analyses), and control dependence from post-dominators (Ferrante,
 * Ottenstein and Warren): node y is control dependent on a branching node
 * b when y post-dominates some successor of b but does not strictly
 * post-dominate b, so that b's decision decides whether y runs.
 *
 * Facts label nodes by their numbers.
 */
#pragma once

#include "mir/dataflow/set-facts.h"

G_BEGIN_DECLS

/* The nodes on every path from entry to a node, the node included: the
 * fact just after it. */
MirSetFacts *mir_dominators      (MirFlowGraph *graph, gboolean record);
/* The nodes on every path from a node to exit, the node included: the
 * fact just before it. Nodes that cannot reach exit have every node. */
MirSetFacts *mir_post_dominators (MirFlowGraph *graph, gboolean record);

/* Per node b, the nodes control dependent on b (empty unless b branches).
 * Free with mir_control_dependence_free. */
MirBitset  **mir_control_dependence      (MirFlowGraph *graph);
void         mir_control_dependence_free (MirBitset **deps, guint n_nodes);
/* The same as lists (guint, increasing), which take room in proportion to
 * the dependences rather than to nodes × nodes: the post-dominator tree is
 * found without the sets when every node can reach exit. Free with
 * mir_control_dependence_lists_free. */
GArray     **mir_control_dependence_lists      (MirFlowGraph *graph);
void         mir_control_dependence_lists_free (GArray **deps, guint n_nodes);

G_END_DECLS
