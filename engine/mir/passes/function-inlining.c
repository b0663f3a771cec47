/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/passes/passes.h"
#include "mir/passes/passes-private.h"
#include "mir/mir-terms.h"

#include <string.h>

/* A call f(a1, ..., an) becomes, before the statement that makes it,
 *
 *   T inline_symR__;            the result (non-void functions)
 *   data int inline_symF__;     set when the body returns
 *   inline_symF__ = 0;
 *   for (inline_symL__ in 1:1) {
 *     <f's body, its variables renamed, its arguments replaced, and
 *      `return e;` made `inline_symF__ = 1; inline_symR__ = e; break;`,
 *      each loop that returns followed by `if (inline_symF__) break;`>
 *   }
 *
 * and the call itself becomes inline_symR__ (stanc's scheme). An argument
 * that is not a variable or a literal is first computed into a variable
 * of its own, so that it is evaluated once, before the body, as a call
 * evaluates it. */

/* Bodies larger than this (in statements, after inlining into them) are
 * not copied to every call. */
#define MAX_BODY 1000

typedef struct {
  const MirFunDef *def;
  gboolean         inlinable;
  int              state;     /* 0 new, 1 preparing, 2 prepared */
  MirStmt         *body;      /* the body with its own calls inlined */
} Callee;

typedef struct {
  GHashTable *callees;        /* name -> Callee* */
  PassEffects fx;
  PassNames   names;
  gboolean    changed;
} Inliner;

static void inline_slot (Inliner *in, MirStmt **slot, gboolean in_list, gboolean data);

/* ---- which functions ---- */

static void
note_callee (MirExpr *e, gpointer data)
{
  if (e->kind == MIR_EXPR_CALL && e->u.call.fun.kind == MIR_FUN_USER)
    g_ptr_array_add (data, (gpointer) e->u.call.fun.name);
  else if (e->kind == MIR_EXPR_VAR && e->type
           && tilde_type_kind (e->type) == TILDE_TYPE_FUNCTION)
    g_ptr_array_add (data, (gpointer) e->u.var.name);
  mir_expr_foreach_child (e, note_callee, data);
}

static void
note_stmt_callees (MirStmt *s, gpointer data)
{
  if (s->kind == MIR_STMT_NR_CALL && s->u.call.fun.kind == MIR_FUN_USER)
    g_ptr_array_add (data, (gpointer) s->u.call.fun.name);
  mir_stmt_foreach_expr (s, note_callee, data);
}

/* The definition a call's name refers to: foo_lupdf is foo_lpdf. */
static const char *
definition_name (const char *name)
{
  g_autofree char *def = NULL;

  if (g_str_has_suffix (name, "_lupdf") || g_str_has_suffix (name, "_lupmf"))
    {
      def = g_strdup (name);
      memmove (def + strlen (def) - 4, def + strlen (def) - 3, 4);   /* drop the 'u' */
      return g_intern_string (def);
    }
  return name;
}

static GPtrArray *
callees_of (const MirFunDef *f)
{
  GPtrArray *names = g_ptr_array_new ();

  mir_stmt_walk (f->body, note_stmt_callees, names);
  for (guint i = 0; i < names->len; i++)
    names->pdata[i] = (gpointer) definition_name (names->pdata[i]);
  return names;
}

/* Whether `from` reaches `target` in the call graph. */
static gboolean
reaches (Inliner *in, const char *from, const char *target, GHashTable *seen)
{
  Callee *c = g_hash_table_lookup (in->callees, from);
  g_autoptr (GPtrArray) next = NULL;

  if (!c || !g_hash_table_add (seen, (gpointer) from))
    return FALSE;
  next = callees_of (c->def);
  for (guint i = 0; i < next->len; i++)
    if (next->pdata[i] == target || reaches (in, next->pdata[i], target, seen))
      return TRUE;
  return FALSE;
}

static void
count_stmt (MirStmt *s, gpointer data)
{
  (*(guint *) data)++;
}

static guint
size_of (MirStmt *s)
{
  guint n = 0;

  mir_stmt_walk (s, count_stmt, &n);
  return n;
}

static void
find_callees (Inliner *in, const MirProgram *p)
{
  g_autoptr (GHashTable) count = g_hash_table_new (NULL, NULL);

  for (guint i = 0; i < p->functions->len; i++)
    {
      const MirFunDef *f = g_ptr_array_index (p->functions, i);
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (count, f->name));
      g_hash_table_insert (count, (gpointer) f->name, GUINT_TO_POINTER (n + 1));
    }
  /* stanc's rule: an overloaded name is not inlined */
  for (guint i = 0; i < p->functions->len; i++)
    {
      const MirFunDef *f = g_ptr_array_index (p->functions, i);
      if (f->body && GPOINTER_TO_UINT (g_hash_table_lookup (count, f->name)) == 1)
        {
          Callee *c = g_new0 (Callee, 1);
          c->def = f;
          g_hash_table_insert (in->callees, (gpointer) f->name, c);
        }
    }
  GHashTableIter iter;
  gpointer key, value;
  g_hash_table_iter_init (&iter, in->callees);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
      Callee *c = value;
      c->inlinable = !reaches (in, key, key, seen) && size_of (c->def->body) <= MAX_BODY;
    }
}

static void
free_callee (gpointer data)
{
  Callee *c = data;

  mir_stmt_free (c->body);
  g_free (c);
}

/* The callee a call may be replaced by, with its body prepared. */
static Callee *
inlinable (Inliner *in, const MirFun *fun)
{
  Callee *c;

  if (fun->kind != MIR_FUN_USER)
    return NULL;
  c = g_hash_table_lookup (in->callees, definition_name (fun->name));
  if (!c || !c->inlinable || c->state == 1)
    return NULL;
  if (c->state == 0)
    {
      gboolean changed = in->changed;
      c->state = 1;
      c->body = mir_stmt_copy (c->def->body);
      inline_slot (in, &c->body, FALSE, FALSE);
      in->changed = changed;
      c->state = 2;
      if (size_of (c->body) > MAX_BODY)
        c->inlinable = FALSE;
    }
  return c->inlinable ? c : NULL;
}

/* ---- the copy of a body ---- */

static void
note_local (MirStmt *s, gpointer data)
{
  Inliner *in = ((gpointer *) data)[0];
  GHashTable *renames = ((gpointer *) data)[1];
  const char *name = s->kind == MIR_STMT_DECL ? s->u.decl.name
                     : s->kind == MIR_STMT_FOR ? s->u.for_stmt.var : NULL;

  if (name && !g_hash_table_contains (renames, name))
    g_hash_table_insert (renames, (gpointer) name,
                         (gpointer) pass_names_fresh (&in->names, "inline"));
}

static void
note_returning_loop (MirStmt *s, gpointer data)
{
  if ((s->kind == MIR_STMT_FOR || s->kind == MIR_STMT_WHILE) && pass_stmt_returns (s))
    g_hash_table_add (data, s);
}

typedef struct {
  const char      *flag;
  const char      *result;    /* NULL for a void function */
  const TildeType *type;
  TildeAdLevel     ad;
  GHashTable      *loops;     /* loops that hold a return */
} Returns;

static MirExpr *
flag_var (const TildeSpan *span, const char *flag)
{
  return mir_expr_var (span, tilde_type_int (), TILDE_AD_DATA, flag);
}

static void
rewrite_return (MirStmt **slot, gpointer data)
{
  Returns *r = data;
  MirStmt *s = *slot;
  const TildeSpan *span = &s->span;

  if (s->kind == MIR_STMT_RETURN)
    {
      GPtrArray *stmts = mir_stmt_list_new ();
      g_ptr_array_add (stmts, mir_stmt_assign_var (span, r->flag, pass_int_lit (span, 1)));
      if (r->result && s->u.ret.expr)
        {
          MirExpr *value = pass_promote (s->u.ret.expr, r->type);
          s->u.ret.expr = NULL;
          MirLvalue *lhs = mir_lvalue_var (span, r->type, r->ad, r->result, NULL);
          g_ptr_array_add (stmts, mir_stmt_assign (span, lhs, value));
        }
      g_ptr_array_add (stmts, mir_stmt_new (MIR_STMT_BREAK, span));
      *slot = mir_stmt_slist (span, stmts);
      mir_stmt_free (s);
    }
  else if (g_hash_table_contains (r->loops, s))
    {
      MirStmt *leave = mir_stmt_if (span, flag_var (span, r->flag),
                                    mir_stmt_new (MIR_STMT_BREAK, span), NULL);
      *slot = pass_slist_of (span, s, leave, NULL);
    }
}

/* Calls of densities inside a body called for a normalised density
 * compute normalised densities too. */
static MirExpr *
normalise (MirExpr *e, gpointer data)
{
  MirFun *f;
  g_autofree char *name = NULL;

  if (e->kind != MIR_EXPR_CALL)
    return e;
  f = &e->u.call.fun;
  if (f->kind != MIR_FUN_COMPILER && f->propto
      && (f->suffix == MIR_SUFFIX_LPDF || f->suffix == MIR_SUFFIX_LPMF))
    {
      f->propto = FALSE;
      f->name = definition_name (f->name);
    }
  return e;
}

static void
normalise_stmt (MirStmt *s, gpointer data)
{
  MirFun *f;

  if (s->kind != MIR_STMT_NR_CALL)
    return;
  f = &s->u.call.fun;
  if (f->kind != MIR_FUN_COMPILER && f->propto)
    {
      f->propto = FALSE;
      f->name = definition_name (f->name);
    }
}

static MirStmt *
decl_unsized (const TildeSpan *span, const char *name, const TildeType *type, TildeAdLevel ad)
{
  return mir_stmt_decl (span, name, type, NULL, ad, MIR_DECL_DEFAULT, NULL);
}

/* Appends to `out` the statements that run `c` with `args` (taken) and
 * leave its value in `result` (NULL for a void call). */
static void
expand_call (Inliner *in, Callee *c, const MirFun *fun, GPtrArray *args, const TildeSpan *span,
             const char *result, TildeAdLevel result_ad, GPtrArray *out)
{
  const MirFunDef *def = c->def;
  g_autoptr (GHashTable) subst = g_hash_table_new_full (NULL, NULL, NULL,
                                                        (GDestroyNotify) mir_expr_free);
  g_autoptr (GHashTable) renames = g_hash_table_new (NULL, NULL);
  g_autoptr (GHashTable) loops = g_hash_table_new (NULL, NULL);
  const char *flag, *loop_var;
  MirStmt *body;
  Returns r;

  for (guint i = 0; i < args->len && i < def->args->len; i++)
    {
      const MirFunArg *param = &g_array_index (def->args, MirFunArg, i);
      MirExpr *a = g_ptr_array_index (args, i);
      args->pdata[i] = NULL;
      if (!pass_expr_is_trivial (a))
        {
          const char *tmp = pass_names_fresh (&in->names, "inline");
          const TildeType *type = a->type;
          TildeAdLevel ad = a->ad_level;
          g_ptr_array_add (out, decl_unsized (&a->span, tmp, type, ad));
          g_ptr_array_add (out, mir_stmt_assign_var (&a->span, tmp, a));
          a = mir_expr_var (&a->span, type, ad, tmp);
        }
      g_hash_table_insert (subst, (gpointer) param->name, a);
    }
  if (result)
    g_ptr_array_add (out, decl_unsized (span, result, def->return_type, result_ad));
  flag = pass_names_fresh (&in->names, "inline");
  g_ptr_array_add (out, decl_unsized (span, flag, tilde_type_int (), TILDE_AD_DATA));
  g_ptr_array_add (out, mir_stmt_assign_var (span, flag, pass_int_lit (span, 0)));

  loop_var = pass_names_fresh (&in->names, "inline");
  body = mir_stmt_copy (c->body);
  {
    gpointer data[2] = { in, renames };
    mir_stmt_walk (body, note_local, data);
  }
  pass_rename_vars (body, renames);
  pass_subst_vars (body, subst);
  mir_stmt_walk (body, note_returning_loop, loops);
  r = (Returns) { flag, result, def->return_type, result_ad, loops };
  pass_map_stmt_post (&body, rewrite_return, &r);
  if ((fun->suffix == MIR_SUFFIX_LPDF || fun->suffix == MIR_SUFFIX_LPMF) && !fun->propto)
    {
      mir_stmt_map_exprs (body, normalise, NULL);
      mir_stmt_walk (body, normalise_stmt, NULL);
    }
  g_ptr_array_add (out, mir_stmt_for (span, loop_var, pass_int_lit (span, 1),
                                      pass_int_lit (span, 1), body));
}

/* ---- finding calls to inline ---- */

/* Walks a statement's expressions in evaluation order and stops at the
 * first call that may be moved before its statement: one that always
 * runs, after nothing with an effect, and, when it has an effect itself,
 * after nothing that computes anything (which could fail before it). */
typedef struct {
  Inliner  *in;
  MirExpr **found;
  gboolean  before_effects;     /* something evaluated so far has an effect */
  gboolean  before_work;        /* something evaluated so far is not trivial */
} Search;

static void search_slot (Search *s, MirExpr **slot, gboolean conditional);

static void
search_list (Search *s, GPtrArray *list, gboolean conditional)
{
  for (guint i = 0; list && i < list->len && !s->found; i++)
    search_slot (s, (MirExpr **) &list->pdata[i], conditional);
}

static void
search_indices (Search *s, GPtrArray *indices, gboolean conditional)
{
  for (guint i = 0; indices && i < indices->len && !s->found; i++)
    {
      MirIndex *idx = g_ptr_array_index (indices, i);
      if (idx->e)
        search_slot (s, &idx->e, conditional);
      if (idx->upper && !s->found)
        search_slot (s, &idx->upper, conditional);
    }
}

static void
note_evaluated (Search *s, const MirExpr *e)
{
  if (pass_expr_has_effects (e, &s->in->fx))
    s->before_effects = TRUE;
  if (!pass_expr_is_trivial (e))
    s->before_work = TRUE;
}

static void
search_slot (Search *s, MirExpr **slot, gboolean conditional)
{
  MirExpr *e = *slot;
  gboolean effects = s->before_effects, work = s->before_work;

  if (s->found)
    return;
  switch (e->kind)
    {
    case MIR_EXPR_CALL:
      search_list (s, e->u.call.args, conditional);
      break;
    case MIR_EXPR_TERNARY:
      search_slot (s, &e->u.ternary.cond, conditional);
      search_slot (s, &e->u.ternary.if_true, TRUE);
      search_slot (s, &e->u.ternary.if_false, TRUE);
      break;
    case MIR_EXPR_AND:
    case MIR_EXPR_OR:
      search_slot (s, &e->u.logical.lhs, conditional);
      search_slot (s, &e->u.logical.rhs, TRUE);
      break;
    case MIR_EXPR_INDEXED:
      search_slot (s, &e->u.indexed.base, conditional);
      search_indices (s, e->u.indexed.indices, conditional);
      break;
    case MIR_EXPR_PROMOTION:
      search_slot (s, &e->u.promotion.expr, conditional);
      break;
    case MIR_EXPR_TUPLE_PROJ:
      search_slot (s, &e->u.proj.base, conditional);
      break;
    default:
      break;
    }
  if (s->found)
    return;
  if (e->kind == MIR_EXPR_CALL && e->u.call.fun.kind == MIR_FUN_USER && !conditional
      && !effects && !(work && pass_expr_has_effects (e, &s->in->fx))
      && inlinable (s->in, &e->u.call.fun))
    {
      s->found = slot;
      return;
    }
  note_evaluated (s, e);
}

/* The next call of `st` to inline, or NULL. */
static MirExpr **
next_call (Inliner *in, MirStmt *st)
{
  Search s = { in, NULL, FALSE, FALSE };
  MirLvalue *l;

  switch (st->kind)
    {
    case MIR_STMT_ASSIGN:
      search_slot (&s, &st->u.assign.rhs, FALSE);
      for (l = st->u.assign.lhs; l && !s.found; l = l->proj_of)
        search_indices (&s, l->indices, FALSE);
      break;
    case MIR_STMT_TARGET_PLUS:
    case MIR_STMT_JACOBIAN_PLUS:
      search_slot (&s, &st->u.increment.expr, FALSE);
      break;
    case MIR_STMT_NR_CALL:
      search_list (&s, st->u.call.args, FALSE);
      break;
    case MIR_STMT_RETURN:
      if (st->u.ret.expr)
        search_slot (&s, &st->u.ret.expr, FALSE);
      break;
    case MIR_STMT_IF:
      search_slot (&s, &st->u.if_stmt.cond, FALSE);
      break;
    case MIR_STMT_DECL:
      if (st->u.decl.init)
        search_slot (&s, &st->u.decl.init, FALSE);
      break;
    default:
      break;
    }
  return s.found;
}

/* Inlines the calls of the statement in `*slot` (and of the statements in
 * it). `in_list`: the slot is an element of a statement list, so that the
 * result may be a statement list; otherwise it becomes a block. `data`:
 * the code runs in a part without autodiff values. */
static void
inline_slot (Inliner *in, MirStmt **slot, gboolean in_list, gboolean data)
{
  MirStmt *s = *slot;
  GPtrArray *before = mir_stmt_list_new ();
  GPtrArray *list = pass_stmt_list (s);
  MirExpr **call;
  gboolean replaced = FALSE;
  TildeSpan span = s->span;

  while ((call = next_call (in, s)))
    {
      MirExpr *e = *call;
      Callee *c = inlinable (in, &e->u.call.fun);
      const char *result = pass_names_fresh (&in->names, "inline");
      TildeAdLevel ad = data ? TILDE_AD_DATA : e->ad_level;
      GPtrArray *args = e->u.call.args;

      e->u.call.args = mir_expr_list_new ();
      expand_call (in, c, &e->u.call.fun, args, &e->span, result, ad, before);
      g_ptr_array_unref (args);
      *call = mir_expr_var (&e->span, e->type, ad, result);
      mir_expr_free (e);
    }
  /* a statement calling a void function is replaced by its body */
  if (s->kind == MIR_STMT_NR_CALL && inlinable (in, &s->u.call.fun))
    {
      GPtrArray *args = s->u.call.args;
      s->u.call.args = mir_expr_list_new ();
      expand_call (in, inlinable (in, &s->u.call.fun), &s->u.call.fun, args, &s->span, NULL,
                   TILDE_AD_DATA, before);
      g_ptr_array_unref (args);
      replaced = TRUE;
    }

  if (list)
    for (guint i = 0; i < list->len; i++)
      inline_slot (in, (MirStmt **) &list->pdata[i], TRUE, data);
  else if (s->kind == MIR_STMT_IF)
    {
      inline_slot (in, &s->u.if_stmt.then_stmt, FALSE, data);
      if (s->u.if_stmt.else_stmt)
        inline_slot (in, &s->u.if_stmt.else_stmt, FALSE, data);
    }
  else if (s->kind == MIR_STMT_WHILE)
    inline_slot (in, &s->u.while_stmt.body, FALSE, data);
  else if (s->kind == MIR_STMT_FOR)
    inline_slot (in, &s->u.for_stmt.body, FALSE, data);

  if (before->len == 0)
    {
      g_ptr_array_unref (before);
      return;
    }
  in->changed = TRUE;
  if (data)
    for (guint i = 0; i < before->len; i++)
      pass_make_data (g_ptr_array_index (before, i));
  if (replaced)
    mir_stmt_free (s);
  else
    g_ptr_array_add (before, s);
  *slot = in_list ? mir_stmt_slist (&span, before) : mir_stmt_block (&span, before);
}

gboolean
mir_pass_function_inlining (MirProgram *program)
{
  Inliner in = { g_hash_table_new_full (NULL, NULL, NULL, free_callee), { NULL }, { 0 }, FALSE };

  pass_effects_init (&in.fx, program);
  pass_names_init (&in.names, program);
  find_callees (&in, program);
  for (int part = 0; part < MIR_N_PARTS; part++)
    {
      gboolean data = pass_part_ad (part) == TILDE_AD_DATA;
      GPtrArray *list = program->parts[part];
      for (guint i = 0; i < list->len; i++)
        inline_slot (&in, (MirStmt **) &list->pdata[i], TRUE, data);
    }
  pass_effects_clear (&in.fx);
  g_hash_table_unref (in.callees);
  /* inlined terms are now judged by what the call passed them; the others
   * keep the roles they had, the analysis giving the same answer through an
   * inlined call as through the call */
  if (in.changed)
    mir_classify_terms (program);
  return in.changed;
}
