/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The Stan parser: recursive descent with precedence climbing over the
 * lexer's token stream, building the tree of ast.h.
 *
 * It never gives up on a program: after a syntax error it resynchronises at
 * the next ";", "}" or block header and carries on, so the list holds every
 * error it could find (the CLI prints only the first, as stanc does). The
 * first error of each statement uses stanc's wording and position. Nesting is
 * capped, so no input can exhaust the stack, and every loop consumes input.
 *
 * The result is always a program (possibly with TILDE_STMT_ERROR and
 * TILDE_EXPR_ERROR nodes where text could not be parsed); check the
 * diagnostics for errors before using it.
 */
#pragma once

#include <glib.h>

#include "ast.h"

G_BEGIN_DECLS

typedef enum {
  TILDE_PARSE_DEFAULT        = 0,
  /* A .stanfunctions file: function definitions only, no block headers. */
  TILDE_PARSE_FUNCTIONS_ONLY = 1 << 0,
} TildeParseFlags;

/* Deepest nesting of statements and expressions accepted. */
#define TILDE_PARSE_MAX_DEPTH 200
/* After this many syntax errors the rest of the input is skipped. */
#define TILDE_PARSE_MAX_ERRORS 50

/* Parses the main file of `set` (which must have one). Diagnostics (lexing,
 * include, parsing errors and parser warnings) are appended to
 * `diagnostics`. The program keeps a reference to `set`. */
TildeProgram *tilde_parse_program (TildeSourceSet  *set,
                                   TildeParseFlags  flags,
                                   GPtrArray       *diagnostics);

/* For the editor: parses `text` (len -1: NUL-terminated) shown as
 * `display_name`. `include_paths` (NULL-terminated, may be NULL) are searched
 * for includes; `directory`, when not NULL, is searched first. */
TildeProgram *tilde_parse_buffer  (const char        *display_name,
                                   const char        *directory,
                                   const char        *text,
                                   gssize             len,
                                   const char *const *include_paths,
                                   TildeParseFlags    flags,
                                   GPtrArray         *diagnostics);

/* Reads and parses a file; a name ending in ".stanfunctions" implies
 * TILDE_PARSE_FUNCTIONS_ONLY. Returns NULL (and sets error) only when the
 * file cannot be read. */
TildeProgram *tilde_parse_file    (const char        *path,
                                   const char *const *include_paths,
                                   TildeParseFlags    flags,
                                   GPtrArray         *diagnostics,
                                   GError           **error);

G_END_DECLS
