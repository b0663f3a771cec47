/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/uninitialized.h"

#include "mir/dataflow/diagnostics.h"
#include "mir/dataflow/effects.h"
#include "mir/dataflow/program-info.h"

typedef struct {
  MirEffects     *effects;
  MirBitsetPool  *pool;
  const MirBitset **uses; /* per node: the variables it reads for the user */
  MirBitset   *fresh;     /* per node, reused: declarations of local variables */
  MirBitset   *outside;   /* assigned before the graph runs */
  MirBitset   *quiet;     /* declared @silent */
  guint        n_nodes;
} Context;

/* Checks, size validations and output writes that the compiler adds for a
 * declared variable: they read it, but the user did not write them. */
static gboolean
is_bookkeeping (const MirStmt *s)
{
  if (!s || s->kind != MIR_STMT_NR_CALL || s->u.call.fun.kind != MIR_FUN_COMPILER)
    return FALSE;
  switch (s->u.call.fun.internal)
    {
    case MIR_FN_CHECK:
    case MIR_FN_WRITE_PARAM:
    case MIR_FN_VALIDATE_SIZE:
    case MIR_FN_VALIDATE_SIZE_SIMPLEX:
    case MIR_FN_VALIDATE_SIZE_UNIT_VECTOR:
      return TRUE;
    default:
      return FALSE;
    }
}

typedef struct {
  const MirVarIndex *vars;
  MirBitset         *set;
  GArray            *members;   /* noted, to clear the set cheaply */
} Uses;

static void
add_use (MirExpr *e, gpointer data)
{
  Uses *u = data;
  guint x = mir_var_index_lookup (u->vars, e->u.var.name);

  if (x != MIR_FLOW_NONE && !mir_bitset_contains (u->set, x))
    {
      mir_bitset_add (u->set, x);
      g_array_append_val (u->members, x);
    }
}

static Context *
context_new (const MirFlowGraph *graph, const char *const *outside)
{
  Context *c = g_new0 (Context, 1);
  g_autoptr (GArray) members = g_array_new (FALSE, FALSE, sizeof (guint));
  guint n_vars;

  c->effects = mir_effects_new (graph, outside);
  n_vars = mir_var_index_size (c->effects->vars);
  c->outside = mir_var_index_set_of (c->effects->vars, outside);
  c->fresh = mir_bitset_new (n_vars);
  c->n_nodes = graph->n_nodes;
  c->quiet = mir_bitset_new (n_vars);
  c->pool = mir_bitset_pool_new (n_vars);
  c->uses = g_new (const MirBitset *, graph->n_nodes);
  for (guint v = 0; v < graph->n_nodes; v++)
    {
      Uses u = { c->effects->vars, c->fresh, members };
      const MirStmt *s = graph->nodes[v].stmt;
      if (s && !is_bookkeeping (s))
        mir_stmt_foreach_variable (s, add_use, &u);
      c->uses[v] = members->len ? mir_bitset_pool_copy (c->pool, u.set)
                                : mir_bitset_pool_empty (c->pool);
      for (guint i = 0; i < members->len; i++)
        mir_bitset_remove (u.set, g_array_index (members, guint, i));
      g_array_set_size (members, 0);
      if (s && s->kind == MIR_STMT_DECL && mir_annotations_has (&s->u.decl.annotations, "silent"))
        mir_bitset_add (c->quiet, mir_var_index_lookup (c->effects->vars, s->u.decl.name));
    }
  return c;
}

static void
context_free (Context *c)
{
  mir_bitset_pool_free (c->pool);
  g_free (c->uses);
  mir_bitset_free (c->outside);
  mir_bitset_free (c->quiet);
  mir_bitset_free (c->fresh);
  mir_effects_free (c->effects);
  g_free (c);
}

static void
assigned_transfer (const MirFlowGraph *graph, guint node, MirBitset *fact, gpointer ud)
{
  const Context *c = ud;
  const MirEffects *fx = c->effects;
  /* most nodes declare, write and end nothing: their sets are the pools'
   * empty ones, which need no work */
  const MirBitset *none = mir_effects_empty (fx);

  /* reads come first, then a declaration makes a new, unassigned variable
   * unless it gives it a value; the declarations of data and parameters
   * are where the values from outside are read into */
  if (c->uses[node] != mir_bitset_pool_empty (c->pool))
    mir_bitset_union (fact, c->uses[node]);
  if (fx->declares[node] != none)
    {
      mir_bitset_assign (c->fresh, fx->declares[node]);
      mir_bitset_subtract (c->fresh, c->outside);
      mir_bitset_subtract (fact, c->fresh);
    }
  if (fx->writes[node] != none)
    mir_bitset_union (fact, fx->writes[node]);
  if (fx->scope_ends[node] != none)
    mir_bitset_subtract (fact, fx->scope_ends[node]);
}

static MirSetFacts *
solve (MirFlowGraph *graph, const char *const *outside, Context *c, gboolean record)
{
  g_autoptr (MirBitset) boundary = mir_var_index_set_of (c->effects->vars, outside);
  MirSetProblem problem = { 0 };

  problem.direction = MIR_DATAFLOW_FORWARD;
  problem.must = TRUE;
  problem.n_bits = mir_var_index_size (c->effects->vars);
  problem.labels = mir_var_index_names (c->effects->vars);
  problem.boundary = boundary;
  problem.transfer = assigned_transfer;
  problem.user_data = c;
  problem.record = record;
  return mir_set_facts_solve (graph, &problem);
}

MirSetFacts *
mir_assigned_variables (MirFlowGraph *graph, const char *const *outside, gboolean record)
{
  Context *c = context_new (graph, outside);
  MirSetFacts *facts = solve (graph, outside, c, record);

  context_free (c);
  return facts;
}

typedef struct {
  const MirVarIndex *vars;
  const MirBitset   *assigned;
  const MirBitset   *quiet;
  GPtrArray         *out;
} Report;

static void
report_use (MirExpr *e, gpointer data)
{
  Report *r = data;
  guint x = mir_var_index_lookup (r->vars, e->u.var.name);

  if (x == MIR_FLOW_NONE || mir_bitset_contains (r->assigned, x)
      || mir_bitset_contains (r->quiet, x) || !mir_span_is_located (&e->span))
    return;
  g_ptr_array_add (r->out, mir_warning_at (TILDE_DIAG_UNINITIALIZED, &e->span,
                                           g_strdup_printf ("The variable %s may not have "
                                                            "been assigned a value before "
                                                            "its use.", e->u.var.name)));
}

/* Reports the uses in `graph` of variables that may be unassigned; when
 * `end` is a node, returns the variables assigned just before it (names,
 * NULL-terminated; free the array only). */
static const char **
report_uses (MirFlowGraph *graph, const char *const *outside, guint end,
             GPtrArray *diagnostics)
{
  Context *c = context_new (graph, outside);
  MirSetFacts *facts = solve (graph, outside, c, FALSE);
  g_autoptr (MirBitset) missing = mir_bitset_new (mir_var_index_size (c->effects->vars));
  const char **assigned = NULL;

  for (guint v = 0; v < graph->n_nodes; v++)
    {
      const MirStmt *s = graph->nodes[v].stmt;
      Report r = { c->effects->vars, mir_set_facts_before_node (facts, v), c->quiet,
                   diagnostics };

      /* a node that reads nothing, or only what is assigned, needs no
       * closer look */
      if (c->uses[v] == mir_bitset_pool_empty (c->pool))
        continue;
      mir_bitset_assign (missing, c->uses[v]);
      mir_bitset_subtract (missing, r.assigned);
      mir_bitset_subtract (missing, c->quiet);
      if (s && !mir_bitset_is_empty (missing))
        mir_stmt_foreach_variable (s, report_use, &r);
    }
  if (end != MIR_FLOW_NONE)
    {
      /* the labels die with the facts; the names are interned */
      assigned = mir_set_facts_members (facts, mir_set_facts_before_node (facts, end));
      for (guint i = 0; assigned[i]; i++)
        assigned[i] = g_intern_string (assigned[i]);
    }
  mir_set_facts_free (facts);
  context_free (c);
  return assigned;
}

void
mir_uninitialized_uses (MirFlowGraph *graph, const char *const *outside,
                        GPtrArray *diagnostics)
{
  report_uses (graph, outside, MIR_FLOW_NONE, diagnostics);
}

static void
check_part (const GPtrArray *part, const char *const *outside, GPtrArray *found)
{
  const GPtrArray *lists[] = { part };
  g_autoptr (MirFlowGraph) graph = mir_flow_graph_new_for_lists (lists, 1,
                                                                 MIR_FLOW_GRAPH_LOOPS_RUN);

  mir_uninitialized_uses (graph, outside, found);
}

/* prepare_data's warnings, and the variables assigned when it has run to
 * its end (a marker statement after it tells that place). */
static const char **
check_prepare_data (const GPtrArray *prepare, const char *const *outside, GPtrArray *found)
{
  g_autoptr (GPtrArray) marker = mir_stmt_list_new ();
  const GPtrArray *lists[] = { prepare, marker };
  g_autoptr (MirFlowGraph) graph = NULL;
  TildeSpan nowhere = { 0 };

  g_ptr_array_add (marker, mir_stmt_new (MIR_STMT_SKIP, &nowhere));
  graph = mir_flow_graph_new_for_lists (lists, 2, MIR_FLOW_GRAPH_LOOPS_RUN);
  return report_uses (graph, outside,
                      mir_flow_graph_node_of (graph, g_ptr_array_index (marker, 0)), found);
}

static void
find_decl (MirStmt *s, gpointer data)
{
  gboolean *found = data;

  *found |= s->kind == MIR_STMT_DECL;
}

void
mir_uninitialized_warnings (const MirProgram *program, GPtrArray *diagnostics)
{
  g_autoptr (GPtrArray) found = tilde_diagnostic_list_new ();
  g_autofree const char **data = mir_program_data_names (program);
  g_autofree const char **params = mir_program_parameter_names (program);
  g_autofree const char **globals = mir_names_concat (data, mir_program_flag_names (), NULL);
  g_autofree const char **prepared = NULL;
  g_autofree const char **with_params = NULL;

  /* log_prob and generate_quantities run after prepare_data: what it
   * leaves assigned is assigned when they start, and the parameters too */
  prepared = check_prepare_data (program->parts[MIR_PART_PREPARE_DATA], globals, found);
  with_params = mir_names_concat (prepared, params, NULL);
  check_part (program->parts[MIR_PART_LOG_PROB], with_params, found);
  check_part (program->parts[MIR_PART_GENERATE_QUANTITIES], with_params, found);
  for (guint i = 0; program->functions && i < program->functions->len; i++)
    {
      const MirFunDef *f = g_ptr_array_index (program->functions, i);
      g_autofree const char **args = NULL;
      g_autoptr (MirFlowGraph) graph = NULL;
      gboolean declares = FALSE;

      /* a body that declares nothing reads only its arguments */
      if (f->body)
        mir_stmt_walk (f->body, find_decl, &declares);
      if (!declares)
        continue;
      args = mir_fun_def_arg_names (f);
      graph = mir_flow_graph_new (f->body, MIR_FLOW_GRAPH_LOOPS_RUN);
      mir_uninitialized_uses (graph, args, found);
    }
  /* generate_quantities repeats the transformed parameters, so one use can
   * be found twice */
  mir_add_warnings (found, diagnostics);
}
