/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/available-exprs.h"

MirAvailableExprs *
mir_available_expressions (MirFlowGraph *graph, gboolean record)
{
  MirAvailableExprs *ae = g_new0 (MirAvailableExprs, 1);
  guint n = graph->n_nodes;
  MirBitset **gen = g_new (MirBitset *, n);
  MirSetProblem problem = { 0 };

  ae->effects = mir_effects_new (graph, NULL);
  ae->exprs = mir_expr_index_new (graph, ae->effects);
  for (guint v = 0; v < n; v++)
    {
      gen[v] = mir_bitset_copy (ae->exprs->uses[v]);
      mir_bitset_subtract (gen[v], ae->exprs->kills[v]);
    }
  problem.direction = MIR_DATAFLOW_FORWARD;
  problem.must = TRUE;
  problem.n_bits = mir_expr_index_size (ae->exprs);
  problem.labels = (const char *const *) ae->exprs->labels->pdata;
  problem.gen = gen;
  problem.kill = ae->exprs->kills;
  problem.record = record;
  ae->facts = mir_set_facts_solve (graph, &problem);
  for (guint v = 0; v < n; v++)
    mir_bitset_free (gen[v]);
  g_free (gen);
  return ae;
}

void
mir_available_exprs_free (MirAvailableExprs *ae)
{
  if (!ae)
    return;
  mir_set_facts_free (ae->facts);
  mir_expr_index_free (ae->exprs);
  mir_effects_free (ae->effects);
  g_free (ae);
}

gboolean
mir_available_before (const MirAvailableExprs *ae, guint node, const MirExpr *e)
{
  guint i = mir_expr_index_lookup (ae->exprs, e);

  return i != MIR_FLOW_NONE
         && mir_bitset_contains (mir_set_facts_before_node (ae->facts, node), i);
}
