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

/* ---- control dependence ---- */

/* The nodes from which exit can be reached. */
static gboolean *
reaching_exit (const MirFlowGraph *graph)
{
  gboolean *reach = g_new0 (gboolean, graph->n_nodes);
  guint *stack = g_new (guint, graph->n_nodes);
  guint depth = 0;

  reach[graph->exit] = TRUE;
  stack[depth++] = graph->exit;
  while (depth > 0)
    {
      const MirFlowNode *node = &graph->nodes[stack[--depth]];
      for (guint i = 0; i < node->n_preds; i++)
        if (!reach[node->preds[i]])
          {
            reach[node->preds[i]] = TRUE;
            stack[depth++] = node->preds[i];
          }
    }
  g_free (stack);
  return reach;
}

/* The nearest common post-dominator of a and b; rank: the nodes' places
 * in the reverse graph's postorder (exit last). */
static guint
common_post_dominator (const guint *ipdom, const guint *rank, guint a, guint b)
{
  while (a != b)
    {
      while (rank[a] < rank[b])
        a = ipdom[a];
      while (rank[b] < rank[a])
        b = ipdom[b];
    }
  return a;
}

/* Immediate post-dominators, after Cooper, Harvey and Kennedy ("A simple,
 * fast dominance algorithm"), on the reversed graph: the tree that the
 * post-dominator sets spell out, without the sets. Every node must reach
 * exit. */
static guint *
immediate_post_dominators (const MirFlowGraph *graph)
{
  guint n = graph->n_nodes;
  const guint *order = graph->backward_order;   /* exit first */
  guint *ipdom = g_new (guint, n);
  guint *rank = g_new (guint, n);
  gboolean changed = TRUE;

  for (guint i = 0; i < n; i++)
    {
      ipdom[i] = MIR_FLOW_NONE;
      rank[order[i]] = n - 1 - i;
    }
  ipdom[graph->exit] = graph->exit;
  while (changed)
    {
      changed = FALSE;
      for (guint i = 0; i < n; i++)
        {
          guint v = order[i], found = MIR_FLOW_NONE;
          const MirFlowNode *node = &graph->nodes[v];

          if (v == graph->exit)
            continue;
          for (guint k = 0; k < node->n_succs; k++)
            {
              guint s = node->succs[k];
              if (ipdom[s] == MIR_FLOW_NONE)
                continue;
              found = found == MIR_FLOW_NONE ? s
                                             : common_post_dominator (ipdom, rank, found, s);
            }
          if (found != ipdom[v])
            {
              ipdom[v] = found;
              changed = TRUE;
            }
        }
    }
  g_free (rank);
  return ipdom;
}

/* From the post-dominator sets, for graphs where some node cannot reach
 * exit (and so is post-dominated by every node). */
static GArray **
control_dependence_from_sets (MirFlowGraph *graph)
{
  g_autoptr (MirSetFacts) pdom = mir_post_dominators (graph, FALSE);
  GArray **deps = g_new (GArray *, graph->n_nodes);
  g_autoptr (MirBitset) set = mir_bitset_new (graph->n_nodes);
  g_autoptr (MirBitset) strict = mir_bitset_new (graph->n_nodes);

  for (guint b = 0; b < graph->n_nodes; b++)
    {
      const MirFlowNode *node = &graph->nodes[b];

      deps[b] = g_array_new (FALSE, FALSE, sizeof (guint));
      if (node->n_succs < 2)
        continue;
      mir_bitset_clear (set);
      for (guint i = 0; i < node->n_succs; i++)
        mir_bitset_union (set, mir_set_facts_before_node (pdom, node->succs[i]));
      mir_bitset_assign (strict, mir_set_facts_before_node (pdom, b));
      mir_bitset_remove (strict, b);
      mir_bitset_subtract (set, strict);
      for (int y = mir_bitset_next (set, 0); y >= 0; y = mir_bitset_next (set, (guint) y + 1))
        {
          guint member = (guint) y;
          g_array_append_val (deps[b], member);
        }
    }
  return deps;
}

static int
compare_nodes (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;

  return (x > y) - (x < y);
}

GArray **
mir_control_dependence_lists (MirFlowGraph *graph)
{
  g_autofree gboolean *reach = reaching_exit (graph);
  g_autofree guint *ipdom = NULL;
  g_autofree guint *mark = NULL;
  GArray **deps;

  for (guint v = 0; v < graph->n_nodes; v++)
    if (!reach[v])
      return control_dependence_from_sets (graph);
  /* y depends on b when it lies on the post-dominator tree's path from a
   * successor of b up to b's immediate post-dominator, which (like all
   * above it) post-dominates b */
  ipdom = immediate_post_dominators (graph);
  mark = g_new0 (guint, graph->n_nodes);   /* y is in deps[b] when mark[y] == b + 1 */
  deps = g_new (GArray *, graph->n_nodes);
  for (guint b = 0; b < graph->n_nodes; b++)
    {
      const MirFlowNode *node = &graph->nodes[b];

      deps[b] = g_array_new (FALSE, FALSE, sizeof (guint));
      if (node->n_succs < 2)
        continue;
      for (guint i = 0; i < node->n_succs; i++)
        for (guint y = node->succs[i]; y != ipdom[b] && mark[y] != b + 1; y = ipdom[y])
          {
            mark[y] = b + 1;
            g_array_append_val (deps[b], y);
          }
      g_array_sort (deps[b], compare_nodes);
    }
  return deps;
}

void
mir_control_dependence_lists_free (GArray **deps, guint n_nodes)
{
  for (guint v = 0; deps && v < n_nodes; v++)
    g_array_unref (deps[v]);
  g_free (deps);
}

MirBitset **
mir_control_dependence (MirFlowGraph *graph)
{
  GArray **lists = mir_control_dependence_lists (graph);
  MirBitset **deps = g_new (MirBitset *, graph->n_nodes);

  for (guint b = 0; b < graph->n_nodes; b++)
    {
      deps[b] = mir_bitset_new (graph->n_nodes);
      for (guint i = 0; i < lists[b]->len; i++)
        mir_bitset_add (deps[b], g_array_index (lists[b], guint, i));
    }
  mir_control_dependence_lists_free (lists, graph->n_nodes);
  return deps;
}

void
mir_control_dependence_free (MirBitset **deps, guint n_nodes)
{
  for (guint v = 0; deps && v < n_nodes; v++)
    mir_bitset_free (deps[v]);
  g_free (deps);
}
