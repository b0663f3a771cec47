/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "tilde-trace-plot.h"

G_BEGIN_DECLS

/* Where row `row`'s panels were last drawn: the main panel and the
 * densities beside it (empty outside the trace view). FALSE when the
 * row was not drawn. */
gboolean    _tilde_trace_plot_get_row_panels (TildeTracePlot  *self,
                                              guint            row,
                                              graphene_rect_t *main,
                                              graphene_rect_t *side);
/* The store's stamp when every band in view was last drawn. */
guint64     _tilde_trace_plot_get_drawn_stamp (TildeTracePlot *self);
/* How many times the plot drew a band's picture for the screen, and how
 * many images it made rather than reusing earlier ones. */
void        _tilde_trace_plot_get_picture_counts (TildeTracePlot *self,
                                                  guint          *drawn,
                                                  guint          *made);
/* How many rows the last frame showed: those in view, drawn. */
guint       _tilde_trace_plot_get_rows_drawn (TildeTracePlot *self);
/* How long a frame draws bands behind the draws once it drew one (µs;
 * 0: one band a frame). */
void        _tilde_trace_plot_set_band_budget (TildeTracePlot *self,
                                               gint64          usec);
/* How many images the plot holds for its bands (shown, spare, pooled). */
guint       _tilde_trace_plot_get_images_held (TildeTracePlot *self);
/* How many text layouts the plot keeps for its labels: some once its fonts
 * were looked up while the window was idle. */
guint       _tilde_trace_plot_get_n_labels   (TildeTracePlot *self);
/* What the pointer does, at widget coordinates. */
void        _tilde_trace_plot_hover          (TildeTracePlot *self,
                                              double          x,
                                              double          y);
/* The hover read-out as Pango markup, or NULL when none is shown. */
const char *_tilde_trace_plot_get_hover_text (TildeTracePlot *self);
/* Zooms the iteration axis by `factor` (< 1 zooms in) keeping the
 * iteration at widget x where it is; pans by `dx` pixels. */
void        _tilde_trace_plot_zoom_at        (TildeTracePlot *self,
                                              double          x,
                                              double          factor);
void        _tilde_trace_plot_pan            (TildeTracePlot *self,
                                              double          dx);

G_END_DECLS
