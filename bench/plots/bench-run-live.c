/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The main loop while a real run streams into the plots: the run
 * controller samples a model (4 chains, 1,000 warm-up and 10,000 draws
 * each, warm-up kept) on its threads and hands the draws to the main
 * context in batches, while the window shows the parameter list and the
 * trace plot of four parameters. Records the gaps between turns of the
 * main loop (a 1 ms timer at high priority), how long each frame's layout
 * and paint took, and how long the chains took to stop after Stop in a
 * second run. Needs an X server: xvfb-run.
 *
 *   bench-run-live MODEL.stan DATA.json [CHAINS WARMUP DRAWS]
 */
#define G_LOG_DOMAIN "tilde"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tilde-run-plots.h"

typedef struct
{
  TildeRunController *controller;
  gint64              last_turn;
  GArray             *gaps;      /* µs between turns of the main loop */
  gint64              paint_start;
  GArray             *paints;    /* µs from before-paint to after-paint */
  double              paint_cpu_start;
  GArray             *paint_cpus;   /* the same in processor time of the main thread */
  guint               long_gaps;    /* gaps over 16 ms */
  guint               frames;
  gboolean            list_stalls;  /* TILDE_BENCH_LIST_STALLS: each long gap on stderr */
  gint64              start;
  gboolean            finished;
  gint64              stopped_at;
} Bench;

/* Processor time of this thread in µs: on a shared machine the wall
 * clock also counts the time other jobs had the processor. */
static double
cpu_us (void)
{
  struct timespec now;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &now);
  return now.tv_sec * 1e6 + now.tv_nsec / 1e3;
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

  if (samples->len == 0)
    return 0;
  qsort (values, samples->len, sizeof (double), compare_doubles);
  return values[(guint) MIN (p * samples->len, samples->len - 1)];
}

static gboolean
turn_cb (gpointer data)
{
  Bench *bench = data;
  gint64 now = g_get_monotonic_time ();

  if (bench->last_turn != 0)
    {
      double gap = (double) (now - bench->last_turn);

      g_array_append_val (bench->gaps, gap);
      bench->long_gaps += gap > 16000;
      if (gap > 16000 && bench->list_stalls)
        g_printerr ("gap %.1f ms at %.0f ms (%.6f s CLOCK_MONOTONIC, for perf record -k mono), "
                    "after frame %u (its paint %.1f ms, %.1f ms of CPU)\n",
                    gap / 1000, (now - bench->start) / 1000.0, (now - gap) / 1e6, bench->frames,
                    bench->paints->len ? g_array_index (bench->paints, double, bench->paints->len - 1) / 1000 : 0.0,
                    bench->paint_cpus->len ? g_array_index (bench->paint_cpus, double, bench->paint_cpus->len - 1) / 1000 : 0.0);
    }
  bench->last_turn = now;
  return G_SOURCE_CONTINUE;
}

static void
before_paint_cb (GdkFrameClock *clock, Bench *bench)
{
  bench->paint_start = g_get_monotonic_time ();
  bench->paint_cpu_start = cpu_us ();
}

static void
after_paint_cb (GdkFrameClock *clock, Bench *bench)
{
  double spent = (double) (g_get_monotonic_time () - bench->paint_start);
  double cpu = cpu_us () - bench->paint_cpu_start;

  g_array_append_val (bench->paints, spent);
  g_array_append_val (bench->paint_cpus, cpu);
  bench->frames++;
}

static void
finished_cb (TildeRunController *controller, const GError *error, Bench *bench)
{
  if (error && !g_error_matches (error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_CANCELLED))
    g_printerr ("run failed: %s\n", error->message);
  bench->finished = TRUE;
}

static void
running_cb (TildeRunController *controller, GParamSpec *pspec, Bench *bench)
{
  if (!tilde_run_controller_get_running (controller))
    bench->stopped_at = g_get_monotonic_time ();
}

static char *
read_text (const char *path)
{
  char *text = NULL;
  g_autoptr(GError) error = NULL;

  if (!g_file_get_contents (path, &text, NULL, &error))
    g_error ("%s", error->message);
  return text;
}

static void
run_until_finished (Bench *bench)
{
  while (!bench->finished)
    g_main_context_iteration (NULL, TRUE);
}

static guint
draws_of_chain (Bench *bench, guint chain)
{
  TildeDraws *draws = tilde_run_controller_get_draws (bench->controller);

  return draws ? tilde_draws_get_n_draws (draws, chain) : 0;
}

int
main (int argc, char *argv[])
{
  static const char *const shown[] = { "mu", "tau", "theta.1", "theta.2", NULL };
  Bench bench = { 0 };
  g_autofree char *model = NULL;
  g_autofree char *data = NULL;
  g_autofree char *folder = NULL;
  GtkWindow *window;
  TildeRunPlots *plots;
  TildeRunSettings settings;
  GdkFrameClock *clock;
  guint turn, total = 0;
  gint64 start, asked;
  double seconds;

  gtk_init ();
  if (argc < 3)
    {
      g_printerr ("usage: bench-run-live MODEL.stan DATA.json [CHAINS WARMUP DRAWS]\n");
      return 2;
    }
  model = read_text (argv[1]);
  data = read_text (argv[2]);
  tilde_run_settings_init (&settings);
  settings.sample.chains = argc > 3 ? (guint) atoi (argv[3]) : 4;
  settings.sample.warmup = argc > 4 ? (guint) atoi (argv[4]) : 1000;
  settings.sample.samples = argc > 5 ? (guint) atoi (argv[5]) : 10000;
  settings.sample.seed = 1;
  settings.sample.seed_given = TRUE;

  bench.gaps = g_array_new (FALSE, FALSE, sizeof (double));
  bench.paints = g_array_new (FALSE, FALSE, sizeof (double));
  bench.paint_cpus = g_array_new (FALSE, FALSE, sizeof (double));
  bench.controller = tilde_run_controller_new ();
  folder = g_dir_make_tmp ("bench-run-XXXXXX", NULL);
  tilde_run_controller_set_runs_folder (bench.controller, folder);
  g_signal_connect (bench.controller, "finished", G_CALLBACK (finished_cb), &bench);
  g_signal_connect (bench.controller, "notify::running", G_CALLBACK (running_cb), &bench);

  window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (window, 1200, 900);
  plots = TILDE_RUN_PLOTS (tilde_run_plots_new ());
  tilde_run_plots_set_controller (plots, bench.controller);
  gtk_window_set_child (window, GTK_WIDGET (plots));
  gtk_window_present (window);
  while (!gtk_widget_get_mapped (GTK_WIDGET (plots)))
    g_main_context_iteration (NULL, TRUE);

  clock = gtk_widget_get_frame_clock (GTK_WIDGET (plots));
  g_signal_connect (clock, "before-paint", G_CALLBACK (before_paint_cb), &bench);
  g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint_cb), &bench);

  turn = g_timeout_add_full (G_PRIORITY_HIGH, 1, turn_cb, &bench, NULL);
  start = g_get_monotonic_time ();
  bench.start = start;
  bench.list_stalls = g_getenv ("TILDE_BENCH_LIST_STALLS") != NULL;
  tilde_run_controller_start (bench.controller, "bench", model, data, &settings);
  /* the four parameters as soon as the store exists */
  while (tilde_run_controller_get_draws (bench.controller) == NULL && !bench.finished)
    g_main_context_iteration (NULL, TRUE);
  tilde_run_plots_show_parameters (plots, shown);
  run_until_finished (&bench);
  seconds = (bench.stopped_at - start) / 1e6;
  g_source_remove (turn);
  for (guint c = 0; c < settings.sample.chains; c++)
    total += draws_of_chain (&bench, c);

  printf ("Streaming a run of %s: %u chains x (%u warm-up + %u draws), 4 traces, 1200 x 900 "
          "window\n\n", argv[1], settings.sample.chains, settings.sample.warmup,
          settings.sample.samples);
  printf ("| run seconds | draws streamed | frames | main-loop gap median | 99 %% | max "
          "| gaps over 16 ms | paint median | 95 %% | max | paint processor median | 95 %% "
          "| max |\n");
  printf ("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  printf ("| %.2f | %u | %u | %.2f ms | %.2f ms | %.2f ms | %u of %u | %.2f ms | %.2f ms "
          "| %.2f ms | %.2f ms | %.2f ms | %.2f ms |\n",
          seconds, total, bench.frames, percentile (bench.gaps, 0.5) / 1000,
          percentile (bench.gaps, 0.99) / 1000, percentile (bench.gaps, 1) / 1000,
          bench.long_gaps, bench.gaps->len,
          percentile (bench.paints, 0.5) / 1000, percentile (bench.paints, 0.95) / 1000,
          percentile (bench.paints, 1) / 1000, percentile (bench.paint_cpus, 0.5) / 1000,
          percentile (bench.paint_cpus, 0.95) / 1000, percentile (bench.paint_cpus, 1) / 1000);

  /* Stop: a long run stopped once its chains are sampling */
  settings.sample.samples = 10000000;
  bench.finished = FALSE;
  tilde_run_controller_start (bench.controller, "bench", model, data, &settings);
  while (draws_of_chain (&bench, 0) < settings.sample.warmup + 2000)
    g_main_context_iteration (NULL, TRUE);
  asked = g_get_monotonic_time ();
  tilde_run_controller_stop (bench.controller);
  run_until_finished (&bench);
  printf ("\nStop to the chains stopped (their last draws in the store): %.1f ms\n",
          (bench.stopped_at - asked) / 1000.0);

  gtk_window_destroy (window);
  g_object_unref (bench.controller);
  g_array_unref (bench.gaps);
  g_array_unref (bench.paints);
  g_array_unref (bench.paint_cpus);
  return 0;
}
