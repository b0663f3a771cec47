/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>
#include <gtksourceview/gtksource.h>

#include "tilde-application.h"
#include "tilde-editor.h"
#include "tilde-ir-view.h"
#include "tilde-problems-list.h"

G_BEGIN_DECLS

#define TILDE_TYPE_WINDOW (tilde_window_get_type ())

G_DECLARE_FINAL_TYPE (TildeWindow, tilde_window, TILDE, WINDOW, AdwApplicationWindow)

TildeWindow     *tilde_window_new          (TildeApplication *app);
/* Loads FILE into the editor asynchronously; :loading is TRUE until it is done. */
void             tilde_window_load_file    (TildeWindow *self,
                                            GFile       *file);
/* Writes the buffer to FILE asynchronously and makes FILE the window's file;
 * :saving is TRUE until it is done. */
void             tilde_window_save_to_file (TildeWindow *self,
                                            GFile       *file);
/* Puts back the unsaved text of a model, as a copy kept after a crash
 * had it: `file` (may be NULL) becomes the window's file, unread, and the
 * buffer holds `text`, modified. */
void             tilde_window_restore_text (TildeWindow *self,
                                            GFile       *file,
                                            const char  *text);
GFile           *tilde_window_get_file     (TildeWindow *self);
GtkSourceBuffer *tilde_window_get_buffer   (TildeWindow *self);
GtkSourceView   *tilde_window_get_view     (TildeWindow *self);
TildeEditor     *tilde_window_get_editor   (TildeWindow *self);
TildeProblemsList *tilde_window_get_problems_list (TildeWindow *self);
TildeIrView     *tilde_window_get_ir_view  (TildeWindow *self);
gboolean         tilde_window_is_loading   (TildeWindow *self);
gboolean         tilde_window_is_saving    (TildeWindow *self);
/* TRUE for a window with no file and an untouched, empty buffer. */
gboolean         tilde_window_is_pristine  (TildeWindow *self);

G_END_DECLS
