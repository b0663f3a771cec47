/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "tilde-draws.h"

G_BEGIN_DECLS

#define TILDE_TYPE_TRACE_PLOT (tilde_trace_plot_get_type ())

G_DECLARE_FINAL_TYPE (TildeTracePlot, tilde_trace_plot, TILDE, TRACE_PLOT, GtkWidget)

typedef enum {
  TILDE_PLOT_VIEW_TRACE,            /* draws against iteration, density beside */
  TILDE_PLOT_VIEW_RANK,             /* rank histograms per chain */
  TILDE_PLOT_VIEW_AUTOCORRELATION,  /* autocorrelation against lag per chain */
  TILDE_PLOT_VIEW_PAIRS,            /* the second parameter against the first */
} TildePlotView;

typedef enum {
  TILDE_PLOT_FORMAT_PNG,
  TILDE_PLOT_FORMAT_SVG,
  TILDE_PLOT_FORMAT_PDF,
} TildePlotFormat;

#define TILDE_TYPE_PLOT_VIEW (tilde_plot_view_get_type ())
#define TILDE_TYPE_PLOT_FORMAT (tilde_plot_format_get_type ())
GType            tilde_plot_view_get_type            (void) G_GNUC_CONST;
GType            tilde_plot_format_get_type          (void) G_GNUC_CONST;

/* Plots of the draws of a TildeDraws store, one row per parameter, one
 * colour per chain; redrawn as draws arrive, at most once a frame.
 *
 * In the trace view, warmup is shaded (or left out, :show-warmup),
 * divergent draws are ticked under the axis, and the iteration axis
 * zooms (Ctrl+scroll, pinch) and pans (drag, horizontal scroll);
 * double-click shows every draw again. Hovering reads out the chain,
 * iteration and value under the pointer. Statistics (densities, ranks,
 * autocorrelations, pairs) use each chain's draws after warmup, or its
 * warmup draws while it has no others. */
GtkWidget         *tilde_trace_plot_new                (void);
TildeDraws        *tilde_trace_plot_get_draws          (TildeTracePlot *self);
void               tilde_trace_plot_set_draws          (TildeTracePlot *self,
                                                        TildeDraws     *draws);
/* The columns plotted, by Stan CSV name ("theta.1", "lp__"), in order.
 * The pairs view plots the second against the first. */
const char *const *tilde_trace_plot_get_parameters     (TildeTracePlot *self);
void               tilde_trace_plot_set_parameters     (TildeTracePlot    *self,
                                                        const char *const *names);
TildePlotView      tilde_trace_plot_get_view           (TildeTracePlot *self);
void               tilde_trace_plot_set_view           (TildeTracePlot *self,
                                                        TildePlotView   view);
gboolean           tilde_trace_plot_get_show_warmup    (TildeTracePlot *self);
void               tilde_trace_plot_set_show_warmup    (TildeTracePlot *self,
                                                        gboolean        show_warmup);
/* The longest lag of the autocorrelation view. */
guint              tilde_trace_plot_get_max_lag        (TildeTracePlot *self);
void               tilde_trace_plot_set_max_lag        (TildeTracePlot *self,
                                                        guint           max_lag);
/* The window of iterations [start, end) the trace view shows; FALSE
 * (and every draw shown, following new ones) unless zoomed. */
gboolean           tilde_trace_plot_get_iteration_range (TildeTracePlot *self,
                                                         double         *start,
                                                         double         *end);
void               tilde_trace_plot_set_iteration_range (TildeTracePlot *self,
                                                         double          start,
                                                         double          end);
void               tilde_trace_plot_reset_zoom          (TildeTracePlot *self);

/* New draws for the plot are on their way (a run starting): the images
 * their first frames will need (where no draws were shown, one for each
 * band of rows in view) have their pages mapped and faulted in now, on a
 * thread of their own, rather than in those frames. */
void               tilde_trace_plot_expect_draws        (TildeTracePlot *self);

/* Draws what the plot shows (view, parameters, zoom) to a file of
 * width x height pixels (PNG) or points (SVG, PDF), in the light
 * palette on white, with the same drawing code as the screen. */
gboolean           tilde_trace_plot_export              (TildeTracePlot  *self,
                                                         const char      *path,
                                                         TildePlotFormat  format,
                                                         int              width,
                                                         int              height,
                                                         GError         **error);

G_END_DECLS
