/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "tilde-run-controller.h"
#include "tilde-run-plots.h"
#include "tilde-summary-view.h"
#include "tilde-warnings-banner.h"

G_BEGIN_DECLS

#define TILDE_TYPE_RUN_SUMMARY (tilde_run_summary_get_type ())

G_DECLARE_FINAL_TYPE (TildeRunSummary, tilde_run_summary, TILDE, RUN_SUMMARY, GtkWidget)

/* What a run of its :controller came to, once it has ended: the warnings
 * banner over the summary table (or an optimisation's estimates), and
 * buttons that export the summary as CSV and the draws as Stan CSV, and
 * save the run to a folder or open one saved before. A warning's button
 * plots its parameters in :plots and brings :plots forward in its stack.
 *
 * Widget actions: run-summary.export-summary, run-summary.export-draws,
 * run-summary.save-run, run-summary.open-run. The folder chosen to open
 * goes to ::open-run (gboolean handler (self, const char *folder)); when
 * no handler returns TRUE, :controller opens it. */
GtkWidget           *tilde_run_summary_new            (void);
TildeRunController  *tilde_run_summary_get_controller (TildeRunSummary    *self);
void                 tilde_run_summary_set_controller (TildeRunSummary    *self,
                                                       TildeRunController *controller);
TildeRunPlots       *tilde_run_summary_get_plots      (TildeRunSummary    *self);
void                 tilde_run_summary_set_plots      (TildeRunSummary    *self,
                                                       TildeRunPlots      *plots);
TildeSummaryView    *tilde_run_summary_get_view       (TildeRunSummary    *self);
TildeWarningsBanner *tilde_run_summary_get_banner     (TildeRunSummary    *self);
/* Shows `text` where the summary's status goes (why a run did not open). */
void                 tilde_run_summary_show_status    (TildeRunSummary    *self,
                                                       const char         *text);

G_END_DECLS
