/* SPDX-License-Identifier: GPL-3.0-or-later */
/* For the window and the tests. */
#pragma once

#include <gtksourceview/gtksource.h>

#include "tilde-ir-view.h"

G_BEGIN_DECLS

GtkSourceView *_tilde_ir_view_get_source_view      (TildeIrView *self,
                                                    TildeIrSide  side);
/* The pass list as shown (after filtering): TildeIrPass items, the row
 * that compares stages first. */
GtkSingleSelection *_tilde_ir_view_get_pass_selection (TildeIrView *self);
/* The buffer lines of one side highlighted as coming from the editor's
 * cursor line (a new array of guint). */
GArray        *_tilde_ir_view_get_highlighted_rows (TildeIrView *self,
                                                    TildeIrSide  side);
/* The rows shown (TildeDiffRow), or NULL. */
GArray        *_tilde_ir_view_get_rows             (TildeIrView *self);
/* The banner shown while the model has errors. */
GtkInfoBar    *_tilde_ir_view_get_banner           (TildeIrView *self);
/* How many compile results have been shown or found to have errors. */
guint          _tilde_ir_view_get_results          (TildeIrView *self);
/* The title of a side while a pass is shown. */
GtkLabel      *_tilde_ir_view_get_title            (TildeIrView *self,
                                                    TildeIrSide  side);
/* The two sides together, dimmed while the model has errors. */
GtkWidget     *_tilde_ir_view_get_content          (TildeIrView *self);
/* The pane between the pass list and the text. */
GtkPaned      *_tilde_ir_view_get_paned            (TildeIrView *self);
/* While a result's rows are going into the views, a slice at a time: the
 * number of such applies begun so far; 0 when none is under way. */
guint          _tilde_ir_view_get_applying         (TildeIrView *self);
/* At most `rows` rows a slice (0: as many as fit its time) and, while
 * `hold`, no slice after the first of an apply. */
void           _tilde_ir_view_set_apply_limits     (TildeIrView *self,
                                                    guint        rows,
                                                    gboolean     hold);

G_END_DECLS
