/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "tilde-parameter-list.h"
#include "tilde-run-controller.h"
#include "tilde-trace-plot.h"

G_BEGIN_DECLS

#define TILDE_TYPE_RUN_PLOTS (tilde_run_plots_get_type ())

G_DECLARE_FINAL_TYPE (TildeRunPlots, tilde_run_plots, TILDE, RUN_PLOTS, GtkWidget)

/* The plots of a run: the parameter list beside the trace plot of the
 * parameters selected there, with the view (trace, rank, autocorrelation,
 * pairs), warm-up shown or hidden, and export of the plot as PNG, SVG or
 * PDF. Follows the draws of its :controller as they arrive. */
GtkWidget          *tilde_run_plots_new            (void);
TildeRunController *tilde_run_plots_get_controller (TildeRunPlots      *self);
void                tilde_run_plots_set_controller (TildeRunPlots      *self,
                                                    TildeRunController *controller);
TildeTracePlot     *tilde_run_plots_get_trace_plot (TildeRunPlots      *self);
TildeParameterList *tilde_run_plots_get_parameter_list (TildeRunPlots  *self);
/* Plots these Stan CSV names (two of them in the pairs view). */
void                tilde_run_plots_show_parameters (TildeRunPlots     *self,
                                                     const char *const *names);
/* What the plot shows, at its size on screen (or 1000 x 700 before it
 * has one), into `path`. */
gboolean            tilde_run_plots_export         (TildeRunPlots      *self,
                                                    const char         *path,
                                                    TildePlotFormat     format,
                                                    GError            **error);

G_END_DECLS
