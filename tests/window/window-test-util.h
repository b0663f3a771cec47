/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the window tests share: a home of their own, and ways to let the
 * main loop run until something happened. */
#pragma once

#include <gtk/gtk.h>

#include "tilde-window.h"

G_BEGIN_DECLS

/* Points the home, cache, data and configuration folders (autosaved
 * copies, recent files) at a new temporary folder, copies the examples to
 * its ~/Models (TILDE_EXAMPLES_DIR then names the copy), and lets through (logged, not
 * fatal) GTK's warning that it drew a widget a frame late; call before
 * gtk_test_init(). */
void        window_test_isolate_home (void);
/* Removes that folder and everything in it. */
void        window_test_remove_home  (void);
const char *window_test_home         (void);

/* Runs the main loop until `condition` holds or `ms` pass; FALSE on time out. */
gboolean    window_test_wait_for_ms  (gboolean (*condition) (gpointer),
                                      gpointer   data,
                                      guint      ms);
/* Ten seconds. */
gboolean    window_test_wait_for     (gboolean (*condition) (gpointer),
                                      gpointer   data);
void        window_test_run_for_ms   (guint ms);
/* Runs the main loop until `widget`'s window has been laid out and
 * painted twice since the call. */
void        window_test_let_it_draw  (GtkWidget *widget);

GdkTexture *window_test_render       (GtkWidget  *widget);
/* Into $TILDE_SCREENSHOT_DIR, when set. */
void        window_test_screenshot   (GtkWidget  *widget,
                                      const char *name);
/* Moves the X pointer off the window, so that nothing is drawn hovered. */
void        window_test_pointer_away (GtkWidget  *widget);

/* The path of example NAME in the tests' copy of the examples. */
char        *window_test_example_path   (const char *name);
/* Runs the main loop until APP's active window is a TildeWindow, mapped,
 * done loading and showing a file, and returns it; fails the test after
 * ten seconds. */
TildeWindow *window_test_wait_for_window (GtkApplication *app);
/* Opens PATH in APP, then as window_test_wait_for_window(). */
TildeWindow *window_test_open           (GtkApplication *app,
                                         const char     *path);

/* Destroys every window of APP and lets what that queued run. */
void        window_test_close_all    (GtkApplication *app);

G_END_DECLS
