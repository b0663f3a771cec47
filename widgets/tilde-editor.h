/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtksourceview/gtksource.h>

#include "tilde-problem.h"

G_BEGIN_DECLS

#define TILDE_TYPE_EDITOR (tilde_editor_get_type ())

G_DECLARE_FINAL_TYPE (TildeEditor, tilde_editor, TILDE, EDITOR, GtkWidget)

#define TILDE_EDITOR_ERROR (tilde_editor_error_quark ())

typedef enum {
  TILDE_EDITOR_ERROR_NOT_FORMATTED,  /* the model could not be formatted; the message says why */
  TILDE_EDITOR_ERROR_CHANGED,        /* the text changed while the formatter ran */
} TildeEditorError;

GQuark           tilde_editor_error_quark     (void);

/* A Stan editor: a GtkSourceView whose buffer the engine thread checks a
 * moment (:check-delay-ms) after the last keystroke. Errors and warnings
 * are underlined in the style scheme's def:error and def:warning styles,
 * marked in the gutter and listed in :problems; hovering one shows its
 * message. Also completion, formatting, and search and replace
 * (Ctrl+F, Ctrl+H). */
GtkWidget       *tilde_editor_new             (void);
GtkSourceBuffer *tilde_editor_get_buffer      (TildeEditor *self);
GtkSourceView   *tilde_editor_get_view        (TildeEditor *self);
/* The file the text belongs to: it names the model in diagnostics, and
 * its folder is searched first for `#include`. NULL for a new model. */
GFile           *tilde_editor_get_file        (TildeEditor *self);
void             tilde_editor_set_file        (TildeEditor *self,
                                               GFile       *file);
/* Whether checks include the warnings of pedantic mode. */
gboolean         tilde_editor_get_pedantic    (TildeEditor *self);
void             tilde_editor_set_pedantic    (TildeEditor *self,
                                               gboolean     pedantic);
guint            tilde_editor_get_check_delay (TildeEditor *self);
void             tilde_editor_set_check_delay (TildeEditor *self,
                                               guint        delay_ms);
/* TRUE from the moment a check is due until its result is shown. */
gboolean         tilde_editor_get_checking    (TildeEditor *self);
/* TRUE while the model has a line too long to highlight
 * (tilde-long-lines.h): it is shown without syntax highlighting until the
 * line is shortened. :highlight-suspended. */
gboolean         tilde_editor_get_highlight_suspended (TildeEditor *self);
/* The problems of the last check, TildeProblem items in the order the
 * front end found them (so the first error is stanc's). */
GListModel      *tilde_editor_get_problems    (TildeEditor *self);
/* Checks now instead of after the delay. */
void             tilde_editor_check_now       (TildeEditor *self);
/* Puts the cursor at the start of `problem` and shows it. */
void             tilde_editor_go_to_problem   (TildeEditor  *self,
                                               TildeProblem *problem);
/* Selects the text from `line` (1-based), byte `column` (0-based) to
 * `end_line`, `end_column` (clamped to its line), as engine spans count,
 * and scrolls it into view; the focus stays where it is. */
void             tilde_editor_select_range    (TildeEditor *self,
                                               int          line,
                                               int          column,
                                               int          end_line,
                                               int          end_column);
/* Lays the model out as stanc --auto-format does, as one undoable step,
 * keeping the cursor on the statement it was on. Fails with
 * TILDE_EDITOR_ERROR when the model does not parse or the text changed
 * in the meantime. */
void             tilde_editor_format_async    (TildeEditor        *self,
                                               GCancellable       *cancellable,
                                               GAsyncReadyCallback callback,
                                               gpointer            user_data);
gboolean         tilde_editor_format_finish   (TildeEditor   *self,
                                               GAsyncResult  *result,
                                               GError       **error);
/* Shows the search bar, with the replace row when `replace`. */
void             tilde_editor_show_search     (TildeEditor *self,
                                               gboolean     replace);

G_END_DECLS
