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

static guint
copy_number (GArray *dst, GArray *src, GPtrArray *labels, guint x, guint y,
             const MirVarIndex *vars)
{
  for (guint i = 0; i < dst->len; i++)
    if (g_array_index (dst, guint, i) == x && g_array_index (src, guint, i) == y)
      return i;
  g_array_append_val (dst, x);
  g_array_append_val (src, y);
  g_ptr_array_add (labels, g_strdup_printf ("%s = %s", mir_var_index_name (vars, x),
                                            mir_var_index_name (vars, y)));
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
  guint n = graph->n_nodes, *made = g_new (guint, n);
  MirBitset **gen = g_new (MirBitset *, n), **kill = g_new (MirBitset *, n);
  MirSetProblem problem = { 0 };

  cf->effects = fx;
  for (guint v = 0; v < n; v++)
    {
      const char *x, *y;
      made[v] = MIR_FLOW_NONE;
      if (copy_of (graph->nodes[v].stmt, &x, &y))
        made[v] = copy_number (dst, src, labels, mir_var_index_lookup (fx->vars, x),
                               mir_var_index_lookup (fx->vars, y), fx->vars);
    }
  cf->n_copies = dst->len;
  for (guint v = 0; v < n; v++)
    {
      g_autoptr (MirBitset) changed = mir_bitset_copy (fx->writes[v]);

      mir_bitset_union (changed, fx->kills[v]);
      mir_bitset_union (changed, fx->declares[v]);
      mir_bitset_union (changed, fx->scope_ends[v]);
      gen[v] = mir_bitset_new (cf->n_copies);
      kill[v] = mir_bitset_new (cf->n_copies);
      for (guint c = 0; c < cf->n_copies; c++)
        if (mir_bitset_contains (changed, g_array_index (dst, guint, c))
            || mir_bitset_contains (changed, g_array_index (src, guint, c)))
          mir_bitset_add (kill[v], c);
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

  cf->dst = (guint *) g_array_free (dst, FALSE);
  cf->src = (guint *) g_array_free (src, FALSE);
  for (guint v = 0; v < n; v++)
    {
      mir_bitset_free (gen[v]);
      mir_bitset_free (kill[v]);
    }
  g_free (gen);
  g_free (kill);
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
  g_free (cf->dst);
  g_free (cf->src);
  g_free (cf);
}

const char *
mir_copy_facts_source (const MirCopyFacts *cf, guint node, const char *var)
{
  guint x = mir_var_index_lookup (cf->effects->vars, var);
  const MirBitset *in = mir_set_facts_before_node (cf->facts, node);

  if (x == MIR_FLOW_NONE)
    return NULL;
  for (guint c = 0; c < cf->n_copies; c++)
    if (cf->dst[c] == x && mir_bitset_contains (in, c))
      return mir_var_index_name (cf->effects->vars, cf->src[c]);
  return NULL;
}
