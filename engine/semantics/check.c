/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "check-private.h"

#include <string.h>

/* stanc's default model name: the file's base name without extension, then
 * "_model". */
static const char *
default_model_name (TildeProgram *program)
{
  const TildeSourceFile *main = program->sources ? tilde_source_set_get_main (program->sources)
                                                 : NULL;
  g_autofree char *base = NULL;
  char *dot;

  if (main == NULL || main->name == NULL)
    return NULL;
  base = g_path_get_basename (main->name);
  dot = strrchr (base, '.');
  if (dot && dot != base)
    *dot = '\0';
  {
    g_autofree char *name = g_strconcat (base, "_model", NULL);
    return g_intern_string (name);
  }
}

static void
check_block (TildeChecker *c, TildeBlockKind kind)
{
  TildeBlock *block = c->program->blocks[kind];

  if (block == NULL)
    return;
  c->block = kind;
  _tilde_check_stmt_list (c, block->stmts, block->n_stmts);
}

gboolean
tilde_check_program (TildeProgram *program, const TildeCheckOptions *options,
                     GPtrArray *diagnostics)
{
  TildeChecker c = { 0 };

  g_return_val_if_fail (program != NULL, FALSE);
  g_return_val_if_fail (diagnostics != NULL, FALSE);
  c.program = program;
  c.arena = program->arena;
  c.diags = diagnostics;
  c.scope = tilde_scope_new (program->arena);
  c.allow_undefined = options && options->allow_undefined;
  c.model_name = options && options->model_name ? g_intern_string (options->model_name)
                                                : default_model_name (program);

  /* every function is visible in every body, whatever the order */
  _tilde_check_collect_functions (&c, program->blocks[TILDE_BLOCK_FUNCTIONS]);
  check_block (&c, TILDE_BLOCK_FUNCTIONS);
  _tilde_check_functions_defined (&c, program->blocks[TILDE_BLOCK_FUNCTIONS]);

  check_block (&c, TILDE_BLOCK_DATA);
  check_block (&c, TILDE_BLOCK_TRANSFORMED_DATA);
  check_block (&c, TILDE_BLOCK_PARAMETERS);
  check_block (&c, TILDE_BLOCK_TRANSFORMED_PARAMETERS);
  /* the model block's variables are its own */
  tilde_scope_open (c.scope);
  check_block (&c, TILDE_BLOCK_MODEL);
  tilde_scope_close (c.scope);
  check_block (&c, TILDE_BLOCK_GENERATED_QUANTITIES);

  tilde_scope_free (c.scope);
  return c.n_errors == 0;
}
