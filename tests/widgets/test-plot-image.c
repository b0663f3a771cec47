/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The plots' images with their pages mapped up front: the size, stride
 * and format cairo would give, transparent, drawable, freed with the
 * surface, and cairo's own error for a size it cannot hold.
 */
#include <cairo.h>
#include <glib.h>

#include "tilde-plot-canvas-private.h"

static void
test_like_cairo_image (void)
{
  cairo_surface_t *image = _tilde_plot_image_new (1039, 854);
  cairo_surface_t *reference = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1039, 854);
  const guint8 *pixels;
  int stride;

  g_assert_cmpint (cairo_surface_status (image), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_format (image), ==, CAIRO_FORMAT_ARGB32);
  g_assert_cmpint (cairo_image_surface_get_width (image), ==, 1039);
  g_assert_cmpint (cairo_image_surface_get_height (image), ==, 854);
  stride = cairo_image_surface_get_stride (image);
  g_assert_cmpint (stride, ==, cairo_image_surface_get_stride (reference));
  pixels = cairo_image_surface_get_data (image);
  for (gsize i = 0; i < (gsize) stride * 854; i++)
    if (pixels[i] != 0)
      g_error ("byte %" G_GSIZE_FORMAT " of a new image is %u, not transparent", i, pixels[i]);
  cairo_surface_destroy (reference);
  cairo_surface_destroy (image);
}

static void
test_drawable (void)
{
  cairo_surface_t *image = _tilde_plot_image_new (64, 32);
  cairo_t *cr = cairo_create (image);
  const guint32 *pixels;
  int stride;

  cairo_set_source_rgba (cr, 0, 0, 1, 0.5);
  cairo_rectangle (cr, 10, 5, 20, 10);
  cairo_fill (cr);
  cairo_destroy (cr);
  cairo_surface_flush (image);
  pixels = (const guint32 *) (const void *) cairo_image_surface_get_data (image);
  stride = cairo_image_surface_get_stride (image) / 4;
  /* premultiplied: half-transparent blue is 0x80 alpha and 0x80 blue */
  g_assert_cmphex (pixels[7 * stride + 15], ==, 0x80000080);
  g_assert_cmphex (pixels[20 * stride + 15], ==, 0);
  g_assert_cmphex (pixels[7 * stride + 40], ==, 0);
  /* a second reference keeps the pixels while the first goes */
  cairo_surface_reference (image);
  cairo_surface_destroy (image);
  g_assert_cmphex (pixels[7 * stride + 15], ==, 0x80000080);
  cairo_surface_destroy (image);
}

static void
test_too_large (void)
{
  cairo_surface_t *image = _tilde_plot_image_new (40000, 10);

  g_assert_cmpint (cairo_surface_status (image), ==, CAIRO_STATUS_INVALID_SIZE);
  cairo_surface_destroy (image);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/plots/image/like-a-cairo-image", test_like_cairo_image);
  g_test_add_func ("/plots/image/drawable", test_drawable);
  g_test_add_func ("/plots/image/too-large", test_too_large);
  return g_test_run ();
}
