/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/lazy-code-motion.h"

static MirSetFacts *
solve (MirFlowGraph *graph, const MirLazyCodeMotion *lcm, MirDataflowDirection dir,
       gboolean must, MirSetTransferFunc transfer, gpointer ud, gboolean record)
{
  MirSetProblem problem = { 0 };

  problem.direction = dir;
  problem.must = must;
  problem.n_bits = mir_expr_index_size (lcm->exprs);
  problem.labels = (const char *const *) lcm->exprs->labels->pdata;
  problem.transfer = transfer;
  problem.user_data = ud;
  problem.record = record;
  return mir_set_facts_solve (graph, &problem);
}

static void
anticipated_transfer (const MirFlowGraph *g, guint n, MirBitset *fact, gpointer ud)
{
  const MirLazyCodeMotion *lcm = ud;

  mir_bitset_subtract (fact, lcm->exprs->kills[n]);
  mir_bitset_union (fact, lcm->exprs->uses[n]);
}

static void
available_transfer (const MirFlowGraph *g, guint n, MirBitset *fact, gpointer ud)
{
  const MirLazyCodeMotion *lcm = ud;

  mir_bitset_union (fact, mir_set_facts_before_node (lcm->anticipated, n));
  mir_bitset_subtract (fact, lcm->exprs->kills[n]);
}

static void
postponable_transfer (const MirFlowGraph *g, guint n, MirBitset *fact, gpointer ud)
{
  const MirLazyCodeMotion *lcm = ud;

  mir_bitset_union (fact, lcm->earliest[n]);
  mir_bitset_subtract (fact, lcm->exprs->uses[n]);
}

static void
used_transfer (const MirFlowGraph *g, guint n, MirBitset *fact, gpointer ud)
{
  const MirLazyCodeMotion *lcm = ud;

  mir_bitset_union (fact, lcm->exprs->uses[n]);
  mir_bitset_subtract (fact, lcm->latest[n]);
}

/* earliest(n) ∪ postponable.in(n) */
static MirBitset *
earliest_or_postponable (const MirLazyCodeMotion *lcm, guint n)
{
  MirBitset *set = mir_bitset_copy (lcm->earliest[n]);

  mir_bitset_union (set, mir_set_facts_before_node (lcm->postponable, n));
  return set;
}

static void
compute_latest (MirLazyCodeMotion *lcm, const MirFlowGraph *graph)
{
  guint n_exprs = mir_expr_index_size (lcm->exprs);

  for (guint n = 0; n < graph->n_nodes; n++)
    {
      const MirFlowNode *node = &graph->nodes[n];
      g_autoptr (MirBitset) all_succs = mir_bitset_new_full (n_exprs);
      g_autoptr (MirBitset) not_all = mir_bitset_new_full (n_exprs);

      for (guint i = 0; i < node->n_succs; i++)
        {
          g_autoptr (MirBitset) s = earliest_or_postponable (lcm, node->succs[i]);
          mir_bitset_intersect (all_succs, s);
        }
      mir_bitset_subtract (not_all, all_succs);
      mir_bitset_union (not_all, lcm->exprs->uses[n]);
      lcm->latest[n] = earliest_or_postponable (lcm, n);
      mir_bitset_intersect (lcm->latest[n], not_all);
    }
}

MirLazyCodeMotion *
mir_lazy_code_motion (MirFlowGraph *graph, gboolean record)
{
  MirLazyCodeMotion *lcm = g_new0 (MirLazyCodeMotion, 1);
  guint n = graph->n_nodes;

  lcm->n_nodes = n;
  lcm->effects = mir_effects_new (graph, NULL);
  lcm->exprs = mir_expr_index_new (graph, lcm->effects);
  lcm->anticipated = solve (graph, lcm, MIR_DATAFLOW_BACKWARD, TRUE, anticipated_transfer,
                            lcm, record);
  lcm->available = solve (graph, lcm, MIR_DATAFLOW_FORWARD, TRUE, available_transfer,
                          lcm, record);
  lcm->earliest = g_new (MirBitset *, n);
  for (guint v = 0; v < n; v++)
    {
      lcm->earliest[v] = mir_bitset_copy (mir_set_facts_before_node (lcm->anticipated, v));
      mir_bitset_subtract (lcm->earliest[v], mir_set_facts_before_node (lcm->available, v));
    }
  lcm->postponable = solve (graph, lcm, MIR_DATAFLOW_FORWARD, TRUE, postponable_transfer,
                            lcm, record);
  lcm->latest = g_new (MirBitset *, n);
  compute_latest (lcm, graph);
  lcm->used = solve (graph, lcm, MIR_DATAFLOW_BACKWARD, FALSE, used_transfer, lcm, record);
  return lcm;
}

void
mir_lazy_code_motion_free (MirLazyCodeMotion *lcm)
{
  if (!lcm)
    return;
  for (guint v = 0; v < lcm->n_nodes; v++)
    {
      mir_bitset_free (lcm->earliest[v]);
      mir_bitset_free (lcm->latest[v]);
    }
  g_free (lcm->earliest);
  g_free (lcm->latest);
  mir_set_facts_free (lcm->anticipated);
  mir_set_facts_free (lcm->available);
  mir_set_facts_free (lcm->postponable);
  mir_set_facts_free (lcm->used);
  mir_expr_index_free (lcm->exprs);
  mir_effects_free (lcm->effects);
  g_free (lcm);
}
