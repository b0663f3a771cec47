/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

/*
 * Control flow that depends on parameters: an if, while or for of the log
 * density whose condition or bounds (or whatever they are computed from, or
 * the control flow around them) depend on a parameter; and control flow in
 * a function that depends on an argument which some call in the log density
 * passes a parameter-dependent value.
 *
 * A loop over the elements of a variable runs as many times as the variable
 * has elements, which no parameter value changes; stanc, which sees the
 * loop's bound size(x), warns about it all the same, this does not.
 */

#include "semantics/pedantic-private.h"
#include "semantics/check.h"

static gboolean
is_control (const PedNode *node)
{
  return node->kind == PED_NODE_IF || node->kind == PED_NODE_WHILE
         || node->kind == PED_NODE_FOR || node->kind == PED_NODE_FOREACH;
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 ((*(const PedVar *const *) a)->name, (*(const PedVar *const *) b)->name);
}

/* "a, b": the parameters marked in `seen`, by name. NULL when none. */
static char *
parameter_list (Pedantic *P, const guint8 *seen)
{
  g_autoptr(GPtrArray) params = g_ptr_array_new ();
  GString *out;

  for (guint v = 0; v < P->vars->len; v++)
    {
      PedVar *var = g_ptr_array_index (P->vars, v);

      if (seen[v] && var->kind == PED_VAR_PARAM && !var->silent)
        g_ptr_array_add (params, var);
    }
  if (params->len == 0)
    return NULL;
  g_ptr_array_sort (params, compare_names);
  out = g_string_new (NULL);
  for (guint i = 0; i < params->len; i++)
    g_string_append_printf (out, "%s%s", i ? ", " : "",
                            ((PedVar *) g_ptr_array_index (params, i))->name);
  return g_string_free (out, FALSE);
}

/* A foreach over a variable: its trip count is that variable's size. */
static gboolean
loops_over_variable (const PedNode *node)
{
  const TildeExpr *c;

  if (node->kind != PED_NODE_FOREACH)
    return FALSE;
  c = _ped_strip_parens (node->stmt->u.foreach_stmt.container);
  return c && c->kind == TILDE_EXPR_VARIABLE;
}

/* seen[v] for the variables that decide whether and how often `node` runs
 * its body: what it reads and all that depends on. */
static guint8 *
node_dependency_vars (Pedantic *P, PedFlow *flow, int node)
{
  g_autofree guint8 *visited = g_new0 (guint8, flow->nodes->len);
  guint8 *seen = g_new0 (guint8, MAX (P->vars->len, 1));
  const PedNode *n = _ped_flow_node (flow, node);

  if (loops_over_variable (n))
    {
      /* Only the control flow around it matters. */
      visited[node] = 1;
      if (n->parent >= 0)
        _ped_flow_node_deps (flow, n->parent, visited);
      visited[node] = 0;
    }
  else
    _ped_flow_node_deps (flow, node, visited);
  _ped_flow_marked_vars (flow, visited, seen);
  return seen;
}

void
_ped_check_control_flow (Pedantic *P, PedFlow *model)
{
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const PedNode *node = _ped_flow_node (model, (int) i);
      g_autofree guint8 *seen = NULL;
      g_autofree char *list = NULL;

      if (!is_control (node))
        continue;
      seen = node_dependency_vars (P, model, (int) i);
      list = parameter_list (P, seen);
      if (list)
        _ped_warn (P, &node->stmt->span, "A control flow statement depends on parameter(s): %s.",
                   list);
    }
}

/* ---- inside functions ---- */

/* A control statement of a function body that depends on an argument. */
typedef struct {
  const TildeSpan *span;
  int              arg;
} ArgControl;

typedef struct {
  Pedantic        *P;
  PedFlow         *model;
  int              node;
  const TildeStmt *fun_def;
  const GArray    *controls;   /* ArgControl */
} CallScan;

static gboolean
calls_function (const TildeStmt *fun_def, const char *name, gpointer decl, int n_args)
{
  TildeFunction *fn = tilde_decl_as_function (decl);

  if (fn)
    return fn->definition == fun_def;
  return decl == NULL && name == fun_def->u.fun_def.name.name
         && n_args == fun_def->u.fun_def.n_args;
}

static void
check_call (CallScan *scan, TildeExpr *const *args)
{
  const char *fname = scan->fun_def->u.fun_def.name.name;

  for (guint c = 0; c < scan->controls->len; c++)
    {
      const ArgControl *control = &g_array_index (scan->controls, ArgControl, c);
      const TildeExpr *arg = _ped_strip_parens (args[control->arg]);
      const char *arg_name = scan->fun_def->u.fun_def.args[control->arg].ident.name;
      g_autoptr(GArray) uses = g_array_new (FALSE, FALSE, sizeof (PedUse));
      g_autofree guint8 *visited = g_new0 (guint8, scan->model->nodes->len);
      g_autofree guint8 *seen = g_new0 (guint8, MAX (scan->P->vars->len, 1));
      g_autofree char *list = NULL;

      _ped_expr_uses (scan->P, arg, uses);
      _ped_flow_uses_deps (scan->model, scan->node, uses, TRUE, visited);
      _ped_flow_marked_vars (scan->model, visited, seen);
      for (guint u = 0; u < uses->len; u++)
        seen[g_array_index (uses, PedUse, u).var->index] = 1;
      list = parameter_list (scan->P, seen);
      if (list)
        {
          g_autofree char *where = _ped_span_to_string (&arg->span);

          _ped_warn (scan->P, control->span, "A control flow statement inside function %s "
                     "depends on argument %s. At %s, the value of %s depends on parameter(s): "
                     "%s.", fname, arg_name, where, arg_name, list);
        }
    }
}

static void
scan_call (const TildeExpr *e, gpointer data)
{
  CallScan *scan = data;

  if ((e->kind == TILDE_EXPR_CALL || e->kind == TILDE_EXPR_COND_CALL)
      && calls_function (scan->fun_def, e->u.call.name.name, e->u.call.decl, e->u.call.n_args)
      && e->u.call.n_args == scan->fun_def->u.fun_def.n_args)
    check_call (scan, e->u.call.args);
}

/* The argument-dependent control statements of a function body. */
static GArray *
argument_controls (Pedantic *P, TildeStmt *fun_def, PedFlow *body)
{
  GArray *controls = g_array_new (FALSE, FALSE, sizeof (ArgControl));

  for (guint i = 0; i < body->nodes->len; i++)
    {
      const PedNode *node = _ped_flow_node (body, (int) i);
      g_autofree guint8 *seen = NULL;

      if (!is_control (node))
        continue;
      seen = node_dependency_vars (P, body, (int) i);
      for (int a = 0; a < fun_def->u.fun_def.n_args; a++)
        {
          PedVar key = { 0 }, *arg;

          key.stmt = fun_def;
          key.name = fun_def->u.fun_def.args[a].ident.name;
          arg = g_hash_table_lookup (P->by_decl, &key);
          if (arg && seen[arg->index])
            {
              ArgControl control = { &node->stmt->span, a };

              g_array_append_val (controls, control);
            }
        }
    }
  return controls;
}

void
_ped_check_function_control_flow (Pedantic *P, PedFlow *model, TildeStmt *fun_def,
                                  PedFlow *body)
{
  g_autoptr(GArray) controls = argument_controls (P, fun_def, body);

  if (controls->len == 0)
    return;
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const PedNode *node = _ped_flow_node (model, (int) i);
      CallScan scan = { P, model, (int) i, fun_def, controls };

      if (node->kind == PED_NODE_CALL
          && calls_function (fun_def, node->stmt->u.call.name.name, node->stmt->u.call.decl,
                             node->stmt->u.call.n_args)
          && node->stmt->u.call.n_args == fun_def->u.fun_def.n_args)
        check_call (&scan, node->stmt->u.call.args);
      for (guint k = 0; k < node->exprs->len; k++)
        _ped_expr_foreach (g_ptr_array_index (node->exprs, k), scan_call, &scan);
    }
}
