/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtksourceview/gtksource.h>

#include "tilde-problem.h"

G_BEGIN_DECLS

#define TILDE_TYPE_DIAGNOSTIC_MARKS (tilde_diagnostic_marks_get_type ())

G_DECLARE_FINAL_TYPE (TildeDiagnosticMarks, tilde_diagnostic_marks, TILDE, DIAGNOSTIC_MARKS, GObject)

/* Diagnostics shown in a GtkSourceView the way the editor shows them:
 * the text underlined with the "tilde-error" and "tilde-warning" tags in
 * the style scheme's def:error and def:warning styles (a squiggle of their
 * colour when the scheme has none), the lines marked in the gutter with
 * source marks of the same categories (their tooltips the messages), a
 * hover provider with the full messages, and the problems as a list model
 * of TildeProblem. Made for a view whose buffer stays the same. */
TildeDiagnosticMarks *tilde_diagnostic_marks_new          (GtkSourceView *view);
/* TildeProblem items of the last tilde_diagnostic_marks_show(). */
GListModel           *tilde_diagnostic_marks_get_problems (TildeDiagnosticMarks *self);
/* Replaces what is shown with `diagnostics` (TildeDiagnostic*), in their
 * order. `main_name` is what they call the buffer's text: those of other
 * files are placed on the #include line that led to them, or listed
 * without a place. */
void                  tilde_diagnostic_marks_show         (TildeDiagnosticMarks *self,
                                                           GPtrArray            *diagnostics,
                                                           const char           *main_name);
void                  tilde_diagnostic_marks_clear        (TildeDiagnosticMarks *self);

/* The iterator at `line` (from 1) and byte `column` (from 0), as the
 * engine counts them, clamped to the line and kept on a character. */
void                  tilde_text_iter_at_position         (GtkTextBuffer *buffer,
                                                           GtkTextIter   *iter,
                                                           int            line,
                                                           int            column);

G_END_DECLS
