/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the trace plot draws, as a function of a cairo context and a size,
 * so that the screen and the exported files share one drawing code. The
 * painter keeps copies of the plotted columns, extended as draws arrive,
 * and the statistics computed from them until they change.
 */
#pragma once

#include <gtk/gtk.h>

#include "tilde-draws.h"
#include "tilde-trace-plot.h"

G_BEGIN_DECLS

#define TILDE_PLOT_N_COLOURS 8

typedef struct
{
  GdkRGBA  foreground;
  /* What the plot is drawn on; filled first when fill_background. */
  GdkRGBA  background;
  gboolean fill_background;
  GdkRGBA  chains[TILDE_PLOT_N_COLOURS];
  GdkRGBA  divergent;
  /* Sizes of the text follow this font's. */
  const PangoFontDescription *font;
  /* Device pixels per unit, for marks drawn as pixels. */
  double   scale;
} TildePlotStyle;

typedef struct
{
  TildePlotView view;
  gboolean      show_warmup;
  guint         max_lag;
  /* The trace view's window of iterations when zoomed. */
  gboolean      zoomed;
  double        start;
  double        end;
  /* On screen while draws may stream in: statistics that are slow to
   * compute (the densities) follow the draws a few a frame, and
   * _tilde_plot_painter_is_settled() says when a frame left some behind.
   * Off (exports), every statistic is brought up to date. */
  gboolean      live;
  /* A later drawing of the same frame (the screen draws the plot a band
   * at a time): the densities already had their turn to be refitted. */
  gboolean      hold_refits;
} TildePlotOptions;

/* Where one row went, for hit tests: the panels, and the values at
 * their edges. */
typedef struct
{
  graphene_rect_t main;
  graphene_rect_t side;     /* the trace view's densities; empty otherwise */
  double          x_lo, x_hi;
  double          y_lo, y_hi;
} TildePlotRowLayout;

typedef struct
{
  double  width;
  double  height;
  GArray *rows;   /* TildePlotRowLayout */
  /* Views drawn as rows: how many, where the first begins and each one's
   * height (row i holds [header + i * row_height, header + (i + 1) *
   * row_height), the last ROW_GAP of it empty), set before there are draws
   * to show in them; 0 otherwise. */
  guint   n_row_bands;
  double  header;
  double  row_height;
} TildePlotLayout;

/* What lies under the pointer. */
typedef struct
{
  gboolean found;
  guint    row;
  int      chain;     /* -1 when the read-out covers every chain */
  double   x, y;      /* the marked point, in widget coordinates */
  char    *text;      /* the read-out, lines separated by \n */
} TildePlotHit;

typedef struct _TildePlotPainter TildePlotPainter;

TildePlotPainter *_tilde_plot_painter_new         (void);
void              _tilde_plot_painter_free        (TildePlotPainter *painter);
void              _tilde_plot_painter_set_draws   (TildePlotPainter *painter,
                                                   TildeDraws       *draws);
void              _tilde_plot_painter_set_columns (TildePlotPainter  *painter,
                                                   const char *const *names);
guint             _tilde_plot_painter_get_n_rows  (TildePlotPainter *painter);
/* Whether the last live frame showed every statistic up to date; when
 * not, another frame catches up. */
gboolean          _tilde_plot_painter_is_settled  (TildePlotPainter *painter);
/* Looks up the plot's fonts and draws its characters once into an image
 * nobody sees, so that the first frame with draws does not wait on it. */
void              _tilde_plot_painter_warm_text   (TildePlotPainter     *painter,
                                                   PangoLayout          *layout_text,
                                                   const TildePlotStyle *style);
/* How many rows the last drawing drew (rows outside its clip are not). */
guint             _tilde_plot_painter_get_rows_drawn (TildePlotPainter *painter);
/* How many text layouts the painter keeps for its labels. */
guint             _tilde_plot_painter_get_n_labels (TildePlotPainter *painter);
/* Brings the copies up to the draws in the store. */
void              _tilde_plot_painter_sync        (TildePlotPainter *painter);
/* The trace view's iterations when not zoomed: [start, end). */
void              _tilde_plot_painter_extent      (TildePlotPainter       *painter,
                                                   const TildePlotOptions *options,
                                                   double                 *start,
                                                   double                 *end);
/* Draws everything in (0, 0, width, height); `text` is a layout on a
 * PangoCairo context for every label. `layout` (may be NULL) receives
 * where the rows went. */
void              _tilde_plot_painter_draw        (TildePlotPainter       *painter,
                                                   cairo_t                *cr,
                                                   PangoLayout            *text,
                                                   double                  width,
                                                   double                  height,
                                                   const TildePlotStyle   *style,
                                                   const TildePlotOptions *options,
                                                   TildePlotLayout        *layout);
void              _tilde_plot_painter_hit         (TildePlotPainter       *painter,
                                                   const TildePlotLayout  *layout,
                                                   const TildePlotOptions *options,
                                                   double                  x,
                                                   double                  y,
                                                   TildePlotHit           *hit);
void              _tilde_plot_hit_clear           (TildePlotHit *hit);
/* The palette for a light or a dark background. */
void              _tilde_plot_style_init          (TildePlotStyle *style,
                                                   gboolean        dark);

G_END_DECLS
