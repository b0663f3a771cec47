/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtksourceview/gtksource.h>

#include "tilde-editor.h"
#include "tilde-frontend.h"
#include "tilde-problem.h"

G_BEGIN_DECLS

#define TILDE_TYPE_DATA_PANEL (tilde_data_panel_get_type ())

G_DECLARE_FINAL_TYPE (TildeDataPanel, tilde_data_panel, TILDE, DATA_PANEL, GtkWidget)

#define TILDE_DATA_PANEL_ERROR (tilde_data_panel_error_quark ())

typedef enum {
  TILDE_DATA_PANEL_ERROR_NO_MODEL,     /* no model to make a template from */
  TILDE_DATA_PANEL_ERROR_NOT_EMPTY,    /* a template goes only into empty data */
  TILDE_DATA_PANEL_ERROR_TEMPLATE,     /* the data block asks too much; the message says what */
} TildeDataPanelError;

GQuark           tilde_data_panel_error_quark (void);

/* The data of a model: a JSON editor (GtkSourceView, `json` language)
 * whose text the engine thread checks against the model's data block a
 * moment (:check-delay-ms) after the last keystroke, and again whenever
 * the model changes. Problems are underlined, marked in the gutter,
 * explained on hover and listed below the text, as in the model editor.
 * Open, Save and Save As of a data file, and "Insert Template", which
 * fills empty data with every variable of the data block.
 *
 * Widget actions: data.open, data.save, data.save-as,
 * data.insert-template, data.format. In the window, Save, Save As and
 * Format Model's keys run data.save, data.save-as and data.format while
 * the focus is in the panel. */
GtkWidget        *tilde_data_panel_new             (void);
GtkSourceBuffer  *tilde_data_panel_get_buffer      (TildeDataPanel *self);
GtkSourceView    *tilde_data_panel_get_view        (TildeDataPanel *self);

/* The model whose data block the data must fit: a check of it from the
 * front end. One with errors is passed over, so the data stay checked
 * against the last model that type-checked; NULL forgets the model (only
 * the JSON syntax is checked then). */
TildeCheckResult *tilde_data_panel_get_model       (TildeDataPanel   *self);
void              tilde_data_panel_set_model       (TildeDataPanel   *self,
                                                    TildeCheckResult *model);
/* Follows an editor: its checks become the model, its style scheme the
 * panel's, and its file suggests the data file's name. */
TildeEditor      *tilde_data_panel_get_editor      (TildeDataPanel   *self);
void              tilde_data_panel_set_editor      (TildeDataPanel   *self,
                                                    TildeEditor      *editor);

/* The data file, NULL for data never saved. */
GFile            *tilde_data_panel_get_file        (TildeDataPanel   *self);
/* Whether the text has changes that are not saved. */
gboolean          tilde_data_panel_get_modified    (TildeDataPanel   *self);
gboolean          tilde_data_panel_get_loading     (TildeDataPanel   *self);
guint             tilde_data_panel_get_check_delay (TildeDataPanel   *self);
void              tilde_data_panel_set_check_delay (TildeDataPanel   *self,
                                                    guint             delay_ms);
/* TRUE from the moment a check is due until its result is shown. */
gboolean          tilde_data_panel_get_checking    (TildeDataPanel   *self);
/* The problems of the last check, TildeProblem items in the order of the
 * text. */
GListModel       *tilde_data_panel_get_problems    (TildeDataPanel   *self);
void              tilde_data_panel_check_now       (TildeDataPanel   *self);
void              tilde_data_panel_go_to_problem   (TildeDataPanel   *self,
                                                    TildeProblem     *problem);

/* Reads `file` into the panel, replacing the text (unsaved changes
 * included: ask first). */
void              tilde_data_panel_load_async      (TildeDataPanel     *self,
                                                    GFile              *file,
                                                    GCancellable       *cancellable,
                                                    GAsyncReadyCallback callback,
                                                    gpointer            user_data);
gboolean          tilde_data_panel_load_finish     (TildeDataPanel     *self,
                                                    GAsyncResult       *result,
                                                    GError            **error);
/* Writes the text to `file` (NULL: the panel's file, which must be set),
 * which becomes the panel's file. */
void              tilde_data_panel_save_async      (TildeDataPanel     *self,
                                                    GFile              *file,
                                                    GCancellable       *cancellable,
                                                    GAsyncReadyCallback callback,
                                                    gpointer            user_data);
gboolean          tilde_data_panel_save_finish     (TildeDataPanel     *self,
                                                    GAsyncResult       *result,
                                                    GError            **error);
/* Save as the panel's Save does: to its file, or, for data never saved,
 * where the person chooses in a file chooser (G_IO_ERROR_CANCELLED when
 * they cancel it). */
void              tilde_data_panel_save_or_ask_async  (TildeDataPanel     *self,
                                                       GAsyncReadyCallback callback,
                                                       gpointer            user_data);
gboolean          tilde_data_panel_save_or_ask_finish (TildeDataPanel     *self,
                                                       GAsyncResult       *result,
                                                       GError            **error);
/* Puts back data that were not saved, as an autosaved copy has them:
 * `file` (may be NULL) becomes the panel's file, unread, and the text is
 * `text`, modified. */
void              tilde_data_panel_restore_text    (TildeDataPanel     *self,
                                                    GFile              *file,
                                                    const char         *text);
/* Fills the empty text with a template of the model's data block
 * (io/data-template.h), made off the main thread, as one undoable step. */
void              tilde_data_panel_insert_template_async  (TildeDataPanel     *self,
                                                           GCancellable       *cancellable,
                                                           GAsyncReadyCallback callback,
                                                           gpointer            user_data);
gboolean          tilde_data_panel_insert_template_finish (TildeDataPanel     *self,
                                                           GAsyncResult       *result,
                                                           GError            **error);

/* Lays the data out to be read (io/json-format.h), off the main thread:
 * one undoable step, or for large data or data too wide to show, the
 * text put in anew like a file read (not undoable). Data that do not read
 * as JSON are left as they are, with the syntax error; data changed while
 * being formatted give G_IO_ERROR_CANCELLED. */
void              tilde_data_panel_format_async    (TildeDataPanel     *self,
                                                    GCancellable       *cancellable,
                                                    GAsyncReadyCallback callback,
                                                    gpointer            user_data);
gboolean          tilde_data_panel_format_finish   (TildeDataPanel     *self,
                                                    GAsyncResult       *result,
                                                    GError            **error);

G_END_DECLS
