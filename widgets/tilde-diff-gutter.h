/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtksourceview/gtksource.h>

G_BEGIN_DECLS

#define TILDE_TYPE_DIFF_GUTTER (tilde_diff_gutter_get_type ())

G_DECLARE_FINAL_TYPE (TildeDiffGutter, tilde_diff_gutter, TILDE, DIFF_GUTTER, GtkSourceGutterRendererText)

/* What one row of a side-by-side diff shows in the gutter. */
typedef struct {
  guint line;   /* 1-based line of the text the row shows; 0 for a filler row */
  char  mark;   /* ' ', '+', '-' or '~' */
} TildeDiffGutterRow;

/* The gutter of one side of a diff: the line number of the text each row
 * shows (filler rows, which stand for lines of the other side, have none)
 * and the row's mark, on a band of the mark's colour, so that the diff
 * reads without colour too. */
GtkSourceGutterRenderer *tilde_diff_gutter_new         (void);
/* Takes `rows` (a GArray of TildeDiffGutterRow, one per buffer line). */
void                     tilde_diff_gutter_set_rows    (TildeDiffGutter *self,
                                                        GArray          *rows);
/* The bands behind '+', '-' and '~'. */
void                     tilde_diff_gutter_set_colours (TildeDiffGutter *self,
                                                        const GdkRGBA   *added,
                                                        const GdkRGBA   *removed,
                                                        const GdkRGBA   *changed);

G_END_DECLS
