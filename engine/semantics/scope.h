/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What a name in a Stan program stands for: the symbols the type checker
 * creates and the scopes it looks them up in.
 *
 * Symbols live in the program's arena, so the `decl` slots of the syntax
 * tree can point at them for as long as the tree lives. A variable's symbol
 * and a function's symbol both start with their TildeSymbolKind, so a
 * `decl` pointer tells which it is.
 *
 * Visibility follows Stan: a name is visible from its declaration to the end
 * of the enclosing block statement (or, for block variables, to the end of
 * the program, except that the model block's locals end with the model
 * block). Variables may take the name of a function (they hide it from
 * lookups of variables, not from calls of library functions); no variable
 * may take the name of another variable in scope.
 */
#pragma once

#include <glib.h>

#include "syntax/ast.h"
#include "semantics/types.h"

G_BEGIN_DECLS

typedef enum {
  TILDE_SYMBOL_VARIABLE,
  TILDE_SYMBOL_FUNCTION,
} TildeSymbolKind;

typedef enum {
  TILDE_VAR_BLOCK,     /* a top-level declaration of a program block */
  TILDE_VAR_LOCAL,     /* a local variable (model block, statements, function bodies) */
  TILDE_VAR_LOOP,      /* the variable of a for or foreach loop */
  TILDE_VAR_ARGUMENT,  /* a function argument */
} TildeVariableRole;

typedef struct TildeVariable TildeVariable;
typedef struct TildeFunction TildeFunction;

struct TildeVariable {
  TildeSymbolKind   kind;       /* TILDE_SYMBOL_VARIABLE */
  const char       *name;       /* interned */
  const TildeType  *type;
  TildeVariableRole role;
  TildeBlockKind    block;      /* where it was declared; FUNCTIONS inside function bodies */
  /* The block whose rules give its values their AD level: `block`, except
   * that `data` arguments count as DATA and other arguments as PARAMETERS. */
  TildeBlockKind    origin;
  gboolean          readonly;   /* loop variables and function arguments */
  TildeSpan         span;       /* the identifier where it is declared */
  TildeStmt        *stmt;       /* VAR_DECL, FUN_DEF (arguments), FOR or FOREACH */
  TildeVariable    *hidden;     /* internal: the binding this one hides */
};

struct TildeFunction {
  TildeSymbolKind  kind;        /* TILDE_SYMBOL_FUNCTION */
  const char      *name;        /* interned */
  const TildeType *type;        /* tilde_type_function, kind from the name's suffix */
  TildeStmt       *definition;  /* the FUN_DEF with a body; NULL while only declared */
  TildeStmt       *declaration; /* the first forward declaration, or NULL */
  gboolean         is_extern;   /* declared @extern: defined outside the program */
  TildeFunction   *next;        /* the next overload of the same name */
};

typedef struct TildeScope TildeScope;

/* Symbols are allocated from `arena`, which must outlive their users. */
TildeScope    *tilde_scope_new (TildeArena *arena);
void           tilde_scope_free (TildeScope *scope);

/* Opens and closes a nested scope; closing forgets the variables added
 * since the matching open. Functions are never forgotten. */
void           tilde_scope_open (TildeScope *scope);
void           tilde_scope_close (TildeScope *scope);

/* A new variable symbol, not yet visible. */
TildeVariable *tilde_scope_new_variable (TildeScope *scope, const char *name,
                                         const TildeType *type, TildeVariableRole role,
                                         TildeBlockKind block, const TildeSpan *span,
                                         TildeStmt *stmt);
void           tilde_scope_add_variable (TildeScope *scope, TildeVariable *var);
TildeVariable *tilde_scope_lookup_variable (TildeScope *scope, const char *name);

/* A new overload of `name` (appended to its list). */
TildeFunction *tilde_scope_add_function (TildeScope *scope, const char *name,
                                         const TildeType *type);
/* The first overload of `name`, or NULL. */
TildeFunction *tilde_scope_lookup_function (TildeScope *scope, const char *name);
/* Every user-defined function name, in the order they were first added. */
guint          tilde_scope_n_function_names (TildeScope *scope);
const char    *tilde_scope_function_name (TildeScope *scope, guint i);

/* Calls `visit` on every variable now visible. */
void           tilde_scope_foreach_variable (TildeScope *scope,
                                             void (*visit) (TildeVariable *var, gpointer data),
                                             gpointer data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeScope, tilde_scope_free)

G_END_DECLS
