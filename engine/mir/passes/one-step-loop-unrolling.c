/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/passes/passes.h"
#include "mir/passes/passes-private.h"

typedef struct {
  PassEffects fx;
  gboolean    changed;
} Unroll;

/* Appends one run of `body` to `out`: its statements when it declares
 * nothing, the block itself otherwise (so that the loop that follows
 * declares its variables in a scope of its own, not a nested one that
 * would hide them). */
static void
add_body (GPtrArray *out, MirStmt *body)
{
  GPtrArray *stmts = body->kind == MIR_STMT_BLOCK ? body->u.block.stmts : NULL;

  if (!stmts || pass_list_declares (stmts))
    {
      g_ptr_array_add (out, body);
      return;
    }
  for (guint i = 0; i < stmts->len; i++)
    g_ptr_array_add (out, g_ptr_array_index (stmts, i));
  g_ptr_array_set_free_func (stmts, NULL);
  g_ptr_array_set_size (stmts, 0);
  g_ptr_array_set_free_func (stmts, (GDestroyNotify) mir_stmt_free);
  mir_stmt_free (body);
}

static void
note_var (MirExpr *e, gpointer data)
{
  if (e->kind == MIR_EXPR_VAR)
    g_ptr_array_add (data, (gpointer) e->u.var.name);
  mir_expr_foreach_child (e, note_var, data);
}

/* Whether `e` gives the same value wherever it is evaluated around the
 * loop: it has no effect and the body changes none of its variables. */
static gboolean
stable (const Unroll *u, const MirExpr *e, const MirStmt *body)
{
  g_autoptr (GPtrArray) vars = g_ptr_array_new ();

  if (!pass_expr_is_movable (e, &u->fx))
    return FALSE;
  note_var ((MirExpr *) e, vars);
  for (guint i = 0; i < vars->len; i++)
    if (pass_stmt_writes (body, vars->pdata[i]))
      return FALSE;
  return TRUE;
}

static MirExpr *
int_op (const TildeSpan *span, const char *name, MirExpr *a, MirExpr *b)
{
  return mir_expr_stanlib (span, tilde_type_int (), tilde_ad_lub (a->ad_level, b->ad_level),
                           name, mir_expr_list_of (a, b, NULL));
}

/* for (i in a:b) s  ->  if (b >= a) { s[i:=a]; for (i in (a + 1):b) s } */
static MirStmt *
unroll_for (MirStmt *s)
{
  const TildeSpan *span = &s->span;
  g_autoptr (GHashTable) subst = g_hash_table_new (NULL, NULL);
  MirStmt *first = mir_stmt_copy (s->u.for_stmt.body);
  MirExpr *cond = int_op (span, "Geq__", mir_expr_copy (s->u.for_stmt.upper),
                          mir_expr_copy (s->u.for_stmt.lower));
  GPtrArray *stmts = mir_stmt_list_new ();

  g_hash_table_insert (subst, (gpointer) s->u.for_stmt.var, s->u.for_stmt.lower);
  pass_subst_vars (first, subst);
  add_body (stmts, first);
  s->u.for_stmt.lower = int_op (span, "Plus__", s->u.for_stmt.lower, pass_int_lit (span, 1));
  g_ptr_array_add (stmts, s);
  return mir_stmt_if (span, cond, mir_stmt_block (span, stmts), NULL);
}

/* while (c) s  ->  if (c) { s; while (c) s }: c is evaluated as often, in
 * the same order, as before. */
static MirStmt *
unroll_while (MirStmt *s)
{
  const TildeSpan *span = &s->span;
  GPtrArray *stmts = mir_stmt_list_new ();
  MirExpr *cond = mir_expr_copy (s->u.while_stmt.cond);

  add_body (stmts, mir_stmt_copy (s->u.while_stmt.body));
  g_ptr_array_add (stmts, s);
  return mir_stmt_if (span, cond, mir_stmt_block (span, stmts), NULL);
}

static void
unroll (MirStmt **slot, gpointer data)
{
  Unroll *u = data;
  MirStmt *s = *slot;

  if (s->kind == MIR_STMT_FOR && !pass_stmt_breaks_out (s->u.for_stmt.body)
      && stable (u, s->u.for_stmt.lower, s->u.for_stmt.body)
      && stable (u, s->u.for_stmt.upper, s->u.for_stmt.body))
    *slot = unroll_for (s);
  else if (s->kind == MIR_STMT_WHILE && !pass_stmt_breaks_out (s->u.while_stmt.body))
    *slot = unroll_while (s);
  else
    return;
  u->changed = TRUE;
}

gboolean
mir_pass_one_step_loop_unrolling (MirProgram *program)
{
  Unroll u = { { NULL }, FALSE };

  pass_effects_init (&u.fx, program);
  pass_map_program_post (program, TRUE, unroll, &u);
  pass_effects_clear (&u.fx);
  return u.changed;
}
