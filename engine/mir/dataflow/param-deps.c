/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/param-deps.h"

#include <string.h>

#include "mir/dataflow/diagnostics.h"
#include "mir/dataflow/dominators.h"
#include "mir/dataflow/program-info.h"

typedef struct {
  MirParamDeps *deps;
  guint         n_vars;
  guint        *source_of_var;   /* per variable: its source number, or MIR_FLOW_NONE */
} Context;

/* ---- a variable's slice of the fact: bits x * n_sources ... ---- */

static void
var_sources (const MirParamDeps *d, const MirBitset *fact, guint x, MirBitset *out)
{
  for (guint s = 0; s < d->n_sources; s++)
    if (mir_bitset_contains (fact, x * d->n_sources + s))
      mir_bitset_add (out, s);
}

static void
var_clear (const MirParamDeps *d, MirBitset *fact, guint x)
{
  for (guint s = 0; s < d->n_sources; s++)
    mir_bitset_remove (fact, x * d->n_sources + s);
}

static void
var_add (const MirParamDeps *d, MirBitset *fact, guint x, const MirBitset *sources)
{
  for (int s = mir_bitset_next (sources, 0); s >= 0; s = mir_bitset_next (sources, (guint) s + 1))
    mir_bitset_add (fact, x * d->n_sources + (guint) s);
}

/* The sources of everything in `vars`. */
static void
sources_of_vars (const MirParamDeps *d, const MirBitset *fact, const MirBitset *vars,
                 MirBitset *out)
{
  for (int x = mir_bitset_next (vars, 0); x >= 0; x = mir_bitset_next (vars, (guint) x + 1))
    var_sources (d, fact, (guint) x, out);
}

typedef struct {
  const MirVarIndex *vars;
  MirBitset         *set;
} ValueReads;

static void
add_value_reads (MirExpr *e, gpointer data)
{
  ValueReads *r = data;

  mir_expr_add_value_reads (e, r->vars, r->set);
}

static void
deps_transfer (const MirFlowGraph *graph, guint node, MirBitset *fact, gpointer ud)
{
  const Context *c = ud;
  const MirParamDeps *d = c->deps;
  const MirEffects *fx = d->effects;
  g_autoptr (MirBitset) from = mir_bitset_copy (d->control[node]);

  sources_of_vars (d, fact, d->reads[node], from);
  for (guint x = 0; x < c->n_vars; x++)
    {
      gboolean whole = mir_bitset_contains (fx->kills[node], x);
      gboolean written = mir_bitset_contains (fx->writes[node], x);

      if (mir_bitset_contains (fx->scope_ends[node], x) || whole)
        var_clear (d, fact, x);
      if (written)
        var_add (d, fact, x, from);
      if ((whole || written) && c->source_of_var[x] != MIR_FLOW_NONE)
        {
          /* a source depends on itself, whatever it is computed from */
          var_clear (d, fact, x);
          mir_bitset_add (fact, x * d->n_sources + c->source_of_var[x]);
        }
    }
}

static MirSetFacts *
solve_round (MirFlowGraph *graph, Context *c, const MirBitset *boundary,
             const char *const *labels, gboolean record)
{
  MirSetProblem problem = { 0 };

  problem.direction = MIR_DATAFLOW_FORWARD;
  problem.n_bits = c->n_vars * c->deps->n_sources;
  problem.labels = labels;
  problem.boundary = boundary;
  problem.transfer = deps_transfer;
  problem.user_data = c;
  problem.record = record;
  return mir_set_facts_solve (graph, &problem);
}

/* New decisions and control from the current facts; TRUE when the control
 * of some node grew. */
static gboolean
update_control (MirParamDeps *d, const MirFlowGraph *graph, MirBitset **cd)
{
  gboolean grew = FALSE;

  for (guint b = 0; b < graph->n_nodes; b++)
    {
      mir_bitset_assign (d->decisions[b], d->control[b]);
      if (graph->nodes[b].n_succs > 1)
        sources_of_vars (d, mir_set_facts_before_node (d->facts, b), d->reads[b],
                         d->decisions[b]);
      else
        mir_bitset_clear (d->decisions[b]);
    }
  for (guint b = 0; b < graph->n_nodes; b++)
    for (int n = mir_bitset_next (cd[b], 0); n >= 0; n = mir_bitset_next (cd[b], (guint) n + 1))
      grew |= mir_bitset_union (d->control[n], d->decisions[b]);
  return grew;
}

static void
set_sources (MirParamDeps *d, const char *const *sources)
{
  GPtrArray *names = g_ptr_array_new ();

  for (guint i = 0; sources && sources[i]; i++)
    {
      const char *name = g_intern_string (sources[i]);
      if (!g_ptr_array_find (names, name, NULL))
        g_ptr_array_add (names, (gpointer) name);
    }
  d->n_sources = names->len;
  g_ptr_array_add (names, NULL);
  d->sources = (const char **) g_ptr_array_free (names, FALSE);
}

/* "x←a" for every variable x and source a, in bit order. */
static GPtrArray *
pair_labels (const MirParamDeps *d, guint n_vars)
{
  GPtrArray *labels = g_ptr_array_new_with_free_func (g_free);

  for (guint x = 0; x < n_vars; x++)
    for (guint s = 0; s < d->n_sources; s++)
      g_ptr_array_add (labels, g_strdup_printf ("%s←%s",
                                                mir_var_index_name (d->effects->vars, x),
                                                d->sources[s]));
  g_ptr_array_add (labels, NULL);
  return labels;
}

static void
init_node_sets (MirParamDeps *d, const MirFlowGraph *graph, guint n_vars)
{
  d->n_nodes = graph->n_nodes;
  d->reads = g_new (MirBitset *, graph->n_nodes);
  d->control = g_new (MirBitset *, graph->n_nodes);
  d->decisions = g_new (MirBitset *, graph->n_nodes);
  for (guint v = 0; v < graph->n_nodes; v++)
    {
      ValueReads r = { d->effects->vars, mir_bitset_new (n_vars) };
      if (graph->nodes[v].stmt)
        mir_stmt_foreach_expr ((MirStmt *) graph->nodes[v].stmt, add_value_reads, &r);
      d->reads[v] = r.set;
      d->control[v] = mir_bitset_new (d->n_sources);
      d->decisions[v] = mir_bitset_new (d->n_sources);
    }
}

MirParamDeps *
mir_param_dependence (MirFlowGraph *graph, const char *const *sources, gboolean record)
{
  MirParamDeps *d = g_new0 (MirParamDeps, 1);
  Context c = { d, 0, NULL };
  MirBitset **cd = mir_control_dependence (graph);
  g_autoptr (GPtrArray) labels = NULL;
  g_autoptr (MirBitset) boundary = NULL;

  d->effects = mir_effects_new (graph, sources);
  set_sources (d, sources);
  c.n_vars = mir_var_index_size (d->effects->vars);
  c.source_of_var = g_new (guint, c.n_vars);
  for (guint x = 0; x < c.n_vars; x++)
    c.source_of_var[x] = MIR_FLOW_NONE;
  /* at entry each source depends on itself */
  boundary = mir_bitset_new (c.n_vars * d->n_sources);
  for (guint s = 0; s < d->n_sources; s++)
    {
      guint x = mir_var_index_lookup (d->effects->vars, d->sources[s]);
      c.source_of_var[x] = s;
      mir_bitset_add (boundary, x * d->n_sources + s);
    }
  labels = pair_labels (d, c.n_vars);
  init_node_sets (d, graph, c.n_vars);
  for (;;)
    {
      d->facts = solve_round (graph, &c, boundary, (const char *const *) labels->pdata,
                              record);
      d->n_rounds++;
      if (!update_control (d, graph, cd))
        break;
      mir_set_facts_free (d->facts);
    }
  mir_control_dependence_free (cd, graph->n_nodes);
  g_free (c.source_of_var);
  return d;
}

void
mir_param_deps_free (MirParamDeps *d)
{
  if (!d)
    return;
  for (guint v = 0; v < d->n_nodes; v++)
    {
      mir_bitset_free (d->control[v]);
      mir_bitset_free (d->decisions[v]);
      mir_bitset_free (d->reads[v]);
    }
  g_free (d->reads);
  g_free (d->control);
  g_free (d->decisions);
  mir_set_facts_free (d->facts);
  mir_effects_free (d->effects);
  g_free (d->sources);
  g_free (d);
}

static const char **
names_of (const MirParamDeps *d, const MirBitset *set)
{
  const char **names = g_new0 (const char *, mir_bitset_count (set) + 1);
  guint n = 0;

  for (int s = mir_bitset_next (set, 0); s >= 0; s = mir_bitset_next (set, (guint) s + 1))
    names[n++] = d->sources[s];
  return names;
}

const char **
mir_param_deps_of_var (const MirParamDeps *d, guint node, const char *var)
{
  g_autoptr (MirBitset) set = mir_bitset_new (d->n_sources);
  guint x = mir_var_index_lookup (d->effects->vars, var);

  g_return_val_if_fail (node < d->n_nodes, NULL);
  if (x != MIR_FLOW_NONE)
    var_sources (d, mir_set_facts_before_node (d->facts, node), x, set);
  return names_of (d, set);
}

const char **
mir_param_deps_of_expr (const MirParamDeps *d, guint node, const MirExpr *e)
{
  g_autoptr (MirBitset) set = NULL;
  g_autoptr (MirBitset) vars = mir_bitset_new (mir_var_index_size (d->effects->vars));

  g_return_val_if_fail (node < d->n_nodes, NULL);
  set = mir_bitset_copy (d->control[node]);
  mir_expr_add_value_reads (e, d->effects->vars, vars);
  sources_of_vars (d, mir_set_facts_before_node (d->facts, node), vars, set);
  return names_of (d, set);
}

const char **
mir_param_deps_of_decision (const MirParamDeps *d, guint node)
{
  g_return_val_if_fail (node < d->n_nodes, NULL);
  return names_of (d, d->decisions[node]);
}

/* ---- warnings ---- */

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* "a, b", sorted as the Stan compiler sorts sets of names. */
static char *
name_list (const char **names)
{
  guint n = g_strv_length ((char **) names);

  qsort (names, n, sizeof (char *), compare_names);
  return g_strjoinv (", ", (char **) names);
}

static gboolean
is_control_flow (const MirStmt *s)
{
  return s && (s->kind == MIR_STMT_IF || s->kind == MIR_STMT_WHILE || s->kind == MIR_STMT_FOR);
}

static void
warn_parameter_control (const MirParamDeps *d, const MirFlowGraph *graph, GPtrArray *out)
{
  for (guint b = 0; b < graph->n_nodes; b++)
    {
      const MirStmt *s = graph->nodes[b].stmt;
      g_autofree const char **names = NULL;
      g_autofree char *list = NULL;

      if (!is_control_flow (s) || mir_bitset_is_empty (d->decisions[b])
          || !mir_span_is_located (&s->span))
        continue;
      names = mir_param_deps_of_decision (d, b);
      list = name_list (names);
      g_ptr_array_add (out, mir_warning_at (TILDE_DIAG_PEDANTIC, &s->span,
                                            g_strdup_printf ("A control flow statement "
                                                             "depends on parameter(s): %s.",
                                                             list)));
    }
}

/* foo_lupdf and foo_lpdf name the same function. */
static gboolean
same_function (const char *called, const char *defined)
{
  gsize n = strlen (called);

  if (strcmp (called, defined) == 0)
    return TRUE;
  if (n > 6 && (g_str_has_suffix (called, "_lupdf") || g_str_has_suffix (called, "_lupmf")))
    return strlen (defined) == n - 1 && strncmp (called, defined, n - 5) == 0
           && strcmp (called + n - 3, defined + n - 4) == 0;
  return FALSE;
}

typedef struct {
  const MirFunDef    *fun;
  const MirParamDeps *inside;     /* the function body, sources its arguments */
  const MirFlowGraph *body;
  const MirParamDeps *caller;     /* log_prob, sources the parameters */
  guint               node;       /* the calling node in log_prob */
  GPtrArray          *out;
} CallCheck;

static void
check_call_args (CallCheck *k, const GPtrArray *args)
{
  for (guint b = 0; b < k->body->n_nodes; b++)
    {
      const MirStmt *cf = k->body->nodes[b].stmt;
      const MirBitset *on = k->inside->decisions[b];

      if (!is_control_flow (cf) || !mir_span_is_located (&cf->span))
        continue;
      for (int a = mir_bitset_next (on, 0); a >= 0; a = mir_bitset_next (on, (guint) a + 1))
        {
          const MirExpr *arg;
          g_autofree const char **params = NULL;
          g_autofree char *list = NULL, *at = NULL;

          if (!args || (guint) a >= args->len)
            continue;
          arg = g_ptr_array_index (args, a);
          params = mir_param_deps_of_expr (k->caller, k->node, arg);
          if (!params[0])
            continue;
          list = name_list (params);
          at = mir_span_to_string (&arg->span);
          g_ptr_array_add (k->out,
                           mir_warning_at (TILDE_DIAG_PEDANTIC, &cf->span,
                                           g_strdup_printf ("A control flow statement inside "
                                                            "function %s depends on argument "
                                                            "%s. At %s, the value of %s "
                                                            "depends on parameter(s): %s.",
                                                            k->fun->name,
                                                            k->inside->sources[a], at,
                                                            k->inside->sources[a], list)));
        }
    }
}

static void
find_calls (MirExpr *e, gpointer data)
{
  CallCheck *k = data;

  if (e->kind == MIR_EXPR_CALL && e->u.call.fun.kind == MIR_FUN_USER
      && same_function (e->u.call.fun.name, k->fun->name))
    check_call_args (k, e->u.call.args);
  mir_expr_foreach_child (e, find_calls, data);
}

static void
warn_function_control (const MirFunDef *fun, const MirParamDeps *caller,
                       const MirFlowGraph *log_prob, GPtrArray *out)
{
  g_autofree const char **args = mir_fun_def_arg_names (fun);
  g_autoptr (MirFlowGraph) body = mir_flow_graph_new (fun->body, MIR_FLOW_GRAPH_DEFAULT);
  MirParamDeps *inside = mir_param_dependence (body, args, FALSE);
  CallCheck k = { fun, inside, body, caller, 0, out };

  for (guint v = 0; v < log_prob->n_nodes; v++)
    {
      const MirStmt *s = log_prob->nodes[v].stmt;
      if (!s)
        continue;
      k.node = v;
      if (s->kind == MIR_STMT_NR_CALL && s->u.call.fun.kind == MIR_FUN_USER
          && same_function (s->u.call.fun.name, fun->name))
        check_call_args (&k, s->u.call.args);
      mir_stmt_foreach_expr ((MirStmt *) s, find_calls, &k);
    }
  mir_param_deps_free (inside);
}

void
mir_param_dependence_warnings (const MirProgram *program, GPtrArray *diagnostics)
{
  g_autofree const char **params = mir_program_parameter_names (program);
  const GPtrArray *lists[] = { program->parts[MIR_PART_LOG_PROB] };
  g_autoptr (MirFlowGraph) graph = mir_flow_graph_new_for_lists (lists, 1,
                                                                 MIR_FLOW_GRAPH_DEFAULT);
  g_autoptr (GPtrArray) found = tilde_diagnostic_list_new ();
  MirParamDeps *deps = mir_param_dependence (graph, params, FALSE);

  warn_parameter_control (deps, graph, found);
  for (guint i = 0; program->functions && i < program->functions->len; i++)
    {
      const MirFunDef *f = g_ptr_array_index (program->functions, i);
      if (f->body)
        warn_function_control (f, deps, graph, found);
    }
  mir_param_deps_free (deps);
  mir_add_warnings (found, diagnostics);
}
