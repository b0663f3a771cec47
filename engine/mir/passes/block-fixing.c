/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/passes/passes.h"
#include "mir/passes/passes-private.h"

/* A statement list standing as a body becomes a block: the same
 * statements, in a scope of their own as a body has in Stan. */
static gboolean
fix_body (MirStmt *body)
{
  if (!body || body->kind != MIR_STMT_SLIST)
    return FALSE;
  body->kind = MIR_STMT_BLOCK;
  return TRUE;
}

static void
fix_stmt (MirStmt **slot, gpointer data)
{
  MirStmt *s = *slot;
  gboolean *changed = data;

  switch (s->kind)
    {
    case MIR_STMT_IF:
      *changed |= fix_body (s->u.if_stmt.then_stmt);
      *changed |= fix_body (s->u.if_stmt.else_stmt);
      break;
    case MIR_STMT_WHILE:
      *changed |= fix_body (s->u.while_stmt.body);
      break;
    case MIR_STMT_FOR:
      *changed |= fix_body (s->u.for_stmt.body);
      break;
    default:
      break;
    }
}

gboolean
mir_pass_block_fixing (MirProgram *program)
{
  gboolean changed = FALSE;

  pass_map_program_post (program, TRUE, fix_stmt, &changed);
  return changed;
}
