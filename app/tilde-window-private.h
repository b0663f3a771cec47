/* SPDX-License-Identifier: GPL-3.0-or-later */
/* For the application and the tests. */
#pragma once

#include "tilde-run-panel.h"
#include "tilde-autosave.h"
#include "tilde-data-panel.h"
#include "tilde-window.h"

G_BEGIN_DECLS

/* The id of the window's autosaved copy (NULL before the first). */
const char     *_tilde_window_get_autosave_id     (TildeWindow *self);
/* How many copies of the model and its data have been written. */
guint           _tilde_window_get_autosaves       (TildeWindow *self);
/* The Open button's menu of recent models. */
GMenuModel *_tilde_window_get_recent_menu (TildeWindow *self);
/* The run panel (its controller runs the model). */
TildeRunPanel *_tilde_window_get_run_panel (TildeWindow *self);
GMenuModel     *_tilde_window_get_recent_menu     (TildeWindow *self);
TildeDataPanel *_tilde_window_get_data_panel      (TildeWindow *self);
/* A key press as the window sees it before the application's
 * accelerators: TRUE when it was Save, Save As or Format Model's key with
 * the focus in the data panel, which then saved or formatted the data. */
gboolean        _tilde_window_key_for_data_panel  (TildeWindow    *self,
                                                   guint           keyval,
                                                   GdkModifierType state);
/* Between the model and the compiler's output (and the runs). */
GtkPaned       *_tilde_window_get_workbench_paned (TildeWindow *self);
/* Between the model and its data. */
GtkPaned       *_tilde_window_get_model_paned     (TildeWindow *self);
/* Puts back what an autosaved copy kept: the model, as
 * tilde_window_restore_text() does, and its data (unsaved text, or else
 * the data file, or else the data next to the model). */
void            _tilde_window_restore             (TildeWindow         *self,
                                                   const TildeAutosave *copy);
/* Opens the run saved in `folder` (what Open Run on the summary page
 * does). The run goes to this window when its editor and data panel hold
 * the run's model and data (the results are shown, the texts left alone)
 * or when the window is pristine; otherwise to a new window of the
 * application, so that no unsaved work is overwritten. There the editor
 * holds the run's model, untitled and unmodified, the title naming the
 * run's folder; the data panel its data; the run panel and the level its
 * options; the summary page its results. _finish returns that window; on
 * an error (which names the file at fault, also shown in this window)
 * nothing changed. */
void            _tilde_window_open_run_async      (TildeWindow         *self,
                                                   const char          *folder,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
TildeWindow    *_tilde_window_open_run_finish     (TildeWindow         *self,
                                                   GAsyncResult        *result,
                                                   GError             **error);

G_END_DECLS
