/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/passes/passes.h"
#include "mir/passes/passes-private.h"

/* Splices the statement lists of `list` into it; the lists' own statements
 * are already flat (the traversal is bottom-up). */
static gboolean
collapse_list (GPtrArray *list)
{
  gboolean any = FALSE;
  GPtrArray *flat;

  for (guint i = 0; i < list->len && !any; i++)
    any = ((MirStmt *) g_ptr_array_index (list, i))->kind == MIR_STMT_SLIST;
  if (!any)
    return FALSE;
  flat = g_ptr_array_new ();
  for (guint i = 0; i < list->len; i++)
    {
      MirStmt *s = g_ptr_array_index (list, i);
      if (s->kind != MIR_STMT_SLIST)
        {
          g_ptr_array_add (flat, s);
          continue;
        }
      for (guint j = 0; j < s->u.block.stmts->len; j++)
        g_ptr_array_add (flat, g_ptr_array_index (s->u.block.stmts, j));
      /* the spliced statements now belong to `list` */
      g_ptr_array_set_free_func (s->u.block.stmts, NULL);
      g_ptr_array_set_size (s->u.block.stmts, 0);
      g_ptr_array_set_free_func (s->u.block.stmts, (GDestroyNotify) mir_stmt_free);
      mir_stmt_free (s);
    }
  /* `list` frees its elements: empty it without freeing, then refill */
  g_ptr_array_set_free_func (list, NULL);
  g_ptr_array_set_size (list, 0);
  g_ptr_array_set_free_func (list, (GDestroyNotify) mir_stmt_free);
  for (guint i = 0; i < flat->len; i++)
    g_ptr_array_add (list, g_ptr_array_index (flat, i));
  g_ptr_array_unref (flat);
  return TRUE;
}

static void
collapse_stmt (MirStmt **slot, gpointer data)
{
  GPtrArray *list = pass_stmt_list (*slot);

  if (list && collapse_list (list))
    *(gboolean *) data = TRUE;
}

gboolean
mir_pass_list_collapsing (MirProgram *program)
{
  gboolean changed = FALSE;

  pass_map_program_post (program, TRUE, collapse_stmt, &changed);
  for (int part = 0; part < MIR_N_PARTS; part++)
    changed |= collapse_list (program->parts[part]);
  return changed;
}
