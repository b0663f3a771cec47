/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>

#include "tilde-plot-canvas-private.h"
#include "tilde-image-reserve.h"

/* Tick labels are set this much smaller than the body text. */
#define SMALL_SCALE 0.82

/* ---- style ---- */

static void
rgba_from_hex (GdkRGBA *rgba, guint32 hex)
{
  rgba->red = ((hex >> 16) & 0xff) / 255.0;
  rgba->green = ((hex >> 8) & 0xff) / 255.0;
  rgba->blue = (hex & 0xff) / 255.0;
  rgba->alpha = 1;
}

void
_tilde_plot_style_init (TildePlotStyle *style, gboolean dark)
{
  /* Okabe and Ito's colour-blind-safe palette, ordered so that the first
   * four chains differ most; on dark backgrounds the blues trade places
   * and the darker hues are lifted to keep their contrast. */
  static const guint32 light[TILDE_PLOT_N_COLOURS] = {
    0x0072b2, 0xe69f00, 0x009e73, 0xcc79a7, 0xd55e00, 0x56b4e9, 0x7f7f7f, 0xb59c00,
  };
  static const guint32 dark_palette[TILDE_PLOT_N_COLOURS] = {
    0x56b4e9, 0xe69f00, 0x1fc493, 0xe08fbf, 0xf0803c, 0x4d8fd1, 0xb0b0b0, 0xf0e442,
  };

  for (guint i = 0; i < TILDE_PLOT_N_COLOURS; i++)
    rgba_from_hex (&style->chains[i], dark ? dark_palette[i] : light[i]);
  /* Adwaita's destructive reds. */
  rgba_from_hex (&style->divergent, dark ? 0xff7b63 : 0xc01c28);
  style->foreground = dark ? (GdkRGBA) { 1, 1, 1, 1 } : (GdkRGBA) { 0, 0, 0, 0.8 };
  /* Adwaita's window backgrounds. */
  rgba_from_hex (&style->background, dark ? 0x242424 : 0xfafafa);
  style->fill_background = FALSE;
  style->font = NULL;
  style->scale = 1;
}

const GdkRGBA *
_tilde_plot_chain_colour (const TildePlotStyle *style, guint chain)
{
  return &style->chains[chain % TILDE_PLOT_N_COLOURS];
}

void
_tilde_plot_set_source (cairo_t *cr, const GdkRGBA *rgba, double alpha)
{
  cairo_set_source_rgba (cr, rgba->red, rgba->green, rgba->blue, rgba->alpha * alpha);
}

/* ---- text ---- */

void
_tilde_plot_labels_init (TildePlotLabels *labels)
{
  memset (labels, 0, sizeof *labels);
  labels->layouts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
}

void
_tilde_plot_labels_clear (TildePlotLabels *labels)
{
  g_clear_pointer (&labels->layouts, g_hash_table_unref);
  g_clear_object (&labels->context);
  g_clear_pointer (&labels->font, g_free);
}


void
_tilde_plot_text_init (TildePlotText *text, TildePlotLabels *labels, PangoLayout *layout,
                       const TildePlotStyle *style)
{
  PangoFontDescription *base = style->font ? pango_font_description_copy (style->font)
                                           : pango_font_description_from_string ("Sans 10");
  PangoContext *context = pango_layout_get_context (layout);
  g_autofree char *font_name = pango_font_description_to_string (base);
  int size = pango_font_description_get_size (base);
  gboolean absolute = pango_font_description_get_size_is_absolute (base);
  PangoAttrList *attributes = pango_attr_list_new ();
  int height;

  if (context != labels->context || pango_context_get_serial (context) != labels->serial
      || g_strcmp0 (font_name, labels->font) != 0)
    {
      g_hash_table_remove_all (labels->layouts);
      g_set_object (&labels->context, context);
      labels->serial = pango_context_get_serial (context);
      g_free (labels->font);
      labels->font = g_steal_pointer (&font_name);
    }
  /* A bound on labels that came and went (zooming, live axes). */
  if (g_hash_table_size (labels->layouts) > 1024)
    g_hash_table_remove_all (labels->layouts);
  text->labels = labels->layouts;

  if (size <= 0)
    size = 10 * PANGO_SCALE;
  text->small = pango_font_description_copy (base);
  if (absolute)
    pango_font_description_set_absolute_size (text->small, size * SMALL_SCALE);
  else
    pango_font_description_set_size (text->small, (int) (size * SMALL_SCALE));
  text->bold = base;
  pango_font_description_set_weight (text->bold, PANGO_WEIGHT_BOLD);

  text->small_layout = pango_layout_copy (layout);
  text->bold_layout = pango_layout_copy (layout);
  pango_layout_set_font_description (text->small_layout, text->small);
  pango_layout_set_font_description (text->bold_layout, text->bold);
  /* Tabular figures keep tick labels from jittering as they change. */
  pango_attr_list_insert (attributes, pango_attr_font_features_new ("tnum=1"));
  pango_layout_set_attributes (text->small_layout, attributes);
  pango_attr_list_unref (attributes);

  pango_layout_set_text (text->small_layout, "0", -1);
  pango_layout_get_pixel_size (text->small_layout, NULL, &height);
  text->small_height = height;
  pango_layout_set_text (text->bold_layout, "0", -1);
  pango_layout_get_pixel_size (text->bold_layout, NULL, &height);
  text->bold_height = height;
}

void
_tilde_plot_text_clear (TildePlotText *text)
{
  pango_font_description_free (text->small);
  pango_font_description_free (text->bold);
  g_object_unref (text->small_layout);
  g_object_unref (text->bold_layout);
}

static PangoLayout *
layout_with (TildePlotText *text, const PangoFontDescription *font, const char *string)
{
  gboolean bold = font == text->bold;
  g_autofree char *key = g_strconcat (bold ? "b" : "s", string, NULL);
  PangoLayout *layout = g_hash_table_lookup (text->labels, key);

  if (layout == NULL)
    {
      layout = pango_layout_copy (bold ? text->bold_layout : text->small_layout);
      pango_layout_set_text (layout, string, -1);
      g_hash_table_insert (text->labels, g_steal_pointer (&key), layout);
    }
  return layout;
}

double
_tilde_plot_text_width (TildePlotText *text, const PangoFontDescription *font, const char *string)
{
  int width;

  pango_layout_get_pixel_size (layout_with (text, font, string), &width, NULL);
  return width;
}

/* Shows `string` with its box's point (xalign, yalign) at (x, y). */
void
_tilde_plot_show_text (cairo_t *cr, TildePlotText *text, const PangoFontDescription *font,
                       const char *string, double x, double y, double xalign, double yalign,
                       const GdkRGBA *colour, double alpha)
{
  PangoLayout *layout = layout_with (text, font, string);
  int width, height;

  pango_layout_get_pixel_size (layout, &width, &height);
  cairo_move_to (cr, round (x - xalign * width), round (y - yalign * height));
  _tilde_plot_set_source (cr, colour, alpha);
  pango_cairo_show_layout (cr, layout);
}

/* ---- shapes ---- */

void
_tilde_plot_rounded_rectangle (cairo_t *cr, const graphene_rect_t *r, double radius)
{
  double x = r->origin.x, y = r->origin.y, w = r->size.width, h = r->size.height;

  radius = MIN (radius, MIN (w, h) / 2);
  cairo_new_sub_path (cr);
  cairo_arc (cr, x + w - radius, y + radius, radius, -G_PI / 2, 0);
  cairo_arc (cr, x + w - radius, y + h - radius, radius, 0, G_PI / 2);
  cairo_arc (cr, x + radius, y + h - radius, radius, G_PI / 2, G_PI);
  cairo_arc (cr, x + radius, y + radius, radius, G_PI, 3 * G_PI / 2);
  cairo_close_path (cr);
}

void
_tilde_plot_fill_panel (cairo_t *cr, const graphene_rect_t *r, const TildePlotStyle *style)
{
  if (r->size.width <= 0 || r->size.height <= 0)
    return;
  _tilde_plot_rounded_rectangle (cr, r, TILDE_PLOT_PANEL_RADIUS);
  _tilde_plot_set_source (cr, &style->foreground, 0.04);
  cairo_fill (cr);
}

void
_tilde_plot_clip_to (cairo_t *cr, const graphene_rect_t *r)
{
  cairo_rectangle (cr, r->origin.x, r->origin.y, r->size.width, r->size.height);
  cairo_clip (cr);
}

/* Pixel centres, so that one-pixel lines are sharp. */
double
_tilde_plot_snap (double v)
{
  return floor (v) + 0.5;
}

double
_tilde_plot_map_x (const TildePlotRowLayout *r, double value)
{
  return r->main.origin.x + (value - r->x_lo) / (r->x_hi - r->x_lo) * r->main.size.width;
}

double
_tilde_plot_map_y (const TildePlotRowLayout *r, double value)
{
  return r->main.origin.y + (r->y_hi - value) / (r->y_hi - r->y_lo) * r->main.size.height;
}

double
_tilde_plot_unmap_x (const TildePlotRowLayout *r, double x)
{
  return r->x_lo + (x - r->main.origin.x) / r->main.size.width * (r->x_hi - r->x_lo);
}

/* ---- axes ---- */

/* The most ticks over [lo, hi] that stay `gap` pixels apart on an axis
 * `length` pixels long. Heckbert's rounding of the range makes a small
 * target coarse, so targets are tried in turn. */
void
_tilde_plot_pick_ticks (double lo, double hi, double length, double gap, TildeTicks *ticks)
{
  tilde_ticks_nice (lo, hi, 2, ticks);
  if (!(hi > lo) || !(length > 0))
    return;
  for (guint target = 3; target <= 12; target++)
    {
      TildeTicks candidate;
      double spacing;

      tilde_ticks_nice (lo, hi, target, &candidate);
      spacing = candidate.step / (hi - lo) * length;
      /* Closer than asked rather than a lone tick. */
      if (spacing < gap && (ticks->n >= 2 || spacing < gap / 2))
        break;
      if (candidate.n > ticks->n)
        *ticks = candidate;
      if (spacing < gap)
        break;
    }
}

/* Pads a data range so that lines stay off the panel's edges; a flat
 * range becomes one around its value. */
void
_tilde_plot_pad_range (double *lo, double *hi)
{
  double span = *hi - *lo;

  if (!(span > 0))
    {
      span = *lo != 0 ? fabs (*lo) * 0.2 : 1;
      *lo -= span / 2;
      *hi += span / 2;
      return;
    }
  *lo -= 0.06 * span;
  *hi += 0.06 * span;
}

double
_tilde_plot_y_labels_width (TildePlotText *text, const TildePlotAxes *axes)
{
  double widest = 0;

  if (!axes->has_data)
    return 0;
  for (guint i = 0; i < axes->y_ticks.n; i++)
    {
      char label[64];

      tilde_ticks_format (&axes->y_ticks, i, label, sizeof label);
      widest = MAX (widest, _tilde_plot_text_width (text, text->small, label));
    }
  return widest;
}

/* Grid lines and labels of the y axis, left of the main panel. */
void
_tilde_plot_draw_y_axis (cairo_t *cr, TildePlotText *text, const TildePlotRowLayout *r,
                         const TildePlotAxes *axes, const TildePlotStyle *style, double right_edge)
{
  for (guint i = 0; i < axes->y_ticks.n; i++)
    {
      double value = tilde_ticks_value (&axes->y_ticks, i);
      double y = _tilde_plot_snap (_tilde_plot_map_y (r, value));
      char label[64];

      cairo_move_to (cr, r->main.origin.x, y);
      cairo_line_to (cr, right_edge, y);
      tilde_ticks_format (&axes->y_ticks, i, label, sizeof label);
      _tilde_plot_show_text (cr, text, text->small, label, r->main.origin.x - TILDE_PLOT_LABEL_GAP,
                             y, 1, 0.5, &style->foreground, 0.6);
    }
  _tilde_plot_set_source (cr, &style->foreground, 0.08);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
}

/* Tick labels under the main panel, from x_lo to x_hi, whole numbers
 * only when `integers`; the axis's name (may be NULL) at the right end. */
void
_tilde_plot_draw_x_axis (cairo_t *cr, TildePlotText *text, const TildePlotRowLayout *r, double y,
                         gboolean integers, const char *caption, const TildePlotStyle *style)
{
  TildeTicks ticks;
  double right = -G_MAXDOUBLE, end = r->main.origin.x + r->main.size.width + 4;

  if (caption != NULL)
    {
      _tilde_plot_show_text (cr, text, text->small, caption, r->main.origin.x + r->main.size.width,
                             y, 1, 0, &style->foreground, 0.5);
      end = r->main.origin.x + r->main.size.width
            - _tilde_plot_text_width (text, text->small, caption) - 12;
    }

  _tilde_plot_pick_ticks (r->x_lo, r->x_hi, r->main.size.width, 90, &ticks);
  if (integers && ticks.step < 1)
    {
      ticks.step = 1;
      ticks.first = (gint64) ceil (r->x_lo);
      ticks.n = (guint) MAX (floor (r->x_hi) - ticks.first + 1, 0);
      ticks.decimals = 0;
    }
  for (guint i = 0; i < ticks.n; i++)
    {
      double x = _tilde_plot_map_x (r, tilde_ticks_value (&ticks, i));
      char label[64];
      double width;

      tilde_ticks_format (&ticks, i, label, sizeof label);
      width = _tilde_plot_text_width (text, text->small, label);
      /* Labels never overlap, nor hang past the panel. */
      if (x - width / 2 < right + 6 || x + width / 2 > end)
        continue;
      _tilde_plot_show_text (cr, text, text->small, label, x, y, 0.5, 0, &style->foreground, 0.6);
      right = x + width / 2;
    }
}

/* ---- messages ---- */

void
_tilde_plot_draw_message (cairo_t *cr, TildePlotText *text, double width, double height,
                          const char *message, const TildePlotStyle *style)
{
  _tilde_plot_show_text (cr, text, text->bold, message, width / 2, height / 2, 0.5, 0.5,
                         &style->foreground, 0.45);
}

/* ---- images ---- */

static cairo_user_data_key_t mapping_key;

typedef struct
{
  void  *pixels;
  size_t size;
} Mapping;

static void
mapping_free (gpointer data)
{
  Mapping *mapping = data;

  _tilde_image_reserve_give_back (mapping->pixels, mapping->size);
  g_free (mapping);
}

/* A plot's image is megabytes, and drawing on it first reads its pixels
 * (blending onto transparency) and then writes them: each page is mapped
 * as the shared zero page, then copied on its first write, and while the
 * chains run on the other processors every such copy stops them to flush
 * their TLBs. That cost most of a frame's time when the plot drew into a
 * new image. Asking for the pages up front (MAP_POPULATE) gives them all
 * in one system call, written on no processor yet. */
cairo_surface_t *
_tilde_plot_image_new (int width, int height)
{
  int stride = cairo_format_stride_for_width (CAIRO_FORMAT_ARGB32, MAX (width, 1));
  size_t size = (size_t) stride * (size_t) MAX (height, 1);
  cairo_surface_t *surface;
  Mapping *mapping;
  void *pixels;
  int flags = MAP_PRIVATE | MAP_ANONYMOUS;

#ifdef MAP_POPULATE
  flags |= MAP_POPULATE;
#endif
  if (stride <= 0 || width > 32767 || height > 32767)
    return cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  /* pages faulted in ahead, when a run's first rows are on their way */
  pixels = _tilde_image_reserve_take (size);
  if (pixels == NULL)
    pixels = mmap (NULL, size, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (pixels == MAP_FAILED)
    return cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  surface = cairo_image_surface_create_for_data (pixels, CAIRO_FORMAT_ARGB32, MAX (width, 1),
                                                 MAX (height, 1), stride);
  mapping = g_new (Mapping, 1);
  mapping->pixels = pixels;
  mapping->size = size;
  if (cairo_surface_set_user_data (surface, &mapping_key, mapping, mapping_free)
      != CAIRO_STATUS_SUCCESS)
    {
      /* nothing would unmap the pixels: let go of them and of the surface */
      cairo_surface_destroy (surface);
      mapping_free (mapping);
      return cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
    }
  return surface;
}

/* ---- pixels ---- */


gboolean
_tilde_plot_wants_vectors (cairo_t *cr)
{
  switch (cairo_surface_get_type (cairo_get_target (cr)))
    {
    case CAIRO_SURFACE_TYPE_PDF:
    case CAIRO_SURFACE_TYPE_PS:
    case CAIRO_SURFACE_TYPE_SVG:
    case CAIRO_SURFACE_TYPE_SCRIPT:
      return TRUE;
    default:
      return FALSE;
    }
}

/* Whether user space maps to the target's pixels by its device scale and
 * a whole-pixel device offset alone (the trace plot's picture of the rows
 * in view), so that the panel can be found in them. */
static gboolean
writes_directly (cairo_t *cr, double *scale, int *offset_x, int *offset_y)
{
  cairo_surface_t *target = cairo_get_target (cr);
  cairo_matrix_t matrix;
  double sx, sy, ox, oy;

  if (cairo_surface_get_type (target) != CAIRO_SURFACE_TYPE_IMAGE
      || cairo_image_surface_get_format (target) != CAIRO_FORMAT_ARGB32)
    return FALSE;
  cairo_get_matrix (cr, &matrix);
  cairo_surface_get_device_scale (target, &sx, &sy);
  cairo_surface_get_device_offset (target, &ox, &oy);
  *scale = sx;
  *offset_x = (int) ox;
  *offset_y = (int) oy;
  return matrix.xx == 1 && matrix.yy == 1 && matrix.xy == 0 && matrix.yx == 0 && matrix.x0 == 0
         && matrix.y0 == 0 && sx == sy && ox == floor (ox) && oy == floor (oy);
}

gboolean
_tilde_plot_raster_begin (TildePlotRaster *raster, cairo_t *cr, const graphene_rect_t *panel,
                          double scale)
{
  double device_scale;
  int offset_x, offset_y;

  memset (raster, 0, sizeof *raster);
  if (writes_directly (cr, &device_scale, &offset_x, &offset_y))
    {
      cairo_surface_t *target = cairo_get_target (cr);
      int surface_w = cairo_image_surface_get_width (target);
      int surface_h = cairo_image_surface_get_height (target);

      raster->surface = target;
      raster->scale = device_scale;
      raster->x = (int) floor (panel->origin.x) * (int) round (device_scale) + offset_x;
      raster->y = (int) floor (panel->origin.y) * (int) round (device_scale) + offset_y;
      raster->width = MIN ((int) ceil (panel->size.width * device_scale), surface_w - raster->x);
      raster->height = MIN ((int) ceil (panel->size.height * device_scale), surface_h - raster->y);
      if (raster->width <= 0 || raster->height <= 0)
        return FALSE;
      if (raster->x >= 0 && raster->y >= 0)
        {
          cairo_surface_flush (target);
          raster->stride = cairo_image_surface_get_stride (target) / 4;
          raster->data = (guint32 *) (void *) cairo_image_surface_get_data (target)
                         + (gsize) raster->y * raster->stride + raster->x;
          return TRUE;
        }
      /* A panel that starts above or left of the image: an image of its
       * own, painted where it belongs and clipped. */
      memset (raster, 0, sizeof *raster);
    }

  raster->own = TRUE;
  raster->scale = MAX (scale, 1);
  raster->width = (int) ceil (panel->size.width * raster->scale);
  raster->height = (int) ceil (panel->size.height * raster->scale);
  raster->surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, MAX (raster->width, 1),
                                                MAX (raster->height, 1));
  if (cairo_surface_status (raster->surface) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (raster->surface);
      raster->surface = NULL;
      return FALSE;
    }
  cairo_surface_flush (raster->surface);
  raster->data = (guint32 *) (void *) cairo_image_surface_get_data (raster->surface);
  raster->stride = cairo_image_surface_get_stride (raster->surface) / 4;
  return TRUE;
}

void
_tilde_plot_raster_end (TildePlotRaster *raster, cairo_t *cr, const graphene_rect_t *panel)
{
  if (!raster->own)
    {
      double ox, oy;

      /* cairo adds the device offset to the rectangle itself */
      cairo_surface_get_device_offset (raster->surface, &ox, &oy);
      cairo_surface_mark_dirty_rectangle (raster->surface, raster->x - (int) ox,
                                          raster->y - (int) oy, raster->width, raster->height);
      return;
    }
  cairo_surface_mark_dirty (raster->surface);
  cairo_surface_set_device_scale (raster->surface, raster->scale, raster->scale);
  cairo_set_source_surface (cr, raster->surface, floor (panel->origin.x), floor (panel->origin.y));
  cairo_paint (cr);
  cairo_surface_destroy (raster->surface);
  raster->surface = NULL;
}

/* Premultiplied ARGB, as cairo stores it. */
guint32
_tilde_plot_pixel_of (const GdkRGBA *rgba, double alpha)
{
  double a = rgba->alpha * alpha;

  return (guint32) round (a * 255) << 24 | (guint32) round (rgba->red * a * 255) << 16
         | (guint32) round (rgba->green * a * 255) << 8 | (guint32) round (rgba->blue * a * 255);
}

/* Pixels [top, bottom) of column x, opaque. */
void
_tilde_plot_raster_bar (TildePlotRaster *raster, int x, int top, int bottom, guint32 pixel)
{
  guint32 *p;

  if (x < 0 || x >= raster->width)
    return;
  top = MAX (top, 0);
  bottom = MIN (bottom, raster->height);
  p = raster->data + (gsize) top * raster->stride + x;
  for (int y = top; y < bottom; y++, p += raster->stride)
    *p = pixel;
}

/* A translucent pixel over what is there ("over" on premultiplied
 * values). */
void
_tilde_plot_raster_blend (TildePlotRaster *raster, int x, int y, guint32 pixel)
{
  guint32 *p;

  if (x < 0 || y < 0 || x >= raster->width || y >= raster->height)
    return;
  p = raster->data + (gsize) y * raster->stride + x;
  *p = _tilde_plot_pixel_over (pixel, 255, *p);
}

