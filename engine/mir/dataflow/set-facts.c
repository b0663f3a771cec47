/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/set-facts.h"

#include <string.h>

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

/* mir_dataflow_solve for sets, without a trace: the same worklist, the
 * same order of visits, on words instead of through the lattice's
 * functions, with every fact in one block of the arena. */
static MirDataflowSolution *
solve_sets (MirFlowGraph *graph, MirSetFacts *f, const MirSetProblem *p)
{
  const guint n = graph->n_nodes, n_words = (f->n_bits + 63) / 64;
  const gsize size = (mir_bitset_size (f->n_bits) + 7) / 8 * 8;
  const gboolean backward = p->direction == MIR_DATAFLOW_BACKWARD;
  const guint start = backward ? graph->exit : graph->entry;
  const guint *order = backward ? graph->backward_order : graph->forward_order;
  guint8 *block = tilde_arena_alloc (f->arena, (2 * (gsize) n + 3) * size);
  MirBitset **in = g_new (MirBitset *, n), **out = g_new (MirBitset *, n);
  MirBitset *bottom, *boundary, *scratch;
  guint *position = g_new (guint, n);
  g_autoptr (MirBitset) pending = mir_bitset_new_full (n);
  MirDataflowSolution *sol;
  guint total = 0, lowest = 0;   /* no pending position is below lowest */
  int next;

  for (guint i = 0; i < 2 * n + 3; i++)
    {
      MirBitset *set = (MirBitset *) (block + i * size);
      set->n_bits = f->n_bits;
      set->n_words = n_words;
      if (f->must)
        mir_bitset_fill (set);
      else
        mir_bitset_clear (set);
      if (i < n)
        in[i] = set;
      else if (i < 2 * n)
        out[i - n] = set;
    }
  bottom = (MirBitset *) (block + 2 * n * size);
  boundary = (MirBitset *) (block + (2 * n + 1) * size);
  scratch = (MirBitset *) (block + (2 * n + 2) * size);
  if (p->boundary)
    mir_bitset_assign (boundary, p->boundary);
  else
    mir_bitset_clear (boundary);
  for (guint i = 0; i < n; i++)
    position[order[i]] = i;

  while ((next = mir_bitset_next (pending, lowest)) >= 0)
    {
      guint v = order[next], n_from, n_to;
      const MirFlowNode *node = &graph->nodes[v];
      const guint *from = backward ? node->succs : node->preds;
      const guint *to = backward ? node->preds : node->succs;
      gboolean empty = TRUE, changed = FALSE;
      MirBitset *fact;

      mir_bitset_remove (pending, (guint) next);
      lowest = (guint) next;
      n_from = backward ? node->n_succs : node->n_preds;
      n_to = backward ? node->n_preds : node->n_succs;
      /* the join of what flows in */
      if (v == start)
        {
          memcpy (scratch->words, boundary->words, n_words * sizeof (guint64));
          empty = FALSE;
        }
      for (guint i = 0; i < n_from; i++)
        {
          const guint64 *w = out[from[i]]->words;
          if (empty)
            memcpy (scratch->words, w, n_words * sizeof (guint64));
          else if (f->must)
            for (guint k = 0; k < n_words; k++)
              scratch->words[k] &= w[k];
          else
            for (guint k = 0; k < n_words; k++)
              scratch->words[k] |= w[k];
          empty = FALSE;
        }
      if (empty)
        memcpy (scratch->words, bottom->words, n_words * sizeof (guint64));
      fact = in[v];
      in[v] = scratch;
      scratch = fact;

      /* through the node */
      memcpy (scratch->words, in[v]->words, n_words * sizeof (guint64));
      if (node->kind == MIR_FLOW_NODE_STMT)
        {
          if (p->transfer)
            p->transfer (graph, v, scratch, p->user_data);
          else
            {
              if (p->kill)
                for (guint k = 0; k < n_words; k++)
                  scratch->words[k] &= ~p->kill[v]->words[k];
              if (p->gen)
                for (guint k = 0; k < n_words; k++)
                  scratch->words[k] |= p->gen[v]->words[k];
            }
        }
      for (guint k = 0; k < n_words && !changed; k++)
        changed = scratch->words[k] != out[v]->words[k];
      fact = out[v];
      out[v] = scratch;
      scratch = fact;
      if (changed)
        for (guint i = 0; i < n_to; i++)
          {
            mir_bitset_add (pending, position[to[i]]);
            lowest = MIN (lowest, position[to[i]]);
          }
      total++;
    }

  sol = g_new0 (MirDataflowSolution, 1);
  sol->graph = mir_flow_graph_ref (graph);
  sol->lattice = &set_lattice;
  sol->user_data = f;
  sol->direction = p->direction;
  sol->before = (gpointer *) (backward ? out : in);
  sol->after = (gpointer *) (backward ? in : out);
  sol->n_visits = total;
  sol->converged = TRUE;
  g_free (position);
  return sol;
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
  if (!problem->record)
    {
      f->solution = solve_sets (graph, f, problem);
      f->problem = NULL;
      return f;
    }
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
  mir_var_index_free (facts->vars);
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

/* Made at the first lookup: most facts are never looked up by label. */
static GHashTable *
labels_table (const MirSetFacts *facts)
{
  MirSetFacts *f = (MirSetFacts *) facts;

  if (g_once_init_enter (&f->by_label))
    {
      GHashTable *table = g_hash_table_new (g_str_hash, g_str_equal);

      for (guint i = 0; i < f->n_bits; i++)
        if (!g_hash_table_contains (table, f->labels[i]))
          g_hash_table_insert (table, f->labels[i], GUINT_TO_POINTER (i + 1));
      g_once_init_leave (&f->by_label, table);
    }
  return f->by_label;
}

guint
mir_set_facts_lookup (const MirSetFacts *facts, const char *label)
{
  guint n;

  /* members that are the variables of an index are found by name there */
  if (facts->vars)
    return mir_var_index_lookup (facts->vars, label);
  n = GPOINTER_TO_UINT (g_hash_table_lookup (labels_table (facts), label));

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
