/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/passes/passes.h"
#include "mir/passes/passes-private.h"

/* Whether `s` gives the whole of `name` a value computed without it:
 * name = e or name[:] = e (or [:, :]), e not reading name. */
static gboolean
assigns_whole (const MirStmt *s, const char *name)
{
  const MirLvalue *l;

  if (s->kind != MIR_STMT_ASSIGN)
    return FALSE;
  l = s->u.assign.lhs;
  if (l->proj_of || l->var != name || pass_expr_reads (s->u.assign.rhs, name))
    return FALSE;
  for (guint i = 0; l->indices && i < l->indices->len; i++)
    if (((MirIndex *) g_ptr_array_index (l->indices, i))->kind != MIR_INDEX_ALL || i >= 2)
      return FALSE;
  return TRUE;
}

static gboolean
fix_list (GPtrArray *list)
{
  gboolean changed = FALSE;

  for (guint i = 0; i + 1 < list->len; i++)
    {
      MirStmt *s = g_ptr_array_index (list, i);
      if (s->kind == MIR_STMT_DECL && s->u.decl.init_kind == MIR_DECL_DEFAULT
          && assigns_whole (g_ptr_array_index (list, i + 1), s->u.decl.name))
        {
          s->u.decl.init_kind = MIR_DECL_UNINIT;
          changed = TRUE;
        }
    }
  return changed;
}

static void
fix_stmt (MirStmt **slot, gpointer data)
{
  GPtrArray *list = pass_stmt_list (*slot);

  if (list && fix_list (list))
    *(gboolean *) data = TRUE;
}

gboolean
mir_pass_allow_uninitialized_decls (MirProgram *program)
{
  gboolean changed = FALSE;

  pass_map_program_post (program, TRUE, fix_stmt, &changed);
  for (int part = 0; part < MIR_N_PARTS; part++)
    changed |= fix_list (program->parts[part]);
  return changed;
}
