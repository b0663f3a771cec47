/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "tilde-run-plots.h"

G_BEGIN_DECLS

/* The longest the plots hold the draws and pause the chains for a frame
 * (100 ms unless set). */
void        _tilde_run_plots_set_watch_max_ms (TildeRunPlots *self,
                                               guint          ms);

G_END_DECLS
