/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The flow graph of one statement list or function body: the graph every
 * data-flow analysis runs on.
 *
 * There is a node for every statement, nested ones included, and two
 * synthetic nodes, entry and exit. Nodes are numbered in source order
 * (entry first, exit last), so a listing reads like the program.
 *
 * - if, while and for nodes stand for evaluating the condition (the bounds
 *   and the loop variable for `for`) and branch; while and for nodes are
 *   loop heads: the end of the body and `continue` go back to them, and
 *   the loop is left from them (or from a `break`).
 * - a block's (and a profile's) node comes after its body and stands for
 *   leaving its scope, which is where its local variables die; a
 *   statement list that is not a scope (SList) has its node before its body.
 * - `return`, `reject` and `fatal_error` go to exit.
 *
 * With MIR_FLOW_GRAPH_LOOPS_RUN a loop is assumed to run its body at least
 * once: it is left from the end of its body (and breaks), never straight
 * from its test. This is the Stan compiler's `flatten_loops` view, used for
 * the uninitialised-variable warning so that `for (i in 1:N) x = ...;`
 * counts as assigning x.
 *
 * The graph keeps pointers into the statements it was built from; they
 * must outlive it. Graphs are reference counted and immutable.
 */
#pragma once

#include <glib.h>

#include "mir/mir.h"

G_BEGIN_DECLS

#define MIR_FLOW_NONE G_MAXUINT

typedef enum {
  MIR_FLOW_NODE_ENTRY,
  MIR_FLOW_NODE_EXIT,
  MIR_FLOW_NODE_STMT,
} MirFlowNodeKind;

typedef struct {
  MirFlowNodeKind kind;
  const MirStmt  *stmt;       /* NULL for entry and exit */
  TildeSpan       span;       /* the statement's; zeroed for entry and exit */
  guint           parent;     /* node of the enclosing statement, or MIR_FLOW_NONE */
  guint           loop;       /* innermost while/for node around it, or MIR_FLOW_NONE */
  gboolean        loop_head;  /* a while or for node */
  guint           n_succs;
  guint          *succs;
  guint           n_preds;
  guint          *preds;
} MirFlowNode;

typedef enum {
  MIR_FLOW_GRAPH_DEFAULT   = 0,
  MIR_FLOW_GRAPH_LOOPS_RUN = 1 << 0,
} MirFlowGraphFlags;

typedef struct {
  guint              n_nodes;
  MirFlowNode       *nodes;
  guint              entry;
  guint              exit;
  /* Every node once: reverse postorder from entry (from exit on the
   * reversed graph for backward order), then the nodes that order cannot
   * reach, by number. */
  guint             *forward_order;
  guint             *backward_order;
  MirFlowGraphFlags  flags;
  /* private */
  const MirStmt    **stmt_keys;  /* node of a statement: open addressing */
  guint             *stmt_nodes;
  guint              stmt_mask;
  guint             *edges;      /* every node's successors, then predecessors */
  gint               ref_count;
} MirFlowGraph;

/* The graph of one statement (a function body, a block). */
MirFlowGraph *mir_flow_graph_new           (const MirStmt *stmt, MirFlowGraphFlags flags);
/* The graph of statement lists run one after the other (a program part,
 * or prepare_data followed by log_prob); a list may be NULL. */
MirFlowGraph *mir_flow_graph_new_for_lists (const GPtrArray *const *lists, guint n_lists,
                                            MirFlowGraphFlags flags);
MirFlowGraph *mir_flow_graph_ref           (MirFlowGraph *graph);
void          mir_flow_graph_unref         (MirFlowGraph *graph);

/* The node of a statement, or MIR_FLOW_NONE when it is not in the graph. */
guint         mir_flow_graph_node_of       (const MirFlowGraph *graph, const MirStmt *stmt);
/* Where control enters a statement: its own node, except for a block or a
 * profile, which is entered at its first statement. */
guint         mir_flow_graph_entry_of      (const MirFlowGraph *graph, const MirStmt *stmt);
/* A one-line description: "entry", "exit", "x = (x + 1);", "while ((i < N))",
 * "for (i in 1:N)", "if ((x > 0))", "end of block", "statement list". */
char         *mir_flow_graph_node_label    (const MirFlowGraph *graph, guint node);
/* One line per node: "3 while ((i < 10)) -> 4 7 [loop head]". */
char         *mir_flow_graph_print         (const MirFlowGraph *graph);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MirFlowGraph, mir_flow_graph_unref)

G_END_DECLS
