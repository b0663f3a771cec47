/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Constant propagation (forward): for each point and each variable, its
 * constant value when every path there gives it the same one (Kildall's
 * lattice per variable: ⊥ no value yet, a constant, ⊤ not a constant).
 *
 * Only int and real scalars are tracked. x = e and declarations with a
 * value set x to the value of e (const-eval.h); a declaration without one,
 * a loop variable, an assignment to part of x, and the end of x's scope
 * make x ⊤. Variables from outside the graph are ⊤ at entry.
 *
 * Facts print as the constants they hold: "{k = 2, s = 0.5}", or "⊥" for
 * an unreached point.
 */
#pragma once

#include "mir/dataflow/const-eval.h"
#include "mir/dataflow/effects.h"
#include "mir/dataflow/solver.h"

G_BEGIN_DECLS

typedef struct {
  MirEffects          *effects;
  MirDataflowSolution *solution;
} MirConstFacts;

MirConstFacts *mir_constant_propagation (MirFlowGraph *graph, gboolean record);
/* Constant propagation of code that runs after the code of graph `before`
 * (a part after prepare_data), as on one graph of both: what holds at its
 * entry is what flows out of the end of `before` (not out of its returns
 * and rejects). `before_facts` are the facts of `before`, or NULL when no
 * statement of it may define a constant (mir_const_may_define). */
MirConstFacts *mir_constant_propagation_after (MirFlowGraph *graph, MirFlowGraph *before,
                                               const MirConstFacts *before_facts);
/* Whether a statement of `stmts` (or one nested in them) may give a
 * variable a constant value. When none does, every variable is ⊤
 * wherever control reaches, and constant propagation finds nothing. */
gboolean       mir_const_may_define     (const GPtrArray *stmts);
void           mir_const_facts_free     (MirConstFacts *facts);

/* A variable's value just before and just after a node. */
MirConstValue  mir_const_facts_before   (const MirConstFacts *facts, guint node,
                                         const char *var);
MirConstValue  mir_const_facts_after    (const MirConstFacts *facts, guint node,
                                         const char *var);
/* The value of `e` evaluated just before `node`. */
MirConstValue  mir_const_facts_eval     (const MirConstFacts *facts, guint node,
                                         const MirExpr *e);

G_END_DECLS
