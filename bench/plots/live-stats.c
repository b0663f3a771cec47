/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"
#define _GNU_SOURCE /* RUSAGE_THREAD */

#include "live-stats.h"

#include <math.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

double
live_stats_cpu_us (void)
{
  struct timespec now;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &now);
  return now.tv_sec * 1e6 + now.tv_nsec / 1e3;
}

/* Page faults of this thread so far (0 where not counted): a fresh page
 * costs a fault, and on a virtual machine a frame that touches megabytes of
 * new memory spends most of its time in them. */
long
live_stats_faults (void)
{
#ifdef RUSAGE_THREAD
  struct rusage usage;

  if (getrusage (RUSAGE_THREAD, &usage) == 0)
    return usage.ru_minflt + usage.ru_majflt;
#endif
  return 0;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

double
live_stats_percentile (GArray *samples, double p)
{
  double *values = (double *) (void *) samples->data;

  if (samples->len == 0)
    return 0;
  qsort (values, samples->len, sizeof (double), compare_doubles);
  return values[(guint) MIN (floor (p * samples->len), samples->len - 1)];
}

static double
last_of (GArray *samples)
{
  return samples->len ? g_array_index (samples, double, samples->len - 1) : 0.0;
}

static gboolean
turn_cb (gpointer data)
{
  LiveStats *stats = data;
  gint64 now = g_get_monotonic_time ();
  long faults = live_stats_faults ();
  long gap_faults = faults - stats->turn_faults_start;

  stats->turn_faults_start = faults;
  if (stats->last_turn != 0)
    {
      double gap = (double) (now - stats->last_turn);

      /* frames or not: a turn that takes the draws in faults too */
      stats->most_gap_faults = MAX (stats->most_gap_faults, gap_faults);

      g_array_append_val (stats->gaps, gap);
      stats->long_gaps += gap > 16000;
      if (stats->list_stalls && gap > stats->list_over)
        g_printerr ("gap %.1f ms at %.0f ms (%.6f s CLOCK_MONOTONIC, for perf record -k mono), "
                    "after frame %u (its paint %.1f ms, %.1f ms of CPU, %ld page faults); "
                    "%ld page faults in the gap\n",
                    gap / 1000, (now - stats->start) / 1000.0, (now - gap) / 1e6, stats->frames,
                    last_of (stats->paints) / 1000, last_of (stats->paint_cpus) / 1000,
                    stats->last_paint_faults, gap_faults);
    }
  stats->last_turn = now;
  return G_SOURCE_CONTINUE;
}

static void
before_paint_cb (GdkFrameClock *clock, LiveStats *stats)
{
  stats->paint_start = g_get_monotonic_time ();
  stats->paint_cpu_start = live_stats_cpu_us ();
  stats->paint_faults_start = live_stats_faults ();
}

static void
after_paint_cb (GdkFrameClock *clock, LiveStats *stats)
{
  double spent = (double) (g_get_monotonic_time () - stats->paint_start);
  double cpu = live_stats_cpu_us () - stats->paint_cpu_start;

  g_array_append_val (stats->paints, spent);
  g_array_append_val (stats->paint_cpus, cpu);
  stats->last_paint_faults = live_stats_faults () - stats->paint_faults_start;
  stats->most_paint_faults = MAX (stats->most_paint_faults, stats->last_paint_faults);
  stats->frames++;
}

void
live_stats_init (LiveStats *stats)
{
  *stats = (LiveStats) { 0 };
  stats->gaps = g_array_new (FALSE, FALSE, sizeof (double));
  stats->paints = g_array_new (FALSE, FALSE, sizeof (double));
  stats->paint_cpus = g_array_new (FALSE, FALSE, sizeof (double));
  stats->list_stalls = g_getenv ("TILDE_BENCH_LIST_STALLS") != NULL;
  stats->list_over = g_getenv ("TILDE_BENCH_STALL_MS")
                     ? g_ascii_strtod (g_getenv ("TILDE_BENCH_STALL_MS"), NULL) * 1000 : 16000;
}

/* The 1 ms timer whose turns are counted, from a fresh start. */
static void
start_turns (LiveStats *stats)
{
  stats->last_turn = 0;
  stats->turn_source = g_timeout_add_full (G_PRIORITY_HIGH, 1, turn_cb, stats, NULL);
}

void
live_stats_watch (LiveStats *stats, GtkWidget *widget)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (widget);

  g_signal_connect (clock, "before-paint", G_CALLBACK (before_paint_cb), stats);
  g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint_cb), stats);
  start_turns (stats);
  stats->faults_start = live_stats_faults ();
  stats->start = g_get_monotonic_time ();
}

void
live_stats_restart (LiveStats *stats)
{
  g_array_set_size (stats->gaps, 0);
  g_array_set_size (stats->paints, 0);
  g_array_set_size (stats->paint_cpus, 0);
  stats->long_gaps = 0;
  stats->frames = 0;
  stats->most_paint_faults = 0;
  stats->most_gap_faults = 0;
  stats->faults_start = live_stats_faults ();
  stats->start = g_get_monotonic_time ();
  if (stats->turn_source == 0)
    start_turns (stats);
}

void
live_stats_stop (LiveStats *stats)
{
  g_clear_handle_id (&stats->turn_source, g_source_remove);
}

void
live_stats_clear (LiveStats *stats)
{
  live_stats_stop (stats);
  g_clear_pointer (&stats->gaps, g_array_unref);
  g_clear_pointer (&stats->paints, g_array_unref);
  g_clear_pointer (&stats->paint_cpus, g_array_unref);
}
