/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The classes of MIR text that the IR viewer colours: the same ones as
 * resources/language-specs/mir.lang, found one line at a time so that rows
 * can be tagged as they are inserted. */
typedef enum {
  TILDE_MIR_TOKEN_COMMENT,
  TILDE_MIR_TOKEN_STRING,
  TILDE_MIR_TOKEN_PART,
  TILDE_MIR_TOKEN_KEYWORD,
  TILDE_MIR_TOKEN_TYPE,
  TILDE_MIR_TOKEN_INTERNAL,
  TILDE_MIR_TOKEN_DECIMAL,
  TILDE_MIR_TOKEN_REAL,
  TILDE_MIR_N_TOKENS
} TildeMirToken;

/* Called once per token, in order; start and end are byte offsets into the line. */
typedef void (*TildeMirTokenFunc) (TildeMirToken token,
                                   gsize         start,
                                   gsize         end,
                                   gpointer      user_data);

/* Tokenizes one line of MIR (len bytes, no newline needed); plain text,
 * identifiers and punctuation yield no token. */
void         tilde_mir_highlight_line   (const char        *line,
                                         gsize              len,
                                         TildeMirTokenFunc  func,
                                         gpointer           user_data);

/* The GtkSourceView style id ("def:comment", ...) a token takes its look from. */
const char  *tilde_mir_token_style_id   (TildeMirToken      token);

G_END_DECLS
