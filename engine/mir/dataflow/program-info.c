/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/program-info.h"

static void
add_name (GPtrArray *names, const char *name)
{
  const char *interned = g_intern_string (name);

  for (guint i = 0; i < names->len; i++)
    if (g_ptr_array_index (names, i) == interned)
      return;
  g_ptr_array_add (names, (gpointer) interned);
}

static const char **
finish (GPtrArray *names)
{
  g_ptr_array_add (names, NULL);
  return (const char **) g_ptr_array_free (names, FALSE);
}

const char **
mir_program_data_names (const MirProgram *p)
{
  GPtrArray *names = g_ptr_array_new ();

  for (guint i = 0; p->input_vars && i < p->input_vars->len; i++)
    add_name (names, ((MirInputVar *) g_ptr_array_index (p->input_vars, i))->name);
  return finish (names);
}

static void
add_top_decls (GPtrArray *names, const GPtrArray *stmts)
{
  for (guint i = 0; stmts && i < stmts->len; i++)
    {
      const MirStmt *s = g_ptr_array_index (stmts, i);
      if (s->kind == MIR_STMT_DECL)
        add_name (names, s->u.decl.name);
      else if (s->kind == MIR_STMT_SLIST)
        add_top_decls (names, s->u.block.stmts);
    }
}

const char **
mir_program_transformed_data_names (const MirProgram *p)
{
  g_autofree const char **data = mir_program_data_names (p);
  GPtrArray *decls = g_ptr_array_new ();
  GPtrArray *names = g_ptr_array_new ();

  add_top_decls (decls, p->parts[MIR_PART_PREPARE_DATA]);
  for (guint i = 0; i < decls->len; i++)
    {
      gboolean is_data = FALSE;
      for (guint j = 0; data[j]; j++)
        is_data |= data[j] == g_ptr_array_index (decls, i);
      if (!is_data)
        add_name (names, g_ptr_array_index (decls, i));
    }
  g_ptr_array_unref (decls);
  return finish (names);
}

const char **
mir_program_output_names (const MirProgram *p, MirOutBlock block)
{
  GPtrArray *names = g_ptr_array_new ();

  for (guint i = 0; p->output_vars && i < p->output_vars->len; i++)
    {
      const MirOutputVar *v = g_ptr_array_index (p->output_vars, i);
      if (v->block == block)
        add_name (names, v->name);
    }
  return finish (names);
}

const char **
mir_program_parameter_names (const MirProgram *p)
{
  return mir_program_output_names (p, MIR_OUT_PARAMETERS);
}

const char **
mir_program_function_names (const MirProgram *p)
{
  GPtrArray *names = g_ptr_array_new ();

  for (guint i = 0; p->functions && i < p->functions->len; i++)
    add_name (names, ((MirFunDef *) g_ptr_array_index (p->functions, i))->name);
  return finish (names);
}

const char **
mir_fun_def_arg_names (const MirFunDef *f)
{
  GPtrArray *names = g_ptr_array_new ();

  for (guint i = 0; f->args && i < f->args->len; i++)
    add_name (names, g_array_index (f->args, MirFunArg, i).name);
  return finish (names);
}

const char *const *
mir_program_flag_names (void)
{
  static const char *const flags[] = {
    "emit_transformed_parameters__",
    "emit_generated_quantities__",
    NULL,
  };
  return flags;
}

const char **
mir_names_concat (const char *const *a, const char *const *b, const char *const *c)
{
  const char *const *lists[] = { a, b, c };
  GPtrArray *names = g_ptr_array_new ();

  for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
    for (guint i = 0; lists[l] && lists[l][i]; i++)
      add_name (names, lists[l][i]);
  return finish (names);
}
