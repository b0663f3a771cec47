/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A record of how a data-flow solution was reached, for the teaching view:
 * the facts every node started with, then one step per node visit in the
 * order the solver made them, each with the facts as text. Replaying the
 * steps over the starting facts gives the solution.
 *
 * "In" and "out" follow the direction of the analysis: for a forward
 * analysis `in` holds before the statement and `out` after it; for a
 * backward one `in` is the fact after the statement (flowing in from its
 * successors) and `out` the fact before it.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint    node;
  char    *in;            /* the joined input (widened when `widened`) */
  char    *out;           /* the transfer function's result */
  gboolean in_changed;
  gboolean out_changed;
  gboolean widened;       /* widening was applied at this loop head */
} MirDataflowStep;

typedef struct {
  gboolean   backward;
  guint      n_nodes;
  char     **initial_in;  /* n_nodes texts */
  char     **initial_out;
  GArray    *steps;       /* MirDataflowStep */
  gboolean   converged;   /* FALSE when the solver stopped at its visit limit */
} MirDataflowTrace;

MirDataflowTrace *mir_dataflow_trace_new  (gboolean backward, guint n_nodes);
void              mir_dataflow_trace_free (MirDataflowTrace *trace);
/* Takes `in` and `out`. */
void              mir_dataflow_trace_add  (MirDataflowTrace *trace, guint node, char *in,
                                           char *out, gboolean in_changed,
                                           gboolean out_changed, gboolean widened);

/* The facts of every node after the first `n_steps` steps (all of them
 * when n_steps exceeds their number): new NULL-terminated arrays of
 * n_nodes texts, in and out as the steps name them. */
void              mir_dataflow_trace_replay (const MirDataflowTrace *trace, guint n_steps,
                                             char ***in, char ***out);
/* One line per step: "step 4: node 3 in {x} out {x, y} (changed)". */
char             *mir_dataflow_trace_print (const MirDataflowTrace *trace);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MirDataflowTrace, mir_dataflow_trace_free)

G_END_DECLS
