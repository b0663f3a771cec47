/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The type checker of the Stan front end: Stan 2.36's typing and scoping
 * rules, with the Stan compiler's messages.
 *
 * It fills the checker's slots of the syntax tree: every expression's
 * `type` and `ad_level`, the `decl` of every variable, call and `~`
 * statement (a TildeVariable or TildeFunction of scope.h, NULL for the
 * built-in library). An expression that could not be typed keeps `type`
 * NULL; whatever contains it is not checked further, so one mistake is
 * reported once. Checking goes on after an error wherever the rest of the
 * program can still be judged, so the list may hold several independent
 * errors in source order of discovery; the first is the one stanc reports.
 *
 * Warnings (unreachable code, integer division, deprecated functions,
 * unknown annotations, ...) are appended as TILDE_DIAG_WARNING.
 */
#pragma once

#include <glib.h>

#include "syntax/ast.h"
#include "semantics/scope.h"

G_BEGIN_DECLS

typedef struct {
  /* Forward declarations without a definition are allowed (--allow-undefined). */
  gboolean    allow_undefined;
  /* The model's name ("<file>_model"); identifiers may not take it. NULL:
   * derived from the main file's name as stanc does. */
  const char *model_name;
} TildeCheckOptions;

/* Checks `program` (which must have parsed without errors), appending
 * semantic errors and warnings to `diagnostics`. Returns TRUE when no error
 * was found. `options` may be NULL. */
gboolean tilde_check_program (TildeProgram            *program,
                              const TildeCheckOptions *options,
                              GPtrArray               *diagnostics);

/* The symbol a `decl` slot points at, or NULL. */
static inline TildeVariable *
tilde_decl_as_variable (gpointer decl)
{
  return decl && ((TildeVariable *) decl)->kind == TILDE_SYMBOL_VARIABLE
    ? (TildeVariable *) decl : NULL;
}

static inline TildeFunction *
tilde_decl_as_function (gpointer decl)
{
  return decl && ((TildeFunction *) decl)->kind == TILDE_SYMBOL_FUNCTION
    ? (TildeFunction *) decl : NULL;
}

G_END_DECLS
