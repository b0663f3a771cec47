/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The plots' anti-aliased lines, drawn into a raster, against cairo's own
 * stroke of the same polyline (one device pixel wide, round joins): the
 * pixels each covers, pixel by pixel within a tolerance, and the ink in
 * all; joins no darker than the line; lines far outside the raster, or
 * through non-finite points, cost nothing and draw nothing; colours
 * blended over what is there as cairo's OVER would.
 *
 * TILDE_TEST_LINES_PNG=DIR writes each case's two pictures there.
 */
#include <cairo.h>
#include <glib.h>
#include <math.h>

#include "tilde-plot-canvas-private.h"

#define WIDTH  300
#define HEIGHT 120

typedef struct
{
  const double *x, *y;
  guint         n;
  double        scale;   /* device pixels a unit: the line's width */
} Polyline;

static cairo_surface_t *
new_image (void)
{
  return cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
}

static cairo_surface_t *
by_cairo (const Polyline *line)
{
  cairo_surface_t *image = new_image ();
  cairo_t *cr = cairo_create (image);

  cairo_set_line_width (cr, line->scale);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  cairo_set_source_rgba (cr, 0, 0, 0, 1);
  for (guint i = 0; i < line->n; i++)
    {
      if (!isfinite (line->y[i]))
        {
          cairo_new_sub_path (cr);
          continue;
        }
      cairo_line_to (cr, line->x[i], line->y[i]);
    }
  cairo_stroke (cr);
  cairo_destroy (cr);
  cairo_surface_flush (image);
  return image;
}

static void
raster_of (TildePlotRaster *raster, cairo_surface_t *image, double scale)
{
  raster->surface = image;
  raster->own = FALSE;
  raster->data = (guint32 *) (void *) cairo_image_surface_get_data (image);
  raster->stride = cairo_image_surface_get_stride (image) / 4;
  raster->x = raster->y = 0;
  raster->width = cairo_image_surface_get_width (image);
  raster->height = cairo_image_surface_get_height (image);
  raster->scale = scale;
}

static cairo_surface_t *
by_pen (TildePlotLinePen *pen, const Polyline *line, guint32 pixel)
{
  cairo_surface_t *image = new_image ();
  TildePlotRaster raster;
  gboolean started = FALSE;

  raster_of (&raster, image, line->scale);
  _tilde_plot_line_pen_begin (pen, &raster, line->scale);
  for (guint i = 0; i < line->n; i++)
    {
      if (!isfinite (line->y[i]))
        {
          started = FALSE;
          continue;
        }
      if (started)
        _tilde_plot_line_pen_segment (pen, line->x[i - 1], line->y[i - 1], line->x[i], line->y[i]);
      started = TRUE;
    }
  _tilde_plot_line_pen_flush (pen, pixel);
  cairo_surface_mark_dirty (image);
  return image;
}

static guint
alpha_at (cairo_surface_t *image, int x, int y)
{
  const guint32 *pixels = (const guint32 *) (const void *) cairo_image_surface_get_data (image);

  return pixels[y * (cairo_image_surface_get_stride (image) / 4) + x] >> 24;
}

static void
dump (const char *name, cairo_surface_t *image)
{
  const char *folder = g_getenv ("TILDE_TEST_LINES_PNG");
  g_autofree char *path = NULL;

  if (folder == NULL)
    return;
  path = g_strdup_printf ("%s/%s.png", folder, name);
  cairo_surface_write_to_png (image, path);
}

/* Each pixel's coverage within `per_pixel` (of 255) of cairo's, but for a
 * share `outliers` of the pixels either covers (the inside of sharp turns,
 * where cairo's round join covers the union of two segments' partial
 * coverage and the pen their larger), and the ink in all within `total`
 * (a fraction) of cairo's. */
static void
assert_like_cairo (TildePlotLinePen *pen, const char *name, const Polyline *line, guint per_pixel,
                   double outliers, double total)
{
  cairo_surface_t *ours = by_pen (pen, line, 0xff000000);
  cairo_surface_t *theirs = by_cairo (line);
  double ink_ours = 0, ink_theirs = 0;
  guint worst = 0, covered = 0, off = 0;
  int worst_x = 0, worst_y = 0;
  g_autofree char *ours_name = g_strconcat (name, "-pen", NULL);
  g_autofree char *theirs_name = g_strconcat (name, "-cairo", NULL);

  dump (ours_name, ours);
  dump (theirs_name, theirs);
  for (int y = 0; y < HEIGHT; y++)
    for (int x = 0; x < WIDTH; x++)
      {
        guint a = alpha_at (ours, x, y), b = alpha_at (theirs, x, y);
        guint difference = a > b ? a - b : b - a;

        ink_ours += a;
        ink_theirs += b;
        covered += a > 0 || b > 0;
        off += difference > per_pixel;
        if (difference > worst)
          {
            worst = difference;
            worst_x = x;
            worst_y = y;
          }
      }
  g_test_message ("%s: ink %.0f against cairo's %.0f; %u of %u pixels off by more than %u, "
                  "the most %u at (%d, %d)", name, ink_ours / 255, ink_theirs / 255, off, covered,
                  per_pixel, worst, worst_x, worst_y);
  g_assert_cmpfloat (ink_theirs, >, 0);
  g_assert_cmpfloat (fabs (ink_ours - ink_theirs) / ink_theirs, <=, total);
  if (off > outliers * covered)
    g_error ("%s: %u of %u pixels off by more than %u; pixel (%d, %d) has coverage %u, cairo's %u",
             name, off, covered, per_pixel, worst_x, worst_y, alpha_at (ours, worst_x, worst_y),
             alpha_at (theirs, worst_x, worst_y));
  cairo_surface_destroy (ours);
  cairo_surface_destroy (theirs);
}

static void
test_straight (void)
{
  TildePlotLinePen pen = { 0 };
  /* on pixel centres, on pixel edges, and in between */
  const double x[] = { 10.5, 290.5 }, y_centre[] = { 20.5, 20.5 }, y_edge[] = { 40, 40 },
               y_between[] = { 60.3, 60.3 };
  const double vx[] = { 50.5, 50.5 }, vx_edge[] = { 80, 80 }, vy[] = { 5, 115 };
  const double dx[] = { 100, 200 }, dy[] = { 10, 110 };

  assert_like_cairo (&pen, "horizontal-centre", &(Polyline) { x, y_centre, 2, 1 }, 40, 0, 0.03);
  assert_like_cairo (&pen, "horizontal-edge", &(Polyline) { x, y_edge, 2, 1 }, 40, 0, 0.03);
  assert_like_cairo (&pen, "horizontal-between", &(Polyline) { x, y_between, 2, 1 }, 40, 0, 0.03);
  assert_like_cairo (&pen, "vertical-centre", &(Polyline) { vx, vy, 2, 1 }, 40, 0, 0.03);
  assert_like_cairo (&pen, "vertical-edge", &(Polyline) { vx_edge, vy, 2, 1 }, 40, 0, 0.03);
  assert_like_cairo (&pen, "diagonal", &(Polyline) { dx, dy, 2, 1 }, 70, 0, 0.05);
  /* two device pixels wide, as at scale 2 */
  assert_like_cairo (&pen, "diagonal-wide", &(Polyline) { dx, dy, 2, 2 }, 70, 0, 0.05);
  _tilde_plot_line_pen_clear (&pen);
}

/* A trace as the plots draw one zoomed in: a random walk, a few pixels
 * between draws, steep segments and sharp turns. */
static void
test_trace (void)
{
  TildePlotLinePen pen = { 0 };
  double x[200], y[200];
  GRand *rand = g_rand_new_with_seed (7);
  double value = HEIGHT / 2.0;

  for (guint i = 0; i < G_N_ELEMENTS (x); i++)
    {
      x[i] = 5 + i * 1.45;
      value = CLAMP (value + g_rand_double_range (rand, -25, 25), 4, HEIGHT - 4);
      y[i] = value;
    }
  assert_like_cairo (&pen, "trace", &(Polyline) { x, y, G_N_ELEMENTS (x), 1 }, 64, 0.05, 0.08);
  for (guint i = 0; i < G_N_ELEMENTS (x); i++)
    x[i] = 5 + i * 0.7;
  assert_like_cairo (&pen, "trace-dense", &(Polyline) { x, y, G_N_ELEMENTS (x), 1 }, 64, 0.05, 0.08);
  assert_like_cairo (&pen, "trace-wide", &(Polyline) { x, y, G_N_ELEMENTS (x), 2 }, 64, 0.05, 0.08);
  g_rand_free (rand);
  _tilde_plot_line_pen_clear (&pen);
}

/* A sharp turn: the two segments' ink is not added where they overlap. */
static void
test_join (void)
{
  TildePlotLinePen pen = { 0 };
  const double x[] = { 20, 150, 280 }, y[] = { 10, 110, 10 };
  cairo_surface_t *image;
  guint peak = 0, on_line;

  assert_like_cairo (&pen, "join", &(Polyline) { x, y, 3, 1 }, 90, 0.02, 0.05);
  image = by_pen (&pen, &(Polyline) { x, y, 3, 1 }, 0x80000000);
  for (int yy = 0; yy < HEIGHT; yy++)
    for (int xx = 0; xx < WIDTH; xx++)
      peak = MAX (peak, alpha_at (image, xx, yy));
  /* half-transparent ink: nowhere more than one layer of it */
  g_assert_cmpuint (peak, <=, 0x80);
  on_line = alpha_at (image, 150, 109);
  g_assert_cmpuint (on_line, >, 0x40);
  cairo_surface_destroy (image);
  _tilde_plot_line_pen_clear (&pen);
}

/* A break in the line (a non-finite draw), and points far outside. */
static void
test_breaks_and_far_points (void)
{
  TildePlotLinePen pen = { 0 };
  const double x[] = { 10, 100, 110, 200, 290 };
  const double y[] = { 10, 100, NAN, 10, 100 };
  const double far_x[] = { -1e12, 1e12 }, far_y[] = { 60.5, 60.5 };
  const double out_x[] = { -500, -400 }, out_y[] = { 60, 70 };
  const double long_x[] = { 150, 151 }, long_y[] = { -1e12, 1e12 };
  const double huge_x[] = { 150, 151 }, huge_y[] = { -1e300, 1e300 };
  cairo_surface_t *image;

  assert_like_cairo (&pen, "broken", &(Polyline) { x, y, 5, 1 }, 90, 0.02, 0.05);
  image = by_pen (&pen, &(Polyline) { x, y, 5, 1 }, 0xff000000);
  /* nothing between the break's two sides */
  g_assert_cmpuint (alpha_at (image, 150, 55), ==, 0);
  cairo_surface_destroy (image);

  assert_like_cairo (&pen, "far", &(Polyline) { far_x, far_y, 2, 1 }, 40, 0, 0.03);

  image = by_pen (&pen, &(Polyline) { out_x, out_y, 2, 1 }, 0xff000000);
  for (int yy = 0; yy < HEIGHT; yy++)
    for (int xx = 0; xx < WIDTH; xx++)
      g_assert_cmpuint (alpha_at (image, xx, yy), ==, 0);
  cairo_surface_destroy (image);

  /* nearly upright across the whole raster and far beyond it */
  image = by_pen (&pen, &(Polyline) { long_x, long_y, 2, 1 }, 0xff000000);
  g_assert_cmpuint (alpha_at (image, 150, 0), >, 0x60);
  g_assert_cmpuint (alpha_at (image, 150, HEIGHT - 1), >, 0x60);
  cairo_surface_destroy (image);
  /* so far beyond that a double cannot place the raster on it: at once,
   * with at most a dot */
  image = by_pen (&pen, &(Polyline) { huge_x, huge_y, 2, 1 }, 0xff000000);
  cairo_surface_destroy (image);
  _tilde_plot_line_pen_clear (&pen);
}

/* A coloured line over a coloured background: cairo's OVER on the same
 * coverage, within rounding. */
static void
test_blended_over (void)
{
  TildePlotLinePen pen = { 0 };
  const double x[] = { 10, 290 }, y[] = { 30, 90 };
  cairo_surface_t *ours = new_image (), *theirs = new_image ();
  const guint32 *a, *b;
  TildePlotRaster raster;
  int stride;

  for (int i = 0; i < 2; i++)
    {
      cairo_t *cr = cairo_create (i == 0 ? ours : theirs);

      cairo_set_source_rgba (cr, 0.9, 0.8, 0.1, 0.6);
      cairo_paint (cr);
      if (i == 1)
        {
          cairo_set_line_width (cr, 1);
          cairo_set_source_rgba (cr, 0.2, 0.4, 0.8, 1);
          cairo_move_to (cr, x[0], y[0]);
          cairo_line_to (cr, x[1], y[1]);
          cairo_stroke (cr);
        }
      cairo_destroy (cr);
      cairo_surface_flush (i == 0 ? ours : theirs);
    }
  raster_of (&raster, ours, 1);
  _tilde_plot_line_pen_begin (&pen, &raster, 1);
  _tilde_plot_line_pen_segment (&pen, x[0], y[0], x[1], y[1]);
  _tilde_plot_line_pen_flush (&pen, _tilde_plot_pixel_of (&(GdkRGBA) { 0.2, 0.4, 0.8, 1 }, 1));
  cairo_surface_mark_dirty (ours);
  dump ("blended-pen", ours);
  dump ("blended-cairo", theirs);

  a = (const guint32 *) (const void *) cairo_image_surface_get_data (ours);
  b = (const guint32 *) (const void *) cairo_image_surface_get_data (theirs);
  stride = cairo_image_surface_get_stride (ours) / 4;
  /* off the line: the background untouched; on it, the line's colour */
  g_assert_cmphex (a[5 * stride + 150], ==, b[5 * stride + 150]);
  for (int column = 20; column < 280; column += 37)
    {
      int row = (int) floor (y[0] + (y[1] - y[0]) * (column + 0.5 - x[0]) / (x[1] - x[0]));
      guint32 p = a[row * stride + column], q = b[row * stride + column];

      for (int shift = 0; shift < 32; shift += 8)
        {
          int difference = (int) ((p >> shift) & 0xff) - (int) ((q >> shift) & 0xff);

          if (ABS (difference) > 40)
            g_error ("column %d row %d: %08x against cairo's %08x", column, row, p, q);
        }
    }
  cairo_surface_destroy (ours);
  cairo_surface_destroy (theirs);
  _tilde_plot_line_pen_clear (&pen);
}

/* One pen for lines in rasters of other sizes, one after the other: each
 * starts on a clean slate. */
static void
test_pen_reused (void)
{
  TildePlotLinePen pen = { 0 };
  const double x[] = { 10, 290 }, y[] = { 10, 110 };
  const double x2[] = { 10, 100 }, y2[] = { 100, 100 };
  cairo_surface_t *first = by_pen (&pen, &(Polyline) { x, y, 2, 1 }, 0xff000000);
  cairo_surface_t *second = by_pen (&pen, &(Polyline) { x2, y2, 2, 1 }, 0xff000000);

  /* the first line left nothing in the pen for the second */
  g_assert_cmpuint (alpha_at (first, 150, 60), >, 0);
  g_assert_cmpuint (alpha_at (second, 150, 60), ==, 0);
  g_assert_cmpuint (alpha_at (second, 50, 100), >, 0);
  cairo_surface_destroy (first);
  cairo_surface_destroy (second);
  _tilde_plot_line_pen_clear (&pen);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/plots/lines/straight", test_straight);
  g_test_add_func ("/plots/lines/trace", test_trace);
  g_test_add_func ("/plots/lines/join", test_join);
  g_test_add_func ("/plots/lines/breaks-and-far-points", test_breaks_and_far_points);
  g_test_add_func ("/plots/lines/blended-over", test_blended_over);
  g_test_add_func ("/plots/lines/pen-reused", test_pen_reused);
  return g_test_run ();
}
