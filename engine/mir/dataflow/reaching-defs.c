/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/reaching-defs.h"

static void
add_def (GArray *vars, GArray *nodes, GPtrArray *labels, const MirEffects *fx, guint var,
         guint node, gboolean at_entry)
{
  const char *name = mir_var_index_name (fx->vars, var);

  g_array_append_val (vars, var);
  g_array_append_val (nodes, node);
  if (at_entry)
    g_ptr_array_add (labels, g_strdup_printf ("%s@entry", name));
  else
    g_ptr_array_add (labels, g_strdup_printf ("%s@%u", name, node));
}

MirReachingDefs *
mir_reaching_definitions (MirFlowGraph *graph, const char *const *outside, gboolean record)
{
  MirReachingDefs *rd = g_new0 (MirReachingDefs, 1);
  MirEffects *fx = mir_effects_new (graph, outside);
  guint n_vars = mir_var_index_size (fx->vars), n = graph->n_nodes;
  GArray *vars = g_array_new (FALSE, FALSE, sizeof (guint));
  GArray *nodes = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (MirBitset) outside_set = mir_var_index_set_of (fx->vars, outside);
  MirBitset **gen = g_new (MirBitset *, n), **kill = g_new (MirBitset *, n);
  MirBitset **defs_of_var;
  MirBitset *boundary;
  MirSetProblem problem = { 0 };

  rd->effects = fx;
  for (int x = mir_bitset_next (outside_set, 0); x >= 0;
       x = mir_bitset_next (outside_set, (guint) x + 1))
    add_def (vars, nodes, labels, fx, (guint) x, graph->entry, TRUE);
  for (guint v = 0; v < n; v++)
    for (guint x = 0; x < n_vars; x++)
      if (mir_bitset_contains (fx->writes[v], x) || mir_bitset_contains (fx->declares[v], x))
        add_def (vars, nodes, labels, fx, x, v, FALSE);
  rd->n_defs = vars->len;

  defs_of_var = g_new (MirBitset *, n_vars);
  for (guint x = 0; x < n_vars; x++)
    defs_of_var[x] = mir_bitset_new (rd->n_defs);
  for (guint d = 0; d < rd->n_defs; d++)
    mir_bitset_add (defs_of_var[g_array_index (vars, guint, d)], d);

  boundary = mir_bitset_new (rd->n_defs);
  for (guint d = 0; d < rd->n_defs; d++)
    if (g_array_index (nodes, guint, d) == graph->entry)
      mir_bitset_add (boundary, d);
  for (guint v = 0; v < n; v++)
    {
      gen[v] = mir_bitset_new (rd->n_defs);
      kill[v] = mir_bitset_new (rd->n_defs);
      for (guint d = 0; d < rd->n_defs; d++)
        if (g_array_index (nodes, guint, d) == v && v != graph->entry)
          mir_bitset_add (gen[v], d);
      for (guint x = 0; x < n_vars; x++)
        if (mir_bitset_contains (fx->kills[v], x) || mir_bitset_contains (fx->scope_ends[v], x))
          mir_bitset_union (kill[v], defs_of_var[x]);
    }

  g_ptr_array_add (labels, NULL);
  problem.direction = MIR_DATAFLOW_FORWARD;
  problem.n_bits = rd->n_defs;
  problem.labels = (const char *const *) labels->pdata;
  problem.boundary = boundary;
  problem.gen = gen;
  problem.kill = kill;
  problem.record = record;
  rd->facts = mir_set_facts_solve (graph, &problem);

  rd->def_var = (guint *) g_array_free (vars, FALSE);
  rd->def_node = (guint *) g_array_free (nodes, FALSE);
  for (guint v = 0; v < n; v++)
    {
      mir_bitset_free (gen[v]);
      mir_bitset_free (kill[v]);
    }
  for (guint x = 0; x < n_vars; x++)
    mir_bitset_free (defs_of_var[x]);
  g_free (gen);
  g_free (kill);
  g_free (defs_of_var);
  mir_bitset_free (boundary);
  return rd;
}

void
mir_reaching_defs_free (MirReachingDefs *rd)
{
  if (!rd)
    return;
  mir_set_facts_free (rd->facts);
  mir_effects_free (rd->effects);
  g_free (rd->def_var);
  g_free (rd->def_node);
  g_free (rd);
}

GArray *
mir_reaching_defs_of (const MirReachingDefs *rd, guint node, const char *var)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint));
  guint x = mir_var_index_lookup (rd->effects->vars, var);
  const MirBitset *in = mir_set_facts_before_node (rd->facts, node);

  if (x == MIR_FLOW_NONE || !in)
    return out;
  for (int d = mir_bitset_next (in, 0); d >= 0; d = mir_bitset_next (in, (guint) d + 1))
    if (rd->def_var[d] == x)
      g_array_append_val (out, rd->def_node[d]);
  return out;
}
