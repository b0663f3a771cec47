/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/program-info.h"

/* A list of names without repeats. */
typedef struct {
  GPtrArray  *names;
  GHashTable *seen;
} Names;

static Names *
names_new (void)
{
  Names *n = g_new (Names, 1);

  n->names = g_ptr_array_new ();
  n->seen = g_hash_table_new (NULL, NULL);
  return n;
}

static void
add_name (Names *n, const char *name)
{
  const char *interned = g_intern_string (name);

  if (g_hash_table_add (n->seen, (gpointer) interned))
    g_ptr_array_add (n->names, (gpointer) interned);
}

static const char **
finish (Names *n)
{
  GPtrArray *names = n->names;

  g_hash_table_unref (n->seen);
  g_free (n);
  g_ptr_array_add (names, NULL);
  return (const char **) g_ptr_array_free (names, FALSE);
}

const char **
mir_program_data_names (const MirProgram *p)
{
  Names *names = names_new ();

  for (guint i = 0; p->input_vars && i < p->input_vars->len; i++)
    add_name (names, ((MirInputVar *) g_ptr_array_index (p->input_vars, i))->name);
  return finish (names);
}

static void
add_top_decls (Names *names, const GPtrArray *stmts)
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
  Names *names = names_new ();

  /* the data are taken as seen, so that only the others are added */
  for (guint i = 0; p->input_vars && i < p->input_vars->len; i++)
    g_hash_table_add (names->seen, (gpointer) g_intern_string (
                        ((MirInputVar *) g_ptr_array_index (p->input_vars, i))->name));
  add_top_decls (names, p->parts[MIR_PART_PREPARE_DATA]);
  return finish (names);
}

static void
add_silent_decls (Names *names, const GPtrArray *stmts)
{
  for (guint i = 0; stmts && i < stmts->len; i++)
    {
      const MirStmt *s = g_ptr_array_index (stmts, i);
      if (s->kind == MIR_STMT_DECL && mir_annotations_has (&s->u.decl.annotations, "silent"))
        add_name (names, s->u.decl.name);
      else if (s->kind == MIR_STMT_SLIST)
        add_silent_decls (names, s->u.block.stmts);
    }
}

const char **
mir_program_silent_names (const MirProgram *p)
{
  Names *names = names_new ();

  for (guint i = 0; p->input_vars && i < p->input_vars->len; i++)
    {
      const MirInputVar *v = g_ptr_array_index (p->input_vars, i);
      if (mir_annotations_has (&v->annotations, "silent"))
        add_name (names, v->name);
    }
  for (guint part = 0; part < MIR_N_PARTS; part++)
    add_silent_decls (names, p->parts[part]);
  return finish (names);
}

const char **
mir_program_output_names (const MirProgram *p, MirOutBlock block)
{
  Names *names = names_new ();

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
  Names *names = names_new ();

  for (guint i = 0; p->functions && i < p->functions->len; i++)
    add_name (names, ((MirFunDef *) g_ptr_array_index (p->functions, i))->name);
  return finish (names);
}

const char **
mir_fun_def_arg_names (const MirFunDef *f)
{
  Names *names = names_new ();

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
  Names *names = names_new ();

  for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
    for (guint i = 0; lists[l] && lists[l][i]; i++)
      add_name (names, lists[l][i]);
  return finish (names);
}
