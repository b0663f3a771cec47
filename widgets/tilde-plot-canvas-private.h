/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The trace plot's drawing primitives, shared by its views: colours,
 * labels, panels, axes and marks written as pixels.
 */
#pragma once

#include "tilde-plot-data.h"
#include "tilde-plot-painter-private.h"

G_BEGIN_DECLS

#define TILDE_PLOT_PANEL_RADIUS 6.0
/* Between a panel and its tick labels. */
#define TILDE_PLOT_LABEL_GAP 8.0

/* Layouts of labels, valid for one Pango context, serial and font. */
typedef struct
{
  GHashTable   *layouts;
  PangoContext *context;
  guint         serial;
  char         *font;
} TildePlotLabels;

typedef struct
{
  GHashTable           *labels;
  PangoLayout          *small_layout;
  PangoLayout          *bold_layout;
  PangoFontDescription *small;
  PangoFontDescription *bold;
  double                small_height;
  double                bold_height;
} TildePlotText;

/* One row's value axis while a frame is laid out. */
typedef struct
{
  double     y_lo, y_hi;
  TildeTicks y_ticks;
  gboolean   has_data;
} TildePlotAxes;

typedef struct
{
  cairo_surface_t *surface;   /* the target, or an image of our own */
  gboolean         own;
  guint32         *data;      /* the panel's first pixel */
  int              stride;    /* in pixels */
  int              x, y;      /* the panel in the surface's pixels */
  int              width;
  int              height;
  double           scale;
} TildePlotRaster;

/* Style: the colour of a chain, and a source of a colour at some opacity. */
const GdkRGBA * _tilde_plot_chain_colour       (const TildePlotStyle *style,
                                                guint                 chain);
void             _tilde_plot_set_source        (cairo_t       *cr,
                                                const GdkRGBA *rgba,
                                                double         alpha);

/* Text: the painter keeps a layout per label from frame to frame (shaping
 * text costs more than drawing it); a TildePlotText holds the two fonts of
 * one frame, the body's bold and a smaller one for ticks. Labels are
 * shown with their box's point (xalign, yalign) at (x, y). */
void             _tilde_plot_labels_init       (TildePlotLabels *labels);
void             _tilde_plot_labels_clear      (TildePlotLabels *labels);
void             _tilde_plot_text_init         (TildePlotText        *text,
                                                TildePlotLabels      *labels,
                                                PangoLayout          *layout,
                                                const TildePlotStyle *style);
void             _tilde_plot_text_clear        (TildePlotText *text);
double           _tilde_plot_text_width        (TildePlotText              *text,
                                                const PangoFontDescription *font,
                                                const char                 *string);
void             _tilde_plot_show_text         (cairo_t                    *cr,
                                                TildePlotText              *text,
                                                const PangoFontDescription *font,
                                                const char                 *string,
                                                double                      x,
                                                double                      y,
                                                double                      xalign,
                                                double                      yalign,
                                                const GdkRGBA              *colour,
                                                double                      alpha);

/* Shapes: panels are rounded, faintly filled rectangles; snap() moves a
 * coordinate to a pixel's centre so that one-pixel lines are sharp. */
void             _tilde_plot_rounded_rectangle (cairo_t               *cr,
                                                const graphene_rect_t *r,
                                                double                 radius);
void             _tilde_plot_fill_panel        (cairo_t               *cr,
                                                const graphene_rect_t *r,
                                                const TildePlotStyle  *style);
void             _tilde_plot_clip_to           (cairo_t               *cr,
                                                const graphene_rect_t *r);
double           _tilde_plot_snap              (double v);

/* A row's values to and from the main panel's coordinates. */
double           _tilde_plot_map_x             (const TildePlotRowLayout *r,
                                                double                    value);
double           _tilde_plot_map_y             (const TildePlotRowLayout *r,
                                                double                    value);
double           _tilde_plot_unmap_x           (const TildePlotRowLayout *r,
                                                double                    x);

/* The most ticks over [lo, hi] that stay `gap` pixels apart on an axis
 * `length` pixels long (Heckbert's rounding makes a small target coarse,
 * so targets are tried in turn); a range padded so that lines stay off a
 * panel's edges. */
void             _tilde_plot_pick_ticks        (double      lo,
                                                double      hi,
                                                double      length,
                                                double      gap,
                                                TildeTicks *ticks);
void             _tilde_plot_pad_range         (double *lo,
                                                double *hi);

/* Axes: the widest y label, the y grid and labels left of the main
 * panel, and the x labels under it (whole numbers only when `integers`;
 * the axis's name, when not NULL, at the right end). */
double           _tilde_plot_y_labels_width    (TildePlotText       *text,
                                                const TildePlotAxes *axes);
void             _tilde_plot_draw_y_axis       (cairo_t                  *cr,
                                                TildePlotText            *text,
                                                const TildePlotRowLayout *r,
                                                const TildePlotAxes      *axes,
                                                const TildePlotStyle     *style,
                                                double                    right_edge);
void             _tilde_plot_draw_x_axis       (cairo_t                  *cr,
                                                TildePlotText            *text,
                                                const TildePlotRowLayout *r,
                                                double                    y,
                                                gboolean                  integers,
                                                const char               *caption,
                                                const TildePlotStyle     *style);

/* A sentence in the middle of an empty plot. */
void             _tilde_plot_draw_message      (cairo_t              *cr,
                                                TildePlotText        *text,
                                                double                width,
                                                double                height,
                                                const char           *message,
                                                const TildePlotStyle *style);

/* A transparent ARGB32 image whose pages are in memory before anything is
 * drawn (see tilde-plot-canvas.c). */
cairo_surface_t *_tilde_plot_image_new         (int width,
                                                int height);

/* Pixels: thousands of one-pixel marks cost cairo far more than writing
 * the pixels, so dense marks go straight into the target image when it is
 * one (the screen's picture, a PNG), else into an image of the panel
 * painted in one go by raster_end(). Vector files (SVG, PDF) get shapes:
 * wants_vectors() says when. Pixels are premultiplied ARGB. */
gboolean         _tilde_plot_wants_vectors     (cairo_t *cr);
gboolean         _tilde_plot_raster_begin      (TildePlotRaster       *raster,
                                                cairo_t               *cr,
                                                const graphene_rect_t *panel,
                                                double                 scale);
void             _tilde_plot_raster_end        (TildePlotRaster       *raster,
                                                cairo_t               *cr,
                                                const graphene_rect_t *panel);
guint32          _tilde_plot_pixel_of          (const GdkRGBA *rgba,
                                                double         alpha);
void             _tilde_plot_raster_bar        (TildePlotRaster *raster,
                                                int              x,
                                                int              top,
                                                int              bottom,
                                                guint32          pixel);
void             _tilde_plot_raster_blend      (TildePlotRaster *raster,
                                                int              x,
                                                int              y,
                                                guint32          pixel);

/* x * a / 255, rounded, for bytes x and a. */
static inline guint32
_tilde_plot_byte_times (guint32 x, guint32 a)
{
  guint32 t = x * a + 128;

  return (t + (t >> 8)) >> 8;
}

/* `pixel` at `coverage` (0..255) over `under`, premultiplied ARGB. */
static inline guint32
_tilde_plot_pixel_over (guint32 pixel, guint32 coverage, guint32 under)
{
  guint32 inverse = 255 - _tilde_plot_byte_times (pixel >> 24, coverage), out = 0;

  for (int shift = 0; shift < 32; shift += 8)
    {
      guint32 v = _tilde_plot_byte_times ((pixel >> shift) & 0xff, coverage)
                  + _tilde_plot_byte_times ((under >> shift) & 0xff, inverse);

      out |= MIN (v, 255u) << shift;
    }
  return out;
}

/* Anti-aliased lines into a raster (tilde-plot-lines.c): begin() with the
 * line's width in the raster's pixels, a segment() per pair of joined
 * points in the raster's pixels, flush() to blend the line in its colour.
 * The pen keeps its buffers from line to line; clear() frees them. */
typedef struct
{
  TildePlotRaster *raster;
  double           half_width;
  guint8          *coverage;   /* a byte a pixel, zero where the line is not */
  gsize            capacity;
  int             *top, *bottom; /* a column's rows covered: [top, bottom) */
  guint            columns;
} TildePlotLinePen;

void             _tilde_plot_line_pen_begin    (TildePlotLinePen *pen,
                                                TildePlotRaster  *raster,
                                                double            line_width);
void             _tilde_plot_line_pen_segment  (TildePlotLinePen *pen,
                                                double            x0,
                                                double            y0,
                                                double            x1,
                                                double            y1);
void             _tilde_plot_line_pen_flush    (TildePlotLinePen *pen,
                                                guint32           pixel);
void             _tilde_plot_line_pen_clear    (TildePlotLinePen *pen);

G_END_DECLS
