/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "tilde-run-controller.h"

G_BEGIN_DECLS

/* The longest the chains wait on a pause taken from now on (100 ms
 * unless set). */
void        _tilde_run_controller_set_pause_max_ms  (TildeRunController *self,
                                                     guint               ms);
/* Whether the current run's chains are asked to wait (also once the
 * pause's longest has passed, until it is lifted). */
gboolean    _tilde_run_controller_get_chains_paused (TildeRunController *self);
/* How many of its chains are waiting now. */
guint       _tilde_run_controller_get_waiting_chains (TildeRunController *self);
/* The lock the current run's chain `chain` (from 0) holds while it hands
 * a draw over, for a test to hold from another thread as the chain would;
 * NULL when there is no such chain yet. */
GMutex     *_tilde_run_controller_get_chain_lock    (TildeRunController *self,
                                                     guint               chain);

G_END_DECLS
