/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

/*
 * Pedantic mode's driver on the typed tree: the variables of the program,
 * the statements the checks walk, what the flow analyses are asked, the
 * warnings.
 */

#include "semantics/pedantic.h"
#include "semantics/pedantic-private.h"
#include "semantics/check.h"
#include "tilde-diagnostic.h"

#include <stdarg.h>
#include <string.h>

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

static const TildeSourceFile *
end_file (const TildeSpan *span)
{
  return span->end_file ? span->end_file : span->file;
}

/* A span that runs into another file is cut at its beginning, as the type
 * checker does. */
void
_ped_warn (Pedantic *P, const TildeSpan *span, const char *format, ...)
{
  g_autofree char *message = NULL;
  TildeDiagnostic *diag;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  if (span == NULL || span->file == NULL)
    {
      g_ptr_array_add (P->warnings, tilde_diagnostic_new (TILDE_SEVERITY_WARNING,
                                                          TILDE_DIAG_PEDANTIC, NULL, 0, 0, 0,
                                                          0, message));
      return;
    }
  diag = tilde_diagnostic_new (TILDE_SEVERITY_WARNING, TILDE_DIAG_PEDANTIC, span->file->name,
                               span->begin_line, span->begin_column,
                               end_file (span) == span->file ? span->end_line : span->begin_line,
                               end_file (span) == span->file ? span->end_column
                                                             : span->begin_column,
                               message);
  tilde_source_file_add_include_frames (span->file, diag);
  g_ptr_array_add (P->warnings, diag);
}

/* ---- set-up ---- */

static void
pedantic_init (Pedantic *P, const TildeProgram *program, const TildePedanticFlow *flow,
               GPtrArray *warnings)
{
  P->program = program;
  P->flow = flow;
  P->vars = g_ptr_array_new_with_free_func (g_free);
  P->by_decl = g_hash_table_new (var_hash, var_equal);
  P->globals = g_hash_table_new (g_direct_hash, g_direct_equal);
  P->warnings = warnings;
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
  g_hash_table_unref (P->globals);
  g_hash_table_unref (P->by_decl);
  g_ptr_array_unref (P->vars);
}

/* ---- statements ---- */

static void
walk_list (TildeStmt **stmts, int n, PedStmtVisitor visit, gpointer data);

static void
walk_stmt (TildeStmt *s, PedStmtVisitor visit, gpointer data)
{
  if (s == NULL)
    return;
  visit (s, data);
  switch (s->kind)
    {
    case TILDE_STMT_IF:
      walk_stmt (s->u.if_stmt.then_stmt, visit, data);
      walk_stmt (s->u.if_stmt.else_stmt, visit, data);
      break;
    case TILDE_STMT_WHILE:
      walk_stmt (s->u.while_stmt.body, visit, data);
      break;
    case TILDE_STMT_FOR:
      walk_stmt (s->u.for_stmt.body, visit, data);
      break;
    case TILDE_STMT_FOREACH:
      walk_stmt (s->u.foreach_stmt.body, visit, data);
      break;
    case TILDE_STMT_PROFILE:
      walk_list (s->u.profile.stmts, s->u.profile.n_stmts, visit, data);
      break;
    case TILDE_STMT_BLOCK:
      walk_list (s->u.block.stmts, s->u.block.n_stmts, visit, data);
      break;
    default:
      break;
    }
}

static void
walk_list (TildeStmt **stmts, int n, PedStmtVisitor visit, gpointer data)
{
  for (int i = 0; i < n; i++)
    walk_stmt (stmts[i], visit, data);
}

void
_ped_foreach_model_stmt (Pedantic *P, PedStmtVisitor visit, gpointer data)
{
  static const TildeBlockKind blocks[] = {
    TILDE_BLOCK_TRANSFORMED_PARAMETERS, TILDE_BLOCK_MODEL,
  };

  for (guint i = 0; i < G_N_ELEMENTS (blocks); i++)
    {
      TildeBlock *block = P->program->blocks[blocks[i]];

      if (block)
        walk_list (block->stmts, block->n_stmts, visit, data);
    }
}

void
_ped_foreach_function_stmt (TildeStmt *fun_def, PedStmtVisitor visit, gpointer data)
{
  walk_stmt (fun_def->u.fun_def.body, visit, data);
}

GPtrArray *
_ped_function_definitions (Pedantic *P)
{
  GPtrArray *defs = g_ptr_array_new ();
  TildeBlock *block = P->program->blocks[TILDE_BLOCK_FUNCTIONS];

  for (int i = 0; block && i < block->n_stmts; i++)
    if (block->stmts[i]->kind == TILDE_STMT_FUN_DEF && block->stmts[i]->u.fun_def.body)
      g_ptr_array_add (defs, block->stmts[i]);
  return defs;
}

static void
add_exprs (GPtrArray *exprs, TildeExpr *const *items, int n)
{
  for (int i = 0; i < n; i++)
    if (items[i])
      g_ptr_array_add (exprs, items[i]);
}

/* Index expressions of an lvalue, which a compound assignment reads. */
static void
add_lvalue_index_exprs (GPtrArray *exprs, const TildeExpr *lhs)
{
  lhs = _ped_strip_parens (lhs);
  if (lhs->kind == TILDE_EXPR_INDEXED)
    {
      for (int i = 0; i < lhs->u.indexed.n_indices; i++)
        {
          TildeExpr *const ends[2] = { lhs->u.indexed.indices[i].lower,
                                       lhs->u.indexed.indices[i].upper };

          add_exprs (exprs, ends, 2);
        }
      add_lvalue_index_exprs (exprs, lhs->u.indexed.base);
    }
  else if (lhs->kind == TILDE_EXPR_TUPLE_PROJ)
    add_lvalue_index_exprs (exprs, lhs->u.proj.base);
}

void
_ped_stmt_exprs (const TildeStmt *s, GPtrArray *exprs)
{
  switch (s->kind)
    {
    case TILDE_STMT_VAR_DECL:
      for (int i = 0; i < s->u.var_decl.n_items; i++)
        add_exprs (exprs, &s->u.var_decl.items[i].init, 1);
      break;
    case TILDE_STMT_ASSIGN:
      add_exprs (exprs, &s->u.assign.rhs, 1);
      if (s->u.assign.op != TILDE_ASSIGN_PLAIN)
        add_lvalue_index_exprs (exprs, s->u.assign.lhs);
      break;
    case TILDE_STMT_TILDE:
      {
        TildeExpr *const ends[2] = { s->u.tilde.trunc_lower, s->u.tilde.trunc_upper };

        add_exprs (exprs, &s->u.tilde.arg, 1);
        add_exprs (exprs, s->u.tilde.args, s->u.tilde.n_args);
        add_exprs (exprs, ends, 2);
        break;
      }
    case TILDE_STMT_TARGET_PLUS:
    case TILDE_STMT_JACOBIAN_PLUS:
      add_exprs (exprs, &s->u.increment.expr, 1);
      break;
    case TILDE_STMT_CALL:
      add_exprs (exprs, s->u.call.args, s->u.call.n_args);
      break;
    case TILDE_STMT_PRINT:
    case TILDE_STMT_REJECT:
    case TILDE_STMT_FATAL_ERROR:
      add_exprs (exprs, s->u.printables.items, s->u.printables.n_items);
      break;
    case TILDE_STMT_RETURN:
      add_exprs (exprs, &s->u.ret.expr, 1);
      break;
    case TILDE_STMT_IF:
      add_exprs (exprs, &s->u.if_stmt.cond, 1);
      break;
    case TILDE_STMT_WHILE:
      add_exprs (exprs, &s->u.while_stmt.cond, 1);
      break;
    case TILDE_STMT_FOR:
      add_exprs (exprs, &s->u.for_stmt.lower, 1);
      add_exprs (exprs, &s->u.for_stmt.upper, 1);
      break;
    case TILDE_STMT_FOREACH:
      add_exprs (exprs, &s->u.foreach_stmt.container, 1);
      break;
    default:
      break;
    }
}

void
_ped_expr_foreach (const TildeExpr *e, void (*visit) (const TildeExpr *e, gpointer data),
                   gpointer data)
{
  if (e == NULL)
    return;
  visit (e, data);
  switch (e->kind)
    {
    case TILDE_EXPR_BINARY:
      _ped_expr_foreach (e->u.binary.lhs, visit, data);
      _ped_expr_foreach (e->u.binary.rhs, visit, data);
      break;
    case TILDE_EXPR_PREFIX:
      _ped_expr_foreach (e->u.prefix.operand, visit, data);
      break;
    case TILDE_EXPR_TRANSPOSE:
      _ped_expr_foreach (e->u.transpose.operand, visit, data);
      break;
    case TILDE_EXPR_TERNARY:
      _ped_expr_foreach (e->u.ternary.cond, visit, data);
      _ped_expr_foreach (e->u.ternary.if_true, visit, data);
      _ped_expr_foreach (e->u.ternary.if_false, visit, data);
      break;
    case TILDE_EXPR_CALL:
    case TILDE_EXPR_COND_CALL:
      for (int i = 0; i < e->u.call.n_args; i++)
        _ped_expr_foreach (e->u.call.args[i], visit, data);
      break;
    case TILDE_EXPR_INDEXED:
      _ped_expr_foreach (e->u.indexed.base, visit, data);
      for (int i = 0; i < e->u.indexed.n_indices; i++)
        {
          _ped_expr_foreach (e->u.indexed.indices[i].lower, visit, data);
          _ped_expr_foreach (e->u.indexed.indices[i].upper, visit, data);
        }
      break;
    case TILDE_EXPR_TUPLE_PROJ:
      _ped_expr_foreach (e->u.proj.base, visit, data);
      break;
    case TILDE_EXPR_ARRAY:
    case TILDE_EXPR_ROW_VECTOR:
    case TILDE_EXPR_TUPLE:
      for (int i = 0; i < e->u.list.n_items; i++)
        _ped_expr_foreach (e->u.list.items[i], visit, data);
      break;
    case TILDE_EXPR_PAREN:
      _ped_expr_foreach (e->u.paren.inner, visit, data);
      break;
    default:
      break;
    }
}

typedef struct {
  Pedantic *P;
  GArray   *uses;
} UsesData;

static void
add_use (const TildeExpr *e, gpointer data)
{
  UsesData *d = data;
  PedUse use = { NULL, e };

  if (e->kind != TILDE_EXPR_VARIABLE)
    return;
  use.var = _ped_var_of_expr (d->P, e);
  if (use.var)
    g_array_append_val (d->uses, use);
}

void
_ped_expr_uses (Pedantic *P, const TildeExpr *e, GArray *uses)
{
  UsesData d = { P, uses };

  _ped_expr_foreach (e, add_use, &d);
}

/* ---- what the flow analyses know ---- */

const TildeStmt *
_ped_definition (Pedantic *P, const TildeExpr *use)
{
  if (P == NULL || P->flow == NULL || P->flow->definition == NULL)
    return NULL;
  return P->flow->definition (P->flow->data, use);
}

static gboolean
is_source (const PedVar *var)
{
  return var->kind == PED_VAR_PARAM || _ped_var_is_data (var);
}

/* Appends the block variables named in `names`. */
static void
add_named (Pedantic *P, const GPtrArray *names, GPtrArray *sources)
{
  for (guint i = 0; i < names->len; i++)
    {
      PedVar *var = g_hash_table_lookup (P->globals, g_ptr_array_index (names, i));

      if (var && is_source (var))
        g_ptr_array_add (sources, var);
    }
}

void
_ped_value_sources (Pedantic *P, const PedUse *use, GPtrArray *sources)
{
  g_autoptr (GPtrArray) names = NULL;

  if (is_source (use->var))
    g_ptr_array_add (sources, use->var);
  if (P->flow == NULL || P->flow->value_sources == NULL)
    return;
  names = g_ptr_array_new ();
  P->flow->value_sources (P->flow->data, use->expr, names);
  add_named (P, names, sources);
}

void
_ped_control_sources (Pedantic *P, const TildeStmt *stmt, GPtrArray *sources)
{
  g_autoptr (GPtrArray) names = NULL;

  if (P->flow == NULL || P->flow->control_sources == NULL)
    return;
  names = g_ptr_array_new ();
  P->flow->control_sources (P->flow->data, stmt, names);
  add_named (P, names, sources);
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

/* ---- entry point ---- */

void
tilde_pedantic_check_tree (const TildeProgram *program, const TildePedanticFlow *flow,
                           GPtrArray *diagnostics)
{
  Pedantic P = { 0 };

  g_return_if_fail (program != NULL && diagnostics != NULL);
  pedantic_init (&P, program, flow, diagnostics);
  _ped_track_distribution_values (&P);
  _ped_check_distributions (&P);
  _ped_check_factor_graph (&P);
  _ped_check_tildes (&P);
  check_hard_constraints (&P);
  pedantic_clear (&P);
}
