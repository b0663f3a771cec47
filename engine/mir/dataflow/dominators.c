/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/dominators.h"

static void
add_self (const MirFlowGraph *graph, guint node, MirBitset *fact, gpointer ud)
{
  mir_bitset_add (fact, node);
}

static MirSetFacts *
solve (MirFlowGraph *graph, MirDataflowDirection direction, gboolean record)
{
  g_autoptr (MirBitset) boundary = mir_bitset_new (graph->n_nodes);
  MirSetProblem problem = { 0 };

  /* the start node is not transferred, so it is put in its own set here */
  mir_bitset_add (boundary, direction == MIR_DATAFLOW_FORWARD ? graph->entry : graph->exit);
  problem.direction = direction;
  problem.must = TRUE;
  problem.n_bits = graph->n_nodes;
  /* without labels, members are labelled by their numbers */
  problem.boundary = boundary;
  problem.transfer = add_self;
  problem.record = record;
  return mir_set_facts_solve (graph, &problem);
}

MirSetFacts *
mir_dominators (MirFlowGraph *graph, gboolean record)
{
  return solve (graph, MIR_DATAFLOW_FORWARD, record);
}

MirSetFacts *
mir_post_dominators (MirFlowGraph *graph, gboolean record)
{
  return solve (graph, MIR_DATAFLOW_BACKWARD, record);
}

MirBitset **
mir_control_dependence (MirFlowGraph *graph)
{
  g_autoptr (MirSetFacts) pdom = mir_post_dominators (graph, FALSE);
  MirBitset **deps = g_new (MirBitset *, graph->n_nodes);
  g_autoptr (MirBitset) strict = mir_bitset_new (graph->n_nodes);

  for (guint b = 0; b < graph->n_nodes; b++)
    {
      const MirFlowNode *node = &graph->nodes[b];

      deps[b] = mir_bitset_new (graph->n_nodes);
      if (node->n_succs < 2)
        continue;
      for (guint i = 0; i < node->n_succs; i++)
        mir_bitset_union (deps[b], mir_set_facts_before_node (pdom, node->succs[i]));
      mir_bitset_assign (strict, mir_set_facts_before_node (pdom, b));
      mir_bitset_remove (strict, b);
      mir_bitset_subtract (deps[b], strict);
    }
  return deps;
}

void
mir_control_dependence_free (MirBitset **deps, guint n_nodes)
{
  for (guint v = 0; deps && v < n_nodes; v++)
    mir_bitset_free (deps[v]);
  g_free (deps);
}
