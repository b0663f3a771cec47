/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtksourceview/gtksource.h>

#include "tilde-frontend.h"

G_BEGIN_DECLS

#define TILDE_TYPE_COMPLETION_PROVIDER (tilde_completion_provider_get_type ())

G_DECLARE_FINAL_TYPE (TildeCompletionProvider, tilde_completion_provider,
                      TILDE, COMPLETION_PROVIDER, GObject)

/* Completes Stan words: keywords, block names and types; the built-in
 * functions and distributions with their signatures (from the library's
 * signature table); and the user's functions and the variables in scope at
 * the cursor, from the last check whose program parsed. */
TildeCompletionProvider *tilde_completion_provider_new         (void);
/* The check whose program gives the user's names (may be NULL). */
void                     tilde_completion_provider_set_check   (TildeCompletionProvider *self,
                                                                TildeCheckResult        *check);
/* The proposals (TildeCompletionProposal) for words starting with
 * `prefix` at line (1-based) and byte column (0-based) of the buffer:
 * exact matches first, then variables, the model's functions, keywords,
 * distributions and built-in functions, each group alphabetical. */
GListModel              *tilde_completion_provider_propose     (TildeCompletionProvider *self,
                                                                const char              *prefix,
                                                                int                      line,
                                                                int                      column);

G_END_DECLS
