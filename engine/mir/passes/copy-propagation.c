/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/passes/passes.h"
#include "mir/passes/passes-private.h"

#include "mir/dataflow/copy-prop.h"

typedef struct {
  MirCopyFacts *facts;
  GHashTable   *ad;        /* variable -> its AD level + 1 */
  guint         node;
  gboolean      data_part;   /* a part without autodiff values */
  gboolean      changed;
} Propagate;

static MirExpr *
source_for (const MirExpr *e, gboolean conditional, gpointer data)
{
  Propagate *p = data;
  const char *y;
  guint ad;

  if (!mir_expr_is_variable (e)
      || !(y = mir_copy_facts_source (p->facts, p->node, e->u.var.name)))
    return NULL;
  p->changed = TRUE;
  ad = GPOINTER_TO_UINT (g_hash_table_lookup (p->ad, y));
  return mir_expr_var (&e->span, e->type,
                       p->data_part ? TILDE_AD_DATA : ad ? (TildeAdLevel) (ad - 1) : e->ad_level,
                       y);
}

/* The AD level each variable is read at, for the reads put in place of
 * others. */
static void
note_ad (MirExpr *e, gpointer data)
{
  if (mir_expr_is_variable (e) && !g_hash_table_contains (data, e->u.var.name))
    g_hash_table_insert (data, (gpointer) e->u.var.name, GUINT_TO_POINTER (e->ad_level + 1));
  mir_expr_foreach_child (e, note_ad, data);
}

static void
propagate (MirFlowGraph *graph, GPtrArray *stmts, TildeAdLevel part_ad, gpointer data)
{
  Propagate *p = data;
  g_autofree gboolean *reachable = NULL;

  p->data_part = part_ad == TILDE_AD_DATA;
  p->facts = mir_copy_propagation (graph, FALSE);
  p->ad = g_hash_table_new (NULL, NULL);
  for (guint n = 0; n < graph->n_nodes; n++)
    if (graph->nodes[n].stmt)
      mir_stmt_foreach_expr ((MirStmt *) graph->nodes[n].stmt, note_ad, p->ad);
  reachable = pass_reachable (graph);
  for (guint i = 0; i < stmts->len; i++)
    {
      MirStmt *s = g_ptr_array_index (stmts, i);
      p->node = mir_flow_graph_node_of (graph, s);
      if (p->node != MIR_FLOW_NONE && reachable[p->node])
        {
          gboolean before = p->changed;
          p->changed = FALSE;
          pass_rewrite_stmt_exprs (s, source_for, p);
          if (p->changed)
            pass_raise_ad (s);
          p->changed |= before;
        }
    }
  g_hash_table_unref (p->ad);
  mir_copy_facts_free (p->facts);
}

/* Without a copy there is nothing to propagate. */
static gboolean
has_copies (GPtrArray *roots, gpointer data)
{
  return mir_copy_any (roots);
}

gboolean
mir_pass_copy_propagation (MirProgram *program)
{
  Propagate p = { NULL, NULL, 0, FALSE, FALSE };

  pass_foreach_graph_wanted (program, FALSE, has_copies, propagate, &p);
  return p.changed;
}
