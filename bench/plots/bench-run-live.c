/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The main loop while a real run streams into the plots: the run
 * controller samples a model (4 chains, 1,000 warm-up and 10,000 draws
 * each, warm-up kept) on its threads and hands the draws to the main
 * context in batches, while the window shows the parameter list and the
 * trace plot of four parameters (brought up when the run starts, as the
 * window's Run does). Records the gaps between turns of the
 * main loop (a 1 ms timer at high priority), how long each frame's layout
 * and paint took, the main thread's page faults (in the run, and in its
 * frame with the most), and how long the chains took to stop after Stop in
 * a last run. The first run lays out the plots' rows anew; the second runs
 * the model again with the same traces on screen, as an analyst does after
 * an edit; in the third the plots are on another page until a quarter of
 * the draws are made (their first frame then lays out and draws every row
 * at once). Needs an X server: xvfb-run.
 *
 *   bench-run-live MODEL.stan DATA.json [CHAINS WARMUP DRAWS [PARAMETERS]]
 *
 * PARAMETERS: the traces shown, comma-separated column names (by default
 * mu,tau,theta.1,theta.2). The heap policy of the window's program applies
 * (tilde-heap-policy.h), unless TILDE_BENCH_GLIBC_HEAP is set: glibc's own,
 * to compare; so does its renderer policy (tilde-renderer-policy.h): set
 * GSK_RENDERER to measure another renderer.
 */
#define G_LOG_DOMAIN "tilde"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "live-stats.h"
#include "scratch.h"
#include "tilde-frame-memory.h"
#include "tilde-heap-policy.h"
#include "tilde-renderer-policy.h"
#include "tilde-run-plots.h"

typedef struct
{
  TildeRunController *controller;
  LiveStats           stats;
  gboolean            finished;
  gint64              stopped_at;
} Bench;

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

/* The main loop's turns for `ms` milliseconds: the window's first frames. */
static void
settle (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE);
}

/* A quantile in ms. */
static double
pct (GArray *samples, double p)
{
  return live_stats_percentile (samples, p) / 1000;
}

/* The plots' page brought up, and the main loop turned until its first
 * frame and the turn after it (whose gap holds the frame) are recorded:
 * that frame's index. */
static guint
bring_up_plots (Bench *bench, GtkStack *stack, TildeRunPlots *plots)
{
  guint frame = bench->stats.frames, turns;

  gtk_stack_set_visible_child (stack, GTK_WIDGET (plots));
  while (bench->stats.frames == frame)
    g_main_context_iteration (NULL, TRUE);
  turns = bench->stats.gaps->len;
  while (bench->stats.gaps->len == turns)
    g_main_context_iteration (NULL, TRUE);
  return frame;
}

/* One run streamed into the plots, from Run to its last draws, as a row
 * of the table. With `stack`, the plots are on another page when the run
 * starts and are brought up once the chains have made `bring_up` draws
 * each: that frame's gap and processor time go to `*page_gap`, `*page_cpu`. */
static void
measure_run (Bench *bench, TildeRunPlots *plots, const char *model, const char *data,
             const TildeRunSettings *settings, const char *const *shown, const char *label,
             GtkStack *stack, guint bring_up, double *page_gap, double *page_cpu)
{
  guint total = 0;
  gint64 start;

  live_stats_restart (&bench->stats);
  start = bench->stats.start;
  bench->finished = FALSE;
  tilde_run_controller_start (bench->controller, "bench", model, data, settings);
  /* the traces as soon as the store exists */
  while (tilde_run_controller_get_draws (bench->controller) == NULL && !bench->finished)
    g_main_context_iteration (NULL, TRUE);
  tilde_run_plots_show_parameters (plots, shown);
  if (stack != NULL)
    {
      guint frame;

      while (draws_of_chain (bench, 0) < bring_up && !bench->finished)
        g_main_context_iteration (NULL, TRUE);
      frame = bring_up_plots (bench, stack, plots);
      *page_gap = g_array_index (bench->stats.gaps, double, bench->stats.gaps->len - 1) / 1000;
      *page_cpu = g_array_index (bench->stats.paint_cpus, double, frame) / 1000;
    }
  run_until_finished (bench);
  live_stats_stop (&bench->stats);
  for (guint c = 0; c < settings->sample.chains; c++)
    total += draws_of_chain (bench, c);
  printf ("| %s | %.2f | %u | %u | %.2f ms | %.2f ms | %.2f ms | %u of %u | %.2f ms | %.2f ms "
          "| %.2f ms | %.2f ms | %.2f ms | %.2f ms | %ld | %ld | %ld |\n",
          label, (bench->stopped_at - start) / 1e6, total, bench->stats.frames,
          pct (bench->stats.gaps, 0.5), pct (bench->stats.gaps, 0.99), pct (bench->stats.gaps, 1),
          bench->stats.long_gaps, bench->stats.gaps->len, pct (bench->stats.paints, 0.5),
          pct (bench->stats.paints, 0.95), pct (bench->stats.paints, 1),
          pct (bench->stats.paint_cpus, 0.5), pct (bench->stats.paint_cpus, 0.95),
          pct (bench->stats.paint_cpus, 1), live_stats_faults () - bench->stats.faults_start,
          bench->stats.most_paint_faults, bench->stats.most_gap_faults);
}

int
main (int argc, char *argv[])
{
  g_auto(GStrv) shown = NULL;
  Bench bench = { 0 };
  g_autofree char *model = NULL;
  g_autofree char *data = NULL;
  g_autofree char *folder = NULL;
  GtkWindow *window;
  TildeRunPlots *plots;
  GtkStack *stack;
  GtkWidget *source;
  TildeRunSettings settings;
  gint64 asked;
  double page_gap, page_paint, page_cpu, switch_gap = 0, switch_cpu = 0;

  /* as the window's program does */
  if (g_getenv ("TILDE_BENCH_GLIBC_HEAP") == NULL)
    tilde_heap_policy_apply ();
  tilde_renderer_policy_apply ();
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
  shown = g_strsplit (argc > 6 ? argv[6] : "mu,tau,theta.1,theta.2", ",", -1);
  settings.sample.seed = 1;
  settings.sample.seed_given = TRUE;

  live_stats_init (&bench.stats);
  bench.controller = tilde_run_controller_new ();
  /* the runs' files, some 26 MB a process, go when it exits */
  folder = tilde_scratch_folder_new ("bench-run");
  tilde_run_controller_set_runs_folder (bench.controller, folder);
  g_signal_connect (bench.controller, "finished", G_CALLBACK (finished_cb), &bench);
  g_signal_connect (bench.controller, "notify::running", G_CALLBACK (running_cb), &bench);

  /* As in the window (its frame memory kept too): another page is on
   * screen, and Run brings up the plots, whose first frames are part of
   * what is measured. */
  window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (window, 1200, 900);
  tilde_frame_memory_keep (window);
  stack = GTK_STACK (gtk_stack_new ());
  source = gtk_text_view_new ();
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (source)), model, -1);
  gtk_stack_add_named (stack, source, "model");
  plots = TILDE_RUN_PLOTS (tilde_run_plots_new ());
  tilde_run_plots_set_controller (plots, bench.controller);
  gtk_stack_add_named (stack, GTK_WIDGET (plots), "plots");
  gtk_window_set_child (window, GTK_WIDGET (stack));
  gtk_window_present (window);
  while (!gtk_widget_get_mapped (source))
    g_main_context_iteration (NULL, TRUE);
  settle (300);

  /* The plots' page comes up (its first paint, of the whole window, is
   * reported apart), and the run starts with the page on screen, as when
   * the analyst watching the plots runs the model again. */
  live_stats_watch (&bench.stats, GTK_WIDGET (stack));
  bring_up_plots (&bench, stack, plots);
  page_gap = pct (bench.stats.gaps, 1);
  page_paint = pct (bench.stats.paints, 1);
  page_cpu = pct (bench.stats.paint_cpus, 1);

  printf ("Streaming a run of %s: %u chains x (%u warm-up + %u draws), %u traces, 1200 x 900 "
          "window\n\n", argv[1], settings.sample.chains, settings.sample.warmup,
          settings.sample.samples, g_strv_length (shown));
  printf ("| run | seconds | draws streamed | frames | main-loop gap median | 99 %% | max "
          "| gaps over 16 ms | paint median | 95 %% | max | paint processor median | 95 %% "
          "| max | page faults | most in a frame | most between two turns |\n");
  printf ("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  measure_run (&bench, plots, model, data, &settings, (const char *const *) shown,
               "first, rows laid out", NULL, 0, NULL, NULL);
  /* the analyst reads the plots, then runs again */
  settle (300);
  measure_run (&bench, plots, model, data, &settings, (const char *const *) shown, "again",
               NULL, 0, NULL, NULL);
  /* the analyst watches the progress bars, and brings up the plots while
   * the chains sample */
  gtk_stack_set_visible_child (stack, source);
  settle (300);
  measure_run (&bench, plots, model, data, &settings, (const char *const *) shown,
               "plots brought up while sampling", stack,
               settings.sample.warmup + settings.sample.samples / 4, &switch_gap, &switch_cpu);

  printf ("\nThe plots' page shown before the first run (its first paint): longest main-loop "
          "gap %.2f ms, paint %.2f ms (%.2f ms of processor time)\n", page_gap,
          page_paint, page_cpu);
  printf ("The plots' page brought up while sampling (its first frame): main-loop gap %.2f ms, "
          "%.2f ms of processor time\n", switch_gap, switch_cpu);

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
  live_stats_clear (&bench.stats);
  return 0;
}
