/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The trace plot and the parameter list in a plain window, fed synthetic
 * draws of four chains: the tests look at the pixels drawn (each chain's
 * colour, divergences ticked where they happened, the lines growing as
 * draws arrive), at what selecting and searching the list does, at the
 * read-out, zoom and pan, and at the exported files. Run under an X
 * server (Xvfb); screenshots go to $TILDE_SCREENSHOT_DIR when it is set.
 */
#define G_LOG_DOMAIN "tilde"

#include <adwaita.h>
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "tilde-draws.h"
#include "tilde-parameter-list.h"
#include "tilde-plot-painter-private.h"
#include "tilde-trace-plot-private.h"
#include "window-test-util.h"

#define N_CHAINS 4

static const char *const names[] = {
  "lp__", "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__", "divergent__", "energy__",
  "mu", "tau", "theta.1", "theta.2", "theta.3", "theta.4", "theta.5", "theta.6", "theta.7",
  "theta.8", NULL
};
#define N_COLUMNS 17
#define COLUMN_DIVERGENT 5
#define COLUMN_MU 7

typedef struct
{
  GtkWindow          *window;
  TildeTracePlot     *plot;
  TildeParameterList *list;
  TildeDraws         *draws;
  GRand              *rand;
  double              state[N_CHAINS][N_COLUMNS];
  double              shift;   /* added to every parameter's draws */
} Fixture;

/* ---- the main loop ---- */

static gboolean
plot_is_current (gpointer data)
{
  Fixture *f = data;

  return gtk_widget_get_mapped (GTK_WIDGET (f->plot))
         && _tilde_trace_plot_get_drawn_stamp (f->plot) == tilde_draws_get_stamp (f->draws)
         && _tilde_trace_plot_get_row_panels (f->plot, 0, NULL, NULL);
}

/* Two frames laid out and painted since the call: whatever the test just
 * changed is on screen. */
static void
let_it_draw (Fixture *f)
{
  window_test_let_it_draw (GTK_WIDGET (f->plot));
}

/* ---- synthetic draws ---- */

static double
normal_draw (GRand *rand)
{
  return sqrt (-2 * log (g_rand_double_range (rand, 1e-300, 1)))
         * cos (2 * G_PI * g_rand_double (rand));
}

/* Each parameter an AR(1) process about its chain's level; warmup starts
 * far away and settles. Divergent where `divergent` says. */
static void
append_draws (Fixture *f, guint chain, guint n, gboolean warmup, const guint *divergent,
              guint n_divergent)
{
  g_autofree double *rows = g_new0 (double, (gsize) n * N_COLUMNS);
  guint first = tilde_draws_get_n_draws (f->draws, chain);

  for (guint r = 0; r < n; r++)
    {
      double *row = rows + (gsize) r * N_COLUMNS;
      guint draw = first + r;

      for (guint c = COLUMN_MU; c < N_COLUMNS; c++)
        {
          double level = 0.3 * chain + 0.5 * (c - COLUMN_MU);
          double pull = warmup ? 4 * exp (-(double) draw / 60) : 0;

          f->state[chain][c] = 0.6 * f->state[chain][c] + 0.8 * normal_draw (f->rand);
          row[c] = level + pull + f->state[chain][c] + f->shift;
        }
      row[COLUMN_MU + 1] = exp (row[COLUMN_MU + 1] / 3);   /* tau > 0 */
      row[0] = -0.5 * row[COLUMN_MU] * row[COLUMN_MU] - 3;
      for (guint i = 0; i < n_divergent; i++)
        if (divergent[i] == draw)
          row[COLUMN_DIVERGENT] = 1;
    }
  tilde_draws_append (f->draws, chain, rows, (gsize) n * N_COLUMNS, warmup);
}

static void
fill (Fixture *f, guint warmup, guint sampling)
{
  for (guint c = 0; c < N_CHAINS; c++)
    {
      if (warmup > 0)
        append_draws (f, c, warmup, TRUE, NULL, 0);
      append_draws (f, c, sampling, FALSE, NULL, 0);
    }
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *scrolled = gtk_scrolled_window_new ();

  f->rand = g_rand_new_with_seed (20261122);
  f->draws = tilde_draws_new (names, N_CHAINS);
  f->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_title (f->window, "Trace plot");
  gtk_window_set_default_size (f->window, 1000, 640);
  f->list = TILDE_PARAMETER_LIST (tilde_parameter_list_new ());
  gtk_widget_set_size_request (GTK_WIDGET (f->list), 200, -1);
  f->plot = TILDE_TRACE_PLOT (tilde_trace_plot_new ());
  gtk_widget_set_hexpand (GTK_WIDGET (f->plot), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (f->plot));
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_widget_set_hexpand (scrolled, TRUE);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (f->list));
  gtk_box_append (GTK_BOX (box), gtk_separator_new (GTK_ORIENTATION_VERTICAL));
  gtk_box_append (GTK_BOX (box), scrolled);
  gtk_window_set_child (f->window, box);

  g_object_bind_property (f->list, "selected", f->plot, "parameters", G_BINDING_SYNC_CREATE);
  tilde_parameter_list_set_draws (f->list, f->draws);
  tilde_trace_plot_set_draws (f->plot, f->draws);
  gtk_window_present (f->window);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  gtk_window_destroy (f->window);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_clear_object (&f->draws);
  g_rand_free (f->rand);
}

/* ---- pixels ---- */

/* A rendering at the device's scale: a point (x, y) of the widget covers
 * scale x scale of its pixels. */
typedef struct
{
  int     width, height;   /* in the widget's units */
  int     scale;
  gsize   stride;
  guchar *data;
} Pixels;

static void
pixels_free (Pixels *pixels)
{
  g_free (pixels->data);
  g_free (pixels);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Pixels, pixels_free)

/* What the widget draws, on the window's background. */
static Pixels *
render (GtkWidget *widget, const char *screenshot)
{
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  GdkRGBA background = { 0.98, 0.98, 0.98, 1 };
  const char *dir = g_getenv ("TILDE_SCREENSHOT_DIR");
  Pixels *pixels = g_new0 (Pixels, 1);

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_lookup_color (gtk_widget_get_style_context (widget),
                                  "window_bg_color", &background);
  G_GNUC_END_IGNORE_DEPRECATIONS
  gtk_snapshot_append_color (snapshot, &background, &GRAPHENE_RECT_INIT (0, 0, width, height));
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  pixels->scale = gtk_widget_get_scale_factor (widget);
  if (pixels->scale != 1)
    {
      GskTransform *zoom = gsk_transform_scale (NULL, pixels->scale, pixels->scale);
      GskRenderNode *scaled = gsk_transform_node_new (node, zoom);

      gsk_transform_unref (zoom);
      gsk_render_node_unref (node);
      node = scaled;
    }
  texture = gsk_renderer_render_texture (renderer, node,
                                         &GRAPHENE_RECT_INIT (0, 0, width * pixels->scale,
                                                              height * pixels->scale));
  if (dir != NULL && screenshot != NULL)
    {
      g_autofree char *path = g_build_filename (dir, screenshot, NULL);

      g_assert_true (gdk_texture_save_to_png (texture, path));
    }
  pixels->width = gdk_texture_get_width (texture) / pixels->scale;
  pixels->height = gdk_texture_get_height (texture) / pixels->scale;
  pixels->stride = (gsize) gdk_texture_get_width (texture) * 4;
  pixels->data = g_malloc (pixels->stride * gdk_texture_get_height (texture));
  gdk_texture_download (texture, pixels->data, pixels->stride);
  return pixels;
}

/* The k-th of the device's pixels under the point (x, y). */
static const guchar *
device_pixel (const Pixels *pixels, int x, int y, int k)
{
  int s = pixels->scale;

  return pixels->data + (gsize) (y * s + k / s) * pixels->stride + (gsize) (x * s + k % s) * 4;
}

/* Whether the two renderings differ under the point (x, y). */
static gboolean
point_differs (const Pixels *a, const Pixels *b, int x, int y)
{
  for (int k = 0; k < a->scale * a->scale; k++)
    if (memcmp (device_pixel (a, x, y, k), device_pixel (b, x, y, k), 4) != 0)
      return TRUE;
  return FALSE;
}

/* Whether a pixel under the point (x, y) is coloured (not grey). */
static gboolean
point_coloured (const Pixels *pixels, int x, int y)
{
  for (int k = 0; k < pixels->scale * pixels->scale; k++)
    {
      const guchar *p = device_pixel (pixels, x, y, k);

      if (p[0] != p[1] || p[1] != p[2])
        return TRUE;
    }
  return FALSE;
}

static gboolean
pixel_is (const Pixels *pixels, int x, int y, const GdkRGBA *colour, int tolerance)
{
  const guchar *p;

  if (x < 0 || y < 0 || x >= pixels->width || y >= pixels->height)
    return FALSE;
  /* Any of the device's pixels under the point: at scale 2 a thin line
   * covers some of them. Cairo's ARGB32 in memory order on a little-endian
   * machine: B G R A. */
  for (int k = 0; k < pixels->scale * pixels->scale; k++)
    {
      p = device_pixel (pixels, x, y, k);
      if (p[3] > 250
          && abs (p[2] - (int) round (colour->red * 255)) <= tolerance
          && abs (p[1] - (int) round (colour->green * 255)) <= tolerance
          && abs (p[0] - (int) round (colour->blue * 255)) <= tolerance)
        return TRUE;
    }
  return FALSE;
}

static guint
count_colour (const Pixels *pixels, const graphene_rect_t *area, const GdkRGBA *colour)
{
  guint n = 0;

  for (int y = (int) area->origin.y; y < area->origin.y + area->size.height; y++)
    for (int x = (int) area->origin.x; x < area->origin.x + area->size.width; x++)
      n += pixel_is (pixels, x, y, colour, 24);
  return n;
}

/* The rightmost column of `area` with the colour in it, or -1. */
static int
rightmost_colour (const Pixels *pixels, const graphene_rect_t *area, const GdkRGBA *colour)
{
  for (int x = (int) (area->origin.x + area->size.width) - 1; x >= area->origin.x; x--)
    for (int y = (int) area->origin.y; y < area->origin.y + area->size.height; y++)
      if (pixel_is (pixels, x, y, colour, 24))
        return x;
  return -1;
}

static TildePlotStyle
palette (gboolean dark)
{
  TildePlotStyle style;

  _tilde_plot_style_init (&style, dark);
  return style;
}

static graphene_rect_t
main_panel (Fixture *f, guint row)
{
  graphene_rect_t main;

  g_assert_true (_tilde_trace_plot_get_row_panels (f->plot, row, &main, NULL));
  return main;
}

/* ---- tests ---- */

static void
test_chain_colours (Fixture *f, gconstpointer data)
{
  TildePlotStyle style = palette (FALSE);
  graphene_rect_t main, side, strip;
  g_autoptr(Pixels) pixels = NULL;

  fill (f, 300, 1700);
  g_assert_true (window_test_wait_for (plot_is_current, f));
  g_assert_cmpstr (tilde_trace_plot_get_parameters (f->plot)[0], ==, "mu");
  g_assert_true (_tilde_trace_plot_get_row_panels (f->plot, 0, &main, &side));
  g_assert_cmpfloat (side.size.width, >, 40);
  pixels = render (GTK_WIDGET (f->plot), "plots-trace.png");
  for (guint c = 0; c < N_CHAINS; c++)
    {
      guint in_trace = count_colour (pixels, &main, &style.chains[c]);
      guint in_density = count_colour (pixels, &side, &style.chains[c]);

      g_test_message ("chain %u: %u pixels of its colour in the trace, %u in the density",
                      c + 1, in_trace, in_density);
      g_assert_cmpuint (in_trace, >=, 200);
      g_assert_cmpuint (in_density, >=, 20);
    }
  /* No stray divergence marks without divergences. */
  strip = GRAPHENE_RECT_INIT (main.origin.x, main.origin.y + main.size.height, main.size.width, 10);
  g_assert_cmpuint (count_colour (pixels, &strip, &style.divergent), ==, 0);
}

static void
test_live_update (Fixture *f, gconstpointer data)
{
  TildePlotStyle style = palette (FALSE);
  graphene_rect_t main;
  int before, after, first_chain;
  guint64 stamp;

  /* The first chain runs ahead of the others, as chains do. */
  append_draws (f, 0, 800, FALSE, NULL, 0);
  for (guint c = 1; c < N_CHAINS; c++)
    append_draws (f, c, 400, FALSE, NULL, 0);
  g_assert_true (window_test_wait_for (plot_is_current, f));
  main = main_panel (f, 0);
  {
    g_autoptr(Pixels) pixels = render (GTK_WIDGET (f->plot), "plots-live-before.png");

    first_chain = rightmost_colour (pixels, &main, &style.chains[0]);
    before = rightmost_colour (pixels, &main, &style.chains[1]);
  }
  g_test_message ("chain 2 reaches x = %d of %g..%g", before, main.origin.x,
                  main.origin.x + main.size.width);
  g_assert_cmpfloat (fabs (before - (main.origin.x + main.size.width / 2)), <, 8);
  g_assert_cmpfloat (first_chain, >, main.origin.x + main.size.width - 8);

  /* The plot redraws on its own as the store's "changed" arrives. */
  stamp = tilde_draws_get_stamp (f->draws);
  for (guint c = 1; c < N_CHAINS; c++)
    for (guint batch = 0; batch < 8; batch++)
      append_draws (f, c, 50, FALSE, NULL, 0);
  g_assert_cmpuint (tilde_draws_get_stamp (f->draws), >, stamp);
  g_assert_true (window_test_wait_for (plot_is_current, f));
  {
    g_autoptr(Pixels) pixels = render (GTK_WIDGET (f->plot), "plots-live-after.png");

    after = rightmost_colour (pixels, &main, &style.chains[1]);
  }
  g_test_message ("then x = %d", after);
  g_assert_cmpfloat (after, >, main.origin.x + main.size.width - 8);
}

/* Fewer draws than pixel columns (early in a run, or zoomed in): the
 * chain's line is unbroken, every column from its first draw to its last
 * holding some of its colour. */
static void
test_sparse_trace_unbroken (Fixture *f, gconstpointer data)
{
  TildePlotStyle style = palette (FALSE);
  g_autoptr(Pixels) pixels = NULL;
  graphene_rect_t main;
  guint empty = 0;
  int first, last;

  append_draws (f, 0, 450, FALSE, NULL, 0);
  g_assert_true (window_test_wait_for (plot_is_current, f));
  main = main_panel (f, 0);
  /* fewer draws than the device's pixel columns */
  g_assert_cmpfloat (main.size.width * gtk_widget_get_scale_factor (GTK_WIDGET (f->plot)), >, 450);
  pixels = render (GTK_WIDGET (f->plot), "plots-sparse.png");
  first = (int) main.origin.x + 1;
  last = rightmost_colour (pixels, &main, &style.chains[0]);
  g_assert_cmpint (last, >, main.origin.x + main.size.width - 8);
  for (int x = first; x < last; x++)
    {
      gboolean found = FALSE;

      for (int y = (int) main.origin.y; y < main.origin.y + main.size.height && !found; y++)
        found = pixel_is (pixels, x, y, &style.chains[0], 24);
      empty += !found;
    }
  g_test_message ("%u of %d columns without the chain's colour", empty, last - first);
  g_assert_cmpuint (empty, ==, 0);
}

static gboolean
time_passed (gpointer data)
{
  return g_get_monotonic_time () >= *(gint64 *) data;
}

static void
run_for_ms (int ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  window_test_wait_for (time_passed, &end);
}

/* While draws stream in, densities are refitted a few a frame; when the
 * stream stops, the plot keeps drawing frames until each is current. A
 * last batch that doubles every chain's draws and moves them, so that a
 * density left behind would sit elsewhere: the side panels must then be
 * what a plot drawing the same draws afresh shows. */
static void
test_densities_catch_up (Fixture *f, gconstpointer data)
{
  const char *const parameters[] = { "mu", "theta.1", "theta.2", NULL };
  /* The plot sits in a viewport in the scrolled window. */
  GtkWidget *scrolled = gtk_widget_get_parent (gtk_widget_get_parent (GTK_WIDGET (f->plot)));
  g_autoptr(GPtrArray) panels = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(Pixels) streamed = NULL;
  g_autoptr(Pixels) fresh = NULL;
  TildeTracePlot *first;
  guint differ = 0, coloured = 0, differ_main = 0, drawn, made;

  tilde_trace_plot_set_parameters (f->plot, parameters);
  fill (f, 0, 300);
  g_assert_true (window_test_wait_for (plot_is_current, f));
  for (guint batch = 0; batch < 10; batch++)
    {
      for (guint c = 0; c < N_CHAINS; c++)
        append_draws (f, c, 30, FALSE, NULL, 0);
      g_assert_true (window_test_wait_for (plot_is_current, f));
    }
  /* Frames while draws stream draw into the images of earlier frames
   * (cleared) instead of new ones; what they show is checked against a
   * fresh plot below. */
  _tilde_trace_plot_get_picture_counts (f->plot, &drawn, &made);
  g_test_message ("%u pictures drawn in %u new images", drawn, made);
  g_assert_cmpuint (drawn, >=, 10);
  g_assert_cmpuint (made, <, drawn / 2);
  f->shift = 4;
  for (guint c = 0; c < N_CHAINS; c++)
    append_draws (f, c, 600, FALSE, NULL, 0);
  g_assert_true (window_test_wait_for (plot_is_current, f));
  run_for_ms (400);
  streamed = render (GTK_WIDGET (f->plot), "plots-densities-streamed.png");
  for (guint row = 0; row < 3; row++)
    {
      graphene_rect_t *side = g_new (graphene_rect_t, 1);

      g_assert_true (_tilde_trace_plot_get_row_panels (f->plot, row, NULL, side));
      g_ptr_array_add (panels, side);
    }

  /* The same draws in a plot that never saw them arrive. */
  first = g_object_ref (f->plot);
  f->plot = TILDE_TRACE_PLOT (tilde_trace_plot_new ());
  tilde_trace_plot_set_draws (f->plot, f->draws);
  tilde_trace_plot_set_parameters (f->plot, parameters);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (f->plot));
  g_assert_true (window_test_wait_for (plot_is_current, f));
  fresh = render (GTK_WIDGET (f->plot), "plots-densities-fresh.png");
  g_assert_cmpint (fresh->width, ==, streamed->width);
  g_assert_cmpint (fresh->height, ==, streamed->height);
  for (guint row = 0; row < panels->len; row++)
    {
      graphene_rect_t *side = panels->pdata[row];

      for (int y = (int) side->origin.y; y < side->origin.y + side->size.height; y++)
        for (int x = (int) side->origin.x; x < side->origin.x + side->size.width; x++)
          {
            differ += point_differs (streamed, fresh, x, y);
            coloured += point_coloured (streamed, x, y);
          }
    }
  g_test_message ("%u of the side panels' pixels differ; %u coloured", differ, coloured);
  g_assert_cmpuint (coloured, >, 300);
  g_assert_cmpuint (differ, <=, 20);
  /* The traces, drawn in a reused image, are the fresh plot's to the pixel. */
  for (guint row = 0; row < panels->len; row++)
    {
      graphene_rect_t main;

      g_assert_true (_tilde_trace_plot_get_row_panels (f->plot, row, &main, NULL));
      for (int y = (int) main.origin.y; y < main.origin.y + main.size.height; y++)
        for (int x = (int) main.origin.x; x < main.origin.x + main.size.width; x++)
          differ_main += point_differs (streamed, fresh, x, y);
    }
  g_test_message ("%u of the main panels' pixels differ", differ_main);
  g_assert_cmpuint (differ_main, ==, 0);
  g_object_unref (first);
}

static void
test_select_another_parameter (Fixture *f, gconstpointer data)
{
  GtkSelectionModel *model = tilde_parameter_list_get_model (f->list);
  g_autoptr(GtkTreeListRow) row = NULL;
  g_autoptr(TildeParameter) parameter = NULL;
  graphene_rect_t main_mu, main_tau;
  guint differing = 0;
  g_autoptr(Pixels) before = NULL;
  g_autoptr(Pixels) after = NULL;

  fill (f, 0, 1500);
  g_assert_true (window_test_wait_for (plot_is_current, f));
  main_mu = main_panel (f, 0);
  before = render (GTK_WIDGET (f->plot), NULL);

  /* The rows: mu, tau, theta[1..8]. */
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 3);
  g_assert_true (gtk_selection_model_select_item (model, 1, TRUE));
  g_assert_cmpstr (tilde_trace_plot_get_parameters (f->plot)[0], ==, "tau");
  g_assert_null (tilde_trace_plot_get_parameters (f->plot)[1]);
  let_it_draw (f);
  main_tau = main_panel (f, 0);
  after = render (GTK_WIDGET (f->plot), "plots-tau.png");
  for (int y = (int) main_mu.origin.y; y < main_mu.origin.y + main_mu.size.height; y++)
    {
      gboolean changed = FALSE;

      for (int x = (int) main_mu.origin.x; x < main_mu.origin.x + main_mu.size.width && !changed;
           x++)
        changed = point_differs (before, after, x, y);
      differing += changed;
    }
  g_test_message ("%u of %g lines of the panel changed", differing, main_mu.size.height);
  g_assert_cmpuint (differing, >, main_mu.size.height / 2);
  g_assert_cmpfloat (main_tau.size.width, >, 0);

  /* A group row plots every element; with mu too, nine rows. */
  row = g_list_model_get_item (G_LIST_MODEL (model), 2);
  parameter = gtk_tree_list_row_get_item (row);
  g_assert_cmpstr (tilde_parameter_get_name (parameter), ==, "theta[1..8]");
  gtk_selection_model_select_item (model, 0, TRUE);
  gtk_selection_model_select_item (model, 2, FALSE);
  g_assert_cmpuint (g_strv_length ((char **) tilde_trace_plot_get_parameters (f->plot)), ==, 9);
  g_assert_cmpstr (tilde_trace_plot_get_parameters (f->plot)[8], ==, "theta.8");
  let_it_draw (f);
  g_assert_true (_tilde_trace_plot_get_row_panels (f->plot, 8, NULL, NULL));
  g_clear_pointer (&after, pixels_free);
  after = render (GTK_WIDGET (f->window), "plots-window.png");
  g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (f->plot)), >=, 9 * 170);
}

static guint
n_rows (TildeParameterList *list)
{
  return g_list_model_get_n_items (G_LIST_MODEL (tilde_parameter_list_get_model (list)));
}

static const char *
row_name (TildeParameterList *list, guint i)
{
  GListModel *rows = G_LIST_MODEL (tilde_parameter_list_get_model (list));
  g_autoptr(GtkTreeListRow) row = g_list_model_get_item (rows, i);
  g_autoptr(TildeParameter) parameter = gtk_tree_list_row_get_item (row);

  return tilde_parameter_get_name (parameter);
}

static void
test_search (Fixture *f, gconstpointer data)
{
  fill (f, 0, 100);
  /* An element's name shows its group, opened to it. */
  tilde_parameter_list_set_search (f->list, "THETA[3");
  g_assert_cmpuint (n_rows (f->list), ==, 2);
  g_assert_cmpstr (row_name (f->list, 0), ==, "theta[1..8]");
  g_assert_cmpstr (row_name (f->list, 1), ==, "theta[3]");
  gtk_selection_model_select_item (tilde_parameter_list_get_model (f->list), 1, TRUE);
  let_it_draw (f);
  pixels_free (render (GTK_WIDGET (f->window), "plots-search.png"));
  /* Stan CSV's spelling finds it too. */
  tilde_parameter_list_set_search (f->list, "theta.5");
  g_assert_cmpuint (n_rows (f->list), ==, 2);
  g_assert_cmpstr (row_name (f->list, 1), ==, "theta[5]");
  /* The group's own name keeps all its elements. */
  tilde_parameter_list_set_search (f->list, "theta");
  g_assert_cmpuint (n_rows (f->list), ==, 9);
  tilde_parameter_list_set_search (f->list, "ta");
  g_assert_cmpuint (n_rows (f->list), ==, 10);
  g_assert_cmpstr (row_name (f->list, 0), ==, "tau");
  tilde_parameter_list_set_search (f->list, "nothing like it");
  g_assert_cmpuint (n_rows (f->list), ==, 0);
  tilde_parameter_list_set_search (f->list, "");
  g_assert_cmpuint (n_rows (f->list), ==, 3);
  let_it_draw (f);
}

/* A run of the model again: its draws replace the last (none between, while
 * it compiles), and the rows chosen in the last are chosen again: a
 * single parameter, an element of an opened group, and a group whose
 * size changed; draws with none of them choose the first row. */
static void
test_selection_kept_across_runs (Fixture *f, gconstpointer data)
{
  GtkSelectionModel *model = tilde_parameter_list_get_model (f->list);
  const char *const resized[] = {
    "lp__", "mu", "tau", "theta.1", "theta.2", "theta.3", "theta.4", NULL
  };
  const char *const other[] = { "lp__", "alpha", "beta", NULL };
  const char *const *shown;
  g_autoptr(TildeDraws) again = tilde_draws_new (names, N_CHAINS);
  g_autoptr(TildeDraws) smaller = tilde_draws_new (resized, N_CHAINS);
  g_autoptr(TildeDraws) unrelated = tilde_draws_new (other, N_CHAINS);
  g_autoptr(GtkTreeListRow) group = NULL;
  g_autoptr(GtkBitset) chosen = gtk_bitset_new_empty ();
  g_autoptr(GtkBitset) everything = NULL;

  fill (f, 0, 100);
  /* tau, and theta[3] in the opened group (rows: mu, tau, theta[1..8],
   * theta[1], ..., theta[8]) */
  group = g_list_model_get_item (G_LIST_MODEL (model), 2);
  gtk_tree_list_row_set_expanded (group, TRUE);
  g_assert_cmpstr (row_name (f->list, 5), ==, "theta[3]");
  gtk_bitset_add (chosen, 1);
  gtk_bitset_add (chosen, 5);
  everything = gtk_bitset_new_range (0, n_rows (f->list));
  gtk_selection_model_set_selection (model, chosen, everything);
  shown = tilde_trace_plot_get_parameters (f->plot);
  g_assert_cmpuint (g_strv_length ((char **) shown), ==, 2);
  g_assert_cmpstr (shown[0], ==, "tau");
  g_assert_cmpstr (shown[1], ==, "theta.3");

  tilde_parameter_list_set_draws (f->list, NULL);
  g_assert_cmpuint (g_strv_length ((char **) tilde_parameter_list_get_selected (f->list)), ==, 0);
  tilde_parameter_list_set_draws (f->list, again);
  shown = tilde_parameter_list_get_selected (f->list);
  g_assert_cmpuint (g_strv_length ((char **) shown), ==, 2);
  g_assert_cmpstr (shown[0], ==, "tau");
  g_assert_cmpstr (shown[1], ==, "theta.3");
  g_assert_cmpstr (tilde_trace_plot_get_parameters (f->plot)[1], ==, "theta.3");

  /* the whole group now, then a model whose theta is shorter */
  gtk_selection_model_select_item (model, 2, TRUE);
  g_assert_cmpstr (row_name (f->list, 2), ==, "theta[1..8]");
  tilde_parameter_list_set_draws (f->list, smaller);
  shown = tilde_parameter_list_get_selected (f->list);
  g_assert_cmpuint (g_strv_length ((char **) shown), ==, 4);
  g_assert_cmpstr (shown[3], ==, "theta.4");

  /* nothing in common: the first row */
  tilde_parameter_list_set_draws (f->list, unrelated);
  shown = tilde_parameter_list_get_selected (f->list);
  g_assert_cmpuint (g_strv_length ((char **) shown), ==, 1);
  g_assert_cmpstr (shown[0], ==, "alpha");
}

static void
test_divergent_ticks (Fixture *f, gconstpointer data)
{
  static const guint divergent[] = { 150, 700, 1300 };
  TildePlotStyle style = palette (FALSE);
  graphene_rect_t main;
  g_autoptr(Pixels) pixels = NULL;
  double start, end;

  for (guint c = 0; c < N_CHAINS; c++)
    append_draws (f, c, 1500, FALSE, c == 2 ? divergent : NULL, c == 2 ? 3 : 0);
  g_assert_true (window_test_wait_for (plot_is_current, f));
  main = main_panel (f, 0);
  g_assert_false (tilde_trace_plot_get_iteration_range (f->plot, &start, &end));
  pixels = render (GTK_WIDGET (f->plot), "plots-divergent.png");

  for (guint i = 0; i < G_N_ELEMENTS (divergent); i++)
    {
      int x = (int) floor (main.origin.x + (divergent[i] - start) / (end - start)
                           * main.size.width);
      graphene_rect_t tick = GRAPHENE_RECT_INIT (x - 1, main.origin.y + main.size.height, 3, 10);
      graphene_rect_t between = GRAPHENE_RECT_INIT (x + 30,
                                                    main.origin.y + main.size.height, 3, 10);

      g_assert_cmpuint (count_colour (pixels, &tick, &style.divergent), >=, 4);
      g_assert_cmpuint (count_colour (pixels, &between, &style.divergent), ==, 0);
    }
}

static void
test_hover_zoom_and_pan (Fixture *f, gconstpointer data)
{
  graphene_rect_t main;
  double start, end, x, span;
  const char *text;
  g_autofree char *expected = NULL;

  fill (f, 200, 1800);
  g_assert_true (window_test_wait_for (plot_is_current, f));
  main = main_panel (f, 0);

  /* Over draw 1000 of the 2,000 drawn: its read-out. */
  x = main.origin.x + 1000.0 / 2000 * main.size.width;
  _tilde_trace_plot_hover (f->plot, x, main.origin.y + main.size.height / 2);
  text = _tilde_trace_plot_get_hover_text (f->plot);
  g_assert_nonnull (text);
  g_test_message ("read-out: %s", text);
  g_assert_nonnull (strstr (text, "<b>mu</b>"));
  g_assert_nonnull (strstr (text, ", iteration 1000"));
  g_assert_nonnull (strstr (text, "Chain "));
  let_it_draw (f);
  g_autoptr(Pixels) shot = render (GTK_WIDGET (f->plot), "plots-hover.png");
  /* Over warmup, the read-out says so. */
  _tilde_trace_plot_hover (f->plot, main.origin.x + 100.0 / 2000 * main.size.width,
                           main.origin.y + main.size.height / 2);
  g_assert_nonnull (strstr (_tilde_trace_plot_get_hover_text (f->plot), "warmup iteration 100"));
  /* Outside the panels, none. */
  _tilde_trace_plot_hover (f->plot, 2, 2);
  g_assert_null (_tilde_trace_plot_get_hover_text (f->plot));

  /* Zooming in by half about the middle keeps the middle. */
  _tilde_trace_plot_zoom_at (f->plot, main.origin.x + main.size.width / 2, 0.5);
  g_assert_true (tilde_trace_plot_get_iteration_range (f->plot, &start, &end));
  g_assert_cmpfloat_with_epsilon (start, 500, 1e-3);
  g_assert_cmpfloat_with_epsilon (end, 1500, 1e-3);
  let_it_draw (f);
  g_autoptr(Pixels) zoomed = render (GTK_WIDGET (f->plot), "plots-zoomed.png");
  /* Dragging right by a tenth of the panel shows earlier draws. */
  _tilde_trace_plot_pan (f->plot, main.size.width / 10);
  g_assert_true (tilde_trace_plot_get_iteration_range (f->plot, &start, &end));
  g_assert_cmpfloat_with_epsilon (start, 400, 1e-3);
  g_assert_cmpfloat_with_epsilon (end, 1400, 1e-3);
  /* Never past the first draw, and never narrower than ten. */
  _tilde_trace_plot_pan (f->plot, main.size.width * 5);
  g_assert_true (tilde_trace_plot_get_iteration_range (f->plot, &start, &end));
  g_assert_cmpfloat (start, ==, 0);
  g_assert_cmpfloat_with_epsilon (end, 1000, 1e-3);
  _tilde_trace_plot_zoom_at (f->plot, main.origin.x, 1e-6);
  g_assert_true (tilde_trace_plot_get_iteration_range (f->plot, &start, &end));
  span = end - start;
  g_assert_cmpfloat_with_epsilon (span, 10, 1e-6);
  let_it_draw (f);
  /* Zoomed in close, the draws themselves. */
  g_autoptr(Pixels) close = render (GTK_WIDGET (f->plot), "plots-zoomed-close.png");
  /* The key binding's action, as a double-click: everything again. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->plot), "plot.reset-zoom", NULL));
  g_assert_false (tilde_trace_plot_get_iteration_range (f->plot, &start, &end));
  g_assert_cmpfloat (end, ==, 2000);

  /* Without warmup, the axis starts where sampling did. */
  tilde_trace_plot_set_show_warmup (f->plot, FALSE);
  g_assert_false (tilde_trace_plot_get_iteration_range (f->plot, &start, &end));
  g_assert_cmpfloat (start, ==, 200);
  let_it_draw (f);
  g_autoptr(Pixels) no_warmup = render (GTK_WIDGET (f->plot), "plots-no-warmup.png");
}

static void
test_other_views (Fixture *f, gconstpointer data)
{
  static const char *const two[] = { "mu", "theta.1", NULL };
  static const guint divergent[] = { 300, 900 };
  static const struct {
    TildePlotView view;
    const char   *screenshot;
  } views[] = {
    { TILDE_PLOT_VIEW_RANK, "plots-rank.png" },
    { TILDE_PLOT_VIEW_AUTOCORRELATION, "plots-autocorrelation.png" },
    { TILDE_PLOT_VIEW_PAIRS, "plots-pairs.png" },
  };
  TildePlotStyle style = palette (FALSE);

  for (guint c = 0; c < N_CHAINS; c++)
    {
      append_draws (f, c, 200, TRUE, NULL, 0);
      append_draws (f, c, 1500, FALSE, c == 1 ? divergent : NULL, c == 1 ? 2 : 0);
    }
  tilde_trace_plot_set_parameters (f->plot, two);
  for (guint v = 0; v < G_N_ELEMENTS (views); v++)
    {
      g_autoptr(Pixels) pixels = NULL;
      graphene_rect_t main;

      tilde_trace_plot_set_view (f->plot, views[v].view);
      let_it_draw (f);
      g_assert_true (window_test_wait_for (plot_is_current, f));
      main = main_panel (f, 0);
      pixels = render (GTK_WIDGET (f->plot), views[v].screenshot);
      for (guint c = 0; c < N_CHAINS; c++)
        {
          guint n = count_colour (pixels, &main, &style.chains[c]);

          /* The pairs view's points are translucent, blended away from the
           * palette; its divergences are opaque. */
          if (views[v].view != TILDE_PLOT_VIEW_PAIRS)
            g_assert_cmpuint (n, >=, 50);
        }
      if (views[v].view == TILDE_PLOT_VIEW_PAIRS)
        g_assert_cmpuint (count_colour (pixels, &main, &style.divergent), >=, 10);
    }

  /* The autocorrelation read-out: each chain's value at a lag. */
  tilde_trace_plot_set_view (f->plot, TILDE_PLOT_VIEW_AUTOCORRELATION);
  tilde_trace_plot_set_max_lag (f->plot, 20);
  let_it_draw (f);
  {
    graphene_rect_t main = main_panel (f, 0);

    _tilde_trace_plot_hover (f->plot, main.origin.x + main.size.width / 2,
                             main.origin.y + main.size.height / 2);
    g_assert_nonnull (strstr (_tilde_trace_plot_get_hover_text (f->plot), "lag 10"));
    g_assert_nonnull (strstr (_tilde_trace_plot_get_hover_text (f->plot), "Chain 4: "));
  }
  /* Pairs with one parameter asks for another. */
  tilde_trace_plot_set_view (f->plot, TILDE_PLOT_VIEW_PAIRS);
  tilde_trace_plot_set_parameters (f->plot, (const char *const[]) { "mu", NULL });
  let_it_draw (f);
  g_assert_false (_tilde_trace_plot_get_row_panels (f->plot, 0, NULL, NULL));
}

static void
test_dark (Fixture *f, gconstpointer data)
{
  AdwStyleManager *manager = adw_style_manager_get_default ();
  TildePlotStyle style = palette (TRUE);
  g_autoptr(Pixels) pixels = NULL;
  graphene_rect_t main;

  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_FORCE_DARK);
  fill (f, 300, 1700);
  g_assert_true (window_test_wait_for (plot_is_current, f));
  let_it_draw (f);
  main = main_panel (f, 0);
  pixels = render (GTK_WIDGET (f->plot), "plots-dark.png");
  for (guint c = 0; c < N_CHAINS; c++)
    g_assert_cmpuint (count_colour (pixels, &main, &style.chains[c]), >=, 200);
  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_DEFAULT);
}

/* ---- export ---- */

static void
start_element (GMarkupParseContext *context, const char *element, const char **attribute_names,
               const char **attribute_values, gpointer user_data, GError **error)
{
  char **first = user_data;

  if (*first == NULL)
    *first = g_strdup (element);
}

static void
test_export (Fixture *f, gconstpointer data)
{
  g_autofree char *dir = g_dir_make_tmp ("tilde-plots-XXXXXX", NULL);
  g_autofree char *png = g_build_filename (dir, "plot.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "plot.svg", NULL);
  g_autofree char *pdf = g_build_filename (dir, "plot.pdf", NULL);
  g_autofree char *bad = g_build_filename (dir, "missing", "plot.png", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GdkPixbuf) pixbuf = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *first = NULL;
  gsize length;
  GMarkupParser parser = { start_element, NULL, NULL, NULL, NULL };
  GMarkupParseContext *context;
  TildePlotStyle style = palette (FALSE);
  guint coloured[N_CHAINS] = { 0 };

  fill (f, 300, 1700);
  g_assert_true (tilde_trace_plot_export (f->plot, png, TILDE_PLOT_FORMAT_PNG, 800, 500, &error));
  g_assert_no_error (error);
  pixbuf = gdk_pixbuf_new_from_file (png, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gdk_pixbuf_get_width (pixbuf), ==, 800);
  g_assert_cmpint (gdk_pixbuf_get_height (pixbuf), ==, 500);
  /* On white, with the chains' colours in it. */
  {
    const guchar *p = gdk_pixbuf_read_pixels (pixbuf);
    int channels = gdk_pixbuf_get_n_channels (pixbuf), stride = gdk_pixbuf_get_rowstride (pixbuf);

    g_assert_cmpint (p[0], ==, 255);
    for (int y = 0; y < 500; y++)
      for (int x = 0; x < 800; x++)
        for (guint c = 0; c < N_CHAINS; c++)
          {
            const guchar *q = p + y * stride + x * channels;

            coloured[c] += abs (q[0] - (int) round (style.chains[c].red * 255)) <= 24
                           && abs (q[1] - (int) round (style.chains[c].green * 255)) <= 24
                           && abs (q[2] - (int) round (style.chains[c].blue * 255)) <= 24;
          }
    for (guint c = 0; c < N_CHAINS; c++)
      g_assert_cmpuint (coloured[c], >=, 100);
  }
  if (g_getenv ("TILDE_SCREENSHOT_DIR") != NULL)
    {
      g_autofree char *copy = g_build_filename (g_getenv ("TILDE_SCREENSHOT_DIR"),
                                                "plots-export.png", NULL);

      g_assert_true (tilde_trace_plot_export (f->plot, copy, TILDE_PLOT_FORMAT_PNG,
                                              800, 500, NULL));
    }

  g_assert_true (tilde_trace_plot_export (f->plot, svg, TILDE_PLOT_FORMAT_SVG, 800, 500, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (svg, &contents, &length, &error));
  context = g_markup_parse_context_new (&parser, 0, &first, NULL);
  g_assert_true (g_markup_parse_context_parse (context, contents, length, &error));
  g_assert_true (g_markup_parse_context_end_parse (context, &error));
  g_assert_no_error (error);
  g_markup_parse_context_free (context);
  g_assert_cmpstr (first, ==, "svg");
  g_clear_pointer (&contents, g_free);

  g_assert_true (tilde_trace_plot_export (f->plot, pdf, TILDE_PLOT_FORMAT_PDF, 800, 500, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (pdf, &contents, &length, &error));
  g_assert_cmpuint (length, >, 1000);
  g_assert_true (g_str_has_prefix (contents, "%PDF-"));

  /* A folder that is not there: an error, no crash. */
  g_assert_false (tilde_trace_plot_export (f->plot, bad, TILDE_PLOT_FORMAT_PNG, 100, 100, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  g_assert_false (tilde_trace_plot_export (f->plot, bad, TILDE_PLOT_FORMAT_PDF, 100, 100, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);

  g_unlink (png);
  g_unlink (svg);
  g_unlink (pdf);
  g_rmdir (dir);
}

static void
test_empty_store (Fixture *f, gconstpointer data)
{
  g_autoptr(Pixels) pixels = NULL;

  /* Nothing sampled yet: a message, no panels, no warnings. */
  let_it_draw (f);
  pixels = render (GTK_WIDGET (f->plot), "plots-empty.png");
  g_assert_false (_tilde_trace_plot_get_row_panels (f->plot, 0, NULL, NULL));
  /* The first draws of a run. */
  append_draws (f, 0, 1, TRUE, NULL, 0);
  g_assert_true (window_test_wait_for (plot_is_current, f));
  append_draws (f, 1, 3, TRUE, NULL, 0);
  g_assert_true (window_test_wait_for (plot_is_current, f));
}

static gboolean
count_frame (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  (*(int *) data)++;
  return G_SOURCE_CONTINUE;
}

static gboolean
three_frames (gpointer data)
{
  return *(int *) data >= 3;
}

/* Three frames in which nothing but the test's own changes redraws the
 * plot (let_it_draw() asks for a redraw itself). */
static void
frames_without_asking (Fixture *f)
{
  int frames = 0;
  guint id = gtk_widget_add_tick_callback (GTK_WIDGET (f->window), count_frame, &frames, NULL);

  g_assert_true (window_test_wait_for (three_frames, &frames));
  gtk_widget_remove_tick_callback (GTK_WIDGET (f->window), id);
}

/* With more rows than the window shows, the picture holds the rows in
 * view and no others; scrolling to the end draws the last rows. */
static void
test_only_rows_in_view (Fixture *f, gconstpointer data)
{
  const char *const all[] = { "mu", "tau", "theta.1", "theta.2", "theta.3", "theta.4",
                              "theta.5", "theta.6", "theta.7", "theta.8", NULL };
  GtkWidget *scrolled = gtk_widget_get_parent (gtk_widget_get_parent (GTK_WIDGET (f->plot)));
  GtkAdjustment *v = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled));
  TildePlotStyle style = palette (FALSE);
  g_autoptr(Pixels) top = NULL;
  g_autoptr(Pixels) bottom = NULL;
  graphene_rect_t first, last;
  guint rows;

  tilde_trace_plot_set_parameters (f->plot, all);
  fill (f, 0, 300);
  g_assert_true (window_test_wait_for (plot_is_current, f));
  let_it_draw (f);
  rows = _tilde_trace_plot_get_rows_drawn (f->plot);
  g_test_message ("%u of 10 rows drawn", rows);
  g_assert_cmpuint (rows, >=, 2);
  g_assert_cmpuint (rows, <, 6);
  first = main_panel (f, 0);
  last = main_panel (f, 9);
  top = render (GTK_WIDGET (f->plot), "plots-rows-top.png");
  for (guint c = 0; c < N_CHAINS; c++)
    {
      g_assert_cmpuint (count_colour (top, &first, &style.chains[c]), >=, 50);
      g_assert_cmpuint (count_colour (top, &last, &style.chains[c]), ==, 0);
    }

  /* Frames that only a scroll may have asked to redraw the plot. */
  gtk_adjustment_set_value (v, gtk_adjustment_get_upper (v) - gtk_adjustment_get_page_size (v));
  frames_without_asking (f);
  g_assert_cmpuint (_tilde_trace_plot_get_rows_drawn (f->plot), <, 6);
  bottom = render (GTK_WIDGET (f->plot), "plots-rows-bottom.png");
  for (guint c = 0; c < N_CHAINS; c++)
    {
      g_assert_cmpuint (count_colour (bottom, &last, &style.chains[c]), >=, 50);
      g_assert_cmpuint (count_colour (bottom, &first, &style.chains[c]), ==, 0);
    }
}

/* The viewport grows (a pane dragged, the window maximised) and nothing
 * scrolls: the rows that come into view are drawn. */
static void
test_rows_when_viewport_grows (Fixture *f, gconstpointer data)
{
  const char *const all[] = { "mu", "tau", "theta.1", "theta.2", "theta.3", "theta.4",
                              "theta.5", "theta.6", "theta.7", "theta.8", NULL };
  GtkWidget *scrolled = gtk_widget_get_parent (gtk_widget_get_parent (GTK_WIDGET (f->plot)));
  guint before;

  gtk_widget_set_margin_bottom (scrolled, 400);
  tilde_trace_plot_set_parameters (f->plot, all);
  fill (f, 0, 300);
  g_assert_true (window_test_wait_for (plot_is_current, f));
  let_it_draw (f);
  before = _tilde_trace_plot_get_rows_drawn (f->plot);
  gtk_widget_set_margin_bottom (scrolled, 0);
  frames_without_asking (f);
  frames_without_asking (f);
  g_test_message ("rows drawn: %u, then %u", before, _tilde_trace_plot_get_rows_drawn (f->plot));
  g_assert_cmpuint (_tilde_trace_plot_get_rows_drawn (f->plot), >, before);
}

/* A viewport of its own, which a scrolled window already on screen then
 * takes, giving it the scrolled window's adjustments after the plot is in
 * the window: scrolling still draws the rows that come into view. */
static void
test_rows_when_adjustment_replaced (Fixture *f, gconstpointer data)
{
  const char *const all[] = { "mu", "tau", "theta.1", "theta.2", "theta.3", "theta.4",
                              "theta.5", "theta.6", "theta.7", "theta.8", NULL };
  GtkWidget *scrolled = gtk_widget_get_parent (gtk_widget_get_parent (GTK_WIDGET (f->plot)));
  GtkWidget *viewport = gtk_viewport_new (NULL, NULL);
  TildePlotStyle style = palette (FALSE);
  g_autoptr(Pixels) bottom = NULL;
  graphene_rect_t last;
  GtkAdjustment *v;

  g_object_ref (f->plot);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), NULL);
  gtk_viewport_set_child (GTK_VIEWPORT (viewport), GTK_WIDGET (f->plot));
  g_object_unref (f->plot);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), viewport);
  v = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled));
  tilde_trace_plot_set_parameters (f->plot, all);
  fill (f, 0, 300);
  g_assert_true (window_test_wait_for (plot_is_current, f));
  let_it_draw (f);
  gtk_adjustment_set_value (v, gtk_adjustment_get_upper (v) - gtk_adjustment_get_page_size (v));
  frames_without_asking (f);
  last = main_panel (f, 9);
  bottom = render (GTK_WIDGET (f->plot), "plots-rows-replaced.png");
  for (guint c = 0; c < N_CHAINS; c++)
    g_assert_cmpuint (count_colour (bottom, &last, &style.chains[c]), >=, 50);
}

/* The render nodes the plot hands GTK for its picture, in order: its
 * bands' (a frame of the plot, as GTK would take it). */
static GPtrArray *
band_nodes (TildeTracePlot *plot)
{
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GPtrArray *nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) gsk_render_node_unref);
  GskRenderNode *node;

  GTK_WIDGET_GET_CLASS (plot)->snapshot (GTK_WIDGET (plot), snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  g_assert_cmpint (gsk_render_node_get_node_type (node), ==, GSK_CONTAINER_NODE);
  for (guint i = 0; i < gsk_container_node_get_n_children (node); i++)
    {
      GskRenderNode *child = gsk_container_node_get_child (node, i);
      GskRenderNodeType type = gsk_render_node_get_node_type (child);

      if (type == GSK_CAIRO_NODE || type == GSK_TEXTURE_NODE)
        g_ptr_array_add (nodes, gsk_render_node_ref (child));
    }
  gsk_render_node_unref (node);
  return nodes;
}

/* The picture goes to GTK in bands, the legend's and one a row, each a
 * render node kept while what it shows holds: GTK compares a frame's
 * nodes with the last frame's and redraws only where they differ. A frame
 * where only the read-out moved hands GTK the very same nodes; new draws
 * give every band a new one by the time the plot has caught up. */
static void
test_bands_kept (Fixture *f, gconstpointer data)
{
  const char *const parameters[] = { "mu", "theta.1", "theta.2", NULL };
  g_autoptr(GPtrArray) first = NULL;
  g_autoptr(GPtrArray) again = NULL;
  g_autoptr(GPtrArray) hovered = NULL;
  g_autoptr(GPtrArray) later = NULL;
  graphene_rect_t main;
  guint drawn, drawn_after, made;

  tilde_trace_plot_set_parameters (f->plot, parameters);
  fill (f, 0, 300);
  g_assert_true (window_test_wait_for (plot_is_current, f));
  let_it_draw (f);
  first = band_nodes (f->plot);
  g_assert_cmpuint (first->len, ==, 1 + 3);
  g_assert_cmpuint (_tilde_trace_plot_get_rows_drawn (f->plot), ==, 3);

  _tilde_trace_plot_get_picture_counts (f->plot, &drawn, &made);
  again = band_nodes (f->plot);
  main = main_panel (f, 1);
  _tilde_trace_plot_hover (f->plot, main.origin.x + main.size.width / 2,
                           main.origin.y + main.size.height / 2);
  g_assert_nonnull (_tilde_trace_plot_get_hover_text (f->plot));
  let_it_draw (f);
  hovered = band_nodes (f->plot);
  _tilde_trace_plot_get_picture_counts (f->plot, &drawn_after, &made);
  g_assert_cmpuint (drawn_after, ==, drawn);
  g_assert_cmpuint (again->len, ==, first->len);
  g_assert_cmpuint (hovered->len, ==, first->len);
  for (guint i = 0; i < first->len; i++)
    {
      g_assert_true (again->pdata[i] == first->pdata[i]);
      g_assert_true (hovered->pdata[i] == first->pdata[i]);
    }

  for (guint c = 0; c < N_CHAINS; c++)
    append_draws (f, c, 40, FALSE, NULL, 0);
  g_assert_true (window_test_wait_for (plot_is_current, f));
  later = band_nodes (f->plot);
  g_assert_cmpuint (later->len, ==, first->len);
  for (guint i = 0; i < first->len; i++)
    g_assert_true (later->pdata[i] != first->pdata[i]);
}

/* Draws stream in and the plot's height changes in every frame (a pane
 * dragged during a run): the bands move each time, and every frame still
 * shows every row. */
typedef struct
{
  Fixture *f;
  GtkWidget *scrolled;
  guint frames, fewest_rows;
} Streaming;

static gboolean
stream_and_resize (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  Streaming *s = data;

  for (guint c = 0; c < N_CHAINS; c++)
    append_draws (s->f, c, 20, FALSE, NULL, 0);
  gtk_widget_set_margin_bottom (s->scrolled, (int) (s->frames * 7 % 80));
  return G_SOURCE_CONTINUE;
}

static void
count_rows_shown (GdkFrameClock *clock, Streaming *s)
{
  s->frames++;
  s->fewest_rows = MIN (s->fewest_rows, _tilde_trace_plot_get_rows_drawn (s->f->plot));
}

static gboolean
thirty_frames (gpointer data)
{
  return ((Streaming *) data)->frames >= 30;
}

static void
test_every_row_while_resized (Fixture *f, gconstpointer data)
{
  const char *const parameters[] = { "mu", "theta.1", "theta.2", NULL };
  Streaming s = { f, gtk_widget_get_parent (gtk_widget_get_parent (GTK_WIDGET (f->plot))), 0,
                  G_MAXUINT };
  GdkFrameClock *clock;
  guint tick;
  gulong painted;

  /* one band a frame for new draws, whatever the machine's speed */
  _tilde_trace_plot_set_band_budget (f->plot, 0);
  tilde_trace_plot_set_parameters (f->plot, parameters);
  fill (f, 0, 300);
  g_assert_true (window_test_wait_for (plot_is_current, f));
  let_it_draw (f);
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (f->plot));
  painted = g_signal_connect (clock, "after-paint", G_CALLBACK (count_rows_shown), &s);
  tick = gtk_widget_add_tick_callback (GTK_WIDGET (f->window), stream_and_resize, &s, NULL);
  g_assert_true (window_test_wait_for (thirty_frames, &s));
  gtk_widget_remove_tick_callback (GTK_WIDGET (f->window), tick);
  g_signal_handler_disconnect (clock, painted);
  g_test_message ("fewest rows shown in a frame: %u", s.fewest_rows);
  g_assert_cmpuint (s.fewest_rows, ==, 3);
}

/* The run's first draws: the bands that showed "No draws yet" are all
 * drawn in the first frame with draws, not one after another beside a
 * message. */
static void
count_first_frame (GdkFrameClock *clock, Streaming *s)
{
  if (tilde_draws_get_stamp (s->f->draws) == 0 || s->frames > 0)
    return;
  s->frames++;
  s->fewest_rows = _tilde_trace_plot_get_rows_drawn (s->f->plot);
}

static void
test_first_draws_every_row (Fixture *f, gconstpointer data)
{
  const char *const parameters[] = { "mu", "theta.1", "theta.2", NULL };
  Streaming s = { f, NULL, 0, G_MAXUINT };
  GdkFrameClock *clock;
  gulong painted;

  _tilde_trace_plot_set_band_budget (f->plot, 0);
  tilde_trace_plot_set_parameters (f->plot, parameters);
  let_it_draw (f);
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (f->plot));
  painted = g_signal_connect (clock, "after-paint", G_CALLBACK (count_first_frame), &s);
  for (guint c = 0; c < N_CHAINS; c++)
    append_draws (f, c, 30, FALSE, NULL, 0);
  g_assert_true (window_test_wait_for (plot_is_current, f));
  g_signal_handler_disconnect (clock, painted);
  g_assert_cmpuint (s.frames, ==, 1);
  g_assert_cmpuint (s.fewest_rows, ==, 3);
}

/* What the plot holds follows the rows in view, not the rows seen:
 * scrolling through thirty rows leaves it the images of a page of rows
 * and a few more. */
static void
test_images_follow_the_view (Fixture *f, gconstpointer data)
{
  GtkWidget *scrolled = gtk_widget_get_parent (gtk_widget_get_parent (GTK_WIDGET (f->plot)));
  GtkAdjustment *v = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled));
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) parameters = NULL;
  guint held;

  /* thirty rows: three parameters, each shown ten times */
  for (guint i = 0; i < 30; i++)
    g_strv_builder_add (builder, (const char *[]) { "mu", "tau", "theta.1" }[i % 3]);
  parameters = g_strv_builder_end (builder);
  tilde_trace_plot_set_parameters (f->plot, (const char *const *) parameters);
  fill (f, 0, 300);
  g_assert_true (window_test_wait_for (plot_is_current, f));
  let_it_draw (f);
  for (double y = 0; y < gtk_adjustment_get_upper (v); y += gtk_adjustment_get_page_size (v) / 2)
    {
      gtk_adjustment_set_value (v, y);
      let_it_draw (f);
    }
  held = _tilde_trace_plot_get_images_held (f->plot);
  g_test_message ("%u images held after scrolling through 30 rows", held);
  g_assert_cmpuint (held, <=, 2 * 6 + 4);
}

static gboolean
pool_trimmed (gpointer data)
{
  return _tilde_trace_plot_get_images_held (data) <= 4;
}

/* A plot without rows to show draws its message into GTK's frame as it
 * is and holds no image (one of the whole plot was megabytes, each page
 * faulted in as the plots came up for a first run); with rows, each band
 * has its picture and a spare, made while the window idles (two rows:
 * two bands at least). */
static void
test_no_image_without_draws (Fixture *f, gconstpointer data)
{
  const char *const parameters[] = { "mu", "theta.1", NULL };
  graphene_rect_t main;
  guint held;

  tilde_trace_plot_set_draws (f->plot, NULL);
  let_it_draw (f);
  let_it_draw (f);
  held = _tilde_trace_plot_get_images_held (f->plot);
  g_test_message ("%u images held without draws", held);
  g_assert_cmpuint (held, ==, 0);

  tilde_trace_plot_set_draws (f->plot, f->draws);
  tilde_trace_plot_set_parameters (f->plot, parameters);
  fill (f, 0, 100);
  g_assert_true (window_test_wait_for (plot_is_current, f));
  let_it_draw (f);
  let_it_draw (f);
  held = _tilde_trace_plot_get_images_held (f->plot);
  g_test_message ("%u images held with two rows of draws", held);
  g_assert_cmpuint (held, >=, 4);

  /* the draws gone, so is a read-out of them */
  g_assert_true (_tilde_trace_plot_get_row_panels (f->plot, 0, &main, NULL));
  _tilde_trace_plot_hover (f->plot, main.origin.x + main.size.width / 2,
                           main.origin.y + main.size.height / 2);
  g_assert_nonnull (_tilde_trace_plot_get_hover_text (f->plot));
  tilde_trace_plot_set_draws (f->plot, NULL);
  let_it_draw (f);
  g_assert_null (_tilde_trace_plot_get_hover_text (f->plot));
  /* the rows' images wait for the next rows in the pool, at most its four
   * once the window has idled */
  g_assert_true (window_test_wait_for (pool_trimmed, f->plot));
  g_assert_cmpuint (_tilde_trace_plot_get_images_held (f->plot), <=, 4);
}

/* A plot on a page of its own that is not shown (the window's run page
 * before a run) looks up its fonts while the window is idle, drawing
 * nothing on screen; the plot shown beside it draws as before. */
static gboolean
labels_ready (gpointer data)
{
  return _tilde_trace_plot_get_n_labels (data) > 0;
}

static void
test_fonts_looked_up_before_shown (Fixture *f, gconstpointer data)
{
  GtkWidget *stack = gtk_stack_new ();
  TildeTracePlot *hidden = TILDE_TRACE_PLOT (tilde_trace_plot_new ());
  GtkWidget *box = gtk_window_get_child (f->window);
  guint drawn, made;

  g_assert_cmpuint (_tilde_trace_plot_get_n_labels (hidden), ==, 0);
  gtk_stack_add_named (GTK_STACK (stack), gtk_label_new ("the editor"), "editor");
  gtk_stack_add_named (GTK_STACK (stack), GTK_WIDGET (hidden), "run");
  gtk_stack_set_visible_child_name (GTK_STACK (stack), "editor");
  gtk_box_append (GTK_BOX (box), stack);
  g_assert_true (window_test_wait_for (labels_ready, hidden));
  g_assert_false (gtk_widget_get_mapped (GTK_WIDGET (hidden)));
  _tilde_trace_plot_get_picture_counts (hidden, &drawn, &made);
  g_assert_cmpuint (drawn, ==, 0);

  fill (f, 0, 50);
  g_assert_true (window_test_wait_for (plot_is_current, f));
}

int
main (int argc, char *argv[])
{
  g_setenv ("GSK_RENDERER", "cairo", FALSE);
  g_setenv ("GTK_A11Y", "none", TRUE);
  g_setenv ("ADW_DISABLE_PORTAL", "1", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

#define ADD(path, func) \
  g_test_add ("/plots/window/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("chain-colours", test_chain_colours);
  ADD ("live-update", test_live_update);
  ADD ("sparse-trace-unbroken", test_sparse_trace_unbroken);
  ADD ("densities-catch-up", test_densities_catch_up);
  ADD ("select-another-parameter", test_select_another_parameter);
  ADD ("search", test_search);
  ADD ("selection-kept-across-runs", test_selection_kept_across_runs);
  ADD ("divergent-ticks", test_divergent_ticks);
  ADD ("hover-zoom-and-pan", test_hover_zoom_and_pan);
  ADD ("other-views", test_other_views);
  ADD ("dark", test_dark);
  ADD ("export", test_export);
  ADD ("empty-store", test_empty_store);
  ADD ("fonts-looked-up-before-shown", test_fonts_looked_up_before_shown);
  ADD ("only-rows-in-view", test_only_rows_in_view);
  ADD ("rows-when-viewport-grows", test_rows_when_viewport_grows);
  ADD ("rows-when-adjustment-replaced", test_rows_when_adjustment_replaced);
  ADD ("bands-kept", test_bands_kept);
  ADD ("every-row-while-resized", test_every_row_while_resized);
  ADD ("images-follow-the-view", test_images_follow_the_view);
  ADD ("no-image-without-draws", test_no_image_without_draws);
  ADD ("first-draws-every-row", test_first_draws_every_row);
#undef ADD
  return g_test_run ();
}
