/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The line breaker behind the formatter (internal to engine/syntax).
 *
 * stanc lays out programs with OCaml's Format module: text, break hints and
 * nested boxes, each box deciding at its break hints whether to stay on the
 * line or to start a new one. Where stanc's output wraps therefore depends on
 * that algorithm to the column (a break is taken when the pending text reaches
 * the space left on the line; a box may not open past the maximum indentation
 * and breaks the line instead). This module reproduces that algorithm so that
 * the formatter's lines break where stanc's do.
 *
 * Widths are counted in bytes, as Format counts them.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  TILDE_LAYOUT_H,     /* never breaks: every hint is a space */
  TILDE_LAYOUT_V,     /* every hint breaks */
  TILDE_LAYOUT_HV,    /* all on one line, or every hint breaks */
  TILDE_LAYOUT_HOV,   /* fills lines */
  TILDE_LAYOUT_B,     /* fills lines, and breaks where that reduces the indentation */
} TildeLayoutBox;

typedef struct TildeLayout TildeLayout;

/* A layout for lines of `margin` columns. */
TildeLayout *tilde_layout_new            (int margin);
void         tilde_layout_free           (TildeLayout *layout);

void         tilde_layout_text           (TildeLayout *layout, const char *text, gssize len);
void         tilde_layout_open           (TildeLayout *layout, TildeLayoutBox box, int indent);
void         tilde_layout_close          (TildeLayout *layout);
/* A hint: `width` spaces if the line goes on, else a new line indented by
 * the box's indentation plus `offset`. */
void         tilde_layout_break          (TildeLayout *layout, int width, int offset);
/* A new line whatever the box. */
void         tilde_layout_force_newline  (TildeLayout *layout);
/* Closes what is open, lays out the rest, and returns the text; the layout
 * is then freed. */
char        *tilde_layout_finish         (TildeLayout *layout);

G_END_DECLS
