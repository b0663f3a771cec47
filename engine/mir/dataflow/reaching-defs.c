/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/reaching-defs.h"

/* The definitions, numbered: outside ones first, then by node. */
typedef struct {
  GArray    *vars;     /* guint per definition */
  GArray    *nodes;    /* guint per definition */
  GPtrArray *labels;
} Defs;

static void
add_def (Defs *defs, const MirEffects *fx, guint var, guint node, gboolean at_entry)
{
  const char *name = mir_var_index_name (fx->vars, var);

  g_array_append_val (defs->vars, var);
  g_array_append_val (defs->nodes, node);
  if (at_entry)
    g_ptr_array_add (defs->labels, g_strdup_printf ("%s@entry", name));
  else
    g_ptr_array_add (defs->labels, g_strdup_printf ("%s@%u", name, node));
}

static void
number_defs (Defs *defs, const MirFlowGraph *graph, const MirEffects *fx,
             const char *const *outside, const MirBitset *tracked)
{
  g_autoptr (MirBitset) outside_set = mir_var_index_set_of (fx->vars, outside);
  g_autoptr (MirBitset) defined = mir_bitset_new (mir_var_index_size (fx->vars));

  mir_bitset_intersect (outside_set, tracked);
  for (int x = mir_bitset_next (outside_set, 0); x >= 0;
       x = mir_bitset_next (outside_set, (guint) x + 1))
    add_def (defs, fx, (guint) x, graph->entry, TRUE);
  for (guint v = 0; v < graph->n_nodes; v++)
    {
      if (fx->writes[v] == mir_effects_empty (fx) && fx->declares[v] == mir_effects_empty (fx))
        continue;
      mir_bitset_assign (defined, fx->writes[v]);
      mir_bitset_union (defined, fx->declares[v]);
      mir_bitset_intersect (defined, tracked);
      for (int x = mir_bitset_next (defined, 0); x >= 0;
           x = mir_bitset_next (defined, (guint) x + 1))
        add_def (defs, fx, (guint) x, v, FALSE);
    }
}

static MirBitset **
new_sets (guint n, guint n_bits)
{
  MirBitset **sets = g_new (MirBitset *, n);

  for (guint i = 0; i < n; i++)
    sets[i] = mir_bitset_new (n_bits);
  return sets;
}

static void
free_sets (MirBitset **sets, guint n)
{
  for (guint i = 0; i < n; i++)
    mir_bitset_free (sets[i]);
  g_free (sets);
}

/* A node generates its own definitions and kills every definition of the
 * variables it replaces or lets go out of scope. */
static void
fill_gen_kill (const MirReachingDefs *rd, const MirFlowGraph *graph, MirBitset **gen,
               MirBitset **kill, MirBitset *boundary)
{
  const MirEffects *fx = rd->effects;
  guint n_vars = mir_var_index_size (fx->vars);
  /* only the variables with definitions get a set */
  MirBitset **defs_of_var = g_new0 (MirBitset *, n_vars);
  g_autoptr (MirBitset) ended = mir_bitset_new (n_vars);

  for (guint d = 0; d < rd->n_defs; d++)
    {
      if (!defs_of_var[rd->def_var[d]])
        defs_of_var[rd->def_var[d]] = mir_bitset_new (rd->n_defs);
      mir_bitset_add (defs_of_var[rd->def_var[d]], d);
      mir_bitset_add (rd->def_node[d] == graph->entry ? boundary : gen[rd->def_node[d]], d);
    }
  for (guint v = 0; v < graph->n_nodes; v++)
    {
      if (fx->kills[v] == mir_effects_empty (fx) && fx->scope_ends[v] == mir_effects_empty (fx))
        continue;
      mir_bitset_assign (ended, fx->kills[v]);
      mir_bitset_union (ended, fx->scope_ends[v]);
      for (int x = mir_bitset_next (ended, 0); x >= 0; x = mir_bitset_next (ended, (guint) x + 1))
        if (defs_of_var[x])
          mir_bitset_union (kill[v], defs_of_var[x]);
    }
  for (guint x = 0; x < n_vars; x++)
    mir_bitset_free (defs_of_var[x]);
  g_free (defs_of_var);
}

static void
index_defs_by_var (MirReachingDefs *rd)
{
  guint n_vars = mir_var_index_size (rd->effects->vars);
  guint *fill = g_new0 (guint, n_vars + 1);

  rd->first_of_var = g_new0 (guint, n_vars + 1);
  rd->var_defs = g_new (guint, MAX (rd->n_defs, 1));
  for (guint d = 0; d < rd->n_defs; d++)
    rd->first_of_var[rd->def_var[d] + 1]++;
  for (guint x = 0; x < n_vars; x++)
    rd->first_of_var[x + 1] += rd->first_of_var[x];
  for (guint d = 0; d < rd->n_defs; d++)
    {
      guint x = rd->def_var[d];
      rd->var_defs[rd->first_of_var[x] + fill[x]++] = d;
    }
  g_free (fill);
}

MirReachingDefs *
mir_reaching_definitions (MirFlowGraph *graph, const char *const *outside, gboolean record)
{
  return mir_reaching_definitions_of (graph, outside, NULL, record);
}

MirReachingDefs *
mir_reaching_definitions_of (MirFlowGraph *graph, const char *const *outside,
                             const char *const *tracked, gboolean record)
{
  MirReachingDefs *rd = g_new0 (MirReachingDefs, 1);
  Defs defs = { g_array_new (FALSE, FALSE, sizeof (guint)),
                g_array_new (FALSE, FALSE, sizeof (guint)),
                g_ptr_array_new_with_free_func (g_free) };
  guint n = graph->n_nodes;
  MirBitset **gen, **kill;
  g_autoptr (MirBitset) boundary = NULL;
  g_autoptr (MirBitset) tracked_set = NULL;
  MirSetProblem problem = { 0 };

  rd->effects = mir_effects_new (graph, outside);
  if (tracked)
    tracked_set = mir_var_index_set_of (rd->effects->vars, tracked);
  else
    tracked_set = mir_bitset_new_full (mir_var_index_size (rd->effects->vars));
  number_defs (&defs, graph, rd->effects, outside, tracked_set);
  rd->n_defs = defs.vars->len;
  rd->def_var = (guint *) g_array_free (defs.vars, FALSE);
  rd->def_node = (guint *) g_array_free (defs.nodes, FALSE);
  g_ptr_array_add (defs.labels, NULL);

  index_defs_by_var (rd);
  gen = new_sets (n, rd->n_defs);
  kill = new_sets (n, rd->n_defs);
  boundary = mir_bitset_new (rd->n_defs);
  fill_gen_kill (rd, graph, gen, kill, boundary);
  problem.direction = MIR_DATAFLOW_FORWARD;
  problem.n_bits = rd->n_defs;
  problem.labels = (const char *const *) defs.labels->pdata;
  problem.boundary = boundary;
  problem.gen = gen;
  problem.kill = kill;
  problem.record = record;
  rd->facts = mir_set_facts_solve (graph, &problem);

  free_sets (gen, n);
  free_sets (kill, n);
  g_ptr_array_unref (defs.labels);
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
  g_free (rd->first_of_var);
  g_free (rd->var_defs);
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
  for (guint i = rd->first_of_var[x]; i < rd->first_of_var[x + 1]; i++)
    if (mir_bitset_contains (in, rd->var_defs[i]))
      g_array_append_val (out, rd->def_node[rd->var_defs[i]]);
  return out;
}
