/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The main loop while four chains stream draws into the trace plot: a
 * thread plays the sampler, making 1,000 warmup and 10,000 sampling draws
 * per chain at a steady rate and handing them over in batches in idle
 * sources at G_PRIORITY_DEFAULT_IDLE, as the store's thread rule asks; the
 * window
 * shows the parameter list and four parameters' traces. Records the gaps
 * between turns of the main loop (a 1 ms timer), and how long each frame's
 * layout and paint took (the frame clock's before-paint to after-paint).
 * Needs an X server: xvfb-run.
 *
 *   bench-plots-live [DRAWS_PER_SECOND_PER_CHAIN]
 *   bench-plots-live --frames N   (N frames, each after one batch per chain,
 *                                  no thread: for callgrind)
 */
#define G_LOG_DOMAIN "tilde"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "live-stats.h"
#include "tilde-draws.h"
#include "tilde-parameter-list.h"
#include "tilde-trace-plot.h"

#define N_CHAINS 4
#define N_WARMUP 1000
#define N_SAMPLING 10000
#define N_PARAMETERS 8
#define BATCH_MS 2

typedef struct
{
  TildeDraws *draws;
  guint       chain;
  guint       n_rows;
  gboolean    warmup;
  double     *rows;
} Batch;

typedef struct
{
  TildeDraws *draws;   /* only touched on the main thread */
  double      rate;
  gint        finished;
  LiveStats   stats;
} Bench;

static const char *const names[] = {
  "lp__", "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__", "divergent__",
  "energy__", "theta.1", "theta.2", "theta.3", "theta.4", "theta.5", "theta.6", "theta.7",
  "theta.8", NULL
};
#define N_COLUMNS 15

static gboolean
append_batch (gpointer data)
{
  Batch *batch = data;

  tilde_draws_append (batch->draws, batch->chain, batch->rows, (gsize) batch->n_rows * N_COLUMNS,
                      batch->warmup);
  return G_SOURCE_REMOVE;
}

static void
batch_free (gpointer data)
{
  Batch *batch = data;

  g_free (batch->rows);
  g_free (batch);
}

/* The sampler's stand-in: AR(1) draws at `rate` per second per chain. */
static gpointer
produce (gpointer data)
{
  Bench *bench = data;
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);
  double state[N_CHAINS][N_COLUMNS] = { { 0 } };
  guint made[N_CHAINS] = { 0 };
  guint per_batch = (guint) MAX (round (bench->rate * BATCH_MS / 1000), 1);
  gint64 next = g_get_monotonic_time ();

  while (made[0] < N_WARMUP + N_SAMPLING)
    {
      for (guint c = 0; c < N_CHAINS; c++)
        {
          Batch *batch = g_new0 (Batch, 1);
          gboolean warmup = made[c] < N_WARMUP;
          guint n = MIN (per_batch, warmup ? N_WARMUP - made[c] : N_WARMUP + N_SAMPLING - made[c]);

          batch->draws = bench->draws;
          batch->chain = c;
          batch->n_rows = n;
          batch->warmup = warmup;
          batch->rows = g_new0 (double, (gsize) n * N_COLUMNS);
          for (guint r = 0; r < n; r++)
            {
              double *row = batch->rows + (gsize) r * N_COLUMNS;

              for (guint k = 7; k < N_COLUMNS; k++)
                {
                  double z = sqrt (-2 * log (g_rand_double_range (rand, 1e-300, 1)))
                             * cos (2 * G_PI * g_rand_double (rand));

                  state[c][k] = 0.7 * state[c][k] + z;
                  row[k] = state[c][k] + (warmup ? 3 * exp (-(made[c] + r) / 100.0) : 0);
                }
              row[0] = -0.5 * row[7] * row[7];
              row[5] = g_rand_int_range (rand, 0, 1000) == 0;
            }
          made[c] += n;
          GSource *source = g_idle_source_new ();
          g_source_set_priority (source, G_PRIORITY_DEFAULT_IDLE);
          g_source_set_callback (source, append_batch, batch, batch_free);
          g_source_attach (source, NULL);
          g_source_unref (source);
        }
      next += BATCH_MS * 1000;
      if (next > g_get_monotonic_time ())
        g_usleep (next - g_get_monotonic_time ());
    }
  g_atomic_int_set (&bench->finished, 1);
  g_main_context_wakeup (NULL);
  return NULL;
}

static gboolean
mapped (gpointer data)
{
  return gtk_widget_get_mapped (data);
}

typedef struct
{
  guint   frames;
  double  start;
  GArray *cpu;   /* ms of processor time per frame's layout and paint */
} Frames;

static void
frame_begin (GdkFrameClock *clock, Frames *frames)
{
  frames->start = live_stats_cpu_us ();
}

static void
count_frame (GdkFrameClock *clock, Frames *frames)
{
  double ms = (live_stats_cpu_us () - frames->start) / 1000;

  g_array_append_val (frames->cpu, ms);
  frames->frames++;
}

/* The same window; each frame follows one batch of 10 draws per chain. */
static int
run_frames (guint n_frames)
{
  TildeDraws *draws = tilde_draws_new (names, N_CHAINS);
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());
  GtkWidget *plot = tilde_trace_plot_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);
  double row[N_COLUMNS] = { 0 };
  Frames frames = { 0, 0, g_array_new (FALSE, FALSE, sizeof (double)) };

  gtk_window_set_default_size (window, 1000, 900);
  gtk_window_set_child (window, plot);
  tilde_trace_plot_set_draws (TILDE_TRACE_PLOT (plot), draws);
  tilde_trace_plot_set_parameters (TILDE_TRACE_PLOT (plot),
                                   (const char *const[]) { "theta.1", "theta.2",
                                                           "theta.3", "theta.4", NULL });
  for (guint c = 0; c < N_CHAINS; c++)
    for (guint i = 0; i < N_WARMUP + N_SAMPLING - 10 * n_frames; i++)
      {
        for (guint k = 7; k < N_COLUMNS; k++)
          row[k] = g_rand_double (rand);
        tilde_draws_append (draws, c, row, N_COLUMNS, i < N_WARMUP);
      }
  gtk_window_present (window);
  while (!mapped (plot))
    g_main_context_iteration (NULL, TRUE);
  g_signal_connect (gtk_widget_get_frame_clock (plot), "before-paint",
                    G_CALLBACK (frame_begin), &frames);
  g_signal_connect (gtk_widget_get_frame_clock (plot), "after-paint",
                    G_CALLBACK (count_frame), &frames);
  for (guint f = 0; f < n_frames; f++)
    {
      guint now = frames.frames;

      for (guint c = 0; c < N_CHAINS; c++)
        for (guint i = 0; i < 10; i++)
          {
            for (guint k = 7; k < N_COLUMNS; k++)
              row[k] = g_rand_double (rand);
            tilde_draws_append (draws, c, row, N_COLUMNS, FALSE);
          }
      while (frames.frames == now)
        g_main_context_iteration (NULL, TRUE);
    }
  printf ("%u frames, processor time of layout and paint: median %.2f ms, 95 %% %.2f ms, "
          "max %.2f ms\n", n_frames, live_stats_percentile (frames.cpu, 0.5), live_stats_percentile (frames.cpu, 0.95),
          live_stats_percentile (frames.cpu, 1));
  g_array_unref (frames.cpu);
  gtk_window_destroy (window);
  g_object_unref (draws);
  return 0;
}

int
main (int argc, char *argv[])
{
  Bench bench = { 0 };
  GtkWindow *window;
  GtkWidget *box, *list, *plot, *scrolled;
  GThread *thread;
  gint64 start;
  double seconds;

  gtk_init ();
  if (argc > 2 && g_str_equal (argv[1], "--frames"))
    return run_frames (atoi (argv[2]));
  bench.rate = argc > 1 ? atof (argv[1]) : 5000;
  live_stats_init (&bench.stats);
  bench.draws = tilde_draws_new (names, N_CHAINS);

  window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (window, 1200, 900);
  box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  list = tilde_parameter_list_new ();
  gtk_widget_set_size_request (list, 200, -1);
  plot = tilde_trace_plot_new ();
  gtk_widget_set_hexpand (plot, TRUE);
  scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), plot);
  gtk_widget_set_hexpand (scrolled, TRUE);
  gtk_box_append (GTK_BOX (box), list);
  gtk_box_append (GTK_BOX (box), scrolled);
  gtk_window_set_child (window, box);
  tilde_parameter_list_set_draws (TILDE_PARAMETER_LIST (list), bench.draws);
  tilde_trace_plot_set_draws (TILDE_TRACE_PLOT (plot), bench.draws);
  tilde_trace_plot_set_parameters (TILDE_TRACE_PLOT (plot),
                                   (const char *const[]) { "theta.1", "theta.2",
                                                           "theta.3", "theta.4", NULL });
  gtk_window_present (window);
  while (!mapped (plot))
    g_main_context_iteration (NULL, TRUE);

  live_stats_watch (&bench.stats, plot);
  start = bench.stats.start;
  thread = g_thread_new ("sampler", produce, &bench);
  while (!g_atomic_int_get (&bench.finished))
    g_main_context_iteration (NULL, TRUE);
  g_thread_join (thread);
  /* The last batches and their frame. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  seconds = (g_get_monotonic_time () - start) / 1e6;
  live_stats_stop (&bench.stats);

  printf ("Streaming %d chains x %d draws at %.0f draws/s per chain, 4 traces of %d columns, "
          "1200 x 900 window\n\n", N_CHAINS, N_WARMUP + N_SAMPLING, bench.rate, N_COLUMNS);
  printf ("| seconds | frames | main-loop gap median | 99 %% | max | paint median | 95 %% | max "
          "| paint processor time median | 95 %% | max |\n");
  printf ("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  printf ("| %.2f | %u | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.2f ms "
          "| %.2f ms | %.2f ms |\n", seconds,
          bench.stats.frames, live_stats_percentile (bench.stats.gaps, 0.5) / 1000, live_stats_percentile (bench.stats.gaps, 0.99) / 1000,
          live_stats_percentile (bench.stats.gaps, 1) / 1000, live_stats_percentile (bench.stats.paints, 0.5) / 1000,
          live_stats_percentile (bench.stats.paints, 0.95) / 1000, live_stats_percentile (bench.stats.paints, 1) / 1000,
          live_stats_percentile (bench.stats.paint_cpus, 0.5) / 1000, live_stats_percentile (bench.stats.paint_cpus, 0.95) / 1000,
          live_stats_percentile (bench.stats.paint_cpus, 1) / 1000);
  g_assert_cmpuint (tilde_draws_get_n_draws (bench.draws, 3), ==, N_WARMUP + N_SAMPLING);

  gtk_window_destroy (window);
  g_object_unref (bench.draws);
  live_stats_clear (&bench.stats);
  return 0;
}
