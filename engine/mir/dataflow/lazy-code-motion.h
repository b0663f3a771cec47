/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The four analyses of lazy code motion (Knoop, Rüthing and Steffen; the
 * Dragon book, 2nd ed., section 9.5), as the Stan compiler runs them, on
 * statement-level flow graphs. With use(n) the candidate expressions node n
 * always evaluates and kill(n) those its writes change (expr-index.h):
 *
 *   anticipated (backward, must): in = use ∪ (out − kill)
 *   available   (forward, must):  out = (anticipated.in ∪ in) − kill
 *   earliest(n)  = anticipated.in(n) − available.in(n)
 *   postponable (forward, must):  out = (earliest ∪ in) − use
 *   latest(n)    = (earliest(n) ∪ postponable.in(n))
 *                  ∩ (use(n) ∪ ¬ ⋂ { earliest(s) ∪ postponable.in(s) | s succ n })
 *   used        (backward, may):  in = (use ∪ out) − latest
 *
 * The optimisation then computes e in a temporary just before every node
 * where e is in latest ∩ used.out, and replaces e by the temporary at the
 * nodes that use it (unless latest ∖ used.out says the only use is there).
 * Each analysis is a MirSetFacts over the same expression index; "in" and
 * "out" above are in program order, as in the book: in holds just before a
 * node and out just after it, whatever the analysis' direction.
 */
#pragma once

#include "mir/dataflow/expr-index.h"
#include "mir/dataflow/set-facts.h"

G_BEGIN_DECLS

typedef struct {
  MirEffects   *effects;
  MirExprIndex *exprs;
  MirSetFacts  *anticipated;
  MirSetFacts  *available;
  MirSetFacts  *postponable;
  MirSetFacts  *used;
  MirBitset   **earliest;     /* per node */
  MirBitset   **latest;       /* per node */
  guint         n_nodes;
} MirLazyCodeMotion;

MirLazyCodeMotion *mir_lazy_code_motion      (MirFlowGraph *graph, gboolean record);
void               mir_lazy_code_motion_free (MirLazyCodeMotion *lcm);

G_END_DECLS
