/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * How long the window's main loop stalls while someone types into a large
 * model. Opens the model in the real window, types statements into its
 * model block one character at a time on a timer (through the buffer, as
 * the key handler does), and records the gaps between frame clock ticks of
 * the editor, the time each keystroke's handlers take, and how long each
 * iteration of the main loop keeps the main thread from polling again:
 * its wall-clock time and the main thread's own CPU time, which other
 * processes on a busy machine do not inflate. Run once with live checking
 * (checks every 250 ms pause, as configured by default, and between bursts
 * of typing), once with checking held off, for reference, and once more
 * live with the compiler's output hidden. Needs an X server: xvfb-run.
 *
 *   bench-typing MODEL.stan [CHARACTERS] [INTERVAL_MS]
 */
#define G_LOG_DOMAIN "tilde"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <glib/gstdio.h>

#include "scratch.h"
#include "tilde-application.h"
#include "tilde-autosave.h"
#include "tilde-editor-private.h"
#include "tilde-window.h"

/* A statement typed again and again, with pauses after each line so that
 * checks run on half-written and finished text alike. */
static const char typed[] = "  alpha_0 ~ normal(mu_0[1], sigma_0);\n";

typedef struct {
  TildeEditor *editor;
  guint        n_chars;
  guint        interval_ms;
  guint        typed;
  guint        pause;        /* ticks of the typing timer left to wait */
  gint64       last_tick;
  gint64       max_gap;
  GArray      *gaps;         /* gint64 µs between frame ticks */
  gint64       max_keystroke;
  double       sum_keystroke;
  guint        checks_shown;
  gboolean     done;
} Run;

static TildeApplication *app;

/* ---- the main loop's iterations: from one poll to the next ---- */

typedef struct {
  GPollFunc poll;
  gboolean  recording;
  gint64    list_stalls;  /* CPU µs above which iterations are listed; 0: none */
  gint64    since_wall;
  gint64    since_cpu;
  GArray   *wall;         /* gint64 µs an iteration kept the thread */
  GArray   *cpu;          /* gint64 µs of the thread's CPU time in it */
} Iterations;

static Iterations iterations;

static gint64
thread_cpu_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static gint
timed_poll (GPollFD *fds, guint nfds, gint timeout)
{
  gint64 wall = g_get_monotonic_time (), cpu = thread_cpu_us ();
  gint result;

  if (iterations.recording && iterations.since_wall != 0)
    {
      gint64 w = wall - iterations.since_wall, c = cpu - iterations.since_cpu;

      g_array_append_val (iterations.wall, w);
      g_array_append_val (iterations.cpu, c);
      /* For a profiler's timeline (perf record -k mono): when they were. */
      if (iterations.list_stalls && c > iterations.list_stalls)
        printf ("stall: from %" G_GINT64_FORMAT " us (CLOCK_MONOTONIC), %.1f ms, CPU %.1f ms\n",
                iterations.since_wall, w / 1000.0, c / 1000.0);
    }
  result = iterations.poll (fds, nfds, timeout);
  iterations.since_wall = g_get_monotonic_time ();
  iterations.since_cpu = thread_cpu_us ();
  return result;
}

static gboolean
tick_cb (GtkWidget *widget, GdkFrameClock *clock, gpointer user_data)
{
  Run *run = user_data;
  gint64 now = g_get_monotonic_time ();

  if (run->last_tick != 0)
    {
      gint64 gap = now - run->last_tick;

      g_array_append_val (run->gaps, gap);
      run->max_gap = MAX (run->max_gap, gap);
    }
  run->last_tick = now;
  return run->done ? G_SOURCE_REMOVE : G_SOURCE_CONTINUE;
}

static gboolean
type_cb (gpointer user_data)
{
  Run *run = user_data;
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (tilde_editor_get_buffer (run->editor));
  char c;
  gint64 start, spent;

  if (run->typed >= run->n_chars)
    {
      run->done = TRUE;
      return G_SOURCE_REMOVE;
    }
  if (run->pause > 0)
    {
      run->pause--;
      return G_SOURCE_CONTINUE;
    }
  c = typed[run->typed % (sizeof typed - 1)];
  start = g_get_monotonic_time ();
  gtk_text_buffer_insert_interactive_at_cursor (buffer, &c, 1, TRUE);
  spent = g_get_monotonic_time () - start;
  run->max_keystroke = MAX (run->max_keystroke, spent);
  run->sum_keystroke += spent;
  run->typed++;
  /* A pause after each statement, long enough for a check. */
  if (c == '\n')
    run->pause = 600 / run->interval_ms;
  return G_SOURCE_CONTINUE;
}

static void
checked_cb (TildeEditor *editor, gpointer user_data)
{
  ((Run *) user_data)->checks_shown++;
}

static int
compare_gaps (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static gint64
percentile (GArray *values, double p)
{
  if (values->len == 0)
    return 0;
  g_array_sort (values, compare_gaps);
  return g_array_index (values, gint64, MIN ((guint) (values->len * p), values->len - 1));
}

static guint
count_over (GArray *values, gint64 limit)
{
  guint n = 0;

  for (guint i = 0; i < values->len; i++)
    n += g_array_index (values, gint64, i) > limit;
  return n;
}

static gboolean
window_ready (gpointer data)
{
  TildeWindow **window = data;
  GtkWindow *active = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (!TILDE_IS_WINDOW (active))
    return FALSE;
  *window = TILDE_WINDOW (active);
  return !tilde_window_is_loading (*window) && gtk_widget_get_mapped (GTK_WIDGET (*window))
         && !tilde_editor_get_checking (tilde_window_get_editor (*window));
}

static void
iterate_until (gboolean (*condition) (gpointer), gpointer data)
{
  while (!condition (data))
    g_main_context_iteration (NULL, TRUE);
}

static gboolean
run_done (gpointer data)
{
  return ((Run *) data)->done;
}

static void
settle (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE);
}

static void
type_into (TildeWindow *window, const char *label, gboolean live, guint n_chars, guint interval_ms)
{
  TildeEditor *editor = tilde_window_get_editor (window);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (tilde_editor_get_buffer (editor));
  GtkSourceView *view = tilde_editor_get_view (editor);
  Run run = { editor, n_chars, interval_ms, 0 };
  GtkTextIter start, match;
  gulong handler;
  guint ticks;
  gint64 p99;

  run.gaps = g_array_new (FALSE, FALSE, sizeof (gint64));
  /* The start of the model block, in the middle of the file. */
  gtk_text_buffer_get_start_iter (buffer, &start);
  if (!gtk_text_iter_forward_search (&start, "model {\n", 0, NULL, &match, NULL))
    g_error ("the model has no model block");
  gtk_text_buffer_place_cursor (buffer, &match);
  gtk_text_view_scroll_to_mark (GTK_TEXT_VIEW (view), gtk_text_buffer_get_insert (buffer),
                                0.2, FALSE, 0, 0);
  tilde_editor_set_check_delay (editor, live ? 250 : 60000);
  settle (500);

  handler = g_signal_connect (editor, "checked", G_CALLBACK (checked_cb), &run);
  gtk_widget_add_tick_callback (GTK_WIDGET (view), tick_cb, &run, NULL);
  g_timeout_add (interval_ms, type_cb, &run);
  g_array_set_size (iterations.wall, 0);
  g_array_set_size (iterations.cpu, 0);
  iterations.recording = TRUE;
  iterate_until (run_done, &run);
  settle (800);   /* the last check lands */
  iterations.recording = FALSE;
  g_signal_handler_disconnect (editor, handler);

  g_array_sort (run.gaps, compare_gaps);
  ticks = run.gaps->len;
  p99 = ticks ? g_array_index (run.gaps, gint64, (guint) (ticks * 0.99)) : 0;
  printf ("%-22s %6u chars  %5u frames  longest gap %7.1f ms  99th %6.1f ms  "
          "keystroke mean %5.2f ms max %6.2f ms  checks shown %u\n",
          label, run.typed, ticks, run.max_gap / 1000.0, p99 / 1000.0,
          run.sum_keystroke / MAX (run.typed, 1) / 1000.0, run.max_keystroke / 1000.0,
          run.checks_shown);
  printf ("%-22s %6u main-loop iterations  longest %7.1f ms (CPU %6.1f ms)  99th %5.1f ms "
          "(CPU %5.1f ms)  99.9th CPU %5.1f ms  over 16 ms: %u (CPU %u)\n",
          "", iterations.wall->len, percentile (iterations.wall, 1.0) / 1000.0,
          percentile (iterations.cpu, 1.0) / 1000.0, percentile (iterations.wall, 0.99) / 1000.0,
          percentile (iterations.cpu, 0.99) / 1000.0, percentile (iterations.cpu, 0.999) / 1000.0,
          count_over (iterations.wall, 16000), count_over (iterations.cpu, 16000));
  g_array_unref (run.gaps);
}

int
main (int argc, char *argv[])
{
  /* A cache and data folder of its own: the window's autosaved copies and
   * recent files are not the user's. */
  g_autofree char *home = g_dir_make_tmp ("tilde-bench-XXXXXX", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  TildeWindow *window = NULL;
  guint n_chars = argc > 2 ? (guint) atoi (argv[2]) : 400;
  guint interval_ms = argc > 3 ? (guint) atoi (argv[3]) : 40;

  if (argc < 2)
    {
      fprintf (stderr, "usage: %s MODEL.stan [CHARACTERS] [INTERVAL_MS]\n", argv[0]);
      return 2;
    }
  g_setenv ("XDG_CACHE_HOME", home, TRUE);
  g_setenv ("XDG_DATA_HOME", home, TRUE);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_setenv ("GSK_RENDERER", "cairo", FALSE);   /* Xvfb has no GPU; GL would be software */
  g_setenv ("GTK_A11Y", "none", TRUE);
  g_setenv ("ADW_DISABLE_PORTAL", "1", TRUE);
  gtk_init ();
  iterations.wall = g_array_new (FALSE, FALSE, sizeof (gint64));
  iterations.cpu = g_array_new (FALSE, FALSE, sizeof (gint64));
  iterations.poll = g_main_context_get_poll_func (NULL);
  /* TILDE_BENCH_LIST_STALLS lists the iterations over 16 ms of CPU, or
   * over $TILDE_BENCH_STALL_MS */
  if (g_getenv ("TILDE_BENCH_LIST_STALLS"))
    {
      const char *ms = g_getenv ("TILDE_BENCH_STALL_MS");
      gint64 limit = ms ? g_ascii_strtoll (ms, NULL, 10) : 16;
      iterations.list_stalls = (limit > 0 ? limit : 16) * 1000;
    }
  g_main_context_set_poll_func (NULL, timed_poll);

  app = tilde_application_new (G_APPLICATION_NON_UNIQUE);
  if (!g_application_register (G_APPLICATION (app), NULL, &error))
    g_error ("%s", error->message);
  file = g_file_new_for_commandline_arg (argv[1]);
  g_application_open (G_APPLICATION (app), &file, 1, "");
  iterate_until (window_ready, &window);
  {
    GtkTextBuffer *buffer = GTK_TEXT_BUFFER (tilde_window_get_buffer (window));
    printf ("model: %s, %d lines; typing one character every %u ms; renderer %s\n",
            argv[1], gtk_text_buffer_get_line_count (buffer), interval_ms,
            G_OBJECT_TYPE_NAME (gtk_native_get_renderer (GTK_NATIVE (window))));
  }

  type_into (window, "live checking", TRUE, n_chars, interval_ms);
  type_into (window, "checking held off", FALSE, n_chars, interval_ms);
  /* The compiler's output hidden: no compiles, nothing to follow the cursor. */
  g_object_set (window, "show-ir", FALSE, NULL);
  type_into (window, "live, no compiler view", TRUE, n_chars, interval_ms);

  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (tilde_window_get_buffer (window)), FALSE);
  gtk_window_destroy (GTK_WINDOW (window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_clear_object (&app);
  tilde_autosave_flush ();
  g_main_context_set_poll_func (NULL, iterations.poll);
  g_array_unref (iterations.wall);
  g_array_unref (iterations.cpu);
  tilde_scratch_folder_remove (home);
  return 0;
}
