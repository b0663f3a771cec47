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

/* Rewrites the statements of the graph from `first` on (those it was
 * built for, after what runs before them), which the graph numbers in
 * order; rewriting expressions keeps the statements and their nodes. */
static void
propagate (Propagate *p, MirFlowGraph *graph, const MirStmt *first)
{
  guint start = first ? mir_flow_graph_node_of (graph, first) : graph->exit;

  for (guint v = start; v < graph->exit; v++)
    {
      p->node = v;
      pass_rewrite_stmt_exprs ((MirStmt *) graph->nodes[v].stmt, constant_for, p);
    }
}

static MirFlowGraph *
part_graph (GPtrArray *part)
{
  const GPtrArray *lists[] = { part };

  return mir_flow_graph_new_for_lists (lists, 1, MIR_FLOW_GRAPH_DEFAULT);
}

/* Without a definition that may give a constant there is nothing to
 * propagate, and no need for the analysis. What transformed data hold at
 * the end of prepare_data reaches every other part: those parts start
 * from there, as if they followed prepare_data in one graph. */
gboolean
mir_pass_constant_propagation (MirProgram *program)
{
  Propagate p = { NULL, 0, FALSE };
  GPtrArray *data = program->parts[MIR_PART_PREPARE_DATA];
  g_autoptr (MirFlowGraph) data_graph = NULL;
  MirConstFacts *data_facts = NULL;
  gboolean data_may;

  for (guint i = 0; i < program->functions->len; i++)
    {
      MirFunDef *f = g_ptr_array_index (program->functions, i);
      g_autoptr (GPtrArray) roots = g_ptr_array_new ();
      g_autoptr (MirFlowGraph) graph = NULL;

      if (!f->body)
        continue;
      g_ptr_array_add (roots, f->body);
      if (!mir_const_may_define (roots))
        continue;
      graph = mir_flow_graph_new (f->body, MIR_FLOW_GRAPH_DEFAULT);
      p.facts = mir_constant_propagation (graph, FALSE);
      propagate (&p, graph, f->body);
      g_clear_pointer (&p.facts, mir_const_facts_free);
    }
  data_may = mir_const_may_define (data);
  if (data_may)
    {
      data_graph = part_graph (data);
      data_facts = mir_constant_propagation (data_graph, FALSE);
      /* the facts outlive the rewriting, which keeps their values true */
      p.facts = data_facts;
      propagate (&p, data_graph, data->len ? g_ptr_array_index (data, 0) : NULL);
    }
  for (int part = MIR_PART_PREPARE_DATA + 1; part < MIR_N_PARTS; part++)
    {
      GPtrArray *list = program->parts[part];
      g_autoptr (MirFlowGraph) graph = NULL;

      if (!data_may && !mir_const_may_define (list))
        continue;
      if (!data_graph)
        data_graph = part_graph (data);
      graph = part_graph (list);
      p.facts = mir_constant_propagation_after (graph, data_graph, data_facts);
      propagate (&p, graph, list->len ? g_ptr_array_index (list, 0) : NULL);
      g_clear_pointer (&p.facts, mir_const_facts_free);
    }
  mir_const_facts_free (data_facts);
  return p.changed;
}
