/* SPDX-License-Identifier: GPL-3.0-or-later */
/* For the widgets of this folder and their tests. */
#pragma once

#include "tilde-data-panel.h"
#include "worker/worker.h"

G_BEGIN_DECLS

TildeWorker *_tilde_data_panel_get_worker           (TildeDataPanel *self);
/* The generation of the data check whose result the panel shows (0: none). */
guint64      _tilde_data_panel_get_shown_generation (TildeDataPanel *self);
/* What the bar above the text says, or NULL while it is hidden. */
const char  *_tilde_data_panel_get_message          (TildeDataPanel *self);

G_END_DECLS
