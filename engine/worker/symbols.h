/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The names a model makes visible at a place in its text, for the editor's
 * completion: the user-defined functions, and the variables in scope there
 * (block variables declared before the place, locals of the enclosing
 * statements, loop variables, function arguments), following Stan's scoping
 * rules as scope.h states them. Works on any parsed program, typed or not.
 */
#pragma once

#include <glib.h>

#include "syntax/ast.h"

G_BEGIN_DECLS

typedef enum {
  TILDE_VISIBLE_VARIABLE,
  TILDE_VISIBLE_FUNCTION,
} TildeVisibleKind;

typedef struct {
  TildeVisibleKind kind;
  const char      *name;     /* interned */
  /* A variable's declared type ("vector<lower=0>[J]"), or a function's
   * signatures as written ("real scale(real x, real s)"), one a line. */
  char            *detail;
  TildeBlockKind   block;    /* the program block it belongs to */
} TildeVisibleName;

/* `offset` is a byte offset in the program's main file. A GPtrArray of
 * TildeVisibleName that frees them, variables first (innermost scope first),
 * then functions in the order they were defined; each name once. */
GPtrArray *tilde_visible_names (const TildeProgram *program, gsize offset);

G_END_DECLS
