/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/passes/passes.h"
#include "mir/passes/passes-private.h"

#include "mir/dataflow/effects.h"
#include "mir/dataflow/expr-index.h"
#include "mir/dataflow/set-facts.h"

/* The four analyses of dataflow/lazy-code-motion.h (the Dragon book's,
 * 9.5), run here with one more kind of kill: a statement with an effect
 * (pass_stmt_has_effects) kills every candidate, so that no computation,
 * which might fail, moves across a print, a draw or a check.
 *
 * The transformation on top of the analyses:
 * for each candidate e with a temporary t,
 *   - t = e is computed just before every node n with e in
 *     latest(n) ∩ used.out(n), and
 *   - e is read from t in every node n that evaluates it, with e in
 *     use(n) ∩ (¬latest(n) ∪ used.out(n)).
 * "Just before" a node is where control enters it: before a statement in
 * its list, at the end of a block for the node that closes it, at the
 * start of the part for the entry. A loop head is entered from before the
 * loop and again from the end of its body and every `continue`; an
 * expression that would have to be computed there is left alone
 * (everywhere), which is always correct. So is leaving code that cannot
 * run untouched. */

typedef struct {
  MirEffects   *effects;
  MirExprIndex *exprs;
  MirBitset   **kill;         /* per node */
  MirSetFacts  *anticipated;
  MirSetFacts  *available;
  MirSetFacts  *postponable;
  MirSetFacts  *used;
  MirBitset   **earliest;     /* per node */
  MirBitset   **latest;       /* per node */
  guint         n_nodes;
  TildeArena   *arena;        /* kill, earliest and latest */
} Lcm;

static MirSetFacts *
solve (MirFlowGraph *graph, const Lcm *lcm, MirDataflowDirection dir, gboolean must,
       MirSetTransferFunc transfer)
{
  MirSetProblem problem = { 0 };

  problem.direction = dir;
  problem.must = must;
  problem.n_bits = mir_expr_index_size (lcm->exprs);
  problem.transfer = transfer;
  problem.user_data = (gpointer) lcm;
  return mir_set_facts_solve (graph, &problem);
}

static void
anticipated_transfer (const MirFlowGraph *g, guint n, MirBitset *fact, gpointer ud)
{
  const Lcm *lcm = ud;

  mir_bitset_subtract (fact, lcm->kill[n]);
  mir_bitset_union (fact, lcm->exprs->uses[n]);
}

static void
available_transfer (const MirFlowGraph *g, guint n, MirBitset *fact, gpointer ud)
{
  const Lcm *lcm = ud;

  mir_bitset_union (fact, mir_set_facts_before_node (lcm->anticipated, n));
  mir_bitset_subtract (fact, lcm->kill[n]);
}

static void
postponable_transfer (const MirFlowGraph *g, guint n, MirBitset *fact, gpointer ud)
{
  const Lcm *lcm = ud;

  mir_bitset_union (fact, lcm->earliest[n]);
  mir_bitset_subtract (fact, lcm->exprs->uses[n]);
}

static void
used_transfer (const MirFlowGraph *g, guint n, MirBitset *fact, gpointer ud)
{
  const Lcm *lcm = ud;

  mir_bitset_union (fact, lcm->exprs->uses[n]);
  mir_bitset_subtract (fact, lcm->latest[n]);
}

static Lcm *
lcm_new (MirFlowGraph *graph, const PassEffects *fx)
{
  Lcm *lcm = g_new0 (Lcm, 1);
  guint n = graph->n_nodes, n_exprs;
  g_autoptr (MirBitset) all_succs = NULL;
  g_autoptr (MirBitset) pending = NULL;

  lcm->n_nodes = n;
  lcm->effects = mir_effects_new (graph, NULL);
  lcm->exprs = mir_expr_index_new_unlabelled (graph, lcm->effects);
  n_exprs = mir_expr_index_size (lcm->exprs);
  lcm->arena = tilde_arena_new (3 * (gsize) n * (mir_bitset_size (n_exprs) + 16) + 1024);
  lcm->kill = tilde_arena_alloc (lcm->arena, 3 * (gsize) n * sizeof (MirBitset *));
  lcm->earliest = lcm->kill + n;
  lcm->latest = lcm->kill + 2 * n;
  for (guint v = 0; v < n; v++)
    {
      const MirStmt *s = graph->nodes[v].stmt;
      lcm->kill[v] = mir_bitset_copy_in (lcm->arena, lcm->exprs->kills[v]);
      if (s && pass_stmt_has_effects (s, fx))
        mir_bitset_fill (lcm->kill[v]);
    }
  lcm->anticipated = solve (graph, lcm, MIR_DATAFLOW_BACKWARD, TRUE, anticipated_transfer);
  lcm->available = solve (graph, lcm, MIR_DATAFLOW_FORWARD, TRUE, available_transfer);
  for (guint v = 0; v < n; v++)
    {
      lcm->earliest[v] = mir_bitset_copy_in (lcm->arena,
                                             mir_set_facts_before_node (lcm->anticipated, v));
      mir_bitset_subtract (lcm->earliest[v], mir_set_facts_before_node (lcm->available, v));
    }
  lcm->postponable = solve (graph, lcm, MIR_DATAFLOW_FORWARD, TRUE, postponable_transfer);
  /* latest(n) = pending(n) ∩ (use(n) ∪ ¬ ⋂ pending(s) over the successors s),
   * with pending = earliest ∪ postponable.in */
  all_succs = mir_bitset_new (n_exprs);
  pending = mir_bitset_new (n_exprs);
  for (guint v = 0; v < n; v++)
    {
      const MirFlowNode *node = &graph->nodes[v];

      mir_bitset_fill (all_succs);
      for (guint i = 0; i < node->n_succs; i++)
        {
          mir_bitset_assign (pending, lcm->earliest[node->succs[i]]);
          mir_bitset_union (pending, mir_set_facts_before_node (lcm->postponable, node->succs[i]));
          mir_bitset_intersect (all_succs, pending);
        }
      /* all_succs := ¬all_succs ∪ use(v) */
      mir_bitset_fill (pending);
      mir_bitset_subtract (pending, all_succs);
      mir_bitset_union (pending, lcm->exprs->uses[v]);
      lcm->latest[v] = mir_bitset_copy_in (lcm->arena, lcm->earliest[v]);
      mir_bitset_union (lcm->latest[v], mir_set_facts_before_node (lcm->postponable, v));
      mir_bitset_intersect (lcm->latest[v], pending);
    }
  lcm->used = solve (graph, lcm, MIR_DATAFLOW_BACKWARD, FALSE, used_transfer);
  return lcm;
}

static void
lcm_free (Lcm *lcm)
{
  tilde_arena_free (lcm->arena);
  mir_set_facts_free (lcm->anticipated);
  mir_set_facts_free (lcm->available);
  mir_set_facts_free (lcm->postponable);
  mir_set_facts_free (lcm->used);
  mir_expr_index_free (lcm->exprs);
  mir_effects_free (lcm->effects);
  g_free (lcm);
}

typedef struct {
  PassEffects fx;
  PassNames  names;
  gboolean   changed;
  /* per graph */
  GPtrArray *exprs;          /* MirExpr*, copies of the candidates */
  GPtrArray *temps;          /* per candidate: its temporary, or NULL */
  GHashTable *before;        /* MirStmt* -> GPtrArray of statements to run first */
  GHashTable *at_end;        /* block or profile -> GPtrArray to run at its end */
  GHashTable *replace;       /* MirStmt* -> MirBitset* of candidates it reads from temps */
  GPtrArray *at_start;       /* statements to run first in the part */
} Motion;

/* Candidates not worth a variable: a promotion of a variable or literal,
 * a string, anything that is not a value. */
static gboolean
worth_moving (const MirExpr *e)
{
  if (e->kind == MIR_EXPR_PROMOTION && pass_expr_is_trivial (e))
    return FALSE;
  if (!e->type)
    return FALSE;
  switch (tilde_type_kind (e->type))
    {
    case TILDE_TYPE_FUNCTION:
    case TILDE_TYPE_MATH_FUNCTION:
    case TILDE_TYPE_VOID:
    case TILDE_TYPE_STRING:
      return FALSE;
    default:
      return TRUE;
    }
}

static GPtrArray *
list_for (GHashTable *table, gpointer key)
{
  GPtrArray *list = g_hash_table_lookup (table, key);

  if (!list)
    {
      list = mir_stmt_list_new ();
      g_hash_table_insert (table, key, list);
    }
  return list;
}

static MirStmt *
compute (Motion *m, guint e, const TildeSpan *span)
{
  const MirExpr *x = g_ptr_array_index (m->exprs, e);
  MirLvalue *lhs = mir_lvalue_var (span, x->type, x->ad_level, m->temps->pdata[e], NULL);

  return mir_stmt_assign (span, lhs, mir_expr_copy (x));
}

/* Where "just before node n" is, and the computation of e put there. */
static void
place (Motion *m, const MirFlowGraph *graph, guint n, guint e)
{
  const MirFlowNode *node = &graph->nodes[n];
  MirStmt *s = (MirStmt *) node->stmt;
  const TildeSpan *span = s ? &s->span : &((MirExpr *) m->exprs->pdata[e])->span;

  if (n == graph->entry)
    g_ptr_array_add (m->at_start, compute (m, e, span));
  else if (s && (s->kind == MIR_STMT_BLOCK || s->kind == MIR_STMT_PROFILE))
    g_ptr_array_add (list_for (m->at_end, s), compute (m, e, span));
  else if (s)
    g_ptr_array_add (list_for (m->before, s), compute (m, e, span));
}

static MirExpr *
read_temp (const MirExpr *e, gboolean conditional, gpointer data)
{
  Motion *m = ((gpointer *) data)[0];
  const MirBitset *set = ((gpointer *) data)[1];

  for (int i = mir_bitset_next (set, 0); i >= 0; i = mir_bitset_next (set, i + 1))
    {
      const MirExpr *x = g_ptr_array_index (m->exprs, i);
      if (mir_expr_equal (e, x))
        return mir_expr_var (&e->span, e->type, e->ad_level, m->temps->pdata[i]);
    }
  return NULL;
}

/* Moves the statements of `from` (may be NULL) to the end of `to`. */
static void
move_all (GPtrArray *to, GPtrArray *from)
{
  if (!from)
    return;
  for (guint i = 0; i < from->len; i++)
    g_ptr_array_add (to, from->pdata[i]);
  g_ptr_array_set_free_func (from, NULL);
  g_ptr_array_set_size (from, 0);
  g_ptr_array_set_free_func (from, (GDestroyNotify) mir_stmt_free);
}

/* Puts the computations and reads in place, in the tree under `*slot`. */
static void
apply (Motion *m, MirStmt **slot, gboolean in_list);

static void
apply_list (Motion *m, GPtrArray *list, MirStmt *owner)
{
  GPtrArray *out = g_ptr_array_new ();
  GPtrArray *end = owner ? g_hash_table_lookup (m->at_end, owner) : NULL;

  for (guint i = 0; i < list->len; i++)
    {
      MirStmt *s = g_ptr_array_index (list, i);
      GPtrArray *first = g_hash_table_lookup (m->before, s);
      move_all (out, first);
      apply (m, &s, TRUE);
      g_ptr_array_add (out, s);
    }
  move_all (out, end);
  g_ptr_array_set_free_func (list, NULL);
  g_ptr_array_set_size (list, 0);
  g_ptr_array_set_free_func (list, (GDestroyNotify) mir_stmt_free);
  for (guint i = 0; i < out->len; i++)
    g_ptr_array_add (list, out->pdata[i]);
  g_ptr_array_unref (out);
}

static void
apply (Motion *m, MirStmt **slot, gboolean in_list)
{
  MirStmt *s = *slot;
  const MirBitset *reads = g_hash_table_lookup (m->replace, s);
  GPtrArray *list = pass_stmt_list (s);
  GPtrArray *first;

  if (reads)
    {
      gpointer data[2] = { m, (gpointer) reads };
      pass_rewrite_stmt_exprs (s, read_temp, data);
    }
  if (list)
    apply_list (m, list, s->kind == MIR_STMT_SLIST ? NULL : s);
  else if (s->kind == MIR_STMT_IF)
    {
      apply (m, &s->u.if_stmt.then_stmt, FALSE);
      if (s->u.if_stmt.else_stmt)
        apply (m, &s->u.if_stmt.else_stmt, FALSE);
    }
  else if (s->kind == MIR_STMT_WHILE)
    apply (m, &s->u.while_stmt.body, FALSE);
  else if (s->kind == MIR_STMT_FOR)
    apply (m, &s->u.for_stmt.body, FALSE);
  /* a statement that is not in a list takes its computations with it */
  if (!in_list && (first = g_hash_table_lookup (m->before, s)) && first->len > 0)
    {
      g_ptr_array_add (first, s);
      g_hash_table_steal (m->before, s);
      *slot = mir_stmt_slist (&s->span, first);
    }
}

static void
free_bitset (gpointer p)
{
  mir_bitset_free (p);
}

static void
move_code (MirFlowGraph *graph, GPtrArray *list, MirStmt **body, Motion *m)
{
  Lcm *lcm;
  g_autofree gboolean *reachable = pass_reachable (graph);
  g_autoptr (MirBitset) keep = NULL;
  g_autoptr (MirBitset) place_at = NULL;
  g_autoptr (MirBitset) read_at = NULL;
  guint n_exprs, n_moved = 0;
  GPtrArray *target;

  lcm = lcm_new (graph, &m->fx);
  n_exprs = mir_expr_index_size (lcm->exprs);
  if (n_exprs == 0)
    {
      lcm_free (lcm);
      return;
    }
  keep = mir_bitset_new (n_exprs);
  place_at = mir_bitset_new (n_exprs);
  read_at = mir_bitset_new (n_exprs);
  for (guint e = 0; e < n_exprs; e++)
    if (worth_moving (g_ptr_array_index (lcm->exprs->exprs, e)))
      mir_bitset_add (keep, e);
  /* computing at a loop head is not one place */
  for (guint n = 0; n < graph->n_nodes; n++)
    if (graph->nodes[n].loop_head)
      {
        mir_bitset_assign (place_at, lcm->latest[n]);
        mir_bitset_intersect (place_at, mir_set_facts_after_node (lcm->used, n));
        mir_bitset_subtract (keep, place_at);
      }

  /* the candidates themselves while the analyses hold, copies of those
   * moved once the program changes */
  m->exprs = g_ptr_array_new ();
  m->temps = g_ptr_array_new ();
  m->before = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_ptr_array_unref);
  m->at_end = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_ptr_array_unref);
  m->replace = g_hash_table_new_full (NULL, NULL, NULL, free_bitset);
  m->at_start = mir_stmt_list_new ();
  for (guint e = 0; e < n_exprs; e++)
    {
      g_ptr_array_add (m->exprs, g_ptr_array_index (lcm->exprs->exprs, e));
      g_ptr_array_add (m->temps, NULL);
    }

  for (guint n = 0; n < graph->n_nodes; n++)
    {
      const MirBitset *used_out = mir_set_facts_after_node (lcm->used, n);
      if (!reachable[n])
        continue;
      /* computed before n: latest ∩ used.out; read from the temporary in
       * n: use ∩ (¬latest ∪ used.out) */
      mir_bitset_assign (place_at, lcm->latest[n]);
      mir_bitset_intersect (place_at, used_out);
      mir_bitset_intersect (place_at, keep);
      mir_bitset_assign (read_at, lcm->latest[n]);
      mir_bitset_subtract (read_at, used_out);
      for (int e = mir_bitset_next (place_at, 0); e >= 0;
           e = mir_bitset_next (place_at, (guint) e + 1))
        {
          if (!m->temps->pdata[e])
            m->temps->pdata[e] = (gpointer) pass_names_fresh (&m->names, "lcm");
          place (m, graph, n, e);
        }
      if (!graph->nodes[n].stmt)
        continue;
      mir_bitset_assign (place_at, lcm->exprs->uses[n]);
      mir_bitset_intersect (place_at, keep);
      mir_bitset_subtract (place_at, read_at);
      if (!mir_bitset_is_empty (place_at))
        {
          MirStmt *s = (MirStmt *) graph->nodes[n].stmt;
          MirBitset *set = g_hash_table_lookup (m->replace, s);
          if (!set)
            g_hash_table_insert (m->replace, s, (set = mir_bitset_new (n_exprs)));
          mir_bitset_union (set, place_at);
        }
    }
  /* a read from a temporary never computed cannot happen; should the
   * analyses ever say otherwise, the expression stays as it is */
  mir_bitset_clear (read_at);
  for (guint e = 0; e < n_exprs; e++)
    if (!m->temps->pdata[e])
      mir_bitset_add (read_at, e);
  GHashTableIter iter;
  gpointer key, value;
  g_hash_table_iter_init (&iter, m->replace);
  while (g_hash_table_iter_next (&iter, &key, &value))
    mir_bitset_subtract (value, read_at);
  for (guint e = 0; e < n_exprs; e++)
    m->exprs->pdata[e] = m->temps->pdata[e] ? mir_expr_copy (m->exprs->pdata[e]) : NULL;
  g_ptr_array_set_free_func (m->exprs, (GDestroyNotify) mir_expr_free);

  lcm_free (lcm);
  for (guint e = 0; e < n_exprs; e++)
    n_moved += m->temps->pdata[e] ? 1 : 0;
  if (n_moved > 0)
    {
      if (list)
        apply_list (m, list, NULL);
      else
        apply (m, body, FALSE);
      target = list ? list : pass_stmt_list (*body);
      /* the temporaries, declared first, in the order of the candidates,
       * then what runs at the start */
      GPtrArray *head = mir_stmt_list_new ();
      for (guint e = 0; e < n_exprs; e++)
        if (m->temps->pdata[e])
          {
            const MirExpr *x = g_ptr_array_index (m->exprs, e);
            g_ptr_array_add (head, mir_stmt_decl (&x->span, m->temps->pdata[e], x->type, NULL,
                                                  x->ad_level, MIR_DECL_DEFAULT, NULL));
          }
      move_all (head, m->at_start);
      for (guint i = head->len; i-- > 0;)
        g_ptr_array_insert (target, 0, head->pdata[i]);
      g_ptr_array_set_free_func (head, NULL);
      g_ptr_array_unref (head);
      m->changed = TRUE;
    }
  g_ptr_array_unref (m->exprs);
  g_ptr_array_unref (m->temps);
  g_hash_table_unref (m->before);
  g_hash_table_unref (m->at_end);
  g_hash_table_unref (m->replace);
  g_ptr_array_unref (m->at_start);
}

gboolean
mir_pass_lazy_code_motion (MirProgram *program)
{
  Motion m = { { NULL }, { 0 }, FALSE, NULL, NULL, NULL, NULL, NULL, NULL };

  pass_effects_init (&m.fx, program);
  pass_names_init (&m.names, program);
  for (guint i = 0; i < program->functions->len; i++)
    {
      MirFunDef *f = g_ptr_array_index (program->functions, i);
      if (!f->body || !pass_stmt_list (f->body))
        continue;
      g_autoptr (MirFlowGraph) graph = mir_flow_graph_new (f->body, MIR_FLOW_GRAPH_DEFAULT);
      move_code (graph, NULL, &f->body, &m);
    }
  for (int part = 0; part < MIR_N_PARTS; part++)
    {
      const GPtrArray *lists[] = { program->parts[part] };
      g_autoptr (MirFlowGraph) graph = mir_flow_graph_new_for_lists (lists, 1,
                                                                     MIR_FLOW_GRAPH_DEFAULT);
      move_code (graph, program->parts[part], NULL, &m);
    }
  pass_effects_clear (&m.fx);
  return m.changed;
}
