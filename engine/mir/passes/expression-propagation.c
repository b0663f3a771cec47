/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/passes/passes.h"
#include "mir/passes/passes-private.h"

#include "mir/dataflow/effects.h"
#include "mir/dataflow/set-facts.h"

/* Expression propagation (forward, must): the definitions x = e that hold
 * on every path to a point, over the whole assignments and initialised
 * declarations whose e can be evaluated again (pass_expr_is_movable) and
 * does not read x. A write to x or to a variable e reads, a declaration of
 * either, the end of either's scope, or a statement with an effect ends a
 * definition (so that e, which may fail, is not evaluated on the other
 * side of a print instead of this one). */

typedef struct {
  PassEffects fx;
  gboolean    changed;
  /* per graph */
  MirEffects *effects;
  GPtrArray  *defs_var;     /* per definition: its variable (interned) */
  GPtrArray  *defs_expr;    /* per definition: const MirExpr* (a copy) */
  GHashTable *by_var;       /* variable -> MirBitset* of its definitions */
  MirSetFacts *facts;
  guint       node;
  gboolean    data_part;    /* a part without autodiff values */
} Propagate;

/* The definition a node makes: x and e, or FALSE. */
static gboolean
definition_of (const Propagate *p, const MirStmt *s, const char **x, const MirExpr **e)
{
  const MirLvalue *lhs;

  if (!s)
    return FALSE;
  if (s->kind == MIR_STMT_ASSIGN)
    {
      lhs = s->u.assign.lhs;
      if (lhs->proj_of || (lhs->indices && lhs->indices->len > 0))
        return FALSE;
      *x = lhs->var;
      *e = s->u.assign.rhs;
    }
  else if (s->kind == MIR_STMT_DECL && s->u.decl.init_kind == MIR_DECL_ASSIGN && s->u.decl.init)
    {
      *x = s->u.decl.name;
      *e = s->u.decl.init;
    }
  else
    return FALSE;
  return pass_expr_is_movable (*e, &p->fx) && !pass_expr_reads (*e, *x);
}

static void
solve (Propagate *p, MirFlowGraph *graph)
{
  guint n = graph->n_nodes, n_vars, n_defs;
  g_autofree guint *made = g_new (guint, n);
  g_autoptr (GArray) reads = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) reads_start = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (TildeArena) arena = NULL;
  g_autoptr (MirBitset) r = NULL;
  MirBitset **gen, **kill, **ending, *changed;
  MirSetProblem problem = { 0 };

  p->effects = mir_effects_new (graph, NULL);
  n_vars = mir_var_index_size (p->effects->vars);
  p->defs_var = g_ptr_array_new ();
  p->defs_expr = g_ptr_array_new_with_free_func ((GDestroyNotify) mir_expr_free);
  r = mir_bitset_new (n_vars);
  for (guint v = 0; v < n; v++)
    {
      const char *x;
      const MirExpr *e;

      made[v] = MIR_FLOW_NONE;
      if (!definition_of (p, graph->nodes[v].stmt, &x, &e))
        continue;
      made[v] = p->defs_var->len;
      g_ptr_array_add (p->defs_var, (gpointer) x);
      g_ptr_array_add (p->defs_expr, mir_expr_copy (e));
      /* the variables whose change ends the definition: x and those e reads */
      mir_bitset_clear (r);
      mir_expr_add_reads (e, p->effects->vars, r);
      mir_bitset_add (r, mir_var_index_lookup (p->effects->vars, x));
      g_array_append_val (reads_start, reads->len);
      for (int y = mir_bitset_next (r, 0); y >= 0; y = mir_bitset_next (r, (guint) y + 1))
        {
          guint yy = (guint) y;
          g_array_append_val (reads, yy);
        }
    }
  n_defs = p->defs_var->len;
  g_array_append_val (reads_start, reads->len);

  /* per variable the definitions its change ends; per node those its
   * changes end, or all of them across an effect */
  arena = tilde_arena_new ((2 * (gsize) n + (gsize) n_vars + 1)
                           * (mir_bitset_size (MAX (n_defs, n_vars)) + 16)
                           + (2 * (gsize) n + (gsize) n_vars) * sizeof (MirBitset *) + 1024);
  gen = tilde_arena_alloc (arena, 2 * (gsize) n * sizeof (MirBitset *));
  kill = gen + n;
  ending = tilde_arena_alloc (arena, (gsize) n_vars * sizeof (MirBitset *));
  for (guint x = 0; x < n_vars; x++)
    ending[x] = mir_bitset_new_in (arena, n_defs);
  for (guint d = 0; d < n_defs; d++)
    for (guint i = g_array_index (reads_start, guint, d);
         i < g_array_index (reads_start, guint, d + 1); i++)
      mir_bitset_add (ending[g_array_index (reads, guint, i)], d);
  changed = mir_bitset_new_in (arena, n_vars);
  p->by_var = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) mir_bitset_free);
  for (guint d = 0; d < n_defs; d++)
    {
      MirBitset *same = g_hash_table_lookup (p->by_var, p->defs_var->pdata[d]);
      if (!same)
        g_hash_table_insert (p->by_var, p->defs_var->pdata[d], (same = mir_bitset_new (n_defs)));
      mir_bitset_add (same, d);
    }
  for (guint v = 0; v < n; v++)
    {
      gen[v] = mir_bitset_new_in (arena, n_defs);
      kill[v] = mir_bitset_new_in (arena, n_defs);
      /* nothing moves across an effect: a definition that could fail is
       * not read after one */
      if (graph->nodes[v].stmt && pass_stmt_has_effects (graph->nodes[v].stmt, &p->fx))
        mir_bitset_fill (kill[v]);
      else
        {
          mir_bitset_assign (changed, p->effects->writes[v]);
          mir_bitset_union (changed, p->effects->kills[v]);
          mir_bitset_union (changed, p->effects->declares[v]);
          mir_bitset_union (changed, p->effects->scope_ends[v]);
          for (int x = mir_bitset_next (changed, 0); x >= 0;
               x = mir_bitset_next (changed, (guint) x + 1))
            mir_bitset_union (kill[v], ending[x]);
        }
      if (made[v] != MIR_FLOW_NONE)
        mir_bitset_add (gen[v], made[v]);
    }
  /* the facts are never shown: the definitions go unlabelled */
  problem.direction = MIR_DATAFLOW_FORWARD;
  problem.must = TRUE;
  problem.n_bits = n_defs;
  problem.gen = gen;
  problem.kill = kill;
  p->facts = mir_set_facts_solve (graph, &problem);
}

static MirExpr *
definition_for (const MirExpr *e, gboolean conditional, gpointer data)
{
  Propagate *p = data;
  const MirBitset *in, *same;
  MirExpr *copy;
  int d;

  if (!mir_expr_is_variable (e))
    return NULL;
  in = mir_set_facts_before_node (p->facts, p->node);
  /* the first definition of the variable that holds */
  same = g_hash_table_lookup (p->by_var, e->u.var.name);
  d = same ? mir_bitset_next_common (same, in, 0) : -1;
  if (d < 0)
    return NULL;
  copy = mir_expr_copy (g_ptr_array_index (p->defs_expr, d));
  copy->span = e->span;
  if (p->data_part)
    pass_make_expr_data (copy);
  p->changed = TRUE;
  return pass_promote (copy, e->type);
}

static void
propagate (MirFlowGraph *graph, GPtrArray *stmts, TildeAdLevel part_ad, gpointer data)
{
  Propagate *p = data;
  g_autofree gboolean *reachable = pass_reachable (graph);

  p->data_part = part_ad == TILDE_AD_DATA;
  solve (p, graph);
  for (guint i = 0; i < stmts->len; i++)
    {
      MirStmt *s = g_ptr_array_index (stmts, i);
      p->node = mir_flow_graph_node_of (graph, s);
      if (p->node != MIR_FLOW_NONE && reachable[p->node])
        {
          gboolean before = p->changed;
          p->changed = FALSE;
          pass_rewrite_stmt_exprs (s, definition_for, p);
          if (p->changed)
            pass_raise_ad (s);
          p->changed |= before;
        }
    }
  mir_set_facts_free (p->facts);
  mir_effects_free (p->effects);
  g_ptr_array_unref (p->defs_var);
  g_ptr_array_unref (p->defs_expr);
  g_hash_table_unref (p->by_var);
}

typedef struct {
  const Propagate *p;
  gboolean         found;
} DefinitionSearch;

static void
find_definition (MirStmt *s, gpointer data)
{
  DefinitionSearch *d = data;
  const char *x;
  const MirExpr *e;

  if (!d->found && definition_of (d->p, s, &x, &e))
    d->found = TRUE;
}

/* Without a definition there is nothing to propagate. */
static gboolean
has_definitions (GPtrArray *roots, gpointer data)
{
  DefinitionSearch d = { data, FALSE };

  for (guint i = 0; i < roots->len && !d.found; i++)
    mir_stmt_walk (g_ptr_array_index (roots, i), find_definition, &d);
  return d.found;
}

gboolean
mir_pass_expression_propagation (MirProgram *program)
{
  Propagate p = { { NULL } };

  pass_effects_init (&p.fx, program);
  pass_foreach_graph_wanted (program, FALSE, has_definitions, propagate, &p);
  pass_effects_clear (&p.fx);
  return p.changed;
}
