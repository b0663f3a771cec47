/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What a frame of the trace plot costs, and what appending draws costs.
 *
 * Redraw: the plot's drawing code (the one the widget's snapshot and the
 * exports run) into a 1000 x 700 image surface, for 4 chains of 10,000
 * draws (1,000 of them warmup): "live" frames append a batch of 10 draws
 * per chain first, so the copies, densities and ranks are brought up to
 * date as while a run streams; "still" frames redraw unchanged draws (a
 * hover, a resize). The budget is a frame, 16.7 ms.
 *
 * Append: batches of 1, 10 and 100 rows of 17 and of 1,000 columns into a
 * store, per batch and per draw.
 *
 * No display needed.
 *
 *   bench-plots [REPEATS [CASE]]   (CASE: a row of the redraw table, from 0)
 */
#define G_LOG_DOMAIN "tilde"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tilde-draws.h"
#include "tilde-plot-painter-private.h"

#define N_CHAINS 4
#define N_DRAWS 10000
#define N_WARMUP 1000
#define WIDTH 1000
#define HEIGHT 700

/* Processor time of this thread, in milliseconds: on a shared machine
 * the wall clock also counts the time other jobs had the processor. */
static double
cpu_ms (void)
{
  struct timespec now;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &now);
  return now.tv_sec * 1e3 + now.tv_nsec / 1e6;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static double
percentile (GArray *samples, double p)
{
  double *values = (double *) (void *) samples->data;

  qsort (values, samples->len, sizeof (double), compare_doubles);
  return values[(guint) MIN (floor (p * samples->len), samples->len - 1)];
}

static double
normal_draw (GRand *rand)
{
  return sqrt (-2 * log (g_rand_double_range (rand, 1e-300, 1)))
         * cos (2 * G_PI * g_rand_double (rand));
}

static char **
column_names (guint n_parameters)
{
  GPtrArray *names = g_ptr_array_new ();

  g_ptr_array_add (names, g_strdup ("lp__"));
  g_ptr_array_add (names, g_strdup ("divergent__"));
  for (guint i = 0; i < n_parameters; i++)
    g_ptr_array_add (names, g_strdup_printf ("theta.%u", i + 1));
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
}

/* AR(1) draws, a divergence now and then. */
static void
append_rows (TildeDraws *draws, GRand *rand, double *state, guint chain, guint n, gboolean warmup)
{
  guint columns = tilde_draws_get_n_columns (draws);
  g_autofree double *rows = g_new (double, (gsize) n * columns);

  for (guint r = 0; r < n; r++)
    {
      double *row = rows + (gsize) r * columns;

      for (guint c = 2; c < columns; c++)
        {
          state[c] = 0.7 * state[c] + normal_draw (rand);
          row[c] = state[c] + 0.2 * chain;
        }
      row[0] = -0.5 * row[2] * row[2];
      row[1] = g_rand_int_range (rand, 0, 500) == 0;
    }
  tilde_draws_append (draws, chain, rows, (gsize) n * columns, warmup);
}

static TildeDraws *
filled_store (GRand *rand, guint n_parameters, guint n_draws)
{
  g_auto(GStrv) names = column_names (n_parameters);
  TildeDraws *draws = tilde_draws_new ((const char *const *) names, N_CHAINS);
  g_autofree double *state = g_new0 (double, n_parameters + 2);

  for (guint c = 0; c < N_CHAINS; c++)
    {
      append_rows (draws, rand, state, c, MIN (n_draws, N_WARMUP), TRUE);
      if (n_draws > N_WARMUP)
        append_rows (draws, rand, state, c, n_draws - N_WARMUP, FALSE);
    }
  return draws;
}

typedef struct
{
  const char   *label;
  TildePlotView view;
  guint         n_shown;
  gboolean      live;
  guint         zoom;     /* a window of this many iterations, or 0 */
  guint         first;    /* a run's first picture of this many draws a chain, or 0 */
} Case;

static void
bench_redraw (const Case *bench, guint repeats, GRand *rand)
{
  g_autoptr(TildeDraws) draws = filled_store (rand, 8, bench->first ? bench->first
                                                                    : N_DRAWS - 10 * (repeats + 3));
  TildePlotPainter *painter = _tilde_plot_painter_new ();
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create (surface);
  PangoLayout *text = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string ("Cantarell 11");
  g_autoptr(GArray) times = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) walls = g_array_new (FALSE, FALSE, sizeof (double));
  g_autofree double *state = g_new0 (double, 10);
  const char *const shown[] = { "theta.1", "theta.2", "theta.3", "theta.4", NULL };
  g_autofree char **names = g_new0 (char *, bench->n_shown + 1);
  TildePlotOptions options = { bench->view, TRUE, 50, bench->zoom > 0, 5000, 5000 + bench->zoom };
  TildePlotStyle style;
  g_autofree char *zoomed = NULL;

  for (guint i = 0; i < bench->n_shown; i++)
    names[i] = (char *) shown[i];
  _tilde_plot_style_init (&style, FALSE);
  style.font = font;
  style.fill_background = TRUE;
  _tilde_plot_painter_set_draws (painter, draws);
  _tilde_plot_painter_set_columns (painter, (const char *const *) names);

  for (guint i = 0; i < repeats + 3; i++)
    {
      gint64 start;
      double ms, wall, cpu;

      if (bench->live)
        for (guint c = 0; c < N_CHAINS; c++)
          append_rows (draws, rand, state, c, 10, FALSE);
      if (bench->first)
        {
          /* a new painter: nothing fitted or copied yet, as when a run's
           * first draws come in */
          _tilde_plot_painter_free (painter);
          painter = _tilde_plot_painter_new ();
          _tilde_plot_painter_set_draws (painter, draws);
          _tilde_plot_painter_set_columns (painter, (const char *const *) names);
        }
      start = g_get_monotonic_time ();
      cpu = cpu_ms ();
      _tilde_plot_painter_draw (painter, cr, text, WIDTH, HEIGHT, &style, &options, NULL);
      cairo_surface_flush (surface);
      ms = cpu_ms () - cpu;
      wall = (g_get_monotonic_time () - start) / 1000.0;
      if (i >= 3 || bench->first)   /* the first frames fill the copies */
        {
          g_array_append_val (times, ms);
          g_array_append_val (walls, wall);
        }
    }
  if (bench->zoom)
    zoomed = g_strdup_printf (", zoomed to %u draws", bench->zoom);
  else if (bench->first)
    zoomed = g_strdup_printf (", first picture, %u draws a chain", bench->first);
  else
    zoomed = g_strdup ("");
  printf ("| %s%s | %u | %s | %.2f | %.2f | %.2f | %.2f |\n", bench->label, zoomed, bench->n_shown,
          bench->live ? "live" : "still", percentile (times, 0.5), percentile (times, 0.95),
          percentile (times, 1), percentile (walls, 0.5));

  g_object_unref (text);
  pango_font_description_free (font);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  _tilde_plot_painter_free (painter);
}

static void
bench_append (guint n_parameters, guint batch, GRand *rand)
{
  g_auto(GStrv) names = column_names (n_parameters);
  g_autoptr(TildeDraws) draws = tilde_draws_new ((const char *const *) names, N_CHAINS);
  guint columns = n_parameters + 2, n_batches = MAX (20000 / batch, 1);
  g_autofree double *rows = g_new (double, (gsize) batch * columns);
  g_autoptr(GArray) times = g_array_new (FALSE, FALSE, sizeof (double));

  for (gsize i = 0; i < (gsize) batch * columns; i++)
    rows[i] = normal_draw (rand);
  for (guint b = 0; b < n_batches; b++)
    {
      gint64 start = g_get_monotonic_time ();
      double us;

      tilde_draws_append (draws, b % N_CHAINS, rows, (gsize) batch * columns, FALSE);
      us = (double) (g_get_monotonic_time () - start);
      g_array_append_val (times, us);
    }
  printf ("| %u | %u | %.1f | %.3f | %.1f |\n", columns, batch, percentile (times, 0.5),
          percentile (times, 0.5) / batch, percentile (times, 1));
}

int
main (int argc, char *argv[])
{
  guint repeats = argc > 1 ? (guint) atoi (argv[1]) : 60;
  int only = argc > 2 ? atoi (argv[2]) : -1;
  g_autoptr(GRand) rand = g_rand_new_with_seed (1);
  static const Case cases[] = {
    { "trace", TILDE_PLOT_VIEW_TRACE, 1, FALSE },
    { "trace", TILDE_PLOT_VIEW_TRACE, 1, TRUE },
    { "trace", TILDE_PLOT_VIEW_TRACE, 4, FALSE },
    { "trace", TILDE_PLOT_VIEW_TRACE, 4, TRUE },
    { "trace", TILDE_PLOT_VIEW_TRACE, 4, FALSE, 300 },
    { "trace", TILDE_PLOT_VIEW_TRACE, 4, FALSE, 100 },
    { "trace", TILDE_PLOT_VIEW_TRACE, 4, TRUE, 0, 500 },
    { "rank", TILDE_PLOT_VIEW_RANK, 4, TRUE },
    { "autocorrelation", TILDE_PLOT_VIEW_AUTOCORRELATION, 4, TRUE },
    { "pairs", TILDE_PLOT_VIEW_PAIRS, 2, TRUE },
  };

  printf ("Redraw, %d x %d, %d chains x %d draws (%d warmup), milliseconds of processor time "
          "per frame (and the median on the wall clock)\n\n",
          WIDTH, HEIGHT, N_CHAINS, N_DRAWS, N_WARMUP);
  printf ("| view | parameters | draws | median | 95 %% | max | wall median |\n"
          "|---|---:|---|---:|---:|---:|---:|\n");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    if (only < 0 || (guint) only == i)
      bench_redraw (&cases[i], repeats, rand);
  if (only >= 0)
    return 0;

  printf ("\nAppend, microseconds\n\n");
  printf ("| columns | rows per batch | median per batch | per draw | max |\n"
          "|---:|---:|---:|---:|---:|\n");
  for (guint b = 1; b <= 100; b *= 10)
    bench_append (15, b, rand);
  for (guint b = 1; b <= 100; b *= 10)
    bench_append (998, b, rand);
  return 0;
}
