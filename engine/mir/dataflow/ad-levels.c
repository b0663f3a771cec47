/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/ad-levels.h"

#include <string.h>

#include "mir/dataflow/program-info.h"

typedef struct {
  const MirVarIndex *vars;
  const MirBitset   *ad;
  gboolean           found;
} AdSearch;

static gboolean
can_hold_autodiff (const TildeType *type)
{
  return type && tilde_type_is_autodiffable (type);
}

static void
search_autodiff (MirExpr *e, gpointer data)
{
  AdSearch *s = data;
  const MirFun *f;

  if (s->found)
    return;
  switch (e->kind)
    {
    case MIR_EXPR_VAR:
      if (mir_expr_is_variable (e))
        {
          guint x = mir_var_index_lookup (s->vars, e->u.var.name);
          s->found = x != MIR_FLOW_NONE && mir_bitset_contains (s->ad, x)
                     && can_hold_autodiff (e->type);
        }
      return;
    case MIR_EXPR_CALL:
      f = &e->u.call.fun;
      /* target(), _lp calls and parameter reads are autodiff by themselves */
      if (can_hold_autodiff (e->type) && e->ad_level == TILDE_AD_AUTODIFF
          && ((f->kind == MIR_FUN_COMPILER && f->internal == MIR_FN_READ_PARAM)
              || (f->kind != MIR_FUN_COMPILER && f->suffix == MIR_SUFFIX_TARGET)))
        {
          s->found = TRUE;
          return;
        }
      break;
    default:
      break;
    }
  /* an int result carries no derivative, whatever it was computed from */
  if (e->type && !can_hold_autodiff (e->type))
    return;
  mir_expr_foreach_child (e, search_autodiff, data);
}

static TildeAdLevel
level_of (const MirExpr *e, const MirVarIndex *vars, const MirBitset *ad)
{
  AdSearch s = { vars, ad, FALSE };

  search_autodiff ((MirExpr *) e, &s);
  return s.found ? TILDE_AD_AUTODIFF : TILDE_AD_DATA;
}

static void
set_level (MirBitset *fact, const MirVarIndex *vars, const char *name,
           const TildeType *type, TildeAdLevel level, gboolean whole)
{
  guint x = mir_var_index_lookup (vars, name);

  if (x == MIR_FLOW_NONE)
    return;
  if (level == TILDE_AD_AUTODIFF && can_hold_autodiff (type))
    mir_bitset_add (fact, x);
  else if (whole)
    mir_bitset_remove (fact, x);
}

typedef struct {
  const MirEffects *effects;
  const MirBitset  *initial;
} Context;

static void
ad_transfer (const MirFlowGraph *graph, guint node, MirBitset *fact, gpointer ud)
{
  const Context *c = ud;
  const MirEffects *fx = c->effects;
  const MirStmt *s = graph->nodes[node].stmt;
  const MirLvalue *lhs;
  TildeAdLevel level;
  gboolean whole;
  guint x;

  switch (s->kind)
    {
    case MIR_STMT_ASSIGN:
      lhs = s->u.assign.lhs;
      whole = !lhs->proj_of && (!lhs->indices || lhs->indices->len == 0);
      level = level_of (s->u.assign.rhs, fx->vars, fact);
      set_level (fact, fx->vars, mir_lvalue_variable (lhs), lhs->type, level, whole);
      break;
    case MIR_STMT_DECL:
      if (s->u.decl.ad == TILDE_AD_DATA)
        level = TILDE_AD_DATA;
      else if (s->u.decl.init_kind == MIR_DECL_ASSIGN)
        level = level_of (s->u.decl.init, fx->vars, fact);
      else
        {
          /* an autodiff declaration without a value: a local has no
           * autodiff value yet, a parameter is read into it */
          x = mir_var_index_lookup (fx->vars, s->u.decl.name);
          if (x != MIR_FLOW_NONE && !mir_bitset_contains (c->initial, x))
            mir_bitset_remove (fact, x);
          break;
        }
      set_level (fact, fx->vars, s->u.decl.name, s->u.decl.type, level, TRUE);
      break;
    case MIR_STMT_FOR:
      set_level (fact, fx->vars, s->u.for_stmt.var, NULL, TILDE_AD_DATA, TRUE);
      break;
    default:
      break;
    }
  mir_bitset_subtract (fact, fx->scope_ends[node]);
}

MirAdLevels *
mir_ad_levels (MirFlowGraph *graph, const char *const *initial, gboolean record)
{
  MirAdLevels *ad = g_new0 (MirAdLevels, 1);
  g_autoptr (MirBitset) boundary = NULL;
  MirSetProblem problem = { 0 };

  ad->effects = mir_effects_new (graph, initial);
  boundary = mir_var_index_set_of (ad->effects->vars, initial);
  problem.direction = MIR_DATAFLOW_FORWARD;
  problem.n_bits = mir_var_index_size (ad->effects->vars);
  problem.labels = mir_var_index_names (ad->effects->vars);
  problem.boundary = boundary;
  problem.transfer = ad_transfer;
  problem.user_data = &(Context) { ad->effects, boundary };
  problem.record = record;
  ad->facts = mir_set_facts_solve (graph, &problem);
  return ad;
}

MirAdLevels *
mir_ad_levels_of_part (const MirProgram *program, MirPart part)
{
  const GPtrArray *lists[] = { program->parts[part] };
  g_autoptr (MirFlowGraph) graph = mir_flow_graph_new_for_lists (lists, 1,
                                                                 MIR_FLOW_GRAPH_DEFAULT);
  g_autofree const char **params = NULL;

  if (part == MIR_PART_LOG_PROB)
    params = mir_program_parameter_names (program);
  return mir_ad_levels (graph, params, FALSE);
}

MirAdLevels *
mir_ad_levels_of_function (const MirFunDef *fun)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  g_autoptr (MirFlowGraph) graph = NULL;

  g_return_val_if_fail (fun->body != NULL, NULL);
  for (guint i = 0; fun->args && i < fun->args->len; i++)
    {
      const MirFunArg *a = &g_array_index (fun->args, MirFunArg, i);
      if (a->ad != TILDE_AD_DATA && can_hold_autodiff (a->type))
        g_ptr_array_add (args, (gpointer) a->name);
    }
  g_ptr_array_add (args, NULL);
  graph = mir_flow_graph_new (fun->body, MIR_FLOW_GRAPH_DEFAULT);
  return mir_ad_levels (graph, (const char *const *) args->pdata, FALSE);
}

void
mir_ad_levels_free (MirAdLevels *ad)
{
  if (!ad)
    return;
  mir_set_facts_free (ad->facts);
  mir_effects_free (ad->effects);
  g_free (ad);
}

const char **
mir_ad_levels_variables (const MirAdLevels *ad)
{
  const MirFlowGraph *graph = ad->facts->graph;
  g_autoptr (MirBitset) all = mir_bitset_new (ad->facts->n_bits);
  const char **names;
  guint n = 0;

  for (guint v = 0; v < graph->n_nodes; v++)
    {
      mir_bitset_union (all, mir_set_facts_before_node (ad->facts, v));
      mir_bitset_union (all, mir_set_facts_after_node (ad->facts, v));
    }
  names = g_new0 (const char *, mir_bitset_count (all) + 1);
  for (int x = mir_bitset_next (all, 0); x >= 0; x = mir_bitset_next (all, (guint) x + 1))
    names[n++] = mir_var_index_name (ad->effects->vars, (guint) x);
  return names;
}

TildeAdLevel
mir_ad_levels_of_expr (const MirAdLevels *ad, guint node, const MirExpr *e)
{
  return level_of (e, ad->effects->vars, mir_set_facts_before_node (ad->facts, node));
}
