/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/passes/passes.h"
#include "mir/passes/passes-private.h"

#include "mir/dataflow/const-eval.h"

/* stanc's unroll_static_limit: loops whose upper bound exceeds the lower
 * by more than this stay loops. */
#define UNROLL_LIMIT 32

static MirConstValue
unknown (const char *name, gpointer data)
{
  return mir_const_nac ();
}

static gboolean
constant_int (const MirExpr *e, gint64 *value)
{
  MirConstValue v = mir_const_eval (e, unknown, NULL);

  if (v.kind != MIR_CONST_INT)
    return FALSE;
  *value = v.i;
  return TRUE;
}

/* One copy of `body` with the loop variable replaced by `i`; a block that
 * declares nothing needs no scope of its own and is spliced in. */
static void
add_iteration (GPtrArray *out, const MirStmt *loop, gint64 i)
{
  g_autoptr (GHashTable) subst = g_hash_table_new (NULL, NULL);
  MirExpr *value = pass_int_lit (&loop->span, i);
  MirStmt *copy = mir_stmt_copy (loop->u.for_stmt.body);

  g_hash_table_insert (subst, (gpointer) loop->u.for_stmt.var, value);
  pass_subst_vars (copy, subst);
  mir_expr_free (value);
  if (copy->kind == MIR_STMT_BLOCK && !pass_list_declares (copy->u.block.stmts))
    {
      GPtrArray *stmts = copy->u.block.stmts;
      for (guint k = 0; k < stmts->len; k++)
        g_ptr_array_add (out, g_ptr_array_index (stmts, k));
      g_ptr_array_set_free_func (stmts, NULL);
      g_ptr_array_set_size (stmts, 0);
      g_ptr_array_set_free_func (stmts, (GDestroyNotify) mir_stmt_free);
      mir_stmt_free (copy);
    }
  else
    g_ptr_array_add (out, copy);
}

static void
unroll (MirStmt **slot, gpointer data)
{
  MirStmt *s = *slot;
  gint64 low, up;
  GPtrArray *stmts;

  if (s->kind != MIR_STMT_FOR || pass_stmt_breaks_out (s->u.for_stmt.body)
      || !constant_int (s->u.for_stmt.lower, &low) || !constant_int (s->u.for_stmt.upper, &up)
      || up - low > UNROLL_LIMIT)
    return;
  if (up < low)
    *slot = mir_stmt_new (MIR_STMT_SKIP, &s->span);
  else
    {
      stmts = mir_stmt_list_new ();
      for (gint64 i = low; i <= up; i++)
        add_iteration (stmts, s, i);
      *slot = mir_stmt_slist (&s->span, stmts);
    }
  mir_stmt_free (s);
  *(gboolean *) data = TRUE;
}

gboolean
mir_pass_static_loop_unrolling (MirProgram *program)
{
  gboolean changed = FALSE;

  for (guint i = 0; i < program->functions->len; i++)
    {
      MirFunDef *f = g_ptr_array_index (program->functions, i);
      if (f->body)
        pass_map_stmt_pre (&f->body, unroll, &changed);
    }
  for (int part = 0; part < MIR_N_PARTS; part++)
    for (guint i = 0; i < program->parts[part]->len; i++)
      pass_map_stmt_pre ((MirStmt **) &program->parts[part]->pdata[i], unroll, &changed);
  return changed;
}
