/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/set-facts.h"

/* Facts live in the arena of the MirSetFacts, until it is freed. */
static gpointer
set_bottom (gpointer ud)
{
  MirSetFacts *f = ud;
  MirBitset *set = mir_bitset_new_in (f->arena, f->n_bits);

  if (f->must)
    mir_bitset_fill (set);
  return set;
}

static gpointer
set_copy (gconstpointer fact, gpointer ud)
{
  MirSetFacts *f = ud;

  return mir_bitset_copy_in (f->arena, fact);
}

static void
set_free (gpointer fact, gpointer ud)
{
}

static void
set_assign (gpointer dst, gconstpointer src, gpointer ud)
{
  mir_bitset_assign (dst, src);
}

static void
set_join (gpointer acc, gconstpointer fact, gpointer ud)
{
  MirSetFacts *f = ud;

  if (f->must)
    mir_bitset_intersect (acc, fact);
  else
    mir_bitset_union (acc, fact);
}

static gboolean
set_equal (gconstpointer a, gconstpointer b, gpointer ud)
{
  return mir_bitset_equal (a, b);
}

static void
set_print (GString *out, gconstpointer fact, gpointer ud)
{
  MirSetFacts *f = ud;

  mir_bitset_append (out, fact, (const char *const *) f->labels);
}

static const MirLattice set_lattice = {
  .bottom = set_bottom,
  .copy = set_copy,
  .free = set_free,
  .join = set_join,
  .equal = set_equal,
  .print = set_print,
  .assign = set_assign,
};

static gpointer
set_boundary (gpointer ud)
{
  MirSetFacts *f = ud;

  if (f->problem->boundary)
    return mir_bitset_copy_in (f->arena, f->problem->boundary);
  return mir_bitset_new_in (f->arena, f->n_bits);
}

static void
set_transfer (const MirFlowGraph *graph, guint node, gpointer fact, gpointer ud)
{
  MirSetFacts *f = ud;
  const MirSetProblem *p = f->problem;

  if (p->transfer)
    {
      p->transfer (graph, node, fact, p->user_data);
      return;
    }
  if (p->kill)
    mir_bitset_subtract (fact, p->kill[node]);
  if (p->gen)
    mir_bitset_union (fact, p->gen[node]);
}

MirSetFacts *
mir_set_facts_solve (MirFlowGraph *graph, const MirSetProblem *problem)
{
  MirSetFacts *f = g_new0 (MirSetFacts, 1);
  MirDataflowProblem dp = { 0 };
  /* every fact of the solve (two per node, and the solver's few) in one
   * chunk, the labels after them */
  gsize facts_size = (2 * (gsize) graph->n_nodes + 8) * (mir_bitset_size (problem->n_bits) + 16);

  f->graph = mir_flow_graph_ref (graph);
  f->n_bits = problem->n_bits;
  f->must = problem->must;
  f->arena = tilde_arena_new (facts_size + 16 * (gsize) problem->n_bits + 1024);
  f->labels = tilde_arena_alloc (f->arena, (problem->n_bits + 1) * sizeof (char *));
  for (guint i = 0; i < problem->n_bits; i++)
    {
      const char *label = problem->labels ? problem->labels[i] : NULL;
      char number[16], *digit = number + sizeof number;

      if (!label)
        {
          /* the member's number */
          *--digit = '\0';
          for (guint k = i; digit == number + sizeof number - 1 || k > 0; k /= 10)
            *--digit = (char) ('0' + k % 10);
          label = digit;
        }
      f->labels[i] = tilde_arena_strdup (f->arena, label);
    }
  f->labels[problem->n_bits] = NULL;
  f->problem = problem;
  dp.lattice = &set_lattice;
  dp.direction = problem->direction;
  dp.transfer = set_transfer;
  dp.boundary = set_boundary;
  dp.user_data = f;
  dp.record = problem->record;
  f->solution = mir_dataflow_solve (graph, &dp);
  f->problem = NULL;
  return f;
}

void
mir_set_facts_free (MirSetFacts *facts)
{
  if (!facts)
    return;
  mir_dataflow_solution_free (facts->solution);
  if (facts->by_label)
    g_hash_table_unref (facts->by_label);
  tilde_arena_free (facts->arena);
  mir_flow_graph_unref (facts->graph);
  g_free (facts);
}

const MirBitset *
mir_set_facts_before_node (const MirSetFacts *facts, guint node)
{
  g_return_val_if_fail (node < facts->graph->n_nodes, NULL);
  return facts->solution->before[node];
}

const MirBitset *
mir_set_facts_after_node (const MirSetFacts *facts, guint node)
{
  g_return_val_if_fail (node < facts->graph->n_nodes, NULL);
  return facts->solution->after[node];
}

const MirBitset *
mir_set_facts_before (const MirSetFacts *facts, const MirStmt *stmt)
{
  guint node = mir_flow_graph_node_of (facts->graph, stmt);

  return node == MIR_FLOW_NONE ? NULL : facts->solution->before[node];
}

const MirBitset *
mir_set_facts_after (const MirSetFacts *facts, const MirStmt *stmt)
{
  guint node = mir_flow_graph_node_of (facts->graph, stmt);

  return node == MIR_FLOW_NONE ? NULL : facts->solution->after[node];
}

guint
mir_set_facts_lookup (const MirSetFacts *facts, const char *label)
{
  guint n;

  /* most solutions are never looked up by label: the table waits for the
   * first lookup; the first member with a label wins */
  if (!facts->by_label)
    {
      GHashTable *by_label = g_hash_table_new (g_str_hash, g_str_equal);

      for (guint i = 0; i < facts->n_bits; i++)
        if (!g_hash_table_contains (by_label, facts->labels[i]))
          g_hash_table_insert (by_label, facts->labels[i], GUINT_TO_POINTER (i + 1));
      ((MirSetFacts *) facts)->by_label = by_label;
    }
  n = GPOINTER_TO_UINT (g_hash_table_lookup (facts->by_label, label));

  return n ? n - 1 : MIR_FLOW_NONE;
}

gboolean
mir_set_facts_has (const MirSetFacts *facts, const MirBitset *set, const char *label)
{
  guint bit = mir_set_facts_lookup (facts, label);

  return set && bit != MIR_FLOW_NONE && mir_bitset_contains (set, bit);
}

char *
mir_set_facts_format (const MirSetFacts *facts, const MirBitset *set)
{
  GString *out = g_string_new (NULL);

  mir_bitset_append (out, set, (const char *const *) facts->labels);
  return g_string_free (out, FALSE);
}

const char **
mir_set_facts_members (const MirSetFacts *facts, const MirBitset *set)
{
  const char **members = g_new0 (const char *, mir_bitset_count (set) + 1);
  guint n = 0;

  for (int i = mir_bitset_next (set, 0); i >= 0; i = mir_bitset_next (set, (guint) i + 1))
    members[n++] = facts->labels[i];
  return members;
}

const MirDataflowTrace *
mir_set_facts_trace (const MirSetFacts *facts)
{
  return facts->solution->trace;
}
