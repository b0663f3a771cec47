/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/liveness.h"

#include "mir/dataflow/effects.h"
#include "mir/dataflow/program-info.h"

static void
live_transfer (const MirFlowGraph *graph, guint node, MirBitset *fact, gpointer ud)
{
  const MirEffects *fx = ud;

  mir_bitset_subtract (fact, fx->kills[node]);
  mir_bitset_subtract (fact, fx->scope_ends[node]);
  mir_bitset_union (fact, fx->reads[node]);
}

MirSetFacts *
mir_liveness (MirFlowGraph *graph, const char *const *live_at_exit, gboolean record)
{
  MirEffects *fx = mir_effects_new (graph, live_at_exit);
  g_autoptr (MirBitset) boundary = mir_var_index_set_of (fx->vars, live_at_exit);
  MirSetProblem problem = { 0 };
  MirSetFacts *facts;

  problem.direction = MIR_DATAFLOW_BACKWARD;
  problem.n_bits = mir_var_index_size (fx->vars);
  problem.labels = mir_var_index_names (fx->vars);
  problem.boundary = boundary;
  problem.transfer = live_transfer;
  problem.user_data = fx;
  problem.record = record;
  facts = mir_set_facts_solve (graph, &problem);
  /* the members are the variables: they are looked up by name there */
  facts->vars = fx->vars;
  fx->vars = NULL;
  mir_effects_free (fx);
  return facts;
}

MirSetFacts *
mir_liveness_of_stmt (const MirStmt *body)
{
  g_autoptr (MirFlowGraph) graph = mir_flow_graph_new (body, MIR_FLOW_GRAPH_DEFAULT);

  return mir_liveness (graph, NULL, FALSE);
}

MirSetFacts *
mir_liveness_of_part (const MirProgram *program, MirPart part)
{
  const GPtrArray *lists[] = { program->parts[part] };
  g_autoptr (MirFlowGraph) graph = mir_flow_graph_new_for_lists (lists, 1,
                                                                 MIR_FLOW_GRAPH_DEFAULT);
  const char *const target[] = { MIR_TARGET_VARIABLE, NULL };
  g_autofree const char **data = NULL, **tdata = NULL, **live = NULL;

  if (part == MIR_PART_PREPARE_DATA)
    {
      data = mir_program_data_names (program);
      tdata = mir_program_transformed_data_names (program);
    }
  live = mir_names_concat (target, data, tdata);
  return mir_liveness (graph, live, FALSE);
}
