/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The monotone data-flow framework every analysis and optimisation pass
 * uses: a lattice of facts, a transfer function per node of a flow graph, a
 * direction, and a worklist solver that computes the least fixed point of
 *
 *   in(n)  = boundary                      for the start node (entry, or
 *            ⊔ { out(p) | p flows into n }  exit for a backward analysis)
 *   out(n) = transfer(n, in(n))
 *
 * starting from bottom everywhere. With monotone transfer functions and a
 * lattice of finite height this is the minimal (most precise) fixed point,
 * as the Stan compiler's Monotone_framework and the Dragon book compute it.
 *
 * A lattice of infinite height provides `widen`: after a loop head has been
 * visited `widen_after` times, its new input is old ∇ joined instead of the
 * joined value, which makes every ascending chain finite. The result is
 * then a fixed point that is sound but may be less precise.
 *
 * Nodes are visited in reverse postorder of the flow direction (so that a
 * straight-line program is solved in one pass) and revisited when an input
 * changes. With `record` set, every visit is written to a trace that the
 * teaching view replays.
 */
#pragma once

#include <glib.h>

#include "mir/dataflow/flow-graph.h"
#include "mir/dataflow/trace.h"

G_BEGIN_DECLS

typedef enum {
  MIR_DATAFLOW_FORWARD,
  MIR_DATAFLOW_BACKWARD,
} MirDataflowDirection;

/* Facts are opaque pointers owned by the solver. */
typedef struct {
  gpointer (*bottom) (gpointer user_data);
  gpointer (*copy)   (gconstpointer fact, gpointer user_data);
  void     (*free)   (gpointer fact, gpointer user_data);
  /* acc := acc ⊔ fact */
  void     (*join)   (gpointer acc, gconstpointer fact, gpointer user_data);
  gboolean (*equal)  (gconstpointer a, gconstpointer b, gpointer user_data);
  /* Optional. acc := acc ∇ next, where acc is the loop head's previous
   * input and next the newly joined one (acc ⊑ next). */
  void     (*widen)  (gpointer acc, gconstpointer next, gpointer user_data);
  /* Optional, required to record a trace. */
  void     (*print)  (GString *out, gconstpointer fact, gpointer user_data);
  /* Optional. dst := src, in place. With it the solver keeps one fact per
   * node and direction for the whole solve instead of making new ones at
   * every visit, and starts a join from the first fact flowing in, which
   * requires bottom ⊔ x = x. */
  void     (*assign) (gpointer dst, gconstpointer src, gpointer user_data);
} MirLattice;

/* Turns the fact flowing into `node` into the fact flowing out of it, in
 * place. It must be monotone. It is called for statement nodes only: entry
 * and exit pass their facts through unchanged. */
typedef void (*MirTransferFunc) (const MirFlowGraph *graph, guint node, gpointer fact,
                                 gpointer user_data);

typedef struct {
  const MirLattice     *lattice;
  MirDataflowDirection  direction;
  MirTransferFunc       transfer;
  /* The fact at the start node (entry, or exit going backward), a new
   * value; NULL: bottom. */
  gpointer            (*boundary) (gpointer user_data);
  gpointer              user_data;
  /* Visits of a loop head before widening starts; 0: MIR_DATAFLOW_WIDEN_AFTER. */
  guint                 widen_after;
  /* Stop after this many node visits (the solution is then marked as not
   * converged); 0: no limit. A lattice of infinite height without widening
   * needs one. */
  guint                 max_visits;
  gboolean              record;
} MirDataflowProblem;

#define MIR_DATAFLOW_WIDEN_AFTER 3

typedef struct {
  MirFlowGraph         *graph;
  const MirLattice     *lattice;
  gpointer              user_data;
  MirDataflowDirection  direction;
  /* Per node, in program order: the fact holding just before the statement
   * and just after it (for a backward analysis `after` is what flows in). */
  gpointer             *before;
  gpointer             *after;
  guint                 n_visits;
  gboolean              converged;
  MirDataflowTrace     *trace;      /* when recorded */
} MirDataflowSolution;

MirDataflowSolution *mir_dataflow_solve         (MirFlowGraph              *graph,
                                                 const MirDataflowProblem  *problem);
void                 mir_dataflow_solution_free (MirDataflowSolution *solution);

/* The facts flowing into and out of a node in the analysis' direction. */
gconstpointer        mir_dataflow_in            (const MirDataflowSolution *solution, guint node);
gconstpointer        mir_dataflow_out           (const MirDataflowSolution *solution, guint node);

/* A fact as the lattice prints it (new string). */
char                *mir_dataflow_fact_to_string (const MirDataflowSolution *solution,
                                                  gconstpointer fact);
/* One line per node: "3 x = (x + 1); | in {x} | out {x, y}" (in and out in
 * the analysis' direction, as in a trace). */
char                *mir_dataflow_solution_print (const MirDataflowSolution *solution);

G_END_DECLS
