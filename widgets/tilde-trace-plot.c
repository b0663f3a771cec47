/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <glib/gi18n.h>
#include <math.h>

#include "tilde-image-reserve.h"
#include "tilde-plot-canvas-private.h"
#include "tilde-plot-painter-private.h"
#include "tilde-trace-plot-private.h"

#define DEFAULT_MAX_LAG 50
/* The fewest iterations a zoom shows. */
#define MIN_SPAN 10.0
#define ROW_MIN_HEIGHT 170
#define ROW_NATURAL_HEIGHT 220
#define PAIRS_NATURAL_HEIGHT 480
#define HEADER_HEIGHT 40
/* While draws stream in, the bands a frame redraws once one is done:
 * those it can in this much of the frame's time; the rest wait a frame. */
#define BAND_BUDGET_USEC 2000
/* The images kept for bands to come. */
#define POOL_SIZE 4

/* One band of the picture, [top, bottom) in the widget's coordinates. */
typedef struct
{
  int              top, bottom;
  cairo_surface_t *picture;        /* its first row at `top` */
  cairo_surface_t *spare;          /* the picture before, to draw the next one in */
  GskRenderNode   *node;           /* the picture, as GTK is handed it */
  gboolean         node_for_cairo;
  /* What the picture was drawn from. */
  guint            generation, refits;
  guint64          stamp;
  int              width, height, scale;
  guint            rows;           /* the rows drawn in it */
} Band;

struct _TildeTracePlot
{
  GtkWidget         parent_instance;

  TildeDraws       *draws;
  gulong            changed_id;
  GStrv             parameters;
  TildePlotPainter *painter;
  TildePlotOptions  options;
  TildePlotLayout   layout;
  guint64           drawn_stamp;
  /* The picture, in horizontal bands: the legend's, then one a row (for
   * views of rows), or one band of what is in view. Each keeps its image
   * and the render node made of it, handed to GTK again while nothing it
   * shows changed, so that GTK redraws and uploads only the bands drawn
   * anew. While draws stream in, a frame redraws the bands it has time
   * for, the longest waiting first, and the next frames the rest. */
  GArray           *bands;         /* Band */
  /* Images of bands laid out anew or out of view, for the next bands to
   * draw in: a few, the newest last. */
  GPtrArray        *pool;
  guint             pictures_drawn, images_made, rows_shown;
  gint64            band_budget;   /* µs a streaming frame draws bands for */
  guint             generation;
  guint             refits;        /* frames that only catch up on statistics */
  gboolean          unsettled;     /* the last frame showed a statistic behind its draws */
  guint             catch_up_id;   /* a tick that redraws what a frame left behind */
  guint             warm_id;       /* an idle that looks up the fonts (root) */
  guint             spares_id;     /* an idle that makes the bands' next images */
  GtkAdjustment    *vadjustment;   /* of the viewport the plot scrolls in */

  gboolean          hovering;
  double            hover_x, hover_y;
  TildePlotHit      hit;

  /* The window when a drag or a pinch began, and the pinch's anchor. */
  double            gesture_start, gesture_end, gesture_anchor;
};

G_DEFINE_FINAL_TYPE (TildeTracePlot, tilde_trace_plot, GTK_TYPE_WIDGET)

G_DEFINE_ENUM_TYPE (TildePlotView, tilde_plot_view,
                    G_DEFINE_ENUM_VALUE (TILDE_PLOT_VIEW_TRACE, "trace"),
                    G_DEFINE_ENUM_VALUE (TILDE_PLOT_VIEW_RANK, "rank"),
                    G_DEFINE_ENUM_VALUE (TILDE_PLOT_VIEW_AUTOCORRELATION, "autocorrelation"),
                    G_DEFINE_ENUM_VALUE (TILDE_PLOT_VIEW_PAIRS, "pairs"))

G_DEFINE_ENUM_TYPE (TildePlotFormat, tilde_plot_format,
                    G_DEFINE_ENUM_VALUE (TILDE_PLOT_FORMAT_PNG, "png"),
                    G_DEFINE_ENUM_VALUE (TILDE_PLOT_FORMAT_SVG, "svg"),
                    G_DEFINE_ENUM_VALUE (TILDE_PLOT_FORMAT_PDF, "pdf"))

enum {
  PROP_0,
  PROP_DRAWS,
  PROP_PARAMETERS,
  PROP_VIEW,
  PROP_SHOW_WARMUP,
  PROP_MAX_LAG,
  PROP_ZOOMED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

GtkWidget *
tilde_trace_plot_new (void)
{
  return g_object_new (TILDE_TYPE_TRACE_PLOT, NULL);
}

/* ---- state ---- */

/* Something the picture shows changed. */
static void
invalidate (TildeTracePlot *self, gboolean resize)
{
  self->generation++;
  if (resize)
    gtk_widget_queue_resize (GTK_WIDGET (self));
  else
    gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
update_hover (TildeTracePlot *self)
{
  if (!self->hovering)
    {
      _tilde_plot_hit_clear (&self->hit);
      return;
    }
  _tilde_plot_painter_hit (self->painter, &self->layout, &self->options, self->hover_x,
                           self->hover_y, &self->hit);
}

static void
draws_changed_cb (TildeTracePlot *self)
{
  /* The store emits at most once a frame; the copies and statistics
   * catch up when the frame is drawn, and its stamp tells the bands they
   * are behind. */
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

TildeDraws *
tilde_trace_plot_get_draws (TildeTracePlot *self)
{
  g_return_val_if_fail (TILDE_IS_TRACE_PLOT (self), NULL);
  return self->draws;
}

void
tilde_trace_plot_set_draws (TildeTracePlot *self, TildeDraws *draws)
{
  g_return_if_fail (TILDE_IS_TRACE_PLOT (self));
  g_return_if_fail (draws == NULL || TILDE_IS_DRAWS (draws));

  if (self->draws == draws)
    return;
  g_clear_signal_handler (&self->changed_id, self->draws);
  g_set_object (&self->draws, draws);
  if (draws != NULL)
    self->changed_id = g_signal_connect_swapped (draws, "changed",
                                                 G_CALLBACK (draws_changed_cb), self);
  _tilde_plot_painter_set_draws (self->painter, draws);
  _tilde_plot_painter_set_columns (self->painter, (const char *const *) self->parameters);
  tilde_trace_plot_reset_zoom (self);
  _tilde_plot_hit_clear (&self->hit);
  invalidate (self, TRUE);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DRAWS]);
}

const char *const *
tilde_trace_plot_get_parameters (TildeTracePlot *self)
{
  g_return_val_if_fail (TILDE_IS_TRACE_PLOT (self), NULL);
  return (const char *const *) self->parameters;
}

void
tilde_trace_plot_set_parameters (TildeTracePlot *self, const char *const *names)
{
  g_return_if_fail (TILDE_IS_TRACE_PLOT (self));

  if (self->parameters != NULL && names != NULL
      && g_strv_equal ((const char *const *) self->parameters, names))
    return;
  if (self->parameters == NULL && (names == NULL || names[0] == NULL))
    return;
  g_strfreev (self->parameters);
  self->parameters = g_strdupv ((char **) names);
  _tilde_plot_painter_set_columns (self->painter, names);
  _tilde_plot_hit_clear (&self->hit);
  invalidate (self, TRUE);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PARAMETERS]);
}

TildePlotView
tilde_trace_plot_get_view (TildeTracePlot *self)
{
  g_return_val_if_fail (TILDE_IS_TRACE_PLOT (self), TILDE_PLOT_VIEW_TRACE);
  return self->options.view;
}

void
tilde_trace_plot_set_view (TildeTracePlot *self, TildePlotView view)
{
  g_return_if_fail (TILDE_IS_TRACE_PLOT (self));
  g_return_if_fail (view <= TILDE_PLOT_VIEW_PAIRS);

  if (self->options.view == view)
    return;
  self->options.view = view;
  _tilde_plot_hit_clear (&self->hit);
  invalidate (self, TRUE);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VIEW]);
}

gboolean
tilde_trace_plot_get_show_warmup (TildeTracePlot *self)
{
  g_return_val_if_fail (TILDE_IS_TRACE_PLOT (self), FALSE);
  return self->options.show_warmup;
}

void
tilde_trace_plot_set_show_warmup (TildeTracePlot *self, gboolean show_warmup)
{
  g_return_if_fail (TILDE_IS_TRACE_PLOT (self));

  if (self->options.show_warmup == !!show_warmup)
    return;
  self->options.show_warmup = !!show_warmup;
  tilde_trace_plot_reset_zoom (self);
  invalidate (self, FALSE);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_WARMUP]);
}

guint
tilde_trace_plot_get_max_lag (TildeTracePlot *self)
{
  g_return_val_if_fail (TILDE_IS_TRACE_PLOT (self), 0);
  return self->options.max_lag;
}

void
tilde_trace_plot_set_max_lag (TildeTracePlot *self, guint max_lag)
{
  g_return_if_fail (TILDE_IS_TRACE_PLOT (self));
  g_return_if_fail (max_lag >= 1);

  if (self->options.max_lag == max_lag)
    return;
  self->options.max_lag = max_lag;
  invalidate (self, FALSE);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_LAG]);
}

gboolean
tilde_trace_plot_get_iteration_range (TildeTracePlot *self, double *start, double *end)
{
  g_return_val_if_fail (TILDE_IS_TRACE_PLOT (self), FALSE);

  if (self->options.zoomed)
    {
      *start = self->options.start;
      *end = self->options.end;
    }
  else
    _tilde_plot_painter_extent (self->painter, &self->options, start, end);
  return self->options.zoomed;
}

static void
set_zoomed (TildeTracePlot *self, gboolean zoomed)
{
  if (self->options.zoomed == zoomed)
    return;
  self->options.zoomed = zoomed;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOMED]);
}

void
tilde_trace_plot_set_iteration_range (TildeTracePlot *self, double start, double end)
{
  double first, last, span;

  g_return_if_fail (TILDE_IS_TRACE_PLOT (self));
  g_return_if_fail (isfinite (start) && isfinite (end));

  _tilde_plot_painter_extent (self->painter, &self->options, &first, &last);
  span = MAX (end - start, MIN (MIN_SPAN, last - first));
  if (span >= last - first)
    {
      tilde_trace_plot_reset_zoom (self);
      return;
    }
  /* Kept inside the draws there are. */
  start = CLAMP (start, first, last - span);
  self->options.start = start;
  self->options.end = start + span;
  set_zoomed (self, TRUE);
  update_hover (self);
  invalidate (self, FALSE);
}

void
tilde_trace_plot_reset_zoom (TildeTracePlot *self)
{
  g_return_if_fail (TILDE_IS_TRACE_PLOT (self));

  set_zoomed (self, FALSE);
  update_hover (self);
  invalidate (self, FALSE);
}

/* ---- style ---- */

static void
style_for_screen (TildeTracePlot *self, TildePlotStyle *style)
{
  GtkWidget *widget = GTK_WIDGET (self);

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  GtkStyleContext *context = gtk_widget_get_style_context (widget);
  GdkRGBA foreground, background;
  gboolean dark;

  gtk_style_context_get_color (context, &foreground);
  /* Light text means a dark theme, whichever theme it is. */
  dark = 0.2126 * foreground.red + 0.7152 * foreground.green + 0.0722 * foreground.blue > 0.5;
  _tilde_plot_style_init (style, dark);
  style->foreground = foreground;
  if (gtk_style_context_lookup_color (context, "window_bg_color", &background))
    style->background = background;
  G_GNUC_END_IGNORE_DEPRECATIONS
  style->font = pango_context_get_font_description (gtk_widget_get_pango_context (widget));
}

/* ---- drawing ---- */

static void
snapshot_hover (TildeTracePlot *self, GtkSnapshot *snapshot, const TildePlotStyle *style)
{
  GtkWidget *widget = GTK_WIDGET (self);
  g_autoptr(PangoLayout) layout = NULL;
  GdkRGBA popover = style->background, border = style->foreground, shadow = { 0, 0, 0, 0.2 };
  GskRoundedRect box;
  int text_w, text_h;
  double w, h, x, y;

  if (!self->hit.found || self->hit.text == NULL)
    return;

  if (self->hit.chain >= 0)
    {
      GskRoundedRect ring, dot;

      double px = self->hit.x, py = self->hit.y;

      gsk_rounded_rect_init_from_rect (&ring, &GRAPHENE_RECT_INIT (px - 5, py - 5, 10, 10), 5);
      gsk_rounded_rect_init_from_rect (&dot, &GRAPHENE_RECT_INIT (px - 3.5, py - 3.5, 7, 7), 3.5);
      gtk_snapshot_push_rounded_clip (snapshot, &ring);
      gtk_snapshot_append_color (snapshot, &style->background, &ring.bounds);
      gtk_snapshot_pop (snapshot);
      gtk_snapshot_push_rounded_clip (snapshot, &dot);
      gtk_snapshot_append_color (snapshot, &style->chains[self->hit.chain % TILDE_PLOT_N_COLOURS],
                                 &dot.bounds);
      gtk_snapshot_pop (snapshot);
    }
  else if (self->hit.row < self->layout.rows->len)
    {
      const TildePlotRowLayout *r = &g_array_index (self->layout.rows, TildePlotRowLayout,
                                                    self->hit.row);
      GdkRGBA line = style->foreground;

      line.alpha *= 0.35;
      gtk_snapshot_append_color (snapshot, &line,
                                 &GRAPHENE_RECT_INIT (floor (self->hit.x), r->main.origin.y, 1,
                                                      r->main.size.height));
    }

  layout = gtk_widget_create_pango_layout (widget, NULL);
  pango_layout_set_markup (layout, self->hit.text, -1);
  pango_layout_get_pixel_size (layout, &text_w, &text_h);
  w = text_w + 20;
  h = text_h + 12;
  /* Below right of the point, flipped where it would leave the widget. */
  x = self->hit.x + 14;
  y = self->hit.y + 14;
  if (x + w > gtk_widget_get_width (widget) - 4)
    x = self->hit.x - 14 - w;
  if (y + h > gtk_widget_get_height (widget) - 4)
    y = self->hit.y - 14 - h;
  x = round (MAX (x, 4));
  y = round (MAX (y, 4));

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_lookup_color (gtk_widget_get_style_context (widget),
                                  "popover_bg_color", &popover);
  G_GNUC_END_IGNORE_DEPRECATIONS
  border.alpha *= 0.14;
  gsk_rounded_rect_init_from_rect (&box, &GRAPHENE_RECT_INIT (x, y, w, h), 8);
  gtk_snapshot_append_outset_shadow (snapshot, &box, &shadow, 0, 2, 0, 6);
  gtk_snapshot_push_rounded_clip (snapshot, &box);
  gtk_snapshot_append_color (snapshot, &popover, &box.bounds);
  gtk_snapshot_pop (snapshot);
  gtk_snapshot_append_border (snapshot, &box, (const float[4]) { 1, 1, 1, 1 },
                              (const GdkRGBA[4]) { border, border, border, border });
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (x + 10, y + 6));
  gtk_snapshot_append_layout (snapshot, layout, &style->foreground);
  gtk_snapshot_restore (snapshot);
}

static void
band_clear (gpointer data)
{
  Band *band = data;

  g_clear_pointer (&band->node, gsk_render_node_unref);
  g_clear_pointer (&band->picture, cairo_surface_destroy);
  g_clear_pointer (&band->spare, cairo_surface_destroy);
}

/* A band's images go to the pool. The idle that makes spares takes the
 * oldest out when there are more than POOL_SIZE: unmapping an image costs
 * about as much as making one, and a frame that lays the bands out anew
 * would give up a dozen. Frames that keep laying them out (a resize while
 * the loop never idles) stop at the images of two layouts. */
static void
pool_band (TildeTracePlot *self, Band *band)
{
  cairo_surface_t *images[2] = { g_steal_pointer (&band->spare), g_steal_pointer (&band->picture) };

  g_clear_pointer (&band->node, gsk_render_node_unref);
  for (guint i = 0; i < G_N_ELEMENTS (images); i++)
    if (images[i] != NULL)
      g_ptr_array_add (self->pool, images[i]);
  while (self->pool->len > POOL_SIZE + 4 * self->bands->len)
    g_ptr_array_remove_index (self->pool, 0);
}

static void
trim_pool (TildeTracePlot *self)
{
  if (self->pool->len > POOL_SIZE)
    g_ptr_array_remove_range (self->pool, 0, self->pool->len - POOL_SIZE);
}

static gboolean
image_fits (cairo_surface_t *image, int width, int height)
{
  return cairo_surface_get_reference_count (image) == 1
         && cairo_image_surface_get_width (image) == width
         && cairo_image_surface_get_height (image) == height;
}

/* An image of this size that nothing else holds any more: `own` (a band's
 * spare) if it fits, else one from the pool, else NULL. `own` is given up
 * either way. The last picture is still in the frame GTK keeps (a render
 * node or a texture), and drawing into it would make cairo copy it first. */
static cairo_surface_t *
reuse_image (TildeTracePlot *self, cairo_surface_t *own, int width, int height)
{
  if (own != NULL && image_fits (own, width, height))
    return own;
  g_clear_pointer (&own, cairo_surface_destroy);
  for (guint i = self->pool->len; i-- > 0;)
    if (image_fits (self->pool->pdata[i], width, height))
      return g_ptr_array_steal_index (self->pool, i);
  return NULL;
}

/* A new image costs a fault for every page when first drawn on, which made
 * up much of a streaming frame's time under the cairo renderer: counted. */
static cairo_surface_t *
new_image (TildeTracePlot *self, int width, int height)
{
  self->images_made++;
  return _tilde_plot_image_new (width, height);
}

/* An image for a band's next picture: an earlier one, cleared, or a new one. */
static cairo_surface_t *
take_surface (TildeTracePlot *self, Band *band, int width, int height)
{
  cairo_surface_t *image = reuse_image (self, g_steal_pointer (&band->spare), width, height);
  cairo_t *cr;

  if (image == NULL)
    return new_image (self, width, height);
  cr = cairo_create (image);
  cairo_set_operator (cr, CAIRO_OPERATOR_CLEAR);
  cairo_paint (cr);
  cairo_destroy (cr);
  return image;
}

/* The rows in view, from `top` to `bottom` (widget coordinates): the plot
 * scrolls in a viewport, and with many parameters most rows are out of
 * view; only those in view are drawn. The whole height when the plot is
 * not in a viewport. */
static void
visible_band (TildeTracePlot *self, GtkWidget *viewport, int height, int *top, int *bottom)
{
  graphene_rect_t bounds;

  *top = 0;
  *bottom = height;
  if (viewport != NULL && gtk_widget_compute_bounds (viewport, GTK_WIDGET (self), &bounds))
    {
      int band_top = CLAMP ((int) floor (bounds.origin.y), 0, height);
      int band_bottom = CLAMP ((int) ceil (bounds.origin.y + bounds.size.height), 0, height);

      /* out of view altogether: a picture of one row, not of the whole */
      *top = band_bottom > band_top ? band_top : 0;
      *bottom = band_bottom > band_top ? band_bottom : MIN (height, 1);
    }
}

/* A scroll, or a taller viewport, brings other rows into view: the
 * picture follows. */
static void
scrolled_cb (GtkAdjustment *adjustment, TildeTracePlot *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
follow_scrolling (TildeTracePlot *self, GtkAdjustment *adjustment)
{
  if (self->vadjustment == adjustment)
    return;
  if (self->vadjustment != NULL)
    {
      g_signal_handlers_disconnect_by_func (self->vadjustment, scrolled_cb, self);
      g_clear_object (&self->vadjustment);
    }
  if (adjustment != NULL)
    {
      self->vadjustment = g_object_ref (adjustment);
      g_signal_connect (adjustment, "value-changed", G_CALLBACK (scrolled_cb), self);
      g_signal_connect (adjustment, "changed", G_CALLBACK (scrolled_cb), self);
    }
}

/* Lays the plot out without drawing it (a clip that holds nothing), when
 * the last layout cannot tell where the bands lie: the first frame, and
 * after a resize or a change of parameters. */
static void
lay_out (TildeTracePlot *self, PangoLayout *text, int width, int height,
         const TildePlotStyle *style)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create (surface);

  cairo_rectangle (cr, 0, 0, 0, 0);
  cairo_clip (cr);
  _tilde_plot_painter_draw (self->painter, cr, text, width, height, style, &self->options,
                            &self->layout);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

static gboolean
layout_fits (TildeTracePlot *self, int width, int height)
{
  return self->layout.width == width && self->layout.height == height
         && self->layout.n_row_bands == _tilde_plot_painter_get_n_rows (self->painter)
         && self->layout.row_height > 0;
}

/* Where the bands lie: in views of rows, the legend's band and one a row,
 * each row's from the whole pixel at or above its start (a row draws
 * nothing in its last ROW_GAP, so none reaches the next band); else one
 * band, of what is in view. */
static void
band_edges (TildeTracePlot *self, int width, int height, int top, int bottom, GArray *edges)
{
  int edge = 0;

  g_array_set_size (edges, 0);
  if (layout_fits (self, width, height))
    {
      g_array_append_val (edges, edge);
      for (guint i = 0; i < self->layout.n_row_bands; i++)
        {
          int next = (int) floor (self->layout.header + i * self->layout.row_height);

          if (next <= edge || next >= height)
            break;
          edge = next;
          g_array_append_val (edges, edge);
        }
      if (edges->len == self->layout.n_row_bands + 1)
        {
          edge = height;
          g_array_append_val (edges, edge);
          return;
        }
      g_array_set_size (edges, 0);
    }
  g_array_append_val (edges, top);
  g_array_append_val (edges, bottom);
}

static gboolean
bands_lie_at (TildeTracePlot *self, GArray *edges)
{
  gboolean same = self->bands->len + 1 == edges->len;

  for (guint i = 0; same && i < self->bands->len; i++)
    {
      Band *band = &g_array_index (self->bands, Band, i);

      same = band->top == g_array_index (edges, int, i)
             && band->bottom == g_array_index (edges, int, i + 1);
    }
  return same;
}

/* The bands for these edges: those kept where the edges did not move.
 * The old bands' images go to the pool (take_surface() takes one that
 * fits): a single band following a scroll, say, draws into the image
 * before last rather than a new one. */
static void
place_bands (TildeTracePlot *self, GArray *edges)
{
  if (bands_lie_at (self, edges))
    return;
  for (guint i = 0; i < self->bands->len; i++)
    pool_band (self, &g_array_index (self->bands, Band, i));
  g_array_set_size (self->bands, 0);
  g_array_set_size (self->bands, edges->len - 1);
  for (guint i = 0; i < self->bands->len; i++)
    {
      Band *band = &g_array_index (self->bands, Band, i);

      band->top = g_array_index (edges, int, i);
      band->bottom = g_array_index (edges, int, i + 1);
    }
}

/* GTK 4.8's cairo renderer converts a texture to an image pixel by pixel
 * every frame, where it paints a cairo node's image as it is: for it, the
 * picture goes in a cairo node. */
static gboolean
renders_with_cairo (GtkWidget *widget)
{
  GtkNative *native = gtk_widget_get_native (widget);
  GskRenderer *renderer = native ? gtk_native_get_renderer (native) : NULL;

  return renderer == NULL || GSK_IS_CAIRO_RENDERER (renderer);
}

/* The picture as a texture that shares its pixels, for GTK's GL renderer:
 * it uploads a texture once and keeps it while the texture lives, where a
 * cairo node is drawn into a fresh image, copied and uploaded again every
 * frame. The surface is never drawn on again once wrapped. */
static GdkTexture *
texture_of (cairo_surface_t *picture)
{
  g_autoptr(GBytes) bytes = NULL;
  int stride = cairo_image_surface_get_stride (picture);
  int height = cairo_image_surface_get_height (picture);

  cairo_surface_flush (picture);
  bytes = g_bytes_new_with_free_func (cairo_image_surface_get_data (picture),
                                      (gsize) stride * height,
                                      (GDestroyNotify) cairo_surface_destroy,
                                      cairo_surface_reference (picture));
  /* Cairo's ARGB32, premultiplied in native order: GDK_MEMORY_DEFAULT. */
  return gdk_memory_texture_new (cairo_image_surface_get_width (picture), height,
                                 GDK_MEMORY_DEFAULT, bytes, stride);
}

/* The band's picture as a render node, kept and handed to GTK in every
 * frame until the band is drawn again: GTK compares a frame's nodes with
 * the last frame's and redraws only where they differ. */
static GskRenderNode *
node_of (Band *band, int width, gboolean for_cairo)
{
  graphene_rect_t bounds = GRAPHENE_RECT_INIT (0, band->top, width, band->bottom - band->top);
  GskRenderNode *node;

  if (for_cairo)
    {
      cairo_t *cr;

      node = gsk_cairo_node_new (&bounds);
      cr = gsk_cairo_node_get_draw_context (node);
      /* the picture's device offset puts its first row at `top` */
      cairo_set_source_surface (cr, band->picture, 0, 0);
      cairo_paint (cr);
      cairo_destroy (cr);
    }
  else
    {
      g_autoptr(GdkTexture) texture = texture_of (band->picture);

      node = gsk_texture_node_new (texture, &bounds);
    }
  return node;
}

/* The band drawn into an image at the device's scale; the painter draws
 * the rows in its clip, the band's. FALSE when there is no image for it. */
static gboolean
draw_band (TildeTracePlot *self, Band *band, PangoLayout *text, int width, int height, int scale,
           guint64 stamp, const TildePlotStyle *style, gboolean hold_refits)
{
  cairo_surface_t *surface;
  cairo_t *cr;

  self->pictures_drawn++;
  surface = take_surface (self, band, width * scale, (band->bottom - band->top) * scale);
  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (surface);
      return FALSE;
    }
  cairo_surface_set_device_scale (surface, scale, scale);
  cairo_surface_set_device_offset (surface, 0, -band->top * scale);
  cr = cairo_create (surface);
  self->options.hold_refits = hold_refits;
  _tilde_plot_painter_draw (self->painter, cr, text, width, height, style, &self->options,
                            &self->layout);
  self->options.hold_refits = FALSE;
  cairo_destroy (cr);
  if (!_tilde_plot_painter_is_settled (self->painter))
    self->unsettled = TRUE;

  g_clear_pointer (&band->node, gsk_render_node_unref);
  band->spare = band->picture;   /* take_surface() took the old spare */
  band->picture = surface;
  band->rows = _tilde_plot_painter_get_rows_drawn (self->painter);
  band->generation = self->generation;
  band->refits = self->refits;
  band->stamp = stamp;
  band->width = width;
  band->height = height;
  band->scale = scale;
  return TRUE;
}

static gboolean
band_in_view (const Band *band, int top, int bottom)
{
  return band->top < bottom && band->bottom > top;
}

/* Not drawn yet, or drawn for another frame than this one in a way new
 * draws do not explain (another size, options, parameters; draws where
 * there were none): a band drawn again at once. */
static gboolean
band_is_unfit (TildeTracePlot *self, const Band *band, int width, int height, int scale,
               guint64 stamp)
{
  return band->picture == NULL || band->generation != self->generation || band->width != width
         || band->height != height || band->scale != scale || (band->stamp == 0) != (stamp == 0);
}

static gboolean
band_is_behind (TildeTracePlot *self, const Band *band, guint64 stamp)
{
  return band->picture == NULL || band->stamp != stamp || band->refits != self->refits;
}

/* The in-view band waiting longest for newer draws or statistics. */
static Band *
longest_behind (TildeTracePlot *self, int top, int bottom, guint64 stamp)
{
  Band *oldest = NULL;

  for (guint i = 0; i < self->bands->len; i++)
    {
      Band *band = &g_array_index (self->bands, Band, i);

      if (band_in_view (band, top, bottom) && band_is_behind (self, band, stamp)
          && (oldest == NULL || band->stamp < oldest->stamp
              || (band->stamp == oldest->stamp && band->refits < oldest->refits)))
        oldest = band;
    }
  return oldest;
}

/* A band on screen without an image for its next picture. */
static Band *
band_wanting_spare (TildeTracePlot *self)
{
  for (guint i = 0; i < self->bands->len; i++)
    {
      Band *band = &g_array_index (self->bands, Band, i);

      if (band->picture != NULL && band->spare == NULL)
        return band;
    }
  return NULL;
}

/* The image for a band's next picture, made while the window is idle
 * rather than in the frame that draws it (a band's first two pictures
 * need new images), then the pool brought back to its size: one image a
 * turn of the main loop. */
static gboolean
make_spares_cb (gpointer data)
{
  TildeTracePlot *self = data;
  Band *band = band_wanting_spare (self);
  int width, height;

  if (band == NULL)
    {
      if (self->pool->len > POOL_SIZE)
        {
          g_ptr_array_remove_index (self->pool, 0);
          return G_SOURCE_CONTINUE;
        }
      self->spares_id = 0;
      return G_SOURCE_REMOVE;
    }
  width = cairo_image_surface_get_width (band->picture);
  height = cairo_image_surface_get_height (band->picture);
  band->spare = reuse_image (self, NULL, width, height);
  if (band->spare == NULL)
    band->spare = new_image (self, width, height);
  return G_SOURCE_CONTINUE;
}

static void
make_spares (TildeTracePlot *self)
{
  if (self->spares_id != 0 || (band_wanting_spare (self) == NULL && self->pool->len <= POOL_SIZE))
    return;
  self->spares_id = g_idle_add_full (G_PRIORITY_LOW, make_spares_cb, self, NULL);
  g_source_set_name_by_id (self->spares_id, "[tilde] plot images");
}

static gboolean
catch_up_cb (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  TildeTracePlot *self = TILDE_TRACE_PLOT (widget);

  self->catch_up_id = 0;
  /* Densities left behind: every band is drawn again, a few a frame. */
  if (self->unsettled)
    self->refits++;
  gtk_widget_queue_draw (widget);
  return G_SOURCE_REMOVE;
}

/* No rows to show: the plot says why ("No draws yet", "Select parameters
 * to plot"). The message goes into GTK's frame as it is, not into an
 * image of the whole plot made for it: megabytes, a page fault a page, in
 * the frame that brings the plots up as a first run starts. */
static void
snapshot_message (TildeTracePlot *self, GtkSnapshot *snapshot, PangoLayout *text, int width,
                  int height, int top, int bottom, guint64 stamp, const TildePlotStyle *style)
{
  cairo_t *cr;

  for (guint i = 0; i < self->bands->len; i++)
    pool_band (self, &g_array_index (self->bands, Band, i));
  g_array_set_size (self->bands, 0);
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, top, width, bottom - top));
  _tilde_plot_painter_draw (self->painter, cr, text, width, height, style, &self->options,
                            &self->layout);
  cairo_destroy (cr);
  self->rows_shown = 0;
  self->drawn_stamp = stamp;
  /* the bands' images wait in the pool for the next rows; beyond its
   * size, they go while the window idles */
  make_spares (self);
}

static void
tilde_trace_plot_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  TildeTracePlot *self = TILDE_TRACE_PLOT (widget);
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  int scale = gtk_widget_get_scale_factor (widget);
  guint64 stamp = self->draws ? tilde_draws_get_stamp (self->draws) : 0;
  gboolean for_cairo = renders_with_cairo (widget), refitted = FALSE, behind = FALSE;
  guint drawn = 0;
  g_autoptr(PangoLayout) text = NULL;
  g_autoptr(GArray) edges = g_array_new (FALSE, FALSE, sizeof (int));
  gint64 began;
  TildePlotStyle style;
  GtkWidget *viewport;
  Band *band;
  int top, bottom;

  if (width <= 0 || height <= 0)
    return;
  style_for_screen (self, &style);
  style.scale = scale;
  text = gtk_widget_create_pango_layout (widget, NULL);
  /* Followed from here, where it is needed: a scrolled window already on
   * screen hands a new viewport its adjustments after the plot is rooted. */
  viewport = gtk_widget_get_ancestor (widget, GTK_TYPE_VIEWPORT);
  follow_scrolling (self, viewport ? gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (viewport))
                                   : NULL);
  visible_band (self, viewport, height, &top, &bottom);
  if (_tilde_plot_painter_get_n_rows (self->painter) == 0)
    {
      snapshot_message (self, snapshot, text, width, height, top, bottom, stamp, &style);
      return;
    }
  if (self->options.view != TILDE_PLOT_VIEW_PAIRS && !layout_fits (self, width, height))
    {
      lay_out (self, text, width, height, &style);
      refitted = TRUE;
    }
  band_edges (self, width, height, top, bottom, edges);
  place_bands (self, edges);

  began = g_get_monotonic_time ();
  self->unsettled = FALSE;
  /* Bands whose picture is of another size, options or data set first,
   * all of them; then the bands behind the draws, the longest waiting
   * first, as long as the frame has time (one at least). */
  for (guint i = 0; i < self->bands->len; i++)
    {
      band = &g_array_index (self->bands, Band, i);
      if (band_in_view (band, top, bottom)
          && band_is_unfit (self, band, width, height, scale, stamp))
        {
          draw_band (self, band, text, width, height, scale, stamp, &style, refitted);
          refitted = TRUE;
          drawn++;
        }
    }
  while ((band = longest_behind (self, top, bottom, stamp)) != NULL)
    {
      if (drawn > 0 && g_get_monotonic_time () - began >= self->band_budget)
        break;
      if (!draw_band (self, band, text, width, height, scale, stamp, &style, refitted))
        break;
      refitted = TRUE;
      drawn++;
    }
  behind = longest_behind (self, top, bottom, stamp) != NULL;
  /* A layout that moved the bands (the legend's font, say) is followed
   * in the next frame; this one shows what was just drawn. */
  band_edges (self, width, height, top, bottom, edges);
  behind = behind || !bands_lie_at (self, edges);

  self->rows_shown = 0;
  for (guint i = 0; i < self->bands->len; i++)
    {
      band = &g_array_index (self->bands, Band, i);
      /* Out of view, its images are for the bands that scroll in: what
       * the plot holds follows the rows in view, not the rows seen. */
      if (!band_in_view (band, top, bottom))
        pool_band (self, band);
      if (band->picture == NULL)
        continue;
      if (band->node != NULL && band->node_for_cairo != for_cairo)
        g_clear_pointer (&band->node, gsk_render_node_unref);
      if (band->node == NULL)
        {
          band->node = node_of (band, width, for_cairo);
          band->node_for_cairo = for_cairo;
        }
      gtk_snapshot_append_node (snapshot, band->node);
      self->rows_shown += band->rows;
    }
  if (!behind)
    self->drawn_stamp = stamp;
  make_spares (self);
  /* Bands and densities left behind catch up in the next frames, when no
   * more draws come. */
  if ((behind || self->unsettled) && self->catch_up_id == 0)
    self->catch_up_id = gtk_widget_add_tick_callback (widget, catch_up_cb, NULL, NULL);

  /* The read-out follows the data under a still pointer. */
  update_hover (self);
  snapshot_hover (self, snapshot, &style);
}

void
tilde_trace_plot_expect_draws (TildeTracePlot *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  GtkWidget *viewport;
  int scale, width, height;
  gsize stride, in_view;

  g_return_if_fail (TILDE_IS_TRACE_PLOT (self));
  viewport = gtk_widget_get_ancestor (widget, GTK_TYPE_VIEWPORT);
  scale = gtk_widget_get_scale_factor (widget);
  width = gtk_widget_get_width (widget);
  height = viewport != NULL ? gtk_widget_get_height (viewport) : gtk_widget_get_height (widget);
  if (width <= 0 || height <= 0)
    return;
  stride = (gsize) cairo_format_stride_for_width (CAIRO_FORMAT_ARGB32, width * scale);
  in_view = stride * (gsize) (height * scale);
  /* Rows laid out anew: the bands in view reach past its edges by up to a
   * band at each end, and right after their frame the idle that makes
   * spares makes as many again. The rows kept from the last draws keep
   * their bands' images. Either way the rows' density pictures (about a
   * tenth of the picture in view) are made again for the new draws. */
  if (self->bands->len == 0)   /* none yet, or the message (snapshot_message) */
    _tilde_image_reserve_fill (in_view / 2 * 5);
  else
    _tilde_image_reserve_fill (in_view / 8);
}

static gboolean
warm_text_cb (gpointer data)
{
  TildeTracePlot *self = data;
  g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), NULL);
  TildePlotStyle style;

  self->warm_id = 0;
  style_for_screen (self, &style);
  _tilde_plot_painter_warm_text (self->painter, layout, &style);
  return G_SOURCE_REMOVE;
}

/* In a window, the plot usually waits on a page of its own until a run
 * starts; its fonts are looked up while the window is idle before then. */
static void
tilde_trace_plot_root (GtkWidget *widget)
{
  TildeTracePlot *self = TILDE_TRACE_PLOT (widget);

  GTK_WIDGET_CLASS (tilde_trace_plot_parent_class)->root (widget);
  if (self->warm_id == 0)
    self->warm_id = g_idle_add_full (G_PRIORITY_LOW, warm_text_cb, self, NULL);
}

static void
tilde_trace_plot_unroot (GtkWidget *widget)
{
  TildeTracePlot *self = TILDE_TRACE_PLOT (widget);

  g_clear_handle_id (&self->warm_id, g_source_remove);
  g_clear_handle_id (&self->spares_id, g_source_remove);
  trim_pool (self);
  follow_scrolling (self, NULL);
  GTK_WIDGET_CLASS (tilde_trace_plot_parent_class)->unroot (widget);
}

static void
tilde_trace_plot_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                          int *minimum, int *natural, int *minimum_baseline, int *natural_baseline)
{
  TildeTracePlot *self = TILDE_TRACE_PLOT (widget);
  guint rows = MAX (_tilde_plot_painter_get_n_rows (self->painter), 1);

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 320;
      *natural = 720;
    }
  else if (self->options.view == TILDE_PLOT_VIEW_PAIRS)
    {
      *minimum = 240;
      *natural = PAIRS_NATURAL_HEIGHT;
    }
  else
    {
      *minimum = HEADER_HEIGHT + rows * ROW_MIN_HEIGHT;
      *natural = HEADER_HEIGHT + rows * ROW_NATURAL_HEIGHT;
    }
}

static void
tilde_trace_plot_css_changed (GtkWidget *widget, GtkCssStyleChange *change)
{
  GTK_WIDGET_CLASS (tilde_trace_plot_parent_class)->css_changed (widget, change);
  /* The palette follows the theme's text colour. */
  invalidate (TILDE_TRACE_PLOT (widget), FALSE);
}

/* ---- export ---- */

gboolean
tilde_trace_plot_export (TildeTracePlot *self, const char *path, TildePlotFormat format,
                         int width, int height, GError **error)
{
  cairo_surface_t *surface;
  cairo_t *cr;
  g_autoptr(PangoLayout) text = NULL;
  TildePlotStyle style;
  cairo_status_t status;
  g_autofree char *name = NULL;
  PangoContext *context;
  TildePlotOptions options;

  g_return_val_if_fail (TILDE_IS_TRACE_PLOT (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (width > 0 && height > 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  switch (format)
    {
    case TILDE_PLOT_FORMAT_PNG:
      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
      break;
    case TILDE_PLOT_FORMAT_SVG:
      surface = cairo_svg_surface_create (path, width, height);
      break;
    case TILDE_PLOT_FORMAT_PDF:
      surface = cairo_pdf_surface_create (path, width, height);
      break;
    default:
      g_return_val_if_reached (FALSE);
    }

  /* Files go into documents: the light palette on white, whatever the
   * theme on screen. */
  _tilde_plot_style_init (&style, FALSE);
  style.background = (GdkRGBA) { 1, 1, 1, 1 };
  style.fill_background = TRUE;
  context = gtk_widget_get_pango_context (GTK_WIDGET (self));
  style.font = pango_context_get_font_description (context);

  cr = cairo_create (surface);
  text = pango_cairo_create_layout (cr);
  /* Every statistic up to date, whatever the screen showed last. */
  options = self->options;
  options.live = FALSE;
  _tilde_plot_painter_draw (self->painter, cr, text, width, height, &style, &options, NULL);
  status = cairo_status (cr);
  cairo_destroy (cr);
  if (status == CAIRO_STATUS_SUCCESS && format == TILDE_PLOT_FORMAT_PNG)
    status = cairo_surface_write_to_png (surface, path);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);

  if (status == CAIRO_STATUS_SUCCESS)
    return TRUE;
  name = g_filename_display_name (path);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Could not export the plot to “%s”: %s"),
               name, cairo_status_to_string (status));
  return FALSE;
}

/* ---- pointer ---- */

gboolean
_tilde_trace_plot_get_row_panels (TildeTracePlot *self, guint row, graphene_rect_t *main,
                                  graphene_rect_t *side)
{
  const TildePlotRowLayout *r;

  if (row >= self->layout.rows->len)
    return FALSE;
  r = &g_array_index (self->layout.rows, TildePlotRowLayout, row);
  if (main)
    *main = r->main;
  if (side)
    *side = r->side;
  return TRUE;
}

void
_tilde_trace_plot_set_band_budget (TildeTracePlot *self, gint64 usec)
{
  self->band_budget = usec;
}

guint
_tilde_trace_plot_get_images_held (TildeTracePlot *self)
{
  guint held = self->pool->len;

  for (guint i = 0; i < self->bands->len; i++)
    {
      const Band *band = &g_array_index (self->bands, Band, i);

      held += (band->picture != NULL) + (band->spare != NULL);
    }
  return held;
}

guint64
_tilde_trace_plot_get_drawn_stamp (TildeTracePlot *self)
{
  return self->drawn_stamp;
}

guint
_tilde_trace_plot_get_rows_drawn (TildeTracePlot *self)
{
  return self->rows_shown;
}

guint
_tilde_trace_plot_get_n_labels (TildeTracePlot *self)
{
  return _tilde_plot_painter_get_n_labels (self->painter);
}

void
_tilde_trace_plot_get_picture_counts (TildeTracePlot *self, guint *drawn, guint *made)
{
  *drawn = self->pictures_drawn;
  *made = self->images_made;
}

void
_tilde_trace_plot_hover (TildeTracePlot *self, double x, double y)
{
  self->hovering = TRUE;
  self->hover_x = x;
  self->hover_y = y;
  update_hover (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

const char *
_tilde_trace_plot_get_hover_text (TildeTracePlot *self)
{
  return self->hit.found ? self->hit.text : NULL;
}

/* The iteration axis's pixels: every row's main panel spans the same. */
static gboolean
iteration_axis (TildeTracePlot *self, double *x0, double *width)
{
  const TildePlotRowLayout *r;

  if (self->options.view != TILDE_PLOT_VIEW_TRACE || self->layout.rows->len == 0)
    return FALSE;
  r = &g_array_index (self->layout.rows, TildePlotRowLayout, 0);
  *x0 = r->main.origin.x;
  *width = r->main.size.width;
  return *width > 0;
}

void
_tilde_trace_plot_zoom_at (TildeTracePlot *self, double x, double factor)
{
  double x0, width, start, end, anchor, fraction;

  if (!iteration_axis (self, &x0, &width) || !(factor > 0))
    return;
  tilde_trace_plot_get_iteration_range (self, &start, &end);
  fraction = CLAMP ((x - x0) / width, 0, 1);
  anchor = start + fraction * (end - start);
  tilde_trace_plot_set_iteration_range (self, anchor - fraction * (end - start) * factor,
                                        anchor + (1 - fraction) * (end - start) * factor);
}

void
_tilde_trace_plot_pan (TildeTracePlot *self, double dx)
{
  double x0, width, start, end, shift;

  if (!self->options.zoomed || !iteration_axis (self, &x0, &width))
    return;
  tilde_trace_plot_get_iteration_range (self, &start, &end);
  shift = -dx / width * (end - start);
  tilde_trace_plot_set_iteration_range (self, start + shift, end + shift);
}

static void
motion_cb (TildeTracePlot *self, double x, double y)
{
  _tilde_trace_plot_hover (self, x, y);
}

static void
leave_cb (TildeTracePlot *self)
{
  self->hovering = FALSE;
  _tilde_plot_hit_clear (&self->hit);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static gboolean
scroll_cb (TildeTracePlot *self, double dx, double dy, GtkEventControllerScroll *controller)
{
  GdkModifierType state;

  state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (controller));

  if (state & GDK_CONTROL_MASK)
    {
      _tilde_trace_plot_zoom_at (self, self->hover_x, pow (1.2, dy));
      return TRUE;
    }
  /* Sideways scrolling pans; the rest scrolls whatever holds the plot. */
  if (self->options.zoomed && fabs (dx) > fabs (dy))
    {
      _tilde_trace_plot_pan (self, -dx * 20);
      return TRUE;
    }
  return FALSE;
}

static void
drag_begin_cb (TildeTracePlot *self, double x, double y, GtkGestureDrag *gesture)
{
  tilde_trace_plot_get_iteration_range (self, &self->gesture_start, &self->gesture_end);
  if (!self->options.zoomed)
    {
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_DENIED);
      return;
    }
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), "grabbing");
}

static void
drag_update_cb (TildeTracePlot *self, double offset_x, double offset_y)
{
  double x0, width, shift;

  if (!iteration_axis (self, &x0, &width))
    return;
  shift = -offset_x / width * (self->gesture_end - self->gesture_start);
  tilde_trace_plot_set_iteration_range (self, self->gesture_start + shift,
                                        self->gesture_end + shift);
}

static void
drag_end_cb (TildeTracePlot *self)
{
  gtk_widget_set_cursor (GTK_WIDGET (self), NULL);
}

static void
zoom_begin_cb (TildeTracePlot *self, GdkEventSequence *sequence, GtkGestureZoom *gesture)
{
  double x0, width, x, y;

  tilde_trace_plot_get_iteration_range (self, &self->gesture_start, &self->gesture_end);
  if (!iteration_axis (self, &x0, &width)
      || !gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &x, &y))
    {
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_DENIED);
      return;
    }
  self->gesture_anchor = CLAMP ((x - x0) / width, 0, 1);
}

static void
zoom_scale_changed_cb (TildeTracePlot *self, double scale)
{
  double span = self->gesture_end - self->gesture_start;
  double anchor = self->gesture_start + self->gesture_anchor * span;

  if (!(scale > 0))
    return;
  tilde_trace_plot_set_iteration_range (self, anchor - self->gesture_anchor * span / scale,
                                        anchor + (1 - self->gesture_anchor) * span / scale);
}

static void
pressed_cb (TildeTracePlot *self, int n_press, double x, double y)
{
  if (n_press == 2)
    tilde_trace_plot_reset_zoom (self);
}

static void
zoom_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  TildeTracePlot *self = TILDE_TRACE_PLOT (widget);
  double x0, width;

  if (g_str_equal (action_name, "plot.reset-zoom"))
    {
      tilde_trace_plot_reset_zoom (self);
      return;
    }
  if (!iteration_axis (self, &x0, &width))
    return;
  _tilde_trace_plot_zoom_at (self, x0 + width / 2,
                             g_str_equal (action_name, "plot.zoom-in") ? 1 / 1.5 : 1.5);
}

/* ---- object ---- */

static void
tilde_trace_plot_dispose (GObject *object)
{
  TildeTracePlot *self = TILDE_TRACE_PLOT (object);

  g_clear_signal_handler (&self->changed_id, self->draws);
  g_clear_object (&self->draws);
  if (self->catch_up_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->catch_up_id);
  self->catch_up_id = 0;
  g_clear_handle_id (&self->warm_id, g_source_remove);
  g_clear_handle_id (&self->spares_id, g_source_remove);
  follow_scrolling (self, NULL);
  G_OBJECT_CLASS (tilde_trace_plot_parent_class)->dispose (object);
}

static void
tilde_trace_plot_finalize (GObject *object)
{
  TildeTracePlot *self = TILDE_TRACE_PLOT (object);

  _tilde_plot_painter_free (self->painter);
  g_array_unref (self->bands);
  g_ptr_array_unref (self->pool);
  g_array_unref (self->layout.rows);
  _tilde_plot_hit_clear (&self->hit);
  g_strfreev (self->parameters);
  G_OBJECT_CLASS (tilde_trace_plot_parent_class)->finalize (object);
}

static void
tilde_trace_plot_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  TildeTracePlot *self = TILDE_TRACE_PLOT (object);

  switch (prop_id)
    {
    case PROP_DRAWS:
      g_value_set_object (value, self->draws);
      break;
    case PROP_PARAMETERS:
      g_value_set_boxed (value, self->parameters);
      break;
    case PROP_VIEW:
      g_value_set_enum (value, self->options.view);
      break;
    case PROP_SHOW_WARMUP:
      g_value_set_boolean (value, self->options.show_warmup);
      break;
    case PROP_MAX_LAG:
      g_value_set_uint (value, self->options.max_lag);
      break;
    case PROP_ZOOMED:
      g_value_set_boolean (value, self->options.zoomed);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_trace_plot_set_property (GObject *object, guint prop_id, const GValue *value,
                               GParamSpec *pspec)
{
  TildeTracePlot *self = TILDE_TRACE_PLOT (object);

  switch (prop_id)
    {
    case PROP_DRAWS:
      tilde_trace_plot_set_draws (self, g_value_get_object (value));
      break;
    case PROP_PARAMETERS:
      tilde_trace_plot_set_parameters (self, g_value_get_boxed (value));
      break;
    case PROP_VIEW:
      tilde_trace_plot_set_view (self, g_value_get_enum (value));
      break;
    case PROP_SHOW_WARMUP:
      tilde_trace_plot_set_show_warmup (self, g_value_get_boolean (value));
      break;
    case PROP_MAX_LAG:
      tilde_trace_plot_set_max_lag (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_trace_plot_class_init (TildeTracePlotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tilde_trace_plot_dispose;
  object_class->finalize = tilde_trace_plot_finalize;
  object_class->get_property = tilde_trace_plot_get_property;
  object_class->set_property = tilde_trace_plot_set_property;
  widget_class->snapshot = tilde_trace_plot_snapshot;
  widget_class->measure = tilde_trace_plot_measure;
  widget_class->root = tilde_trace_plot_root;
  widget_class->unroot = tilde_trace_plot_unroot;
  widget_class->css_changed = tilde_trace_plot_css_changed;

  properties[PROP_DRAWS] =
    g_param_spec_object ("draws", NULL, NULL, TILDE_TYPE_DRAWS,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PARAMETERS] =
    g_param_spec_boxed ("parameters", NULL, NULL, G_TYPE_STRV,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_VIEW] =
    g_param_spec_enum ("view", NULL, NULL, TILDE_TYPE_PLOT_VIEW, TILDE_PLOT_VIEW_TRACE,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_WARMUP] =
    g_param_spec_boolean ("show-warmup", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_MAX_LAG] =
    g_param_spec_uint ("max-lag", NULL, NULL, 1, G_MAXUINT, DEFAULT_MAX_LAG,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ZOOMED] =
    g_param_spec_boolean ("zoomed", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_install_action (widget_class, "plot.zoom-in", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "plot.zoom-out", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "plot.reset-zoom", NULL, zoom_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, GDK_CONTROL_MASK,
                                       "plot.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, GDK_CONTROL_MASK,
                                       "plot.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, GDK_CONTROL_MASK,
                                       "plot.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, GDK_CONTROL_MASK,
                                       "plot.reset-zoom", NULL);

  gtk_widget_class_set_css_name (widget_class, "traceplot");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
tilde_trace_plot_init (TildeTracePlot *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  GtkEventController *controller;
  GtkGesture *gesture;

  self->painter = _tilde_plot_painter_new ();
  self->layout.rows = g_array_new (FALSE, FALSE, sizeof (TildePlotRowLayout));
  self->bands = g_array_new (FALSE, TRUE, sizeof (Band));
  g_array_set_clear_func (self->bands, band_clear);
  self->pool = g_ptr_array_new_with_free_func ((GDestroyNotify) cairo_surface_destroy);
  self->band_budget = BAND_BUDGET_USEC;
  self->options.view = TILDE_PLOT_VIEW_TRACE;
  self->options.show_warmup = TRUE;
  self->options.max_lag = DEFAULT_MAX_LAG;
  self->options.live = TRUE;

  gtk_widget_set_focusable (widget, TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Plot of the draws"), -1);

  controller = gtk_event_controller_motion_new ();
  g_signal_connect_swapped (controller, "enter", G_CALLBACK (motion_cb), self);
  g_signal_connect_swapped (controller, "motion", G_CALLBACK (motion_cb), self);
  g_signal_connect_swapped (controller, "leave", G_CALLBACK (leave_cb), self);
  gtk_widget_add_controller (widget, controller);

  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect_swapped (controller, "scroll", G_CALLBACK (scroll_cb), self);
  gtk_widget_add_controller (widget, controller);

  gesture = gtk_gesture_drag_new ();
  g_signal_connect_swapped (gesture, "drag-begin", G_CALLBACK (drag_begin_cb), self);
  g_signal_connect_swapped (gesture, "drag-update", G_CALLBACK (drag_update_cb), self);
  g_signal_connect_swapped (gesture, "drag-end", G_CALLBACK (drag_end_cb), self);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_zoom_new ();
  g_signal_connect_swapped (gesture, "begin", G_CALLBACK (zoom_begin_cb), self);
  g_signal_connect_swapped (gesture, "scale-changed", G_CALLBACK (zoom_scale_changed_cb), self);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_click_new ();
  g_signal_connect_swapped (gesture, "pressed", G_CALLBACK (pressed_cb), self);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (gesture));
}
