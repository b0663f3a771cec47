/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/passes/passes.h"
#include "mir/passes/passes-private.h"

#include "mir/dataflow/const-prop.h"

typedef struct {
  MirConstFacts *facts;
  guint          node;
  gboolean       changed;
} Propagate;

static MirExpr *
constant_for (const MirExpr *e, gboolean conditional, gpointer data)
{
  Propagate *p = data;
  MirConstValue v;

  if (!mir_expr_is_variable (e) || !e->type
      || !(tilde_type_is_int (e->type) || tilde_type_is_real (e->type)))
    return NULL;
  v = mir_const_facts_before (p->facts, p->node, e->u.var.name);
  if (v.kind == MIR_CONST_INT && tilde_type_is_int (e->type))
    {
      p->changed = TRUE;
      return pass_int_lit (&e->span, v.i);
    }
  if (v.kind == MIR_CONST_REAL || v.kind == MIR_CONST_INT)
    {
      p->changed = TRUE;
      return pass_real_lit (&e->span, v.kind == MIR_CONST_REAL ? v.r : (double) v.i);
    }
  return NULL;
}

static void
propagate (MirFlowGraph *graph, GPtrArray *stmts, TildeAdLevel part_ad, gpointer data)
{
  Propagate *p = data;

  p->facts = mir_constant_propagation (graph, FALSE);
  for (guint i = 0; i < stmts->len; i++)
    {
      MirStmt *s = g_ptr_array_index (stmts, i);
      p->node = mir_flow_graph_node_of (graph, s);
      if (p->node != MIR_FLOW_NONE)
        pass_rewrite_stmt_exprs (s, constant_for, p);
    }
  mir_const_facts_free (p->facts);
  p->facts = NULL;
}

/* Without a definition that may give a constant there is nothing to
 * propagate, and no need for the analysis. */
static gboolean
may_have_constants (GPtrArray *roots, gpointer data)
{
  return mir_const_may_define (roots);
}

gboolean
mir_pass_constant_propagation (MirProgram *program)
{
  Propagate p = { NULL, 0, FALSE };

  pass_foreach_graph_wanted (program, TRUE, may_have_constants, propagate, &p);
  return p.changed;
}
