/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/mir.h"

#include <stdarg.h>
#include <string.h>

/* ---- constructors ---- */

static MirExpr *
expr_new (MirExprKind kind, const TildeSpan *span, const TildeType *type, TildeAdLevel ad)
{
  MirExpr *e = g_new0 (MirExpr, 1);
  e->kind = kind;
  e->type = type;
  e->ad_level = ad;
  if (span)
    e->span = *span;
  return e;
}

GPtrArray *
mir_expr_list_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) mir_expr_free);
}

GPtrArray *
mir_expr_list_of (MirExpr *first, ...)
{
  GPtrArray *list = mir_expr_list_new ();
  va_list ap;
  va_start (ap, first);
  for (MirExpr *e = first; e; e = va_arg (ap, MirExpr *))
    g_ptr_array_add (list, e);
  va_end (ap);
  return list;
}

GPtrArray *
mir_index_list_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) mir_index_free);
}

GPtrArray *
mir_stmt_list_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) mir_stmt_free);
}

static GPtrArray *
or_empty_exprs (GPtrArray *list)
{
  return list ? list : mir_expr_list_new ();
}

MirExpr *
mir_expr_var (const TildeSpan *span, const TildeType *type, TildeAdLevel ad, const char *name)
{
  MirExpr *e = expr_new (MIR_EXPR_VAR, span, type, ad);
  e->u.var.name = g_intern_string (name);
  return e;
}

MirExpr *
mir_expr_lit (const TildeSpan *span, const TildeType *type, MirLitKind kind, const char *text)
{
  MirExpr *e = expr_new (MIR_EXPR_LIT, span, type, TILDE_AD_DATA);
  e->u.lit.kind = kind;
  e->u.lit.text = g_intern_string (text);
  return e;
}

MirExpr *
mir_expr_int (const TildeSpan *span, gint64 value)
{
  char buf[32];
  g_snprintf (buf, sizeof buf, "%" G_GINT64_FORMAT, value);
  return mir_expr_lit (span, tilde_type_int (), MIR_LIT_INT, buf);
}

MirExpr *
mir_expr_string (const TildeSpan *span, const char *text)
{
  return mir_expr_lit (span, tilde_type_string (), MIR_LIT_STRING, text);
}

MirExpr *
mir_expr_call (const TildeSpan *span, const TildeType *type, TildeAdLevel ad, MirFun fun,
               GPtrArray *args)
{
  MirExpr *e = expr_new (MIR_EXPR_CALL, span, type, ad);
  e->u.call.fun = fun;
  e->u.call.args = or_empty_exprs (args);
  return e;
}

MirExpr *
mir_expr_stanlib (const TildeSpan *span, const TildeType *type, TildeAdLevel ad,
                  const char *name, GPtrArray *args)
{
  return mir_expr_call (span, type, ad, mir_fun_stanlib (name, MIR_SUFFIX_PLAIN, FALSE), args);
}

MirExpr *
mir_expr_internal (const TildeSpan *span, const TildeType *type, TildeAdLevel ad,
                   MirInternal fn, MirInternalData *data, GPtrArray *args)
{
  return mir_expr_call (span, type, ad, mir_fun_internal (fn, data), args);
}

MirExpr *
mir_expr_ternary (const TildeSpan *span, const TildeType *type, TildeAdLevel ad,
                  MirExpr *cond, MirExpr *t, MirExpr *f)
{
  MirExpr *e = expr_new (MIR_EXPR_TERNARY, span, type, ad);
  e->u.ternary.cond = cond;
  e->u.ternary.if_true = t;
  e->u.ternary.if_false = f;
  return e;
}

MirExpr *
mir_expr_logical (const TildeSpan *span, MirExprKind and_or, TildeAdLevel ad,
                  MirExpr *lhs, MirExpr *rhs)
{
  g_return_val_if_fail (and_or == MIR_EXPR_AND || and_or == MIR_EXPR_OR, NULL);
  MirExpr *e = expr_new (and_or, span, tilde_type_int (), ad);
  e->u.logical.lhs = lhs;
  e->u.logical.rhs = rhs;
  return e;
}

MirExpr *
mir_expr_indexed (const TildeSpan *span, const TildeType *type, TildeAdLevel ad,
                  MirExpr *base, GPtrArray *indices)
{
  MirExpr *e = expr_new (MIR_EXPR_INDEXED, span, type, ad);
  e->u.indexed.base = base;
  e->u.indexed.indices = indices ? indices : mir_index_list_new ();
  return e;
}

MirExpr *
mir_expr_promotion (MirExpr *expr, const TildeType *to, TildeAdLevel ad)
{
  MirExpr *e = expr_new (MIR_EXPR_PROMOTION, &expr->span, to, ad);
  e->u.promotion.expr = expr;
  e->u.promotion.to = to;
  e->u.promotion.ad = ad;
  return e;
}

MirExpr *
mir_expr_tuple_proj (const TildeSpan *span, const TildeType *type, TildeAdLevel ad,
                     MirExpr *base, int slot)
{
  MirExpr *e = expr_new (MIR_EXPR_TUPLE_PROJ, span, type, ad);
  e->u.proj.base = base;
  e->u.proj.slot = slot;
  return e;
}

MirIndex *
mir_index_new (MirIndexKind kind, MirExpr *e, MirExpr *upper)
{
  MirIndex *i = g_new0 (MirIndex, 1);
  i->kind = kind;
  i->e = e;
  i->upper = upper;
  return i;
}

MirFun
mir_fun_stanlib (const char *name, MirSuffix suffix, gboolean propto)
{
  return (MirFun) { .kind = MIR_FUN_STANLIB, .name = g_intern_string (name),
                    .suffix = suffix, .propto = propto, .mem = MIR_MEM_AOS };
}

MirFun
mir_fun_user (const char *name, MirSuffix suffix, gboolean propto)
{
  return (MirFun) { .kind = MIR_FUN_USER, .name = g_intern_string (name),
                    .suffix = suffix, .propto = propto };
}

MirFun
mir_fun_internal (MirInternal fn, MirInternalData *data)
{
  return (MirFun) { .kind = MIR_FUN_COMPILER, .internal = fn, .data = data };
}

MirInternalData *
mir_internal_data_new (void)
{
  return g_new0 (MirInternalData, 1);
}

MirTransform *
mir_transform_new (MirTransformKind kind, MirExpr *a, MirExpr *b)
{
  MirTransform *t = g_new0 (MirTransform, 1);
  t->kind = kind;
  t->a = a;
  t->b = b;
  if (kind == MIR_TRANS_TUPLE)
    t->members = g_ptr_array_new_with_free_func ((GDestroyNotify) mir_transform_free);
  return t;
}

MirSizedType *
mir_sized_new (MirSizedKind kind, MirExpr *dim1, MirExpr *dim2)
{
  MirSizedType *t = g_new0 (MirSizedType, 1);
  t->kind = kind;
  t->dim1 = dim1;
  t->dim2 = dim2;
  t->mem = MIR_MEM_AOS;
  return t;
}

MirSizedType *
mir_sized_array (MirSizedType *elem, MirExpr *size)
{
  MirSizedType *t = mir_sized_new (MIR_SIZED_ARRAY, size, NULL);
  t->elem = elem;
  return t;
}

MirSizedType *
mir_sized_tuple (GPtrArray *members)
{
  MirSizedType *t = mir_sized_new (MIR_SIZED_TUPLE, NULL, NULL);
  t->members = members;
  return t;
}

static MirLvalue *
lvalue_new (const TildeSpan *span, const TildeType *type, TildeAdLevel ad, GPtrArray *indices)
{
  MirLvalue *l = g_new0 (MirLvalue, 1);
  if (span)
    l->span = *span;
  l->type = type;
  l->ad_level = ad;
  l->indices = indices ? indices : mir_index_list_new ();
  return l;
}

MirLvalue *
mir_lvalue_var (const TildeSpan *span, const TildeType *type, TildeAdLevel ad,
                const char *var, GPtrArray *indices)
{
  MirLvalue *l = lvalue_new (span, type, ad, indices);
  l->var = g_intern_string (var);
  return l;
}

MirLvalue *
mir_lvalue_proj (const TildeSpan *span, const TildeType *type, TildeAdLevel ad,
                 MirLvalue *of, int slot, GPtrArray *indices)
{
  MirLvalue *l = lvalue_new (span, type, ad, indices);
  l->proj_of = of;
  l->slot = slot;
  return l;
}

MirStmt *
mir_stmt_new (MirStmtKind kind, const TildeSpan *span)
{
  MirStmt *s = g_new0 (MirStmt, 1);
  s->kind = kind;
  if (span)
    s->span = *span;
  return s;
}

MirStmt *
mir_stmt_assign (const TildeSpan *span, MirLvalue *lhs, MirExpr *rhs)
{
  MirStmt *s = mir_stmt_new (MIR_STMT_ASSIGN, span);
  s->u.assign.lhs = lhs;
  s->u.assign.rhs = rhs;
  return s;
}

MirStmt *
mir_stmt_assign_var (const TildeSpan *span, const char *var, MirExpr *rhs)
{
  MirLvalue *lhs = mir_lvalue_var (span, rhs->type, rhs->ad_level, var, NULL);
  return mir_stmt_assign (span, lhs, rhs);
}

MirStmt *
mir_stmt_target (const TildeSpan *span, MirExpr *expr, gboolean from_tilde, MirTermRole role)
{
  MirStmt *s = mir_stmt_new (MIR_STMT_TARGET_PLUS, span);
  s->u.increment.expr = expr;
  s->u.increment.from_tilde = from_tilde;
  s->u.increment.role = role;
  return s;
}

MirStmt *
mir_stmt_jacobian (const TildeSpan *span, MirExpr *expr)
{
  MirStmt *s = mir_stmt_new (MIR_STMT_JACOBIAN_PLUS, span);
  s->u.increment.expr = expr;
  return s;
}

MirStmt *
mir_stmt_nr_call (const TildeSpan *span, MirFun fun, GPtrArray *args)
{
  MirStmt *s = mir_stmt_new (MIR_STMT_NR_CALL, span);
  s->u.call.fun = fun;
  s->u.call.args = or_empty_exprs (args);
  return s;
}

MirStmt *
mir_stmt_return (const TildeSpan *span, MirExpr *expr)
{
  MirStmt *s = mir_stmt_new (MIR_STMT_RETURN, span);
  s->u.ret.expr = expr;
  return s;
}

MirStmt *
mir_stmt_if (const TildeSpan *span, MirExpr *cond, MirStmt *then_stmt, MirStmt *else_stmt)
{
  MirStmt *s = mir_stmt_new (MIR_STMT_IF, span);
  s->u.if_stmt.cond = cond;
  s->u.if_stmt.then_stmt = then_stmt;
  s->u.if_stmt.else_stmt = else_stmt;
  return s;
}

MirStmt *
mir_stmt_while (const TildeSpan *span, MirExpr *cond, MirStmt *body)
{
  MirStmt *s = mir_stmt_new (MIR_STMT_WHILE, span);
  s->u.while_stmt.cond = cond;
  s->u.while_stmt.body = body;
  return s;
}

MirStmt *
mir_stmt_for (const TildeSpan *span, const char *var, MirExpr *lower, MirExpr *upper,
              MirStmt *body)
{
  MirStmt *s = mir_stmt_new (MIR_STMT_FOR, span);
  s->u.for_stmt.var = g_intern_string (var);
  s->u.for_stmt.lower = lower;
  s->u.for_stmt.upper = upper;
  s->u.for_stmt.body = body;
  return s;
}

MirStmt *
mir_stmt_profile (const TildeSpan *span, const char *name, GPtrArray *stmts)
{
  MirStmt *s = mir_stmt_new (MIR_STMT_PROFILE, span);
  s->u.profile.name = g_intern_string (name);
  s->u.profile.stmts = stmts ? stmts : mir_stmt_list_new ();
  return s;
}

MirStmt *
mir_stmt_block (const TildeSpan *span, GPtrArray *stmts)
{
  MirStmt *s = mir_stmt_new (MIR_STMT_BLOCK, span);
  s->u.block.stmts = stmts ? stmts : mir_stmt_list_new ();
  return s;
}

MirStmt *
mir_stmt_slist (const TildeSpan *span, GPtrArray *stmts)
{
  MirStmt *s = mir_stmt_block (span, stmts);
  s->kind = MIR_STMT_SLIST;
  return s;
}

MirStmt *
mir_stmt_decl (const TildeSpan *span, const char *name, const TildeType *type,
               MirSizedType *sized, TildeAdLevel ad, MirDeclInit init_kind, MirExpr *init)
{
  MirStmt *s = mir_stmt_new (MIR_STMT_DECL, span);
  s->u.decl.name = g_intern_string (name);
  s->u.decl.type = type;
  s->u.decl.sized = sized;
  s->u.decl.ad = ad;
  s->u.decl.init_kind = init ? MIR_DECL_ASSIGN : init_kind;
  s->u.decl.init = init;
  return s;
}

static void
fun_def_free (MirFunDef *f)
{
  if (!f)
    return;
  g_array_unref (f->args);
  mir_stmt_free (f->body);
  g_free (f->annotations.names);
  g_free (f);
}

static void
input_var_free (MirInputVar *v)
{
  mir_sized_free (v->type);
  g_free (v->annotations.names);
  g_free (v);
}

static void
output_var_free (MirOutputVar *v)
{
  mir_sized_free (v->constrained);
  mir_sized_free (v->unconstrained);
  mir_transform_free (v->trans);
  g_free (v);
}

MirProgram *
mir_program_new (const char *name, const char *path, TildeSourceSet *sources)
{
  MirProgram *p = g_new0 (MirProgram, 1);
  p->name = g_strdup (name ? name : "");
  p->path = g_strdup (path ? path : "");
  p->sources = sources ? tilde_source_set_ref (sources) : NULL;
  p->functions = g_ptr_array_new_with_free_func ((GDestroyNotify) fun_def_free);
  p->input_vars = g_ptr_array_new_with_free_func ((GDestroyNotify) input_var_free);
  for (int i = 0; i < MIR_N_PARTS; i++)
    p->parts[i] = mir_stmt_list_new ();
  p->output_vars = g_ptr_array_new_with_free_func ((GDestroyNotify) output_var_free);
  return p;
}

void
mir_annotations_set (MirAnnotations *a, const char *const *names, guint n)
{
  g_free (a->names);
  a->names = n ? g_new (const char *, n) : NULL;
  a->n = n;
  for (guint i = 0; i < n; i++)
    a->names[i] = g_intern_string (names[i]);
}

void
mir_annotations_add (MirAnnotations *a, const char *name)
{
  a->names = g_renew (const char *, a->names, a->n + 1);
  a->names[a->n++] = g_intern_string (name);
}

gboolean
mir_annotations_has (const MirAnnotations *a, const char *name)
{
  const char *interned = g_intern_string (name);
  for (guint i = 0; i < a->n; i++)
    if (a->names[i] == interned)
      return TRUE;
  return FALSE;
}

static MirAnnotations
annotations_copy (const MirAnnotations *a)
{
  MirAnnotations c = { NULL, 0 };
  mir_annotations_set (&c, a->names, a->n);
  return c;
}

static gboolean
annotations_equal (const MirAnnotations *a, const MirAnnotations *b)
{
  if (a->n != b->n)
    return FALSE;
  for (guint i = 0; i < a->n; i++)
    if (a->names[i] != b->names[i])
      return FALSE;
  return TRUE;
}

/* ---- freeing ---- */

static void
list_unref (GPtrArray *list)
{
  if (list)
    g_ptr_array_unref (list);
}

void
mir_internal_data_free (MirInternalData *d)
{
  if (!d)
    return;
  mir_transform_free (d->trans);
  list_unref (d->dims);
  mir_expr_free (d->var);
  g_free (d);
}

void
mir_fun_clear (MirFun *f)
{
  mir_internal_data_free (f->data);
  f->data = NULL;
}

void
mir_transform_free (MirTransform *t)
{
  if (!t)
    return;
  mir_expr_free (t->a);
  mir_expr_free (t->b);
  list_unref (t->members);
  g_free (t);
}

void
mir_sized_free (MirSizedType *t)
{
  if (!t)
    return;
  mir_expr_free (t->dim1);
  mir_expr_free (t->dim2);
  mir_sized_free (t->elem);
  list_unref (t->members);
  g_free (t);
}

void
mir_index_free (MirIndex *i)
{
  if (!i)
    return;
  mir_expr_free (i->e);
  mir_expr_free (i->upper);
  g_free (i);
}

void
mir_lvalue_free (MirLvalue *l)
{
  if (!l)
    return;
  mir_lvalue_free (l->proj_of);
  list_unref (l->indices);
  g_free (l);
}

void
mir_expr_free (MirExpr *e)
{
  if (!e)
    return;
  switch (e->kind)
    {
    case MIR_EXPR_VAR:
    case MIR_EXPR_LIT:
      break;
    case MIR_EXPR_CALL:
      mir_fun_clear (&e->u.call.fun);
      list_unref (e->u.call.args);
      break;
    case MIR_EXPR_TERNARY:
      mir_expr_free (e->u.ternary.cond);
      mir_expr_free (e->u.ternary.if_true);
      mir_expr_free (e->u.ternary.if_false);
      break;
    case MIR_EXPR_AND:
    case MIR_EXPR_OR:
      mir_expr_free (e->u.logical.lhs);
      mir_expr_free (e->u.logical.rhs);
      break;
    case MIR_EXPR_INDEXED:
      mir_expr_free (e->u.indexed.base);
      list_unref (e->u.indexed.indices);
      break;
    case MIR_EXPR_PROMOTION:
      mir_expr_free (e->u.promotion.expr);
      break;
    case MIR_EXPR_TUPLE_PROJ:
      mir_expr_free (e->u.proj.base);
      break;
    case MIR_N_EXPR_KINDS:
      g_assert_not_reached ();
    }
  g_free (e);
}

void
mir_stmt_free (MirStmt *s)
{
  if (!s)
    return;
  switch (s->kind)
    {
    case MIR_STMT_ASSIGN:
      mir_lvalue_free (s->u.assign.lhs);
      mir_expr_free (s->u.assign.rhs);
      break;
    case MIR_STMT_TARGET_PLUS:
    case MIR_STMT_JACOBIAN_PLUS:
      mir_expr_free (s->u.increment.expr);
      break;
    case MIR_STMT_NR_CALL:
      mir_fun_clear (&s->u.call.fun);
      list_unref (s->u.call.args);
      break;
    case MIR_STMT_RETURN:
      mir_expr_free (s->u.ret.expr);
      break;
    case MIR_STMT_BREAK:
    case MIR_STMT_CONTINUE:
    case MIR_STMT_SKIP:
      break;
    case MIR_STMT_IF:
      mir_expr_free (s->u.if_stmt.cond);
      mir_stmt_free (s->u.if_stmt.then_stmt);
      mir_stmt_free (s->u.if_stmt.else_stmt);
      break;
    case MIR_STMT_WHILE:
      mir_expr_free (s->u.while_stmt.cond);
      mir_stmt_free (s->u.while_stmt.body);
      break;
    case MIR_STMT_FOR:
      mir_expr_free (s->u.for_stmt.lower);
      mir_expr_free (s->u.for_stmt.upper);
      mir_stmt_free (s->u.for_stmt.body);
      break;
    case MIR_STMT_PROFILE:
      list_unref (s->u.profile.stmts);
      break;
    case MIR_STMT_BLOCK:
    case MIR_STMT_SLIST:
      list_unref (s->u.block.stmts);
      break;
    case MIR_STMT_DECL:
      mir_sized_free (s->u.decl.sized);
      mir_expr_free (s->u.decl.init);
      g_free (s->u.decl.annotations.names);
      break;
    case MIR_N_STMT_KINDS:
      g_assert_not_reached ();
    }
  g_free (s);
}

void
mir_program_free (MirProgram *p)
{
  if (!p)
    return;
  g_free (p->name);
  g_free (p->path);
  g_ptr_array_unref (p->functions);
  g_ptr_array_unref (p->input_vars);
  for (int i = 0; i < MIR_N_PARTS; i++)
    g_ptr_array_unref (p->parts[i]);
  g_ptr_array_unref (p->output_vars);
  if (p->sources)
    tilde_source_set_unref (p->sources);
  g_free (p);
}

/* ---- copying ---- */

typedef gpointer (*CopyFunc) (gconstpointer item);

static GPtrArray *
list_copy (const GPtrArray *list, CopyFunc copy, GDestroyNotify free_func)
{
  if (!list)
    return NULL;
  GPtrArray *out = g_ptr_array_new_full (list->len, free_func);
  for (guint i = 0; i < list->len; i++)
    g_ptr_array_add (out, copy (g_ptr_array_index (list, i)));
  return out;
}

GPtrArray *
mir_expr_list_copy (const GPtrArray *list)
{
  return list_copy (list, (CopyFunc) mir_expr_copy, (GDestroyNotify) mir_expr_free);
}

GPtrArray *
mir_stmt_list_copy (const GPtrArray *list)
{
  return list_copy (list, (CopyFunc) mir_stmt_copy, (GDestroyNotify) mir_stmt_free);
}

static GPtrArray *
index_list_copy (const GPtrArray *list)
{
  return list_copy (list, (CopyFunc) mir_index_copy, (GDestroyNotify) mir_index_free);
}

MirTransform *
mir_transform_copy (const MirTransform *t)
{
  if (!t)
    return NULL;
  MirTransform *c = g_new0 (MirTransform, 1);
  c->kind = t->kind;
  c->a = mir_expr_copy (t->a);
  c->b = mir_expr_copy (t->b);
  c->members = list_copy (t->members, (CopyFunc) mir_transform_copy,
                          (GDestroyNotify) mir_transform_free);
  return c;
}

MirSizedType *
mir_sized_copy (const MirSizedType *t)
{
  if (!t)
    return NULL;
  MirSizedType *c = g_new0 (MirSizedType, 1);
  c->kind = t->kind;
  c->mem = t->mem;
  c->dim1 = mir_expr_copy (t->dim1);
  c->dim2 = mir_expr_copy (t->dim2);
  c->elem = mir_sized_copy (t->elem);
  c->members = list_copy (t->members, (CopyFunc) mir_sized_copy,
                          (GDestroyNotify) mir_sized_free);
  return c;
}

static MirInternalData *
internal_data_copy (const MirInternalData *d)
{
  if (!d)
    return NULL;
  MirInternalData *c = g_new0 (MirInternalData, 1);
  *c = *d;
  c->trans = mir_transform_copy (d->trans);
  c->dims = mir_expr_list_copy (d->dims);
  c->var = mir_expr_copy (d->var);
  return c;
}

MirFun
mir_fun_copy (const MirFun *f)
{
  MirFun c = *f;
  c.data = internal_data_copy (f->data);
  return c;
}

MirIndex *
mir_index_copy (const MirIndex *i)
{
  if (!i)
    return NULL;
  return mir_index_new (i->kind, mir_expr_copy (i->e), mir_expr_copy (i->upper));
}

MirLvalue *
mir_lvalue_copy (const MirLvalue *l)
{
  if (!l)
    return NULL;
  MirLvalue *c = g_new0 (MirLvalue, 1);
  *c = *l;
  c->proj_of = mir_lvalue_copy (l->proj_of);
  c->indices = index_list_copy (l->indices);
  return c;
}

MirExpr *
mir_expr_copy (const MirExpr *e)
{
  if (!e)
    return NULL;
  MirExpr *c = g_new0 (MirExpr, 1);
  *c = *e;
  switch (e->kind)
    {
    case MIR_EXPR_VAR:
    case MIR_EXPR_LIT:
      break;
    case MIR_EXPR_CALL:
      c->u.call.fun = mir_fun_copy (&e->u.call.fun);
      c->u.call.args = mir_expr_list_copy (e->u.call.args);
      break;
    case MIR_EXPR_TERNARY:
      c->u.ternary.cond = mir_expr_copy (e->u.ternary.cond);
      c->u.ternary.if_true = mir_expr_copy (e->u.ternary.if_true);
      c->u.ternary.if_false = mir_expr_copy (e->u.ternary.if_false);
      break;
    case MIR_EXPR_AND:
    case MIR_EXPR_OR:
      c->u.logical.lhs = mir_expr_copy (e->u.logical.lhs);
      c->u.logical.rhs = mir_expr_copy (e->u.logical.rhs);
      break;
    case MIR_EXPR_INDEXED:
      c->u.indexed.base = mir_expr_copy (e->u.indexed.base);
      c->u.indexed.indices = index_list_copy (e->u.indexed.indices);
      break;
    case MIR_EXPR_PROMOTION:
      c->u.promotion.expr = mir_expr_copy (e->u.promotion.expr);
      break;
    case MIR_EXPR_TUPLE_PROJ:
      c->u.proj.base = mir_expr_copy (e->u.proj.base);
      break;
    case MIR_N_EXPR_KINDS:
      g_assert_not_reached ();
    }
  return c;
}

MirStmt *
mir_stmt_copy (const MirStmt *s)
{
  if (!s)
    return NULL;
  MirStmt *c = g_new0 (MirStmt, 1);
  *c = *s;
  switch (s->kind)
    {
    case MIR_STMT_ASSIGN:
      c->u.assign.lhs = mir_lvalue_copy (s->u.assign.lhs);
      c->u.assign.rhs = mir_expr_copy (s->u.assign.rhs);
      break;
    case MIR_STMT_TARGET_PLUS:
    case MIR_STMT_JACOBIAN_PLUS:
      c->u.increment.expr = mir_expr_copy (s->u.increment.expr);
      break;
    case MIR_STMT_NR_CALL:
      c->u.call.fun = mir_fun_copy (&s->u.call.fun);
      c->u.call.args = mir_expr_list_copy (s->u.call.args);
      break;
    case MIR_STMT_RETURN:
      c->u.ret.expr = mir_expr_copy (s->u.ret.expr);
      break;
    case MIR_STMT_BREAK:
    case MIR_STMT_CONTINUE:
    case MIR_STMT_SKIP:
      break;
    case MIR_STMT_IF:
      c->u.if_stmt.cond = mir_expr_copy (s->u.if_stmt.cond);
      c->u.if_stmt.then_stmt = mir_stmt_copy (s->u.if_stmt.then_stmt);
      c->u.if_stmt.else_stmt = mir_stmt_copy (s->u.if_stmt.else_stmt);
      break;
    case MIR_STMT_WHILE:
      c->u.while_stmt.cond = mir_expr_copy (s->u.while_stmt.cond);
      c->u.while_stmt.body = mir_stmt_copy (s->u.while_stmt.body);
      break;
    case MIR_STMT_FOR:
      c->u.for_stmt.lower = mir_expr_copy (s->u.for_stmt.lower);
      c->u.for_stmt.upper = mir_expr_copy (s->u.for_stmt.upper);
      c->u.for_stmt.body = mir_stmt_copy (s->u.for_stmt.body);
      break;
    case MIR_STMT_PROFILE:
      c->u.profile.stmts = mir_stmt_list_copy (s->u.profile.stmts);
      break;
    case MIR_STMT_BLOCK:
    case MIR_STMT_SLIST:
      c->u.block.stmts = mir_stmt_list_copy (s->u.block.stmts);
      break;
    case MIR_STMT_DECL:
      c->u.decl.sized = mir_sized_copy (s->u.decl.sized);
      c->u.decl.init = mir_expr_copy (s->u.decl.init);
      c->u.decl.annotations = annotations_copy (&s->u.decl.annotations);
      break;
    case MIR_N_STMT_KINDS:
      g_assert_not_reached ();
    }
  return c;
}

static MirFunDef *
fun_def_copy (const MirFunDef *f)
{
  MirFunDef *c = g_new0 (MirFunDef, 1);
  *c = *f;
  c->args = g_array_copy (f->args);
  c->body = mir_stmt_copy (f->body);
  c->annotations = annotations_copy (&f->annotations);
  return c;
}

static MirInputVar *
input_var_copy (const MirInputVar *v)
{
  MirInputVar *c = g_new0 (MirInputVar, 1);
  *c = *v;
  c->type = mir_sized_copy (v->type);
  c->annotations = annotations_copy (&v->annotations);
  return c;
}

static MirOutputVar *
output_var_copy (const MirOutputVar *v)
{
  MirOutputVar *c = g_new0 (MirOutputVar, 1);
  *c = *v;
  c->constrained = mir_sized_copy (v->constrained);
  c->unconstrained = mir_sized_copy (v->unconstrained);
  c->trans = mir_transform_copy (v->trans);
  return c;
}

MirProgram *
mir_program_copy (const MirProgram *p)
{
  MirProgram *c = mir_program_new (p->name, p->path, p->sources);
  c->transformed = p->transformed;
  for (guint i = 0; i < p->functions->len; i++)
    g_ptr_array_add (c->functions, fun_def_copy (g_ptr_array_index (p->functions, i)));
  for (guint i = 0; i < p->input_vars->len; i++)
    g_ptr_array_add (c->input_vars, input_var_copy (g_ptr_array_index (p->input_vars, i)));
  for (int part = 0; part < MIR_N_PARTS; part++)
    for (guint i = 0; i < p->parts[part]->len; i++)
      g_ptr_array_add (c->parts[part], mir_stmt_copy (g_ptr_array_index (p->parts[part], i)));
  for (guint i = 0; i < p->output_vars->len; i++)
    g_ptr_array_add (c->output_vars, output_var_copy (g_ptr_array_index (p->output_vars, i)));
  return c;
}

/* ---- equality ---- */

typedef gboolean (*EqualFunc) (gconstpointer a, gconstpointer b);

static gboolean
list_equal (const GPtrArray *a, const GPtrArray *b, EqualFunc equal)
{
  guint na = a ? a->len : 0, nb = b ? b->len : 0;
  if (na != nb)
    return FALSE;
  for (guint i = 0; i < na; i++)
    if (!equal (g_ptr_array_index (a, i), g_ptr_array_index (b, i)))
      return FALSE;
  return TRUE;
}

static gboolean
index_equal (const MirIndex *a, const MirIndex *b)
{
  return a->kind == b->kind && mir_expr_equal (a->e, b->e) && mir_expr_equal (a->upper, b->upper);
}

gboolean
mir_transform_equal (const MirTransform *a, const MirTransform *b)
{
  if (!a || !b)
    return a == b;
  return a->kind == b->kind && mir_expr_equal (a->a, b->a) && mir_expr_equal (a->b, b->b)
    && list_equal (a->members, b->members, (EqualFunc) mir_transform_equal);
}

gboolean
mir_sized_equal (const MirSizedType *a, const MirSizedType *b)
{
  if (!a || !b)
    return a == b;
  return a->kind == b->kind && a->mem == b->mem
    && mir_expr_equal (a->dim1, b->dim1) && mir_expr_equal (a->dim2, b->dim2)
    && mir_sized_equal (a->elem, b->elem)
    && list_equal (a->members, b->members, (EqualFunc) mir_sized_equal);
}

static gboolean
internal_data_equal (const MirInternalData *a, const MirInternalData *b)
{
  if (!a || !b)
    return a == b;
  return mir_transform_equal (a->trans, b->trans)
    && list_equal (a->dims, b->dims, (EqualFunc) mir_expr_equal)
    && a->mem == b->mem && mir_expr_equal (a->var, b->var)
    && a->var_name == b->var_name && a->jacobian == b->jacobian;
}

gboolean
mir_fun_equal (const MirFun *a, const MirFun *b)
{
  if (a->kind != b->kind)
    return FALSE;
  if (a->kind == MIR_FUN_COMPILER)
    return a->internal == b->internal && internal_data_equal (a->data, b->data);
  return a->name == b->name && a->suffix == b->suffix && a->propto == b->propto
    && a->rewritten == b->rewritten && (a->kind != MIR_FUN_STANLIB || a->mem == b->mem);
}

gboolean
mir_lvalue_equal (const MirLvalue *a, const MirLvalue *b)
{
  if (!a || !b)
    return a == b;
  return a->var == b->var && a->slot == b->slot && a->type == b->type
    && a->ad_level == b->ad_level && mir_lvalue_equal (a->proj_of, b->proj_of)
    && list_equal (a->indices, b->indices, (EqualFunc) index_equal);
}

gboolean
mir_expr_equal (const MirExpr *a, const MirExpr *b)
{
  if (!a || !b)
    return a == b;
  if (a->kind != b->kind || a->type != b->type || a->ad_level != b->ad_level)
    return FALSE;
  switch (a->kind)
    {
    case MIR_EXPR_VAR:
      return a->u.var.name == b->u.var.name;
    case MIR_EXPR_LIT:
      return a->u.lit.kind == b->u.lit.kind && a->u.lit.text == b->u.lit.text;
    case MIR_EXPR_CALL:
      return mir_fun_equal (&a->u.call.fun, &b->u.call.fun)
        && list_equal (a->u.call.args, b->u.call.args, (EqualFunc) mir_expr_equal);
    case MIR_EXPR_TERNARY:
      return mir_expr_equal (a->u.ternary.cond, b->u.ternary.cond)
        && mir_expr_equal (a->u.ternary.if_true, b->u.ternary.if_true)
        && mir_expr_equal (a->u.ternary.if_false, b->u.ternary.if_false);
    case MIR_EXPR_AND:
    case MIR_EXPR_OR:
      return mir_expr_equal (a->u.logical.lhs, b->u.logical.lhs)
        && mir_expr_equal (a->u.logical.rhs, b->u.logical.rhs);
    case MIR_EXPR_INDEXED:
      return mir_expr_equal (a->u.indexed.base, b->u.indexed.base)
        && list_equal (a->u.indexed.indices, b->u.indexed.indices, (EqualFunc) index_equal);
    case MIR_EXPR_PROMOTION:
      return a->u.promotion.to == b->u.promotion.to && a->u.promotion.ad == b->u.promotion.ad
        && mir_expr_equal (a->u.promotion.expr, b->u.promotion.expr);
    case MIR_EXPR_TUPLE_PROJ:
      return a->u.proj.slot == b->u.proj.slot && mir_expr_equal (a->u.proj.base, b->u.proj.base);
    case MIR_N_EXPR_KINDS:
      break;
    }
  g_assert_not_reached ();
}

gboolean
mir_stmt_equal (const MirStmt *a, const MirStmt *b)
{
  if (!a || !b)
    return a == b;
  if (a->kind != b->kind)
    return FALSE;
  switch (a->kind)
    {
    case MIR_STMT_ASSIGN:
      return mir_lvalue_equal (a->u.assign.lhs, b->u.assign.lhs)
        && mir_expr_equal (a->u.assign.rhs, b->u.assign.rhs);
    case MIR_STMT_TARGET_PLUS:
    case MIR_STMT_JACOBIAN_PLUS:
      return a->u.increment.from_tilde == b->u.increment.from_tilde
        && a->u.increment.role == b->u.increment.role
        && a->u.increment.role_args == b->u.increment.role_args
        && mir_expr_equal (a->u.increment.expr, b->u.increment.expr);
    case MIR_STMT_NR_CALL:
      return mir_fun_equal (&a->u.call.fun, &b->u.call.fun)
        && list_equal (a->u.call.args, b->u.call.args, (EqualFunc) mir_expr_equal);
    case MIR_STMT_RETURN:
      return mir_expr_equal (a->u.ret.expr, b->u.ret.expr);
    case MIR_STMT_BREAK:
    case MIR_STMT_CONTINUE:
    case MIR_STMT_SKIP:
      return TRUE;
    case MIR_STMT_IF:
      return mir_expr_equal (a->u.if_stmt.cond, b->u.if_stmt.cond)
        && mir_stmt_equal (a->u.if_stmt.then_stmt, b->u.if_stmt.then_stmt)
        && mir_stmt_equal (a->u.if_stmt.else_stmt, b->u.if_stmt.else_stmt);
    case MIR_STMT_WHILE:
      return mir_expr_equal (a->u.while_stmt.cond, b->u.while_stmt.cond)
        && mir_stmt_equal (a->u.while_stmt.body, b->u.while_stmt.body);
    case MIR_STMT_FOR:
      return a->u.for_stmt.var == b->u.for_stmt.var
        && mir_expr_equal (a->u.for_stmt.lower, b->u.for_stmt.lower)
        && mir_expr_equal (a->u.for_stmt.upper, b->u.for_stmt.upper)
        && mir_stmt_equal (a->u.for_stmt.body, b->u.for_stmt.body);
    case MIR_STMT_PROFILE:
      return a->u.profile.name == b->u.profile.name
        && list_equal (a->u.profile.stmts, b->u.profile.stmts, (EqualFunc) mir_stmt_equal);
    case MIR_STMT_BLOCK:
    case MIR_STMT_SLIST:
      return list_equal (a->u.block.stmts, b->u.block.stmts, (EqualFunc) mir_stmt_equal);
    case MIR_STMT_DECL:
      return a->u.decl.name == b->u.decl.name && a->u.decl.type == b->u.decl.type
        && a->u.decl.ad == b->u.decl.ad && a->u.decl.init_kind == b->u.decl.init_kind
        && mir_sized_equal (a->u.decl.sized, b->u.decl.sized)
        && mir_expr_equal (a->u.decl.init, b->u.decl.init)
        && annotations_equal (&a->u.decl.annotations, &b->u.decl.annotations);
    case MIR_N_STMT_KINDS:
      break;
    }
  g_assert_not_reached ();
}

static gboolean
fun_def_equal (const MirFunDef *a, const MirFunDef *b)
{
  if (a->name != b->name || a->return_type != b->return_type || a->suffix != b->suffix
      || a->args->len != b->args->len || !annotations_equal (&a->annotations, &b->annotations))
    return FALSE;
  for (guint i = 0; i < a->args->len; i++)
    {
      const MirFunArg *x = &g_array_index (a->args, MirFunArg, i);
      const MirFunArg *y = &g_array_index (b->args, MirFunArg, i);
      if (x->ad != y->ad || x->name != y->name || x->type != y->type)
        return FALSE;
    }
  return mir_stmt_equal (a->body, b->body);
}

static gboolean
input_var_equal (const MirInputVar *a, const MirInputVar *b)
{
  return a->name == b->name && mir_sized_equal (a->type, b->type)
    && annotations_equal (&a->annotations, &b->annotations);
}

static gboolean
output_var_equal (const MirOutputVar *a, const MirOutputVar *b)
{
  return a->name == b->name && a->block == b->block
    && mir_sized_equal (a->constrained, b->constrained)
    && mir_sized_equal (a->unconstrained, b->unconstrained)
    && mir_transform_equal (a->trans, b->trans);
}

gboolean
mir_program_equal (const MirProgram *a, const MirProgram *b)
{
  if (g_strcmp0 (a->name, b->name) != 0 || a->transformed != b->transformed)
    return FALSE;
  if (!list_equal (a->functions, b->functions, (EqualFunc) fun_def_equal)
      || !list_equal (a->input_vars, b->input_vars, (EqualFunc) input_var_equal)
      || !list_equal (a->output_vars, b->output_vars, (EqualFunc) output_var_equal))
    return FALSE;
  for (int i = 0; i < MIR_N_PARTS; i++)
    if (!list_equal (a->parts[i], b->parts[i], (EqualFunc) mir_stmt_equal))
      return FALSE;
  return TRUE;
}

/* ---- traversal ---- */

static void
foreach_in_list (GPtrArray *list, MirStmtVisitor visit, gpointer user_data)
{
  for (guint i = 0; list && i < list->len; i++)
    visit (g_ptr_array_index (list, i), user_data);
}

void
mir_stmt_foreach_child (MirStmt *s, MirStmtVisitor visit, gpointer user_data)
{
  switch (s->kind)
    {
    case MIR_STMT_IF:
      visit (s->u.if_stmt.then_stmt, user_data);
      if (s->u.if_stmt.else_stmt)
        visit (s->u.if_stmt.else_stmt, user_data);
      break;
    case MIR_STMT_WHILE:
      visit (s->u.while_stmt.body, user_data);
      break;
    case MIR_STMT_FOR:
      visit (s->u.for_stmt.body, user_data);
      break;
    case MIR_STMT_PROFILE:
      foreach_in_list (s->u.profile.stmts, visit, user_data);
      break;
    case MIR_STMT_BLOCK:
    case MIR_STMT_SLIST:
      foreach_in_list (s->u.block.stmts, visit, user_data);
      break;
    default:
      break;
    }
}

static void
foreach_expr_in_list (GPtrArray *list, MirExprVisitor visit, gpointer user_data)
{
  for (guint i = 0; list && i < list->len; i++)
    visit (g_ptr_array_index (list, i), user_data);
}

static void
foreach_expr_in_indices (GPtrArray *indices, MirExprVisitor visit, gpointer user_data)
{
  for (guint i = 0; indices && i < indices->len; i++)
    {
      MirIndex *idx = g_ptr_array_index (indices, i);
      if (idx->e)
        visit (idx->e, user_data);
      if (idx->upper)
        visit (idx->upper, user_data);
    }
}

static void
foreach_expr_in_transform (MirTransform *t, MirExprVisitor visit, gpointer user_data)
{
  if (!t)
    return;
  if (t->a)
    visit (t->a, user_data);
  if (t->b)
    visit (t->b, user_data);
  for (guint i = 0; t->members && i < t->members->len; i++)
    foreach_expr_in_transform (g_ptr_array_index (t->members, i), visit, user_data);
}

static void
foreach_expr_in_sized (MirSizedType *t, MirExprVisitor visit, gpointer user_data)
{
  if (!t)
    return;
  if (t->dim1)
    visit (t->dim1, user_data);
  if (t->dim2)
    visit (t->dim2, user_data);
  foreach_expr_in_sized (t->elem, visit, user_data);
  for (guint i = 0; t->members && i < t->members->len; i++)
    foreach_expr_in_sized (g_ptr_array_index (t->members, i), visit, user_data);
}

static void
foreach_expr_in_fun (MirFun *f, MirExprVisitor visit, gpointer user_data)
{
  if (!f->data)
    return;
  foreach_expr_in_transform (f->data->trans, visit, user_data);
  foreach_expr_in_list (f->data->dims, visit, user_data);
  if (f->data->var)
    visit (f->data->var, user_data);
}

static void
foreach_expr_in_lvalue (MirLvalue *l, MirExprVisitor visit, gpointer user_data)
{
  if (l->proj_of)
    foreach_expr_in_lvalue (l->proj_of, visit, user_data);
  foreach_expr_in_indices (l->indices, visit, user_data);
}

void
mir_stmt_foreach_expr (MirStmt *s, MirExprVisitor visit, gpointer user_data)
{
  switch (s->kind)
    {
    case MIR_STMT_ASSIGN:
      foreach_expr_in_lvalue (s->u.assign.lhs, visit, user_data);
      visit (s->u.assign.rhs, user_data);
      break;
    case MIR_STMT_TARGET_PLUS:
    case MIR_STMT_JACOBIAN_PLUS:
      visit (s->u.increment.expr, user_data);
      break;
    case MIR_STMT_NR_CALL:
      foreach_expr_in_fun (&s->u.call.fun, visit, user_data);
      foreach_expr_in_list (s->u.call.args, visit, user_data);
      break;
    case MIR_STMT_RETURN:
      if (s->u.ret.expr)
        visit (s->u.ret.expr, user_data);
      break;
    case MIR_STMT_IF:
      visit (s->u.if_stmt.cond, user_data);
      break;
    case MIR_STMT_WHILE:
      visit (s->u.while_stmt.cond, user_data);
      break;
    case MIR_STMT_FOR:
      visit (s->u.for_stmt.lower, user_data);
      visit (s->u.for_stmt.upper, user_data);
      break;
    case MIR_STMT_DECL:
      foreach_expr_in_sized (s->u.decl.sized, visit, user_data);
      if (s->u.decl.init)
        visit (s->u.decl.init, user_data);
      break;
    default:
      break;
    }
}

void
mir_expr_foreach_child (MirExpr *e, MirExprVisitor visit, gpointer user_data)
{
  switch (e->kind)
    {
    case MIR_EXPR_VAR:
    case MIR_EXPR_LIT:
      break;
    case MIR_EXPR_CALL:
      foreach_expr_in_fun (&e->u.call.fun, visit, user_data);
      foreach_expr_in_list (e->u.call.args, visit, user_data);
      break;
    case MIR_EXPR_TERNARY:
      visit (e->u.ternary.cond, user_data);
      visit (e->u.ternary.if_true, user_data);
      visit (e->u.ternary.if_false, user_data);
      break;
    case MIR_EXPR_AND:
    case MIR_EXPR_OR:
      visit (e->u.logical.lhs, user_data);
      visit (e->u.logical.rhs, user_data);
      break;
    case MIR_EXPR_INDEXED:
      visit (e->u.indexed.base, user_data);
      foreach_expr_in_indices (e->u.indexed.indices, visit, user_data);
      break;
    case MIR_EXPR_PROMOTION:
      visit (e->u.promotion.expr, user_data);
      break;
    case MIR_EXPR_TUPLE_PROJ:
      visit (e->u.proj.base, user_data);
      break;
    case MIR_N_EXPR_KINDS:
      g_assert_not_reached ();
    }
}

typedef struct {
  MirStmtVisitor visit;
  gpointer       user_data;
} WalkData;

static void
walk_one (MirStmt *s, gpointer data)
{
  WalkData *w = data;
  w->visit (s, w->user_data);
  mir_stmt_foreach_child (s, walk_one, data);
}

void
mir_stmt_walk (MirStmt *s, MirStmtVisitor visit, gpointer user_data)
{
  WalkData w = { visit, user_data };
  walk_one (s, &w);
}

void
mir_program_walk_stmts (MirProgram *p, MirStmtVisitor visit, gpointer user_data)
{
  for (guint i = 0; i < p->functions->len; i++)
    {
      MirFunDef *f = g_ptr_array_index (p->functions, i);
      if (f->body)
        mir_stmt_walk (f->body, visit, user_data);
    }
  for (int part = 0; part < MIR_N_PARTS; part++)
    for (guint i = 0; i < p->parts[part]->len; i++)
      mir_stmt_walk (g_ptr_array_index (p->parts[part], i), visit, user_data);
}

/* ---- rewriting ---- */

static void
map_slot (MirExpr **slot, MirExprMapper f, gpointer user_data)
{
  if (*slot)
    *slot = mir_expr_map (*slot, f, user_data);
}

static void
map_list (GPtrArray *list, MirExprMapper f, gpointer user_data)
{
  for (guint i = 0; list && i < list->len; i++)
    list->pdata[i] = mir_expr_map (list->pdata[i], f, user_data);
}

static void
map_indices (GPtrArray *indices, MirExprMapper f, gpointer user_data)
{
  for (guint i = 0; indices && i < indices->len; i++)
    {
      MirIndex *idx = g_ptr_array_index (indices, i);
      map_slot (&idx->e, f, user_data);
      map_slot (&idx->upper, f, user_data);
    }
}

static void
map_transform (MirTransform *t, MirExprMapper f, gpointer user_data)
{
  if (!t)
    return;
  map_slot (&t->a, f, user_data);
  map_slot (&t->b, f, user_data);
  for (guint i = 0; t->members && i < t->members->len; i++)
    map_transform (g_ptr_array_index (t->members, i), f, user_data);
}

static void
map_sized (MirSizedType *t, MirExprMapper f, gpointer user_data)
{
  if (!t)
    return;
  map_slot (&t->dim1, f, user_data);
  map_slot (&t->dim2, f, user_data);
  map_sized (t->elem, f, user_data);
  for (guint i = 0; t->members && i < t->members->len; i++)
    map_sized (g_ptr_array_index (t->members, i), f, user_data);
}

static void
map_fun (MirFun *fun, MirExprMapper f, gpointer user_data)
{
  if (!fun->data)
    return;
  map_transform (fun->data->trans, f, user_data);
  map_list (fun->data->dims, f, user_data);
  map_slot (&fun->data->var, f, user_data);
}

MirExpr *
mir_expr_map (MirExpr *e, MirExprMapper f, gpointer user_data)
{
  switch (e->kind)
    {
    case MIR_EXPR_VAR:
    case MIR_EXPR_LIT:
      break;
    case MIR_EXPR_CALL:
      map_fun (&e->u.call.fun, f, user_data);
      map_list (e->u.call.args, f, user_data);
      break;
    case MIR_EXPR_TERNARY:
      map_slot (&e->u.ternary.cond, f, user_data);
      map_slot (&e->u.ternary.if_true, f, user_data);
      map_slot (&e->u.ternary.if_false, f, user_data);
      break;
    case MIR_EXPR_AND:
    case MIR_EXPR_OR:
      map_slot (&e->u.logical.lhs, f, user_data);
      map_slot (&e->u.logical.rhs, f, user_data);
      break;
    case MIR_EXPR_INDEXED:
      map_slot (&e->u.indexed.base, f, user_data);
      map_indices (e->u.indexed.indices, f, user_data);
      break;
    case MIR_EXPR_PROMOTION:
      map_slot (&e->u.promotion.expr, f, user_data);
      break;
    case MIR_EXPR_TUPLE_PROJ:
      map_slot (&e->u.proj.base, f, user_data);
      break;
    case MIR_N_EXPR_KINDS:
      g_assert_not_reached ();
    }
  return f (e, user_data);
}

static void
map_lvalue (MirLvalue *l, MirExprMapper f, gpointer user_data)
{
  if (l->proj_of)
    map_lvalue (l->proj_of, f, user_data);
  map_indices (l->indices, f, user_data);
}

typedef struct {
  MirExprMapper f;
  gpointer      user_data;
} MapData;

static void
map_stmt_one (MirStmt *s, gpointer data)
{
  MapData *m = data;
  switch (s->kind)
    {
    case MIR_STMT_ASSIGN:
      map_lvalue (s->u.assign.lhs, m->f, m->user_data);
      map_slot (&s->u.assign.rhs, m->f, m->user_data);
      break;
    case MIR_STMT_TARGET_PLUS:
    case MIR_STMT_JACOBIAN_PLUS:
      map_slot (&s->u.increment.expr, m->f, m->user_data);
      break;
    case MIR_STMT_NR_CALL:
      map_fun (&s->u.call.fun, m->f, m->user_data);
      map_list (s->u.call.args, m->f, m->user_data);
      break;
    case MIR_STMT_RETURN:
      map_slot (&s->u.ret.expr, m->f, m->user_data);
      break;
    case MIR_STMT_IF:
      map_slot (&s->u.if_stmt.cond, m->f, m->user_data);
      break;
    case MIR_STMT_WHILE:
      map_slot (&s->u.while_stmt.cond, m->f, m->user_data);
      break;
    case MIR_STMT_FOR:
      map_slot (&s->u.for_stmt.lower, m->f, m->user_data);
      map_slot (&s->u.for_stmt.upper, m->f, m->user_data);
      break;
    case MIR_STMT_DECL:
      map_sized (s->u.decl.sized, m->f, m->user_data);
      map_slot (&s->u.decl.init, m->f, m->user_data);
      break;
    default:
      break;
    }
}

void
mir_stmt_map_exprs (MirStmt *s, MirExprMapper f, gpointer user_data)
{
  MapData m = { f, user_data };
  mir_stmt_walk (s, map_stmt_one, &m);
}

/* ---- helpers ---- */

const TildeType *
mir_sized_to_type (const MirSizedType *t)
{
  switch (t->kind)
    {
    case MIR_SIZED_INT: return tilde_type_int ();
    case MIR_SIZED_REAL: return tilde_type_real ();
    case MIR_SIZED_COMPLEX: return tilde_type_complex ();
    case MIR_SIZED_VECTOR: return tilde_type_vector ();
    case MIR_SIZED_ROW_VECTOR: return tilde_type_row_vector ();
    case MIR_SIZED_MATRIX: return tilde_type_matrix ();
    case MIR_SIZED_COMPLEX_VECTOR: return tilde_type_complex_vector ();
    case MIR_SIZED_COMPLEX_ROW_VECTOR: return tilde_type_complex_row_vector ();
    case MIR_SIZED_COMPLEX_MATRIX: return tilde_type_complex_matrix ();
    case MIR_SIZED_ARRAY: return tilde_type_array (mir_sized_to_type (t->elem));
    case MIR_SIZED_TUPLE:
      {
        guint n = t->members->len;
        const TildeType **members = g_newa (const TildeType *, MAX (n, 1));
        for (guint i = 0; i < n; i++)
          members[i] = mir_sized_to_type (g_ptr_array_index (t->members, i));
        return tilde_type_tuple (n, members);
      }
    }
  g_assert_not_reached ();
}

static const TildeType *
complex_counterpart_vector (const TildeType *type)
{
  return tilde_type_kind (type) == TILDE_TYPE_COMPLEX_MATRIX
    ? tilde_type_complex_vector () : tilde_type_vector ();
}

static gboolean
is_range_index (const MirIndex *i)
{
  return i->kind != MIR_INDEX_SINGLE;
}

/* One step of stanc's infer_type_of_indexed: `indices` from position `at`
 * applied to `type`. */
static const TildeType *
indexed_type_from (const TildeType *type, const GPtrArray *indices, guint at)
{
  if (!type || at >= indices->len)
    return type;
  const MirIndex *first = g_ptr_array_index (indices, at);
  guint rest = indices->len - at;
  switch (tilde_type_kind (type))
    {
    case TILDE_TYPE_ARRAY:
      {
        const TildeType *inner = indexed_type_from (tilde_type_element (type), indices, at + 1);
        if (!inner)
          return NULL;
        return is_range_index (first) ? tilde_type_array (inner) : inner;
      }
    case TILDE_TYPE_VECTOR:
    case TILDE_TYPE_ROW_VECTOR:
    case TILDE_TYPE_COMPLEX_VECTOR:
    case TILDE_TYPE_COMPLEX_ROW_VECTOR:
      if (rest != 1)
        return NULL;
      return is_range_index (first) ? type : tilde_type_internal_scalar (type);
    case TILDE_TYPE_MATRIX:
    case TILDE_TYPE_COMPLEX_MATRIX:
      {
        gboolean complex = tilde_type_kind (type) == TILDE_TYPE_COMPLEX_MATRIX;
        if (rest == 1)
          return is_range_index (first) ? type
            : (complex ? tilde_type_complex_row_vector () : tilde_type_row_vector ());
        if (rest != 2)
          return NULL;
        const MirIndex *second = g_ptr_array_index (indices, at + 1);
        if (!is_range_index (first) && !is_range_index (second))
          return tilde_type_internal_scalar (type);
        if (is_range_index (first) && is_range_index (second))
          return type;
        if (is_range_index (first))
          return complex_counterpart_vector (type);
        return complex ? tilde_type_complex_row_vector () : tilde_type_row_vector ();
      }
    default:
      return NULL;
    }
}

const TildeType *
mir_indexed_type (const TildeType *type, const GPtrArray *indices)
{
  if (!indices)
    return type;
  return indexed_type_from (type, indices, 0);
}

static const char *const internal_names[MIR_N_INTERNALS] = {
  [MIR_FN_LENGTH] = "FnLength",
  [MIR_FN_MAKE_ARRAY] = "FnMakeArray",
  [MIR_FN_MAKE_ROW_VEC] = "FnMakeRowVec",
  [MIR_FN_MAKE_TUPLE] = "FnMakeTuple",
  [MIR_FN_NEG_INF] = "FnNegInf",
  [MIR_FN_READ_DATA] = "FnReadData",
  [MIR_FN_READ_DATA_SERIALIZER] = "FnReadDataSerializer",
  [MIR_FN_READ_PARAM] = "FnReadParam",
  [MIR_FN_WRITE_PARAM] = "FnWriteParam",
  [MIR_FN_VALIDATE_SIZE] = "FnValidateSize",
  [MIR_FN_VALIDATE_SIZE_SIMPLEX] = "FnValidateSizeSimplex",
  [MIR_FN_VALIDATE_SIZE_UNIT_VECTOR] = "FnValidateSizeUnitVector",
  [MIR_FN_CHECK] = "FnCheck",
  [MIR_FN_CONSTRAIN] = "FnConstrain",
  [MIR_FN_UNCONSTRAIN] = "FnUnconstrain",
  [MIR_FN_PRINT] = "FnPrint",
  [MIR_FN_REJECT] = "FnReject",
  [MIR_FN_FATAL_ERROR] = "FnFatalError",
  [MIR_FN_RESIZE_TO_MATCH] = "FnResizeToMatch",
  [MIR_FN_NAN] = "FnNaN",
  [MIR_FN_DEEP_COPY] = "FnDeepCopy",
};

const char *
mir_internal_name (MirInternal fn)
{
  g_return_val_if_fail (fn < MIR_N_INTERNALS, "?");
  return internal_names[fn];
}

const char *
mir_transform_kind_name (MirTransformKind kind)
{
  static const char *const names[] = {
    "Identity", "Lower", "Upper", "LowerUpper", "Offset", "Multiplier",
    "OffsetMultiplier", "Ordered", "PositiveOrdered", "Simplex", "UnitVector",
    "SumToZero", "CholeskyCorr", "CholeskyCov", "Correlation", "Covariance",
    "StochasticColumn", "StochasticRow", "TupleTransformation",
  };
  G_STATIC_ASSERT (G_N_ELEMENTS (names) == MIR_TRANS_TUPLE + 1);
  return names[kind];
}

const char *
mir_expr_kind_name (MirExprKind kind)
{
  static const char *const names[] = {
    "Var", "Lit", "FunApp", "TernaryIf", "EAnd", "EOr", "Indexed", "Promotion",
    "TupleProjection",
  };
  G_STATIC_ASSERT (G_N_ELEMENTS (names) == MIR_N_EXPR_KINDS);
  return names[kind];
}

const char *
mir_stmt_kind_name (MirStmtKind kind)
{
  static const char *const names[] = {
    "Assignment", "TargetPE", "JacobianPE", "NRFunApp", "Break", "Continue", "Return",
    "Skip", "IfElse", "While", "For", "Profile", "Block", "SList", "Decl",
  };
  G_STATIC_ASSERT (G_N_ELEMENTS (names) == MIR_N_STMT_KINDS);
  return names[kind];
}

const char *
mir_part_name (MirPart part)
{
  static const char *const names[] = {
    "prepare_data", "log_prob", "generate_quantities", "transform_inits",
  };
  G_STATIC_ASSERT (G_N_ELEMENTS (names) == MIR_N_PARTS);
  return names[part];
}

const char *
mir_lvalue_variable (const MirLvalue *l)
{
  while (l->proj_of)
    l = l->proj_of;
  return l->var;
}

const char *
mir_operator_symbol (const char *name)
{
  static const char *const table[][2] = {
    { "Plus__", "+" }, { "PPlus__", "+" }, { "Minus__", "-" }, { "PMinus__", "-" },
    { "Times__", "*" }, { "Divide__", "/" }, { "IntDivide__", "%/%" },
    { "Modulo__", "%" }, { "LDivide__", "\\" }, { "EltTimes__", ".*" },
    { "EltDivide__", "./" }, { "Pow__", "^" }, { "EltPow__", ".^" }, { "Or__", "||" },
    { "And__", "&&" }, { "Equals__", "==" }, { "NEquals__", "!=" }, { "Less__", "<" },
    { "Leq__", "<=" }, { "Greater__", ">" }, { "Geq__", ">=" }, { "PNot__", "!" },
    { "Transpose__", "'" },
  };
  if (!name)
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (table); i++)
    if (strcmp (table[i][0], name) == 0)
      return table[i][1];
  return NULL;
}
