/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/passes/passes-private.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "semantics/library/library.h"

/* ---- fresh names ---- */

static void
note_name (PassNames *names, const char *name)
{
  const char *sym = name ? strstr (name, "_sym") : NULL;
  char *end = NULL;
  guint64 n;

  if (!sym || !g_str_has_suffix (name, "__"))
    return;
  n = g_ascii_strtoull (sym + 4, &end, 10);
  if (end && strcmp (end, "__") == 0 && n + 1 > names->next && n < G_MAXUINT)
    names->next = (guint) n + 1;
}

static void
note_expr_names (MirExpr *e, gpointer data)
{
  if (e->kind == MIR_EXPR_VAR)
    note_name (data, e->u.var.name);
  mir_expr_foreach_child (e, note_expr_names, data);
}

static void
note_stmt_names (MirStmt *s, gpointer data)
{
  if (s->kind == MIR_STMT_DECL)
    note_name (data, s->u.decl.name);
  else if (s->kind == MIR_STMT_FOR)
    note_name (data, s->u.for_stmt.var);
  else if (s->kind == MIR_STMT_ASSIGN)
    note_name (data, mir_lvalue_variable (s->u.assign.lhs));
  mir_stmt_foreach_expr (s, note_expr_names, data);
}

void
pass_names_init (PassNames *names, const MirProgram *program)
{
  names->next = 1;
  mir_program_walk_stmts ((MirProgram *) program, note_stmt_names, names);
}

gboolean
pass_is_temporary (const char *name)
{
  const char *sym = name ? strstr (name, "_sym") : NULL;

  if (!sym || !g_str_has_suffix (name, "__"))
    return FALSE;
  for (sym += 4; g_ascii_isdigit (*sym); sym++)
    ;
  return strcmp (sym, "__") == 0;
}

const char *
pass_names_fresh (PassNames *names, const char *prefix)
{
  g_autofree char *name = g_strdup_printf ("%s_sym%u__", prefix, names->next++);
  return g_intern_string (name);
}

/* ---- effects ---- */

gboolean
pass_internal_has_effects (MirInternal fn)
{
  switch (fn)
    {
    case MIR_FN_LENGTH:
    case MIR_FN_MAKE_ARRAY:
    case MIR_FN_MAKE_ROW_VEC:
    case MIR_FN_MAKE_TUPLE:
    case MIR_FN_NEG_INF:
    case MIR_FN_NAN:
    case MIR_FN_DEEP_COPY:
      return FALSE;
    default:
      return TRUE;
    }
}

static gboolean
suffix_has_effects (MirSuffix suffix)
{
  return suffix == MIR_SUFFIX_RNG || suffix == MIR_SUFFIX_TARGET
         || suffix == MIR_SUFFIX_JACOBIAN;
}

static gboolean
is_target_read (const MirFun *f)
{
  return f->kind == MIR_FUN_STANLIB && f->name && strcmp (f->name, "target") == 0;
}

static gboolean
fun_has_effects (const MirFun *f, const PassEffects *fx)
{
  switch (f->kind)
    {
    case MIR_FUN_STANLIB:
      return suffix_has_effects (f->suffix) && !is_target_read (f);
    case MIR_FUN_USER:
      return !fx || !g_hash_table_contains (fx->pure, f->name);
    case MIR_FUN_COMPILER:
      return pass_internal_has_effects (f->internal);
    }
  return TRUE;
}

typedef struct {
  const PassEffects *fx;
  gboolean           found;
  gboolean           target_too;
} EffectSearch;

static void
search_effects (MirExpr *e, gpointer data)
{
  EffectSearch *s = data;

  if (s->found)
    return;
  if (e->kind == MIR_EXPR_CALL
      && (fun_has_effects (&e->u.call.fun, s->fx)
          || (s->target_too && is_target_read (&e->u.call.fun))))
    {
      s->found = TRUE;
      return;
    }
  mir_expr_foreach_child (e, search_effects, data);
}

gboolean
pass_expr_has_effects (const MirExpr *e, const PassEffects *fx)
{
  EffectSearch s = { fx, FALSE, FALSE };

  search_effects ((MirExpr *) e, &s);
  return s.found;
}

gboolean
pass_expr_is_movable (const MirExpr *e, const PassEffects *fx)
{
  EffectSearch s = { fx, FALSE, TRUE };

  search_effects ((MirExpr *) e, &s);
  return !s.found;
}

gboolean
pass_expr_is_trivial (const MirExpr *e)
{
  switch (e->kind)
    {
    case MIR_EXPR_VAR:
    case MIR_EXPR_LIT:
      return TRUE;
    case MIR_EXPR_PROMOTION:
      return pass_expr_is_trivial (e->u.promotion.expr);
    default:
      return FALSE;
    }
}

typedef struct {
  const char *name;
  gboolean    found;
} ReadSearch;

static void
search_read (MirExpr *e, gpointer data)
{
  ReadSearch *r = data;

  if (r->found)
    return;
  if (e->kind == MIR_EXPR_VAR && e->u.var.name == r->name)
    r->found = TRUE;
  else
    mir_expr_foreach_child (e, search_read, data);
}

gboolean
pass_expr_reads (const MirExpr *e, const char *name)
{
  ReadSearch r = { g_intern_string (name), FALSE };

  search_read ((MirExpr *) e, &r);
  return r.found;
}

/* Effects that can be seen when a run fails: what was printed, the
 * message that stopped it, the draws made. Checks and reads are not among
 * them: moving a computation that may fail across one only changes which
 * of two failures comes first. */
static gboolean
fun_is_observable (const MirFun *f, const PassEffects *fx)
{
  switch (f->kind)
    {
    case MIR_FUN_STANLIB:
      return f->suffix == MIR_SUFFIX_RNG;
    case MIR_FUN_USER:
      return !fx || !g_hash_table_contains (fx->pure, f->name);
    case MIR_FUN_COMPILER:
      return f->internal == MIR_FN_PRINT || f->internal == MIR_FN_REJECT
             || f->internal == MIR_FN_FATAL_ERROR;
    }
  return TRUE;
}

typedef struct {
  const PassEffects *fx;
  gboolean           found;
} StmtEffects;

static void
note_observable (MirExpr *e, gpointer data)
{
  StmtEffects *se = data;

  if (se->found)
    return;
  if (e->kind == MIR_EXPR_CALL && fun_is_observable (&e->u.call.fun, se->fx))
    se->found = TRUE;
  else
    mir_expr_foreach_child (e, note_observable, data);
}

gboolean
pass_stmt_has_effects (const MirStmt *s, const PassEffects *fx)
{
  StmtEffects se = { fx, FALSE };

  if (s->kind == MIR_STMT_NR_CALL && fun_is_observable (&s->u.call.fun, fx))
    return TRUE;
  mir_stmt_foreach_expr ((MirStmt *) s, note_observable, &se);
  return se.found;
}

/* A function body's own effects, counting calls of functions not (yet)
 * known to be pure as effects. */
typedef struct {
  const PassEffects *fx;
  gboolean           impure;
} BodyScan;

static void
scan_body_expr (MirExpr *e, gpointer data)
{
  BodyScan *b = data;

  if (!b->impure && pass_expr_has_effects (e, b->fx))
    b->impure = TRUE;
}

static void
scan_body_stmt (MirStmt *s, gpointer data)
{
  BodyScan *b = data;

  if (b->impure)
    return;
  switch (s->kind)
    {
    case MIR_STMT_TARGET_PLUS:
    case MIR_STMT_JACOBIAN_PLUS:
      b->impure = TRUE;
      return;
    case MIR_STMT_NR_CALL:
      if (fun_has_effects (&s->u.call.fun, b->fx))
        b->impure = TRUE;
      break;
    default:
      break;
    }
  mir_stmt_foreach_expr (s, scan_body_expr, data);
}

void
pass_effects_init (PassEffects *fx, const MirProgram *program)
{
  g_autoptr (GHashTable) count = g_hash_table_new (NULL, NULL);
  gboolean grew = TRUE;

  fx->pure = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < program->functions->len; i++)
    {
      const MirFunDef *f = g_ptr_array_index (program->functions, i);
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (count, f->name));
      g_hash_table_insert (count, (gpointer) f->name, GUINT_TO_POINTER (n + 1));
    }
  /* The least set closed under "calls only pure functions": a function
   * calling itself, directly or not, never gets in. */
  while (grew)
    {
      grew = FALSE;
      for (guint i = 0; i < program->functions->len; i++)
        {
          const MirFunDef *f = g_ptr_array_index (program->functions, i);
          BodyScan b = { fx, FALSE };

          if (!f->body || g_hash_table_contains (fx->pure, f->name)
              || suffix_has_effects (f->suffix)
              || GPOINTER_TO_UINT (g_hash_table_lookup (count, f->name)) != 1)
            continue;
          mir_stmt_walk (f->body, scan_body_stmt, &b);
          if (!b.impure)
            {
              g_hash_table_add (fx->pure, (gpointer) f->name);
              grew = TRUE;
            }
        }
    }
}

void
pass_effects_clear (PassEffects *fx)
{
  g_clear_pointer (&fx->pure, g_hash_table_unref);
}

/* ---- rewriting ---- */

typedef struct {
  PassRewrite f;
  gpointer    user_data;
  gboolean    payload_vars;   /* rewrite the variable of FnCheck__ / FnWriteParam__ too */
} Rewriter;

static void rewrite_slot (Rewriter *r, MirExpr **slot, gboolean conditional);

static void
rewrite_list (Rewriter *r, GPtrArray *list, gboolean conditional)
{
  for (guint i = 0; list && i < list->len; i++)
    rewrite_slot (r, (MirExpr **) &list->pdata[i], conditional);
}

static void
rewrite_indices (Rewriter *r, GPtrArray *indices, gboolean conditional)
{
  for (guint i = 0; indices && i < indices->len; i++)
    {
      MirIndex *idx = g_ptr_array_index (indices, i);
      if (idx->e)
        rewrite_slot (r, &idx->e, conditional);
      if (idx->upper)
        rewrite_slot (r, &idx->upper, conditional);
    }
}

static void
rewrite_transform (Rewriter *r, MirTransform *t, gboolean conditional)
{
  if (!t)
    return;
  if (t->a)
    rewrite_slot (r, &t->a, conditional);
  if (t->b)
    rewrite_slot (r, &t->b, conditional);
  for (guint i = 0; t->members && i < t->members->len; i++)
    rewrite_transform (r, g_ptr_array_index (t->members, i), conditional);
}

static void
rewrite_sized (Rewriter *r, MirSizedType *t)
{
  if (!t)
    return;
  if (t->dim1)
    rewrite_slot (r, &t->dim1, FALSE);
  if (t->dim2)
    rewrite_slot (r, &t->dim2, FALSE);
  rewrite_sized (r, t->elem);
  for (guint i = 0; t->members && i < t->members->len; i++)
    rewrite_sized (r, g_ptr_array_index (t->members, i));
}

static void
rewrite_fun (Rewriter *r, MirFun *fun, gboolean conditional)
{
  if (!fun->data)
    return;
  rewrite_transform (r, fun->data->trans, conditional);
  rewrite_list (r, fun->data->dims, conditional);
  if (fun->data->var && r->payload_vars)
    rewrite_slot (r, &fun->data->var, conditional);
}

static void
rewrite_slot (Rewriter *r, MirExpr **slot, gboolean conditional)
{
  MirExpr *e = *slot;
  MirExpr *replacement = r->f (e, conditional, r->user_data);

  if (replacement)
    {
      if (replacement != e)
        mir_expr_free (e);
      *slot = replacement;
      return;
    }
  switch (e->kind)
    {
    case MIR_EXPR_VAR:
    case MIR_EXPR_LIT:
      break;
    case MIR_EXPR_CALL:
      rewrite_fun (r, &e->u.call.fun, conditional);
      rewrite_list (r, e->u.call.args, conditional);
      break;
    case MIR_EXPR_TERNARY:
      rewrite_slot (r, &e->u.ternary.cond, conditional);
      rewrite_slot (r, &e->u.ternary.if_true, TRUE);
      rewrite_slot (r, &e->u.ternary.if_false, TRUE);
      break;
    case MIR_EXPR_AND:
    case MIR_EXPR_OR:
      rewrite_slot (r, &e->u.logical.lhs, conditional);
      rewrite_slot (r, &e->u.logical.rhs, TRUE);
      break;
    case MIR_EXPR_INDEXED:
      rewrite_slot (r, &e->u.indexed.base, conditional);
      rewrite_indices (r, e->u.indexed.indices, conditional);
      break;
    case MIR_EXPR_PROMOTION:
      rewrite_slot (r, &e->u.promotion.expr, conditional);
      break;
    case MIR_EXPR_TUPLE_PROJ:
      rewrite_slot (r, &e->u.proj.base, conditional);
      break;
    case MIR_N_EXPR_KINDS:
      g_assert_not_reached ();
    }
}

static void
rewrite_lvalue (Rewriter *r, MirLvalue *l)
{
  if (l->proj_of)
    rewrite_lvalue (r, l->proj_of);
  rewrite_indices (r, l->indices, FALSE);
}

static void
rewrite_stmt (Rewriter *r, MirStmt *s)
{
  switch (s->kind)
    {
    case MIR_STMT_ASSIGN:
      rewrite_slot (r, &s->u.assign.rhs, FALSE);
      rewrite_lvalue (r, s->u.assign.lhs);
      break;
    case MIR_STMT_TARGET_PLUS:
    case MIR_STMT_JACOBIAN_PLUS:
      rewrite_slot (r, &s->u.increment.expr, FALSE);
      break;
    case MIR_STMT_NR_CALL:
      rewrite_fun (r, &s->u.call.fun, FALSE);
      rewrite_list (r, s->u.call.args, FALSE);
      break;
    case MIR_STMT_RETURN:
      if (s->u.ret.expr)
        rewrite_slot (r, &s->u.ret.expr, FALSE);
      break;
    case MIR_STMT_IF:
      rewrite_slot (r, &s->u.if_stmt.cond, FALSE);
      break;
    case MIR_STMT_WHILE:
      rewrite_slot (r, &s->u.while_stmt.cond, FALSE);
      break;
    case MIR_STMT_FOR:
      rewrite_slot (r, &s->u.for_stmt.lower, FALSE);
      rewrite_slot (r, &s->u.for_stmt.upper, FALSE);
      break;
    case MIR_STMT_DECL:
      rewrite_sized (r, s->u.decl.sized);
      if (s->u.decl.init)
        rewrite_slot (r, &s->u.decl.init, FALSE);
      break;
    default:
      break;
    }
}

void
pass_rewrite_stmt_exprs (MirStmt *s, PassRewrite f, gpointer user_data)
{
  Rewriter r = { f, user_data, FALSE };

  rewrite_stmt (&r, s);
}

void
pass_rewrite_expr (MirExpr **slot, PassRewrite f, gpointer user_data)
{
  Rewriter r = { f, user_data, FALSE };

  rewrite_slot (&r, slot, FALSE);
}

/* ---- statement trees ---- */

GPtrArray *
pass_stmt_list (MirStmt *s)
{
  switch (s->kind)
    {
    case MIR_STMT_BLOCK:
    case MIR_STMT_SLIST:
      return s->u.block.stmts;
    case MIR_STMT_PROFILE:
      return s->u.profile.stmts;
    default:
      return NULL;
    }
}

static void
map_children (MirStmt *s, gboolean pre, PassStmtVisit visit, gpointer user_data)
{
  GPtrArray *list = pass_stmt_list (s);
  void (*map) (MirStmt **, PassStmtVisit, gpointer) = pre ? pass_map_stmt_pre
                                                          : pass_map_stmt_post;

  if (list)
    {
      for (guint i = 0; i < list->len; i++)
        map ((MirStmt **) &list->pdata[i], visit, user_data);
      return;
    }
  switch (s->kind)
    {
    case MIR_STMT_IF:
      map (&s->u.if_stmt.then_stmt, visit, user_data);
      if (s->u.if_stmt.else_stmt)
        map (&s->u.if_stmt.else_stmt, visit, user_data);
      break;
    case MIR_STMT_WHILE:
      map (&s->u.while_stmt.body, visit, user_data);
      break;
    case MIR_STMT_FOR:
      map (&s->u.for_stmt.body, visit, user_data);
      break;
    default:
      break;
    }
}

void
pass_map_stmt_post (MirStmt **slot, PassStmtVisit visit, gpointer user_data)
{
  map_children (*slot, FALSE, visit, user_data);
  visit (slot, user_data);
}

void
pass_map_stmt_pre (MirStmt **slot, PassStmtVisit visit, gpointer user_data)
{
  visit (slot, user_data);
  map_children (*slot, TRUE, visit, user_data);
}

void
pass_map_program_post (MirProgram *p, gboolean functions, PassStmtVisit visit,
                       gpointer user_data)
{
  if (functions)
    for (guint i = 0; i < p->functions->len; i++)
      {
        MirFunDef *f = g_ptr_array_index (p->functions, i);
        if (f->body)
          pass_map_stmt_post (&f->body, visit, user_data);
      }
  for (int part = 0; part < MIR_N_PARTS; part++)
    {
      GPtrArray *list = p->parts[part];
      for (guint i = 0; i < list->len; i++)
        pass_map_stmt_post ((MirStmt **) &list->pdata[i], visit, user_data);
    }
}

static MirExpr *
rename_expr (MirExpr *e, gpointer data)
{
  const char *to;

  if (e->kind == MIR_EXPR_VAR && (to = g_hash_table_lookup (data, e->u.var.name)))
    e->u.var.name = to;
  return e;
}

static void
rename_lvalue (MirLvalue *l, GHashTable *renames)
{
  const char *to;

  if (l->proj_of)
    rename_lvalue (l->proj_of, renames);
  else if ((to = g_hash_table_lookup (renames, l->var)))
    l->var = to;
}

static void
rename_stmt (MirStmt *s, gpointer data)
{
  const char *to;

  switch (s->kind)
    {
    case MIR_STMT_DECL:
      if ((to = g_hash_table_lookup (data, s->u.decl.name)))
        s->u.decl.name = to;
      break;
    case MIR_STMT_FOR:
      if ((to = g_hash_table_lookup (data, s->u.for_stmt.var)))
        s->u.for_stmt.var = to;
      break;
    case MIR_STMT_ASSIGN:
      rename_lvalue (s->u.assign.lhs, data);
      break;
    default:
      break;
    }
}

void
pass_rename_vars (MirStmt *s, GHashTable *renames)
{
  mir_stmt_walk (s, rename_stmt, renames);
  mir_stmt_map_exprs (s, rename_expr, renames);
}

static MirExpr *
subst_one (const MirExpr *e, gboolean conditional, gpointer data)
{
  const MirExpr *by;
  MirExpr *copy;

  if (e->kind != MIR_EXPR_VAR || !(by = g_hash_table_lookup (data, e->u.var.name)))
    return NULL;
  copy = mir_expr_copy (by);
  copy->span = e->span;
  return pass_promote (copy, e->type);
}

static void
subst_stmt (MirStmt *s, gpointer data)
{
  Rewriter r = { subst_one, data, TRUE };

  rewrite_stmt (&r, s);
}

void
pass_subst_vars (MirStmt *s, GHashTable *subst)
{
  mir_stmt_walk (s, subst_stmt, subst);
}

typedef struct {
  const char *name;
  gboolean    found;
} WriteSearch;

static void
search_write (MirStmt *s, gpointer data)
{
  WriteSearch *w = data;

  if ((s->kind == MIR_STMT_DECL && s->u.decl.name == w->name)
      || (s->kind == MIR_STMT_FOR && s->u.for_stmt.var == w->name)
      || (s->kind == MIR_STMT_ASSIGN && mir_lvalue_variable (s->u.assign.lhs) == w->name))
    w->found = TRUE;
}

gboolean
pass_stmt_writes (const MirStmt *s, const char *name)
{
  WriteSearch w = { g_intern_string (name), FALSE };

  mir_stmt_walk ((MirStmt *) s, search_write, &w);
  return w.found;
}

gboolean
pass_stmt_breaks_out (const MirStmt *s)
{
  GPtrArray *list;

  switch (s->kind)
    {
    case MIR_STMT_BREAK:
    case MIR_STMT_CONTINUE:
      return TRUE;
    case MIR_STMT_IF:
      return pass_stmt_breaks_out (s->u.if_stmt.then_stmt)
             || (s->u.if_stmt.else_stmt && pass_stmt_breaks_out (s->u.if_stmt.else_stmt));
    case MIR_STMT_BLOCK:
    case MIR_STMT_SLIST:
    case MIR_STMT_PROFILE:
      list = pass_stmt_list ((MirStmt *) s);
      for (guint i = 0; i < list->len; i++)
        if (pass_stmt_breaks_out (g_ptr_array_index (list, i)))
          return TRUE;
      return FALSE;
    default:
      return FALSE;
    }
}

static void
search_return (MirStmt *s, gpointer data)
{
  if (s->kind == MIR_STMT_RETURN)
    *(gboolean *) data = TRUE;
}

gboolean
pass_stmt_returns (const MirStmt *s)
{
  gboolean found = FALSE;

  mir_stmt_walk ((MirStmt *) s, search_return, &found);
  return found;
}

gboolean
pass_list_declares (const GPtrArray *stmts)
{
  for (guint i = 0; stmts && i < stmts->len; i++)
    {
      const MirStmt *s = g_ptr_array_index (stmts, i);
      if (s->kind == MIR_STMT_DECL
          || (s->kind == MIR_STMT_SLIST && pass_list_declares (s->u.block.stmts)))
        return TRUE;
    }
  return FALSE;
}

MirStmt *
pass_slist_of (const TildeSpan *span, MirStmt *first, ...)
{
  GPtrArray *stmts = mir_stmt_list_new ();
  va_list ap;

  va_start (ap, first);
  for (MirStmt *s = first; s; s = va_arg (ap, MirStmt *))
    g_ptr_array_add (stmts, s);
  va_end (ap);
  return mir_stmt_slist (span, stmts);
}

/* ---- literals and types ---- */

MirExpr *
pass_int_lit (const TildeSpan *span, gint64 value)
{
  return mir_expr_int (span, value);
}

MirExpr *
pass_real_lit (const TildeSpan *span, double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE + 2];

  g_ascii_dtostr (buf, G_ASCII_DTOSTR_BUF_SIZE, value);
  if (!strpbrk (buf, ".eE"))
    strcat (buf, ".0");
  return mir_expr_lit (span, tilde_type_real (), MIR_LIT_REAL, buf);
}

gboolean
pass_lit_value (const MirExpr *e, double *value)
{
  char *end = NULL;

  if (e->kind == MIR_EXPR_PROMOTION)
    return pass_lit_value (e->u.promotion.expr, value);
  if (e->kind != MIR_EXPR_LIT || (e->u.lit.kind != MIR_LIT_INT && e->u.lit.kind != MIR_LIT_REAL))
    return FALSE;
  *value = g_ascii_strtod (e->u.lit.text, &end);
  return end && *end == '\0' && isfinite (*value);
}

gboolean
pass_is_number (const MirExpr *e, double value)
{
  double v;

  return pass_lit_value (e, &v) && v == value;
}

static const struct {
  const char   *name;
  TildeOperator op;
} operator_functions[] = {
  { "Plus__", TILDE_OPERATOR_ADD },          { "Minus__", TILDE_OPERATOR_SUBTRACT },
  { "Times__", TILDE_OPERATOR_MULTIPLY },    { "Divide__", TILDE_OPERATOR_DIVIDE },
  { "IntDivide__", TILDE_OPERATOR_INT_DIVIDE }, { "Modulo__", TILDE_OPERATOR_MODULO },
  { "LDivide__", TILDE_OPERATOR_LEFT_DIVIDE }, { "EltTimes__", TILDE_OPERATOR_ELT_MULTIPLY },
  { "EltDivide__", TILDE_OPERATOR_ELT_DIVIDE }, { "Pow__", TILDE_OPERATOR_POW },
  { "EltPow__", TILDE_OPERATOR_ELT_POW },    { "Or__", TILDE_OPERATOR_OR },
  { "And__", TILDE_OPERATOR_AND },           { "Equals__", TILDE_OPERATOR_EQUALS },
  { "NEquals__", TILDE_OPERATOR_NOT_EQUALS }, { "Less__", TILDE_OPERATOR_LESS },
  { "Leq__", TILDE_OPERATOR_LESS_EQUAL },    { "Greater__", TILDE_OPERATOR_GREATER },
  { "Geq__", TILDE_OPERATOR_GREATER_EQUAL }, { "PPlus__", TILDE_OPERATOR_PLUS },
  { "PMinus__", TILDE_OPERATOR_MINUS },      { "PNot__", TILDE_OPERATOR_NOT },
  { "Transpose__", TILDE_OPERATOR_TRANSPOSE },
};

const TildeType *
pass_call_type (const char *name, GPtrArray *args, const TildeType **signature)
{
  guint n = args ? args->len : 0;
  g_autofree TildeArgType *types = g_new0 (TildeArgType, MAX (n, 1));
  TildeMatch match = { 0 };
  TildeMatchStatus status = TILDE_MATCH_NONE;
  gboolean done = FALSE;

  for (guint i = 0; i < n; i++)
    {
      const MirExpr *a = g_ptr_array_index (args, i);
      types[i].ad = a->ad_level;
      types[i].type = a->type;
    }
  for (guint i = 0; i < G_N_ELEMENTS (operator_functions) && !done; i++)
    if (strcmp (operator_functions[i].name, name) == 0)
      {
        status = tilde_library_resolve_operator (operator_functions[i].op, types, n, &match,
                                                 NULL);
        done = TRUE;
      }
  if (!done)
    status = tilde_library_resolve (name, types, n, &match, NULL);
  if (status != TILDE_MATCH_UNIQUE)
    return NULL;
  if (signature)
    *signature = match.function;
  return match.return_type;
}

MirExpr *
pass_promote (MirExpr *e, const TildeType *to)
{
  if (!to || !e->type || e->type == to)
    return e;
  if (tilde_type_kind (to) == TILDE_TYPE_FUNCTION || tilde_type_promotion_cost (to, e->type) <= 0)
    return e;
  return mir_expr_promotion (e, to, e->ad_level);
}

static MirExpr *
data_expr (MirExpr *e, gpointer data)
{
  e->ad_level = TILDE_AD_DATA;
  if (e->kind == MIR_EXPR_PROMOTION)
    e->u.promotion.ad = TILDE_AD_DATA;
  return e;
}

static void
data_lvalue (MirLvalue *l)
{
  for (; l; l = l->proj_of)
    l->ad_level = TILDE_AD_DATA;
}

static void
data_stmt (MirStmt *s, gpointer data)
{
  if (s->kind == MIR_STMT_DECL)
    s->u.decl.ad = TILDE_AD_DATA;
  else if (s->kind == MIR_STMT_ASSIGN)
    data_lvalue (s->u.assign.lhs);
}

void
pass_make_expr_data (MirExpr *e)
{
  mir_expr_map (e, data_expr, NULL);
}

static void
raise_child (MirExpr *e, gpointer data)
{
  if (e->ad_level == TILDE_AD_AUTODIFF)
    *(TildeAdLevel *) data = TILDE_AD_AUTODIFF;
}

static MirExpr *
raise_expr (MirExpr *e, gpointer data)
{
  TildeAdLevel children = TILDE_AD_DATA;

  if (e->ad_level == TILDE_AD_AUTODIFF || !e->type || !tilde_type_is_autodiffable (e->type)
      || e->kind == MIR_EXPR_TERNARY
      || (e->kind == MIR_EXPR_CALL && (e->u.call.fun.suffix == MIR_SUFFIX_RNG
                                       || e->u.call.fun.kind == MIR_FUN_COMPILER)))
    return e;
  mir_expr_foreach_child (e, raise_child, &children);
  e->ad_level = children;
  return e;
}

static MirExpr *
raise_rewrite (const MirExpr *e, gboolean conditional, gpointer data)
{
  MirExpr *x = (MirExpr *) e;

  /* bottom-up over the whole expression, then keep it */
  return mir_expr_map (x, raise_expr, NULL);
}

void
pass_raise_ad (MirStmt *s)
{
  pass_rewrite_stmt_exprs (s, raise_rewrite, NULL);
}

void
pass_make_data (MirStmt *s)
{
  mir_stmt_walk (s, data_stmt, NULL);
  mir_stmt_map_exprs (s, data_expr, NULL);
}

/* ---- program parts ---- */

TildeAdLevel
pass_part_ad (MirPart part)
{
  return part == MIR_PART_LOG_PROB || part == MIR_PART_TRANSFORM_INITS ? TILDE_AD_AUTODIFF
                                                                        : TILDE_AD_DATA;
}

/* The statements of the graph from `first` on, nested ones included: the
 * graph numbers them in the order mir_stmt_walk visits them. */
static GPtrArray *
graph_stmts (const MirFlowGraph *graph, const MirStmt *first)
{
  guint start = first ? mir_flow_graph_node_of (graph, first) : graph->exit;
  GPtrArray *stmts = g_ptr_array_sized_new (graph->exit - start + 1);

  g_ptr_array_set_size (stmts, graph->exit - start);
  for (guint v = start; v < graph->exit; v++)
    stmts->pdata[v - start] = (gpointer) graph->nodes[v].stmt;
  return stmts;
}

static void
run_list_graph (GPtrArray *prefix, GPtrArray *part, TildeAdLevel ad, PassGraphWanted wanted,
                PassGraphRun run, gpointer user_data)
{
  const GPtrArray *lists[2] = { prefix, part };
  g_autoptr (MirFlowGraph) graph = NULL;
  g_autoptr (GPtrArray) stmts = NULL;

  if (wanted)
    {
      g_autoptr (GPtrArray) roots = g_ptr_array_new ();
      for (guint l = 0; l < 2; l++)
        for (guint i = 0; lists[l] && i < lists[l]->len; i++)
          g_ptr_array_add (roots, lists[l]->pdata[i]);
      if (!wanted (roots, user_data))
        return;
    }
  if (prefix)
    graph = mir_flow_graph_new_for_lists (lists, 2, MIR_FLOW_GRAPH_DEFAULT);
  else
    graph = mir_flow_graph_new_for_lists (&lists[1], 1, MIR_FLOW_GRAPH_DEFAULT);
  stmts = graph_stmts (graph, part->len ? g_ptr_array_index (part, 0) : NULL);
  run (graph, stmts, ad, user_data);
}

void
pass_foreach_graph_wanted (MirProgram *p, gboolean after_data, PassGraphWanted wanted,
                           PassGraphRun run, gpointer user_data)
{
  for (guint i = 0; i < p->functions->len; i++)
    {
      MirFunDef *f = g_ptr_array_index (p->functions, i);
      g_autoptr (MirFlowGraph) graph = NULL;
      g_autoptr (GPtrArray) stmts = NULL;

      if (!f->body)
        continue;
      if (wanted)
        {
          g_autoptr (GPtrArray) roots = g_ptr_array_new ();
          g_ptr_array_add (roots, f->body);
          if (!wanted (roots, user_data))
            continue;
        }
      graph = mir_flow_graph_new (f->body, MIR_FLOW_GRAPH_DEFAULT);
      stmts = graph_stmts (graph, f->body);
      run (graph, stmts, TILDE_AD_AUTODIFF, user_data);
    }
  for (int part = 0; part < MIR_N_PARTS; part++)
    run_list_graph (after_data && part != MIR_PART_PREPARE_DATA
                      ? p->parts[MIR_PART_PREPARE_DATA] : NULL,
                    p->parts[part], pass_part_ad (part), wanted, run, user_data);
}

void
pass_foreach_graph (MirProgram *p, gboolean after_data, PassGraphRun run, gpointer user_data)
{
  pass_foreach_graph_wanted (p, after_data, NULL, run, user_data);
}

gboolean *
pass_reachable (const MirFlowGraph *graph)
{
  gboolean *seen = g_new0 (gboolean, graph->n_nodes);
  guint *stack = g_new (guint, graph->n_nodes + 1);
  guint depth = 0;

  stack[depth++] = graph->entry;
  seen[graph->entry] = TRUE;
  while (depth > 0)
    {
      const MirFlowNode *node = &graph->nodes[stack[--depth]];
      for (guint i = 0; i < node->n_succs; i++)
        if (!seen[node->succs[i]])
          {
            seen[node->succs[i]] = TRUE;
            stack[depth++] = node->succs[i];
          }
    }
  g_free (stack);
  return seen;
}
