/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/expr-index.h"

#include "mir/mir-print.h"

/* ---- candidates ---- */

static gboolean
fun_is_pure (const MirFun *f)
{
  switch (f->kind)
    {
    case MIR_FUN_STANLIB:
      return f->suffix != MIR_SUFFIX_RNG && f->suffix != MIR_SUFFIX_TARGET
             && f->suffix != MIR_SUFFIX_JACOBIAN;
    case MIR_FUN_COMPILER:
      switch (f->internal)
        {
        case MIR_FN_MAKE_ARRAY:
        case MIR_FN_MAKE_ROW_VEC:
        case MIR_FN_MAKE_TUPLE:
        case MIR_FN_LENGTH:
        case MIR_FN_NEG_INF:
        case MIR_FN_NAN:
          return TRUE;
        default:
          return FALSE;
        }
    case MIR_FUN_USER:
    default:
      return FALSE;
    }
}

static void
check_pure (MirExpr *e, gpointer data)
{
  gboolean *pure = data;

  if (!*pure)
    return;
  if (e->kind == MIR_EXPR_VAR && !mir_expr_is_variable (e))
    *pure = FALSE;
  else if (e->kind == MIR_EXPR_CALL && !fun_is_pure (&e->u.call.fun))
    *pure = FALSE;
  else
    mir_expr_foreach_child (e, check_pure, data);
}

gboolean
mir_expr_is_candidate (const MirExpr *e)
{
  gboolean pure = TRUE;

  if (e->kind == MIR_EXPR_VAR || e->kind == MIR_EXPR_LIT)
    return FALSE;
  check_pure ((MirExpr *) e, &pure);
  return pure;
}

/* ---- structural hashing ---- */

static guint
mix (guint h, guint v)
{
  return (h ^ v) * 16777619u;
}

static void
hash_child (MirExpr *e, gpointer data)
{
  guint *h = data;

  *h = mix (*h, mir_expr_hash (e));
}

guint
mir_expr_hash (const MirExpr *e)
{
  guint h = mix (2166136261u, e->kind);

  h = mix (h, g_direct_hash (e->type));
  h = mix (h, e->ad_level);
  switch (e->kind)
    {
    case MIR_EXPR_VAR:
      h = mix (h, g_str_hash (e->u.var.name));
      break;
    case MIR_EXPR_LIT:
      h = mix (h, e->u.lit.kind);
      h = mix (h, g_str_hash (e->u.lit.text));
      break;
    case MIR_EXPR_CALL:
      h = mix (h, e->u.call.fun.kind);
      h = mix (h, e->u.call.fun.kind == MIR_FUN_COMPILER ? e->u.call.fun.internal
                                                          : g_str_hash (e->u.call.fun.name));
      break;
    case MIR_EXPR_TUPLE_PROJ:
      h = mix (h, (guint) e->u.proj.slot);
      break;
    default:
      break;
    }
  mir_expr_foreach_child ((MirExpr *) e, hash_child, &h);
  return h;
}

static guint
hash_func (gconstpointer key)
{
  return mir_expr_hash (key);
}

static gboolean
equal_func (gconstpointer a, gconstpointer b)
{
  return mir_expr_equal (a, b);
}

/* ---- the index ---- */

typedef struct {
  MirExprIndex     *index;
  const MirEffects *effects;
  MirBitset        *uses;    /* when collecting a node's uses */
} Collect;

static guint
intern_expr (Collect *c, const MirExpr *e)
{
  MirExprIndex *index = c->index;
  guint number = GPOINTER_TO_UINT (g_hash_table_lookup (index->numbers, e));

  if (number)
    return number - 1;
  number = index->exprs->len;
  g_ptr_array_add (index->exprs, (gpointer) e);
  index->labels->pdata[index->labels->len - 1] = mir_print_expr (e);
  g_ptr_array_add (index->labels, NULL);
  g_hash_table_insert (index->numbers, (gpointer) e, GUINT_TO_POINTER (number + 1));
  return number;
}

static void
collect_all (MirExpr *e, gpointer data)
{
  if (mir_expr_is_candidate (e))
    intern_expr (data, e);
  mir_expr_foreach_child (e, collect_all, data);
}

/* The candidates evaluated whenever `e` is. */
static void
collect_uses (MirExpr *e, gpointer data)
{
  Collect *c = data;

  if (mir_expr_is_candidate (e))
    mir_bitset_add (c->uses, mir_expr_index_lookup (c->index, e));
  switch (e->kind)
    {
    case MIR_EXPR_AND:
    case MIR_EXPR_OR:
      collect_uses (e->u.logical.lhs, data);
      break;
    case MIR_EXPR_TERNARY:
      collect_uses (e->u.ternary.cond, data);
      break;
    default:
      mir_expr_foreach_child (e, collect_uses, data);
      break;
    }
}

MirExprIndex *
mir_expr_index_new (const MirFlowGraph *graph, const MirEffects *effects)
{
  MirExprIndex *index = g_new0 (MirExprIndex, 1);
  Collect c = { index, effects, NULL };
  guint n_vars = mir_var_index_size (effects->vars), n_exprs;
  g_autoptr (MirBitset) changed = mir_bitset_new (n_vars);

  index->exprs = g_ptr_array_new ();
  index->labels = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (index->labels, NULL);
  index->numbers = g_hash_table_new (hash_func, equal_func);
  for (guint v = 0; v < graph->n_nodes; v++)
    if (graph->nodes[v].stmt)
      mir_stmt_foreach_expr ((MirStmt *) graph->nodes[v].stmt, collect_all, &c);
  n_exprs = index->exprs->len;

  index->reads = g_new (MirBitset *, n_exprs);
  for (guint i = 0; i < n_exprs; i++)
    {
      index->reads[i] = mir_bitset_new (n_vars);
      mir_expr_add_reads (g_ptr_array_index (index->exprs, i), effects->vars, index->reads[i]);
    }

  index->n_nodes = graph->n_nodes;
  index->uses = g_new (MirBitset *, graph->n_nodes);
  index->kills = g_new (MirBitset *, graph->n_nodes);
  for (guint v = 0; v < graph->n_nodes; v++)
    {
      index->uses[v] = mir_bitset_new (n_exprs);
      index->kills[v] = mir_bitset_new (n_exprs);
      if (graph->nodes[v].stmt)
        {
          c.uses = index->uses[v];
          mir_stmt_foreach_expr ((MirStmt *) graph->nodes[v].stmt, collect_uses, &c);
        }
      mir_bitset_assign (changed, effects->writes[v]);
      mir_bitset_union (changed, effects->kills[v]);
      mir_bitset_union (changed, effects->declares[v]);
      mir_bitset_union (changed, effects->scope_ends[v]);
      for (guint i = 0; i < n_exprs; i++)
        if (mir_bitset_intersects (index->reads[i], changed))
          mir_bitset_add (index->kills[v], i);
    }
  return index;
}

void
mir_expr_index_free (MirExprIndex *index)
{
  if (!index)
    return;
  for (guint i = 0; i < index->exprs->len; i++)
    mir_bitset_free (index->reads[i]);
  for (guint v = 0; v < index->n_nodes; v++)
    {
      mir_bitset_free (index->uses[v]);
      mir_bitset_free (index->kills[v]);
    }
  g_free (index->reads);
  g_free (index->uses);
  g_free (index->kills);
  g_ptr_array_unref (index->exprs);
  g_ptr_array_unref (index->labels);
  g_hash_table_unref (index->numbers);
  g_free (index);
}

guint
mir_expr_index_size (const MirExprIndex *index)
{
  return index->exprs->len;
}

guint
mir_expr_index_lookup (const MirExprIndex *index, const MirExpr *e)
{
  guint number = GPOINTER_TO_UINT (g_hash_table_lookup (index->numbers, e));

  return number ? number - 1 : MIR_FLOW_NONE;
}
