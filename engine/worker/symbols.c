/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "worker/symbols.h"

#include <string.h>

#include "syntax/printer.h"

typedef struct {
  gsize       offset;
  GPtrArray  *names;
  GHashTable *seen;     /* interned name -> TildeVisibleName* */
} Collector;

static void
visible_name_free (gpointer data)
{
  TildeVisibleName *name = data;

  g_free (name->detail);
  g_free (name);
}

static void
add_name (Collector *c, TildeVisibleKind kind, const char *name, char *detail,
          TildeBlockKind block)
{
  TildeVisibleName *v;

  if (name == NULL || g_hash_table_contains (c->seen, name))
    {
      g_free (detail);
      return;
    }
  v = g_new0 (TildeVisibleName, 1);
  v->kind = kind;
  v->name = name;
  v->detail = detail;
  v->block = block;
  g_hash_table_insert (c->seen, (gpointer) name, v);
  g_ptr_array_add (c->names, v);
}

static gsize
stmt_begin (const TildeStmt *stmt)
{
  return tilde_span_root_offset (&stmt->span);
}

/* Whether the place is inside `stmt`; statements of included files never
 * contain a place of the main file. */
static gboolean
stmt_contains (const TildeStmt *stmt, gsize offset)
{
  const TildeSpan *span = &stmt->span;

  if (span->file == NULL || span->file->included_from != NULL
      || (span->end_file != NULL && span->end_file->included_from != NULL))
    return FALSE;
  return span->begin_offset <= offset && offset <= span->end_offset;
}

static void
add_declaration (Collector *c, const TildeStmt *stmt, TildeBlockKind block)
{
  for (int i = 0; i < stmt->u.var_decl.n_items; i++)
    add_name (c, TILDE_VISIBLE_VARIABLE, stmt->u.var_decl.items[i].ident.name,
              tilde_print_sized_type (stmt->u.var_decl.type), block);
}

static char *
argument_detail (const TildeFunArg *arg)
{
  g_autofree char *type = tilde_print_unsized_type (arg->type);

  return arg->data_only ? g_strconcat ("data ", type, NULL) : g_steal_pointer (&type);
}

static void scan_stmt (Collector *c, const TildeStmt *stmt, TildeBlockKind block);

/* The declarations of a statement list that come before the place, then
 * the statement around it. Inner scopes are scanned first so that their
 * names are listed (and shadow) first. */
static void
scan_list (Collector *c, TildeStmt *const *stmts, int n, TildeBlockKind block, gboolean locals)
{
  for (int i = 0; i < n; i++)
    if (stmt_contains (stmts[i], c->offset))
      scan_stmt (c, stmts[i], block);
  if (!locals)
    return;
  for (int i = n - 1; i >= 0; i--)
    if (stmts[i]->kind == TILDE_STMT_VAR_DECL && stmt_begin (stmts[i]) < c->offset
        && !stmt_contains (stmts[i], c->offset))
      add_declaration (c, stmts[i], block);
}

static void
scan_body (Collector *c, const TildeStmt *body, TildeBlockKind block)
{
  if (body != NULL && stmt_contains (body, c->offset))
    scan_stmt (c, body, block);
}

static void
scan_stmt (Collector *c, const TildeStmt *stmt, TildeBlockKind block)
{
  switch (stmt->kind)
    {
    case TILDE_STMT_BLOCK:
      scan_list (c, stmt->u.block.stmts, stmt->u.block.n_stmts, block, TRUE);
      break;
    case TILDE_STMT_PROFILE:
      scan_list (c, stmt->u.profile.stmts, stmt->u.profile.n_stmts, block, TRUE);
      break;
    case TILDE_STMT_IF:
      scan_body (c, stmt->u.if_stmt.then_stmt, block);
      scan_body (c, stmt->u.if_stmt.else_stmt, block);
      break;
    case TILDE_STMT_WHILE:
      scan_body (c, stmt->u.while_stmt.body, block);
      break;
    case TILDE_STMT_FOR:
      scan_body (c, stmt->u.for_stmt.body, block);
      if (stmt->u.for_stmt.body && stmt_contains (stmt->u.for_stmt.body, c->offset))
        add_name (c, TILDE_VISIBLE_VARIABLE, stmt->u.for_stmt.var.name, g_strdup ("int"), block);
      break;
    case TILDE_STMT_FOREACH:
      scan_body (c, stmt->u.foreach_stmt.body, block);
      if (stmt->u.foreach_stmt.body && stmt_contains (stmt->u.foreach_stmt.body, c->offset))
        {
          /* The element type is known only after type checking. */
          g_autofree char *container = tilde_print_expr (stmt->u.foreach_stmt.container);
          add_name (c, TILDE_VISIBLE_VARIABLE, stmt->u.foreach_stmt.var.name,
                    g_strdup_printf ("element of %s", container), block);
        }
      break;
    case TILDE_STMT_FUN_DEF:
      scan_body (c, stmt->u.fun_def.body, block);
      if (stmt->u.fun_def.body && stmt_contains (stmt->u.fun_def.body, c->offset))
        for (int i = 0; i < stmt->u.fun_def.n_args; i++)
          add_name (c, TILDE_VISIBLE_VARIABLE, stmt->u.fun_def.args[i].ident.name,
                    argument_detail (&stmt->u.fun_def.args[i]), block);
      break;
    default:
      break;
    }
}

static char *
function_signature (const TildeStmt *def)
{
  GString *s = g_string_new (NULL);
  g_autofree char *ret = tilde_print_unsized_type (def->u.fun_def.return_type);

  g_string_append_printf (s, "%s %s(", ret, def->u.fun_def.name.name);
  for (int i = 0; i < def->u.fun_def.n_args; i++)
    {
      g_autofree char *type = argument_detail (&def->u.fun_def.args[i]);

      g_string_append_printf (s, "%s%s %s", i > 0 ? ", " : "", type,
                              def->u.fun_def.args[i].ident.name);
    }
  g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

/* Every overload once (a forward declaration and its definition read the same). */
static void
add_functions (Collector *c, const TildeBlock *functions)
{
  g_autoptr(GHashTable) details = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr(GPtrArray) order = g_ptr_array_new ();

  for (int i = 0; i < functions->n_stmts; i++)
    {
      const TildeStmt *def = functions->stmts[i];
      const char *name;
      g_autofree char *signature = NULL;
      GString *detail;

      if (def->kind != TILDE_STMT_FUN_DEF)
        continue;
      name = def->u.fun_def.name.name;
      signature = function_signature (def);
      detail = g_hash_table_lookup (details, name);
      if (detail == NULL)
        {
          detail = g_string_new (signature);
          g_hash_table_insert (details, (gpointer) name, detail);
          g_ptr_array_add (order, (gpointer) name);
        }
      else if (strstr (detail->str, signature) == NULL)
        g_string_append_printf (detail, "\n%s", signature);
    }
  for (guint i = 0; i < order->len; i++)
    {
      GString *detail = g_hash_table_lookup (details, order->pdata[i]);

      add_name (c, TILDE_VISIBLE_FUNCTION, order->pdata[i], g_string_free (detail, FALSE),
                TILDE_BLOCK_FUNCTIONS);
    }
}

static gboolean
block_contains (const TildeBlock *block, gsize offset)
{
  const TildeSpan *span = &block->span;

  return span->file != NULL && span->file->included_from == NULL
         && span->begin_offset <= offset && offset <= span->end_offset;
}

GPtrArray *
tilde_visible_names (const TildeProgram *program, gsize offset)
{
  Collector c = { offset, NULL, NULL };
  TildeBlockKind here = TILDE_N_BLOCKS;

  g_return_val_if_fail (program != NULL, NULL);
  c.names = g_ptr_array_new_with_free_func (visible_name_free);
  c.seen = g_hash_table_new (g_direct_hash, g_direct_equal);

  for (int b = 0; b < TILDE_N_BLOCKS; b++)
    if (program->blocks[b] != NULL && block_contains (program->blocks[b], offset))
      here = b;

  /* Locals of the statement around the place, innermost first. */
  if (here != TILDE_N_BLOCKS)
    scan_list (&c, program->blocks[here]->stmts, program->blocks[here]->n_stmts, here, FALSE);

  /* Block variables declared before the place; the model block's own stay
   * in the model block, and function bodies see none. */
  if (here != TILDE_BLOCK_FUNCTIONS)
    for (int b = TILDE_N_BLOCKS - 1; b > TILDE_BLOCK_FUNCTIONS; b--)
      {
        const TildeBlock *block = program->blocks[b];

        if (block == NULL || (b == TILDE_BLOCK_MODEL && here != TILDE_BLOCK_MODEL))
          continue;
        for (int i = block->n_stmts - 1; i >= 0; i--)
          if (block->stmts[i]->kind == TILDE_STMT_VAR_DECL
              && stmt_begin (block->stmts[i]) < offset
              && !stmt_contains (block->stmts[i], offset))
            add_declaration (&c, block->stmts[i], b);
      }

  if (program->blocks[TILDE_BLOCK_FUNCTIONS] != NULL)
    add_functions (&c, program->blocks[TILDE_BLOCK_FUNCTIONS]);

  g_hash_table_unref (c.seen);
  return c.names;
}
