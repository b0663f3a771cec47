/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Available expressions (forward, must): an expression is available at a
 * point when every path there evaluates it and none of its variables
 * changes after the last evaluation, so its value can be reused (common
 * subexpression elimination). Candidates are those of expr-index.h; a node
 * makes available what it always evaluates, unless its own writes change
 * it (x = x + 1 does not leave x + 1 available).
 *
 * Facts are sets of expressions, labelled as mir_print_expr writes them.
 */
#pragma once

#include "mir/dataflow/expr-index.h"
#include "mir/dataflow/set-facts.h"

G_BEGIN_DECLS

typedef struct {
  MirSetFacts  *facts;
  MirEffects   *effects;
  MirExprIndex *exprs;
} MirAvailableExprs;

MirAvailableExprs *mir_available_expressions (MirFlowGraph *graph, gboolean record);
void               mir_available_exprs_free  (MirAvailableExprs *ae);
/* Whether an expression equal to `e` is available just before `node`. */
gboolean           mir_available_before      (const MirAvailableExprs *ae, guint node,
                                              const MirExpr *e);

G_END_DECLS
