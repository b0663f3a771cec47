/* SPDX-License-Identifier: GPL-3.0-or-later */
/* For the application and the tests. */
#pragma once

#include "tilde-run-panel.h"
#include "tilde-window.h"

G_BEGIN_DECLS

/* The id of the window's autosaved copy (NULL before the first). */
const char *_tilde_window_get_autosave_id (TildeWindow *self);
/* How many copies of the buffer have been written. */
guint       _tilde_window_get_autosaves   (TildeWindow *self);
/* The Open button's menu of recent models. */
GMenuModel *_tilde_window_get_recent_menu (TildeWindow *self);
/* The run panel (its controller runs the model). */
TildeRunPanel *_tilde_window_get_run_panel (TildeWindow *self);

G_END_DECLS
