/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Turns a diagnostic into the text stanc prints for it, character for
 * character: the header ("Syntax error in 'f.stan', line 3, column 4 to
 * column 9, parsing error:"), the "included from" chain, the framed excerpt
 * with two lines of context and a caret, a blank line and the message.
 * Warnings come out as stanc's one-paragraph "Warning in ...: ..." form.
 */
#pragma once

#include <glib.h>

#include "tilde-diagnostic.h"
#include "syntax/source.h"

G_BEGIN_DECLS

/* Returns the text of the file a diagnostic names, or NULL. */
typedef const char *(*TildeSourceLookup) (const char *file, gpointer user_data);

/* The rendered text, ending in a newline. Without text for the file the
 * excerpt is left out, as stanc does. */
char *tilde_diagnostic_render      (const TildeDiagnostic *diag,
                                    TildeSourceLookup      lookup,
                                    gpointer               user_data);
/* The same, taking file texts from a source set (may be NULL). */
char *tilde_diagnostic_render_with_sources (const TildeDiagnostic *diag,
                                            TildeSourceSet        *sources);

/* Just the framed excerpt for a position (line 1-based, column 0-based). */
char *tilde_diagnostic_render_excerpt (const char *text, int line, int column);

G_END_DECLS
