/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Lines too long to highlight. GtkSourceView's highlighting engine works
 * out where each match lies by counting from the start of its line, so a
 * line costs the square of its length, again at each change of it: a line
 * of 3,000 numbers (31 KB, as JSON writers put a whole file on one line,
 * or data pasted into a model) took about a second a keystroke. The
 * editors turn highlighting off while they hold a line over
 * TILDE_HIGHLIGHT_LINE_LIMIT bytes.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define TILDE_HIGHLIGHT_LINE_LIMIT 4096

/* The longest line, in bytes, that an insertion of `text` (`len` bytes)
 * ending at `end` (as "insert-text" gives it after the insertion) wrote
 * into or made. */
gsize tilde_longest_line_inserted  (const GtkTextIter *end,
                                    const char        *text,
                                    int                len);
/* The longest line of `text` (`len` bytes), in bytes, without its break. */
gsize tilde_longest_line_in_text   (const char        *text,
                                    gsize              len);
/* The longest line of `buffer`, in bytes. */
gsize tilde_longest_line_in_buffer (GtkTextBuffer     *buffer);

G_END_DECLS
