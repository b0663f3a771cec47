/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "scope.h"

struct TildeScope {
  TildeArena *arena;
  GHashTable *variables;   /* interned name -> innermost TildeVariable */
  GHashTable *functions;   /* interned name -> first TildeFunction */
  GPtrArray  *stack;       /* visible variables, in order of declaration */
  GArray     *marks;       /* stack lengths at each open scope */
  GPtrArray  *fun_names;   /* in order of first definition */
};

TildeScope *
tilde_scope_new (TildeArena *arena)
{
  TildeScope *scope = g_new0 (TildeScope, 1);

  scope->arena = arena;
  scope->variables = g_hash_table_new (g_direct_hash, g_direct_equal);
  scope->functions = g_hash_table_new (g_direct_hash, g_direct_equal);
  scope->stack = g_ptr_array_sized_new (64);
  scope->marks = g_array_sized_new (FALSE, FALSE, sizeof (guint), 16);
  scope->fun_names = g_ptr_array_new ();
  return scope;
}

void
tilde_scope_free (TildeScope *scope)
{
  if (scope == NULL)
    return;
  g_hash_table_unref (scope->variables);
  g_hash_table_unref (scope->functions);
  g_ptr_array_unref (scope->stack);
  g_array_unref (scope->marks);
  g_ptr_array_unref (scope->fun_names);
  g_free (scope);
}

void
tilde_scope_open (TildeScope *scope)
{
  guint len = scope->stack->len;

  g_array_append_val (scope->marks, len);
}

void
tilde_scope_close (TildeScope *scope)
{
  guint mark;

  g_return_if_fail (scope->marks->len > 0);
  mark = g_array_index (scope->marks, guint, scope->marks->len - 1);
  g_array_set_size (scope->marks, scope->marks->len - 1);
  while (scope->stack->len > mark)
    {
      TildeVariable *var = g_ptr_array_steal_index (scope->stack, scope->stack->len - 1);

      if (var->hidden)
        g_hash_table_insert (scope->variables, (gpointer) var->name, var->hidden);
      else
        g_hash_table_remove (scope->variables, var->name);
    }
}

TildeVariable *
tilde_scope_new_variable (TildeScope *scope, const char *name, const TildeType *type,
                          TildeVariableRole role, TildeBlockKind block,
                          const TildeSpan *span, TildeStmt *stmt)
{
  TildeVariable *var = tilde_arena_new0 (scope->arena, TildeVariable);

  var->kind = TILDE_SYMBOL_VARIABLE;
  var->name = name;
  var->type = type;
  var->role = role;
  var->block = block;
  var->origin = block;
  var->readonly = role == TILDE_VAR_LOOP || role == TILDE_VAR_ARGUMENT;
  if (span)
    var->span = *span;
  var->stmt = stmt;
  return var;
}

void
tilde_scope_add_variable (TildeScope *scope, TildeVariable *var)
{
  var->hidden = g_hash_table_lookup (scope->variables, var->name);
  g_hash_table_insert (scope->variables, (gpointer) var->name, var);
  g_ptr_array_add (scope->stack, var);
}

TildeVariable *
tilde_scope_lookup_variable (TildeScope *scope, const char *name)
{
  return g_hash_table_lookup (scope->variables, name);
}

TildeFunction *
tilde_scope_add_function (TildeScope *scope, const char *name, const TildeType *type)
{
  TildeFunction *fn = tilde_arena_new0 (scope->arena, TildeFunction);
  TildeFunction *first = g_hash_table_lookup (scope->functions, name);

  fn->kind = TILDE_SYMBOL_FUNCTION;
  fn->name = name;
  fn->type = type;
  if (first == NULL)
    {
      g_hash_table_insert (scope->functions, (gpointer) name, fn);
      g_ptr_array_add (scope->fun_names, (gpointer) name);
    }
  else
    {
      while (first->next)
        first = first->next;
      first->next = fn;
    }
  return fn;
}

TildeFunction *
tilde_scope_lookup_function (TildeScope *scope, const char *name)
{
  return g_hash_table_lookup (scope->functions, name);
}

guint
tilde_scope_n_function_names (TildeScope *scope)
{
  return scope->fun_names->len;
}

const char *
tilde_scope_function_name (TildeScope *scope, guint i)
{
  return g_ptr_array_index (scope->fun_names, i);
}

void
tilde_scope_foreach_variable (TildeScope *scope,
                              void (*visit) (TildeVariable *var, gpointer data),
                              gpointer data)
{
  for (guint i = 0; i < scope->stack->len; i++)
    {
      TildeVariable *var = g_ptr_array_index (scope->stack, i);

      /* only the innermost binding of a name is visible */
      if (g_hash_table_lookup (scope->variables, var->name) == var)
        visit (var, data);
    }
}
