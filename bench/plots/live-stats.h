/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the live benchmarks measure of the main loop while draws stream: the
 * gaps between its turns (a 1 ms timer at high priority) and each frame's
 * layout and paint, in wall-clock and in the main thread's processor time. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef struct
{
  gint64   start;          /* when live_stats_watch() began */
  gint64   last_turn;
  GArray  *gaps;           /* double µs between turns of the main loop */
  GArray  *paints;         /* double µs from before-paint to after-paint */
  GArray  *paint_cpus;     /* the same in processor time of the main thread */
  gint64   paint_start;
  double   paint_cpu_start;
  long     paint_faults_start;
  long     last_paint_faults; /* page faults of the main thread in the last frame */
  long     most_paint_faults; /* and in the frame with the most since the restart */
  long     faults_start;      /* the main thread's page faults at the restart */
  long     turn_faults_start; /* and at the last turn */
  long     most_gap_faults;   /* in the gap between two turns with the most */
  guint    long_gaps;      /* gaps over 16 ms */
  guint    frames;
  gboolean list_stalls;    /* $TILDE_BENCH_LIST_STALLS: each long gap on stderr, */
  double   list_over;      /* µs: those over $TILDE_BENCH_STALL_MS (16) */
  guint    turn_source;
} LiveStats;

/* Page faults of this thread so far (0 where they are not counted). */
long   live_stats_faults     (void);
/* Processor time of this thread in µs: on a shared machine the wall clock
 * also counts the time other jobs had the processor. */
double live_stats_cpu_us     (void);
/* The p-quantile (0..1) of `samples` (doubles, sorted in place); 0 when empty. */
double live_stats_percentile (GArray *samples, double p);

void   live_stats_init       (LiveStats *stats);
/* Starts recording: the frames of `widget`'s frame clock and the turns. */
void   live_stats_watch      (LiveStats *stats, GtkWidget *widget);
/* Forgets what was recorded so far and records on from here (the turns
 * again, if stopped). */
void   live_stats_restart    (LiveStats *stats);
/* Stops recording the turns (frames are counted while the widget lives). */
void   live_stats_stop       (LiveStats *stats);
void   live_stats_clear      (LiveStats *stats);

G_END_DECLS
