/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/copy-prop.h"

/* The variable `e` is, when it is a variable of type `type`. */
static const char *
copied_variable (const MirExpr *e, const TildeType *type)
{
  if (!e || !mir_expr_is_variable (e) || e->type != type)
    return NULL;
  return e->u.var.name;
}

/* The copy a node makes: x and y, or FALSE. */
static gboolean
copy_of (const MirStmt *s, const char **x, const char **y)
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
      *y = copied_variable (s->u.assign.rhs, lhs->type);
    }
  else if (s->kind == MIR_STMT_DECL && s->u.decl.init_kind == MIR_DECL_ASSIGN)
    {
      *x = s->u.decl.name;
      *y = copied_variable (s->u.decl.init, s->u.decl.type);
    }
  else
    return FALSE;
  return *y != NULL && *x != *y;
}

static void
find_copy (MirStmt *s, gpointer data)
{
  const char *x, *y;

  if (!*(gboolean *) data && copy_of (s, &x, &y))
    *(gboolean *) data = TRUE;
}

gboolean
mir_copy_any (const GPtrArray *stmts)
{
  gboolean found = FALSE;

  for (guint i = 0; stmts && i < stmts->len && !found; i++)
    mir_stmt_walk (g_ptr_array_index (stmts, i), find_copy, &found);
  return found;
}

/* The number of copy x = y, numbered in order of first appearance. */
static guint
copy_number (GArray *dst, GArray *src, GPtrArray *labels, GHashTable *numbers, gint64 *key,
             guint x, guint y, const MirVarIndex *vars)
{
  guint number;

  *key = (gint64) x << 32 | y;
  number = GPOINTER_TO_UINT (g_hash_table_lookup (numbers, key));
  if (number)
    return number - 1;
  g_array_append_val (dst, x);
  g_array_append_val (src, y);
  g_ptr_array_add (labels, g_strdup_printf ("%s = %s", mir_var_index_name (vars, x),
                                            mir_var_index_name (vars, y)));
  g_hash_table_insert (numbers, key, GUINT_TO_POINTER (dst->len));
  return dst->len - 1;
}

MirCopyFacts *
mir_copy_propagation (MirFlowGraph *graph, gboolean record)
{
  MirCopyFacts *cf = g_new0 (MirCopyFacts, 1);
  MirEffects *fx = mir_effects_new (graph, NULL);
  GArray *dst = g_array_new (FALSE, FALSE, sizeof (guint));
  GArray *src = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) numbers = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autofree gint64 *keys = g_new (gint64, graph->n_nodes + 1);
  guint n = graph->n_nodes, n_vars = mir_var_index_size (fx->vars), *made = g_new (guint, n);
  MirBitset **gen, **kill, **touching;
  g_autoptr (TildeArena) arena = NULL;
  MirBitset *changed;
  MirSetProblem problem = { 0 };

  cf->effects = fx;
  for (guint v = 0; v < n; v++)
    {
      const char *x, *y;
      made[v] = MIR_FLOW_NONE;
      if (copy_of (graph->nodes[v].stmt, &x, &y))
        made[v] = copy_number (dst, src, labels, numbers, &keys[v],
                               mir_var_index_lookup (fx->vars, x),
                               mir_var_index_lookup (fx->vars, y), fx->vars);
    }
  cf->n_copies = dst->len;
  cf->dst = (guint *) g_array_free (dst, FALSE);
  cf->src = (guint *) g_array_free (src, FALSE);

  /* per variable, the copies that a change of it ends (and the ones it
   * is x of); per node, what it ends: the copies of the variables it
   * changes */
  arena = tilde_arena_new ((2 * (gsize) n + 2 * (gsize) n_vars + 1)
                           * (mir_bitset_size (MAX (cf->n_copies, n_vars)) + 16)
                           + (2 * (gsize) n + 2 * (gsize) n_vars) * sizeof (MirBitset *) + 1024);
  gen = tilde_arena_alloc (arena, 2 * (gsize) n * sizeof (MirBitset *));
  kill = gen + n;
  touching = tilde_arena_alloc (arena, (gsize) n_vars * sizeof (MirBitset *));
  cf->by_dst = g_new (MirBitset *, n_vars + 1);
  for (guint x = 0; x < n_vars; x++)
    {
      touching[x] = mir_bitset_new_in (arena, cf->n_copies);
      cf->by_dst[x] = mir_bitset_new (cf->n_copies);
    }
  cf->n_vars = n_vars;
  for (guint c = 0; c < cf->n_copies; c++)
    {
      mir_bitset_add (touching[cf->dst[c]], c);
      mir_bitset_add (touching[cf->src[c]], c);
      mir_bitset_add (cf->by_dst[cf->dst[c]], c);
    }
  changed = mir_bitset_new_in (arena, n_vars);
  for (guint v = 0; v < n; v++)
    {
      mir_bitset_assign (changed, fx->writes[v]);
      mir_bitset_union (changed, fx->kills[v]);
      mir_bitset_union (changed, fx->declares[v]);
      mir_bitset_union (changed, fx->scope_ends[v]);
      gen[v] = mir_bitset_new_in (arena, cf->n_copies);
      kill[v] = mir_bitset_new_in (arena, cf->n_copies);
      for (int x = mir_bitset_next (changed, 0); x >= 0;
           x = mir_bitset_next (changed, (guint) x + 1))
        mir_bitset_union (kill[v], touching[x]);
      if (made[v] != MIR_FLOW_NONE)
        mir_bitset_add (gen[v], made[v]);
    }

  g_ptr_array_add (labels, NULL);
  problem.direction = MIR_DATAFLOW_FORWARD;
  problem.must = TRUE;
  problem.n_bits = cf->n_copies;
  problem.labels = (const char *const *) labels->pdata;
  problem.gen = gen;
  problem.kill = kill;
  problem.record = record;
  cf->facts = mir_set_facts_solve (graph, &problem);
  g_free (made);
  return cf;
}

void
mir_copy_facts_free (MirCopyFacts *cf)
{
  if (!cf)
    return;
  mir_set_facts_free (cf->facts);
  mir_effects_free (cf->effects);
  for (guint x = 0; x < cf->n_vars; x++)
    mir_bitset_free (cf->by_dst[x]);
  g_free (cf->by_dst);
  g_free (cf->dst);
  g_free (cf->src);
  g_free (cf);
}

const char *
mir_copy_facts_source (const MirCopyFacts *cf, guint node, const char *var)
{
  guint x = mir_var_index_lookup (cf->effects->vars, var);
  const MirBitset *in = mir_set_facts_before_node (cf->facts, node);
  int c;

  if (x == MIR_FLOW_NONE)
    return NULL;
  /* the first copy of x that holds */
  c = mir_bitset_next_common (cf->by_dst[x], in, 0);
  return c < 0 ? NULL : mir_var_index_name (cf->effects->vars, cf->src[c]);
}
