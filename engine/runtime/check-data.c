/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

/*
 * The data block's statements of prepare_data, run one at a time so that a
 * problem with one variable does not hide the others. Each statement
 * concerns one variable (it declares, reads, size-checks or
 * constraint-checks it); a statement that fails marks its variable, and a
 * statement that concerns or reads a marked variable is passed over.
 */

#include "runtime/model.h"
#include "runtime/exec-private.h"
#include "mir/mir-transform.h"

#include <string.h>

void
tilde_data_problem_free (TildeDataProblem *problem)
{
  if (!problem)
    return;
  g_free (problem->message);
  g_free (problem);
}

static void
add_problem (GPtrArray *problems, TildeDataProblemKind kind, const char *name,
             const char *message)
{
  TildeDataProblem *p = g_new0 (TildeDataProblem, 1);
  p->kind = kind;
  p->name = name ? g_intern_string (name) : NULL;
  p->message = g_strdup (message ? message : "the data cannot be read");
  g_ptr_array_add (problems, p);
}

static const char *
lvalue_root (const MirLvalue *lv)
{
  while (lv->proj_of)
    lv = lv->proj_of;
  return lv->var;
}

static const char *
expr_root (const MirExpr *e)
{
  for (;;)
    switch (e->kind)
      {
      case MIR_EXPR_VAR:
        return e->u.var.name;
      case MIR_EXPR_INDEXED:
        e = e->u.indexed.base;
        break;
      case MIR_EXPR_TUPLE_PROJ:
        e = e->u.proj.base;
        break;
      case MIR_EXPR_PROMOTION:
        e = e->u.promotion.expr;
        break;
      default:
        return NULL;
      }
}

/* The variable a statement of the data block is about, or NULL. */
static const char *
stmt_variable (const MirStmt *s)
{
  switch (s->kind)
    {
    case MIR_STMT_DECL:
      return s->u.decl.name;
    case MIR_STMT_ASSIGN:
      return lvalue_root (s->u.assign.lhs);
    case MIR_STMT_NR_CALL:
      {
        const MirFun *f = &s->u.call.fun;
        if (f->kind != MIR_FUN_COMPILER)
          return NULL;
        if (f->internal == MIR_FN_CHECK && f->data && f->data->var)
          return expr_root (f->data->var);
        if ((f->internal == MIR_FN_VALIDATE_SIZE || f->internal == MIR_FN_VALIDATE_SIZE_SIMPLEX
             || f->internal == MIR_FN_VALIDATE_SIZE_UNIT_VECTOR)
            && s->u.call.args && s->u.call.args->len > 0)
          {
            const MirExpr *name = g_ptr_array_index (s->u.call.args, 0);
            return name->kind == MIR_EXPR_LIT ? name->u.lit.text : NULL;
          }
        return NULL;
      }
    default:
      return NULL;
    }
}

static void collect_expr_vars (MirExpr *e, gpointer user_data);

static void
collect_expr_vars (MirExpr *e, gpointer user_data)
{
  if (e->kind == MIR_EXPR_VAR)
    g_hash_table_add (user_data, (gpointer) g_intern_string (e->u.var.name));
  mir_expr_foreach_child (e, collect_expr_vars, user_data);
}

static void
collect_stmt_vars (MirStmt *s, gpointer user_data)
{
  mir_stmt_foreach_expr (s, collect_expr_vars, user_data);
}

/* Whether the statement reads a variable that has a problem. */
static gboolean
reads_failed (const MirStmt *s, GHashTable *failed)
{
  g_autoptr (GHashTable) read = g_hash_table_new (NULL, NULL);
  GHashTableIter it;
  gpointer name;

  mir_stmt_walk ((MirStmt *) s, collect_stmt_vars, read);
  g_hash_table_iter_init (&it, read);
  while (g_hash_table_iter_next (&it, &name, NULL))
    if (g_hash_table_contains (failed, name))
      return TRUE;
  return FALSE;
}

static gboolean
is_input (const MirProgram *p, const char *name)
{
  for (guint i = 0; name && i < p->input_vars->len; i++)
    if (strcmp (((const MirInputVar *) g_ptr_array_index (p->input_vars, i))->name, name) == 0)
      return TRUE;
  return FALSE;
}

/* The leading statements of prepare_data that are about data variables:
 * the data block (transformed data cannot name a data variable anew). */
static void
select_data_block (const MirProgram *p, GPtrArray *stmts, GPtrArray *out)
{
  for (guint i = 0; i < stmts->len; i++)
    {
      MirStmt *s = g_ptr_array_index (stmts, i);
      if (s->kind == MIR_STMT_SLIST)
        select_data_block (p, s->u.block.stmts, out);
      else if (is_input (p, stmt_variable (s)))
        g_ptr_array_add (out, s);
    }
}

static gboolean
run_stmt (Ev *ev, const St *s)
{
  if (setjmp (*ev->cx.jmp))
    return FALSE;
  rt_exec (ev, s);
  return TRUE;
}

static void
run_data_block (const St *block, const TildeJsonData *data, int n_slots, GPtrArray *problems)
{
  g_autoptr (GHashTable) failed = g_hash_table_new (NULL, NULL);
  AdTape *tape = ad_tape_new ();
  TildeArena *arena = tilde_arena_new (64 * 1024);
  TildeValue *slots = g_new0 (TildeValue, MAX (n_slots, 1));
  jmp_buf jmp;
  Ev ev;

  memset (&ev, 0, sizeof ev);
  ev.cx.tape = tape;
  ev.cx.arena = arena;
  ev.cx.jmp = &jmp;
  ev.slots = slots;
  ev.data = data;
  for (int i = 0; i < block->n_body; i++)
    {
      const St *s = block->body[i];
      const char *name = g_intern_string (stmt_variable (s->mir));
      if (g_hash_table_contains (failed, name) || reads_failed (s->mir, failed))
        {
          g_hash_table_add (failed, (gpointer) name);
          continue;
        }
      /* A data variable's declaration only makes room, which its read
       * makes again; sizes typed half way (N = 100000000) must not
       * allocate here. */
      if (s->mir->kind == MIR_STMT_DECL)
        continue;
      if (run_stmt (&ev, s))
        continue;
      gboolean missing = s->fn == rt_st_read_data && !tilde_json_data_has (data, s->var_name);
      add_problem (problems, missing ? TILDE_DATA_PROBLEM_MISSING : TILDE_DATA_PROBLEM_VALUE,
                   name, ev.cx.err_msg);
      g_hash_table_add (failed, (gpointer) name);
      g_clear_pointer (&ev.cx.err_msg, g_free);
    }
  g_free (ev.cx.err_msg);
  g_free (slots);
  tilde_arena_free (arena);
  ad_tape_free (tape);
}

GPtrArray *
tilde_model_check_data (const MirProgram *program, const TildeJsonData *data)
{
  GPtrArray *problems = g_ptr_array_new_with_free_func ((GDestroyNotify) tilde_data_problem_free);
  MirProgram *prog = mir_transform_program (program);
  g_autoptr (TildeJsonData) empty = data ? NULL : tilde_json_data_new_empty ();
  g_autoptr (GPtrArray) stmts = g_ptr_array_new ();
  Compiler *c = rt_compiler_new ();
  char *error = NULL;
  St *block = NULL;

  select_data_block (prog, prog->parts[MIR_PART_PREPARE_DATA], stmts);
  if (rt_compile_functions (c, prog->functions, &error))
    block = rt_compile_part (c, stmts, TRUE, FALSE, &error);
  if (block)
    run_data_block (block, data ? data : empty, rt_compiler_n_slots (c), problems);
  else
    add_problem (problems, TILDE_DATA_PROBLEM_MODEL, NULL, error);
  g_free (error);
  rt_compiler_free (c);
  mir_program_free (prog);
  return problems;
}
