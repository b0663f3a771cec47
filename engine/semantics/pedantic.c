/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

/*
 * Pedantic mode's driver: the variables of the program, the graphs the
 * checks share, the warnings and their order.
 *
 * stanc collects its pedantic warnings in a set of (location, message),
 * sorts it and prints it backwards; duplicates vanish, warnings without a
 * location (which sort first) come out last.
 */

#include "semantics/pedantic.h"
#include "semantics/pedantic-private.h"
#include "semantics/check.h"
#include "tilde-diagnostic.h"

#include <stdarg.h>
#include <string.h>

typedef struct {
  gboolean  located;
  TildeSpan span;
  char     *message;
} PedWarning;

static void
warning_free (PedWarning *w)
{
  g_free (w->message);
  g_free (w);
}

/* ---- variables ---- */

static guint
var_hash (gconstpointer p)
{
  const PedVar *v = p;

  return g_direct_hash (v->stmt) * 31 + g_direct_hash (v->name);
}

static gboolean
var_equal (gconstpointer a, gconstpointer b)
{
  const PedVar *x = a, *y = b;

  return x->stmt == y->stmt && x->name == y->name;
}

static PedVar *
add_var (Pedantic *P, TildeStmt *stmt, const char *name, PedVarKind kind, TildeSizedType *type)
{
  PedVar *var = g_new0 (PedVar, 1);

  var->name = name;
  var->stmt = stmt;
  var->kind = kind;
  var->type = type;
  var->is_int = type && type->kind == TILDE_DECL_INT;
  var->index = P->vars->len;
  g_ptr_array_add (P->vars, var);
  g_hash_table_add (P->by_decl, var);
  return var;
}

static gboolean
has_annotation (const TildeStmt *s, const char *name)
{
  for (int i = 0; i < s->u.var_decl.n_annotations; i++)
    if (g_strcmp0 (s->u.var_decl.annotations[i].name.name, name) == 0)
      return TRUE;
  return FALSE;
}

static PedVarKind
global_kind (TildeBlockKind block)
{
  switch (block)
    {
    case TILDE_BLOCK_DATA:
      return PED_VAR_DATA;
    case TILDE_BLOCK_TRANSFORMED_DATA:
      return PED_VAR_TDATA;
    case TILDE_BLOCK_PARAMETERS:
      return PED_VAR_PARAM;
    case TILDE_BLOCK_TRANSFORMED_PARAMETERS:
      return PED_VAR_TPARAM;
    case TILDE_BLOCK_GENERATED_QUANTITIES:
      return PED_VAR_GQ;
    default:
      return PED_VAR_LOCAL;
    }
}

static void collect_stmt (Pedantic *P, TildeStmt *s, TildeBlockKind block, gboolean top);

static void
collect_list (Pedantic *P, TildeStmt **stmts, int n, TildeBlockKind block, gboolean top)
{
  for (int i = 0; i < n; i++)
    collect_stmt (P, stmts[i], block, top);
}

static void
collect_decl (Pedantic *P, TildeStmt *s, TildeBlockKind block, gboolean top)
{
  PedVarKind kind = top ? global_kind (block) : PED_VAR_LOCAL;
  gboolean silent = has_annotation (s, "silent");

  for (int i = 0; i < s->u.var_decl.n_items; i++)
    {
      PedVar *var = add_var (P, s, s->u.var_decl.items[i].ident.name, kind, s->u.var_decl.type);

      var->silent = silent;
      if (kind != PED_VAR_LOCAL)
        g_hash_table_insert (P->globals, (gpointer) var->name, var);
    }
}

static void
collect_stmt (Pedantic *P, TildeStmt *s, TildeBlockKind block, gboolean top)
{
  if (s == NULL)
    return;
  switch (s->kind)
    {
    case TILDE_STMT_VAR_DECL:
      collect_decl (P, s, block, top);
      break;
    case TILDE_STMT_FUN_DEF:
      for (int i = 0; i < s->u.fun_def.n_args; i++)
        add_var (P, s, s->u.fun_def.args[i].ident.name, PED_VAR_ARG, NULL);
      collect_stmt (P, s->u.fun_def.body, TILDE_BLOCK_FUNCTIONS, FALSE);
      break;
    case TILDE_STMT_FOR:
      add_var (P, s, s->u.for_stmt.var.name, PED_VAR_LOOP, NULL);
      collect_stmt (P, s->u.for_stmt.body, block, FALSE);
      break;
    case TILDE_STMT_FOREACH:
      add_var (P, s, s->u.foreach_stmt.var.name, PED_VAR_LOOP, NULL);
      collect_stmt (P, s->u.foreach_stmt.body, block, FALSE);
      break;
    case TILDE_STMT_IF:
      collect_stmt (P, s->u.if_stmt.then_stmt, block, FALSE);
      collect_stmt (P, s->u.if_stmt.else_stmt, block, FALSE);
      break;
    case TILDE_STMT_WHILE:
      collect_stmt (P, s->u.while_stmt.body, block, FALSE);
      break;
    case TILDE_STMT_PROFILE:
      collect_list (P, s->u.profile.stmts, s->u.profile.n_stmts, block, FALSE);
      break;
    case TILDE_STMT_BLOCK:
      collect_list (P, s->u.block.stmts, s->u.block.n_stmts, block, FALSE);
      break;
    default:
      break;
    }
}

PedVar *
_ped_var_of_expr (Pedantic *P, const TildeExpr *e)
{
  TildeVariable *v;
  PedVar key = { 0 }, *var;

  if (e == NULL || e->kind != TILDE_EXPR_VARIABLE)
    return NULL;
  if (e->u.variable.decl == NULL)
    /* Unresolved: only a block variable can be found again by its name. */
    return e->type ? NULL : g_hash_table_lookup (P->globals, e->u.variable.name);
  v = tilde_decl_as_variable (e->u.variable.decl);
  if (v == NULL)
    return NULL;
  key.stmt = v->stmt;
  key.name = v->name;
  var = g_hash_table_lookup (P->by_decl, &key);
  if (var == NULL && v->role == TILDE_VAR_BLOCK)
    var = g_hash_table_lookup (P->globals, v->name);
  return var;
}

gboolean
_ped_var_is_data (const PedVar *var)
{
  return var->kind == PED_VAR_DATA || var->kind == PED_VAR_TDATA;
}

const TildeExpr *
_ped_strip_parens (const TildeExpr *e)
{
  while (e && e->kind == TILDE_EXPR_PAREN)
    e = e->u.paren.inner;
  return e;
}

const char *
_ped_density_family (const char *name, gboolean *unnormalized)
{
  static const struct { const char *suffix; gboolean unnormalized; } suffixes[] = {
    { "_lpdf", FALSE }, { "_lpmf", FALSE }, { "_lupdf", TRUE }, { "_lupmf", TRUE },
  };

  for (guint i = 0; name && i < G_N_ELEMENTS (suffixes); i++)
    if (g_str_has_suffix (name, suffixes[i].suffix))
      {
        g_autofree char *family = g_strndup (name, strlen (name) - strlen (suffixes[i].suffix));

        if (unnormalized)
          *unnormalized = suffixes[i].unnormalized;
        return g_intern_string (family);
      }
  return NULL;
}

/* ---- warnings ---- */

void
_ped_warn (Pedantic *P, const TildeSpan *span, const char *format, ...)
{
  PedWarning *w = g_new0 (PedWarning, 1);
  va_list args;

  va_start (args, format);
  w->message = g_strdup_vprintf (format, args);
  va_end (args);
  if (span && span->file)
    {
      w->located = TRUE;
      w->span = *span;
    }
  g_ptr_array_add (P->warnings, w);
}

static const TildeSourceFile *
end_file (const TildeSpan *span)
{
  return span->end_file ? span->end_file : span->file;
}

char *
_ped_span_to_string (const TildeSpan *span)
{
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "'%s', line %d, column %d", span->file->name,
                          span->begin_line, span->begin_column);
  for (const TildeSourceFile *f = span->file; f->included_from; f = f->included_from)
    g_string_append_printf (out, ", included from\n'%s', line %d, column %d",
                            f->included_from->name, f->include_line, f->include_column);
  if (span->file->included_from == NULL && end_file (span) == span->file)
    {
      g_string_append (out, " to ");
      if (span->end_line != span->begin_line)
        g_string_append_printf (out, "line %d, ", span->end_line);
      g_string_append_printf (out, "column %d", span->end_column);
    }
  return g_string_free (out, FALSE);
}

/* stanc's order on (location, message): file name, line, column of the
 * beginning, then of the end; no location sorts before any. */
static int
compare_warnings (gconstpointer a, gconstpointer b)
{
  const PedWarning *x = *(PedWarning *const *) a, *y = *(PedWarning *const *) b;
  int c;

  if (x->located != y->located)
    return x->located ? 1 : -1;
  if (x->located)
    {
      const int kx[] = { x->span.begin_line, x->span.begin_column,
                         x->span.end_line, x->span.end_column };
      const int ky[] = { y->span.begin_line, y->span.begin_column,
                         y->span.end_line, y->span.end_column };

      c = strcmp (x->span.file->name, y->span.file->name);
      if (c != 0)
        return c;
      for (guint i = 0; i < G_N_ELEMENTS (kx); i++)
        if (kx[i] != ky[i])
          return kx[i] < ky[i] ? -1 : 1;
    }
  return strcmp (x->message, y->message);
}

static TildeDiagnostic *
warning_to_diagnostic (const PedWarning *w, TildeDiagnosticKind kind)
{
  TildeDiagnostic *diag;
  const TildeSpan *s = &w->span;

  if (!w->located)
    return tilde_diagnostic_new (TILDE_SEVERITY_WARNING, kind, NULL, 0, 0, 0, 0, w->message);
  diag = tilde_diagnostic_new (TILDE_SEVERITY_WARNING, kind, s->file->name,
                               s->begin_line, s->begin_column,
                               end_file (s) == s->file ? s->end_line : s->begin_line,
                               end_file (s) == s->file ? s->end_column : s->begin_column,
                               w->message);
  tilde_source_file_add_include_frames (s->file, diag);
  return diag;
}

static void
emit_warnings (Pedantic *P, TildeDiagnosticKind kind, GPtrArray *diagnostics)
{
  const PedWarning *last = NULL;

  g_ptr_array_sort (P->warnings, compare_warnings);
  for (guint i = P->warnings->len; i-- > 0;)
    {
      const PedWarning *w = g_ptr_array_index (P->warnings, i);

      if (last && compare_warnings (&w, &last) == 0)
        continue;
      g_ptr_array_add (diagnostics, warning_to_diagnostic (w, kind));
      last = w;
    }
}

/* ---- set-up ---- */

static void
pedantic_init (Pedantic *P, const TildeProgram *program)
{
  P->program = program;
  P->vars = g_ptr_array_new_with_free_func (g_free);
  P->by_decl = g_hash_table_new (var_hash, var_equal);
  P->globals = g_hash_table_new (g_direct_hash, g_direct_equal);
  P->warnings = g_ptr_array_new_with_free_func ((GDestroyNotify) warning_free);
  for (int k = 0; k < TILDE_N_BLOCKS; k++)
    {
      TildeBlock *block = program->blocks[k];

      if (block)
        collect_list (P, block->stmts, block->n_stmts, block->kind, TRUE);
    }
}

static void
pedantic_clear (Pedantic *P)
{
  g_ptr_array_unref (P->warnings);
  g_hash_table_unref (P->globals);
  g_hash_table_unref (P->by_decl);
  g_ptr_array_unref (P->vars);
}

static TildeBlock *
block_of (Pedantic *P, TildeBlockKind kind)
{
  return P->program->blocks[kind];
}

/* The flow of up to two program blocks run one after the other. */
static PedFlow *
blocks_flow (Pedantic *P, TildeBlockKind first, TildeBlockKind second, gboolean flatten)
{
  TildeStmt **const lists[2] = {
    block_of (P, first) ? block_of (P, first)->stmts : NULL,
    second != TILDE_N_BLOCKS && block_of (P, second) ? block_of (P, second)->stmts : NULL,
  };
  const int lengths[2] = {
    block_of (P, first) ? block_of (P, first)->n_stmts : 0,
    second != TILDE_N_BLOCKS && block_of (P, second) ? block_of (P, second)->n_stmts : 0,
  };

  return _ped_flow_new (P, lists, lengths, 2, flatten);
}

static PedFlow *
body_flow (Pedantic *P, TildeStmt *fun_def, gboolean flatten)
{
  TildeStmt **const lists[1] = { &fun_def->u.fun_def.body };
  const int lengths[1] = { 1 };

  return _ped_flow_new (P, lists, lengths, 1, flatten);
}

/* Function definitions with a body. */
static GPtrArray *
function_definitions (Pedantic *P)
{
  GPtrArray *defs = g_ptr_array_new ();
  TildeBlock *block = block_of (P, TILDE_BLOCK_FUNCTIONS);

  for (int i = 0; block && i < block->n_stmts; i++)
    if (block->stmts[i]->kind == TILDE_STMT_FUN_DEF && block->stmts[i]->u.fun_def.body)
      g_ptr_array_add (defs, block->stmts[i]);
  return defs;
}

/* ---- variables read before they are assigned ---- */

static void
report_uninitialized (const PedUse *use, gpointer data)
{
  if (!use->var->silent)
    _ped_warn (data, use->span,
               "The variable %s may not have been assigned a value before its use.",
               use->var->name);
}

static void
check_flow_uninitialized (Pedantic *P, PedFlow *flow)
{
  _ped_flow_uninitialized (flow, report_uninitialized, P);
  _ped_flow_free (flow);
}

/* stanc's scopes: transformed data; the log density (transformed parameters
 * then model); generated quantities (transformed parameters again, then the
 * block itself); each function body. */
static void
check_uninitialized (Pedantic *P)
{
  g_autoptr(GPtrArray) funs = function_definitions (P);

  check_flow_uninitialized (P, blocks_flow (P, TILDE_BLOCK_TRANSFORMED_DATA, TILDE_N_BLOCKS, TRUE));
  check_flow_uninitialized (P, blocks_flow (P, TILDE_BLOCK_TRANSFORMED_PARAMETERS,
                                            TILDE_BLOCK_MODEL, TRUE));
  check_flow_uninitialized (P, blocks_flow (P, TILDE_BLOCK_TRANSFORMED_PARAMETERS,
                                            TILDE_BLOCK_GENERATED_QUANTITIES, TRUE));
  for (guint i = 0; i < funs->len; i++)
    check_flow_uninitialized (P, body_flow (P, g_ptr_array_index (funs, i), TRUE));
}

/* ---- bounds ---- */

/* Parameters with two literal bounds, except the usual (0, 1) and (-1, 1). */
static void
check_hard_constraints (Pedantic *P)
{
  for (guint i = 0; i < P->vars->len; i++)
    {
      const PedVar *var = g_ptr_array_index (P->vars, i);
      PedTransform t;

      if (var->kind != PED_VAR_PARAM || var->silent)
        continue;
      _ped_transform (var, &t);
      if (t.lower.kind != PED_BOUND_LIT || t.upper.kind != PED_BOUND_LIT
          || t.kind != PED_TRANS_BOUNDED)
        continue;
      if (t.upper.value == 1 && (t.lower.value == 0 || t.lower.value == -1))
        continue;
      if (t.lower.value >= t.upper.value)
        _ped_warn (P, NULL, "Parameter %s has constraints that don't make sense. The lower "
                   "bound should be strictly less than the upper bound.", var->name);
      else
        _ped_warn (P, NULL, "Your Stan program has a parameter %s with a lower and upper "
                   "bound in its declaration. These hard constraints are not recommended, "
                   "for two reasons: (a) Except when there are logical or physical "
                   "constraints, it is very unusual for you to be sure that a parameter "
                   "will fall inside a specified range, and (b) The infinite gradient "
                   "induced by a hard constraint can cause difficulties for Stan's sampling "
                   "algorithm. As a consequence, we recommend soft constraints rather than "
                   "hard constraints; for example, instead of constraining an elasticity "
                   "parameter to fall between 0, and 1, leave it unconstrained and give it "
                   "a normal(0.5,0.5) prior distribution.", var->name);
    }
}

/* ---- entry points ---- */

static void
check_functions (Pedantic *P, PedFlow *model)
{
  g_autoptr(GPtrArray) funs = function_definitions (P);

  for (guint i = 0; i < funs->len; i++)
    {
      TildeStmt *fun_def = g_ptr_array_index (funs, i);
      PedFlow *body = body_flow (P, fun_def, FALSE);

      _ped_check_distributions (P, body);
      _ped_check_function_control_flow (P, model, fun_def, body);
      _ped_flow_free (body);
    }
}

void
tilde_pedantic_check (const TildeProgram *program, GPtrArray *diagnostics)
{
  Pedantic P = { 0 };
  PedFlow *model;

  g_return_if_fail (program != NULL && diagnostics != NULL);
  pedantic_init (&P, program);
  model = blocks_flow (&P, TILDE_BLOCK_TRANSFORMED_PARAMETERS, TILDE_BLOCK_MODEL, FALSE);
  _ped_check_distributions (&P, model);
  _ped_check_factor_graph (&P, model);
  _ped_check_control_flow (&P, model);
  _ped_check_tildes (&P, model);
  check_functions (&P, model);
  check_hard_constraints (&P);
  check_uninitialized (&P);
  _ped_flow_free (model);
  emit_warnings (&P, TILDE_DIAG_PEDANTIC, diagnostics);
  pedantic_clear (&P);
}

void
tilde_pedantic_check_uninitialized (const TildeProgram *program, GPtrArray *diagnostics)
{
  Pedantic P = { 0 };

  g_return_if_fail (program != NULL && diagnostics != NULL);
  pedantic_init (&P, program);
  check_uninitialized (&P);
  emit_warnings (&P, TILDE_DIAG_UNINITIALIZED, diagnostics);
  pedantic_clear (&P);
}
