/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Opening a data file in the data panel, and a keystroke in it, against
 * what GtkSourceView does alone (its file loader into a view that shows
 * the text and highlights it as JSON, as the panel did before it read
 * files itself). For each file: the wall time until the text is in and
 * the main loop is idle again (the view's measuring and highlighting
 * done), the main thread's CPU time in that, and the longest the main
 * loop went without a turn (a 1 ms timer at high priority); then the same
 * for one character typed in the middle of the file's longest line, or,
 * for data too wide to show, for Format Data (laid out on a thread, put
 * in, the view measuring it). Files written on one line (as JSON writers write them) and one of
 * 30,000 rows are made in a temporary folder. Needs an X server:
 * xvfb-run.
 *
 *   bench-data-load [FILE.json...]
 */
#define G_LOG_DOMAIN "tilde"

#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <glib/gstdio.h>

#include "tilde-data-panel.h"

/* The loader alone is not tried on files it would take minutes over. */
#define REFERENCE_LIMIT_BYTES (2 * 1024 * 1024)

typedef struct {
  double  wall_s;
  double  cpu_s;
  gint64  longest_us;
} Stall;

static gint64 last_turn, longest_turn;

static gboolean
turn (gpointer data)
{
  gint64 now = g_get_monotonic_time ();

  if (last_turn && now - last_turn > longest_turn)
    longest_turn = now - last_turn;
  last_turn = now;
  return G_SOURCE_CONTINUE;
}

static double
thread_cpu_s (void)
{
  struct rusage u;

  getrusage (RUSAGE_THREAD, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

static gboolean
set_flag (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Until nothing but the lowest idle is left to run, twice over a few
 * frames (highlighting and measuring come back in idle callbacks). */
static void
settle (void)
{
  for (int round = 0; round < 3; round++)
    {
      gboolean idle = FALSE, waited = FALSE;

      g_timeout_add (50, set_flag, &waited);
      while (!waited)
        g_main_context_iteration (NULL, TRUE);
      g_idle_add_full (G_PRIORITY_LOW + 100, set_flag, &idle, NULL);
      while (!idle)
        g_main_context_iteration (NULL, TRUE);
    }
}

static void
start (Stall *s, double *cpu0)
{
  settle ();
  last_turn = 0;
  longest_turn = 0;
  s->wall_s = g_get_monotonic_time () / 1e6;
  *cpu0 = thread_cpu_s ();
}

static void
stop (Stall *s, double cpu0)
{
  settle ();
  /* the settling's own 50 ms waits are not the file's */
  s->wall_s = g_get_monotonic_time () / 1e6 - s->wall_s - 0.150;
  s->cpu_s = thread_cpu_s () - cpu0;
  s->longest_us = longest_turn;
}

/* The middle of the longest line. */
static void
middle_of_longest_line (GtkTextBuffer *buffer, GtkTextIter *at)
{
  GtkTextIter line;
  int best = -1, best_chars = -1;

  gtk_text_buffer_get_start_iter (buffer, &line);
  do
    if (gtk_text_iter_get_chars_in_line (&line) > best_chars)
      best_chars = gtk_text_iter_get_chars_in_line (&line), best = gtk_text_iter_get_line (&line);
  while (gtk_text_iter_forward_line (&line));
  gtk_text_buffer_get_iter_at_line_offset (buffer, at, best, best_chars / 2);
}

static void
type_one (GtkTextBuffer *buffer, Stall *s)
{
  GtkTextIter at;
  double cpu0;

  middle_of_longest_line (buffer, &at);
  gtk_text_buffer_place_cursor (buffer, &at);
  start (s, &cpu0);
  gtk_text_buffer_insert_interactive_at_cursor (buffer, "7", 1, TRUE);
  stop (s, cpu0);
}

static GtkWindow *
window_with (GtkWidget *child)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());

  gtk_window_set_default_size (window, 800, 600);
  gtk_window_set_child (window, child);
  gtk_window_present (window);
  return window;
}

static void
result_ready (GObject *source, GAsyncResult *result, gpointer user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static void
bench_panel (const char *path, Stall *load, Stall *key, Stall *format)
{
  TildeDataPanel *panel = TILDE_DATA_PANEL (tilde_data_panel_new ());
  GtkWindow *window = window_with (GTK_WIDGET (panel));
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GAsyncResult) result = NULL;
  GtkTextView *view = GTK_TEXT_VIEW (tilde_data_panel_get_view (panel));
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (tilde_data_panel_get_buffer (panel));
  double cpu0;

  start (load, &cpu0);
  tilde_data_panel_load_async (panel, file, NULL, result_ready, &result);
  while (result == NULL || tilde_data_panel_get_checking (panel))
    g_main_context_iteration (NULL, TRUE);
  stop (load, cpu0);
  g_assert_true (tilde_data_panel_load_finish (panel, result, NULL));
  /* summarised text is not typed into, but formatted */
  if (gtk_text_view_get_buffer (view) == buffer)
    type_one (buffer, key);
  else
    {
      g_autoptr(GAsyncResult) formatted = NULL;

      start (format, &cpu0);
      tilde_data_panel_format_async (panel, NULL, result_ready, &formatted);
      while (formatted == NULL || tilde_data_panel_get_checking (panel))
        g_main_context_iteration (NULL, TRUE);
      stop (format, cpu0);
      g_assert_true (tilde_data_panel_format_finish (panel, formatted, NULL));
      key->wall_s = -1;
    }
  gtk_window_destroy (window);
}

static void
loaded (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_assert_true (gtk_source_file_loader_load_finish (GTK_SOURCE_FILE_LOADER (source), result, NULL));
  *(gboolean *) user_data = TRUE;
}

/* What the panel did before: GtkSourceView's loader into the shown
 * buffer, highlighted as JSON once in when under two million characters. */
static void
bench_reference (const char *path, Stall *load, Stall *key)
{
  GtkSourceLanguageManager *languages = gtk_source_language_manager_get_default ();
  GtkSourceBuffer *buffer = gtk_source_buffer_new (NULL);
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *view = gtk_source_view_new_with_buffer (buffer);
  GtkWindow *window;
  g_autoptr(GtkSourceFile) source_file = gtk_source_file_new ();
  g_autoptr(GtkSourceFileLoader) loader = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (path);
  gboolean done = FALSE;
  double cpu0;

  gtk_source_view_set_show_line_numbers (GTK_SOURCE_VIEW (view), TRUE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (view), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), view);
  window = window_with (scrolled);
  gtk_source_file_set_location (source_file, file);
  loader = gtk_source_file_loader_new (buffer, source_file);
  start (load, &cpu0);
  gtk_source_file_loader_load_async (loader, G_PRIORITY_DEFAULT, NULL, NULL, NULL, NULL, loaded, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
  if (gtk_text_buffer_get_char_count (GTK_TEXT_BUFFER (buffer)) <= 2 * 1024 * 1024)
    gtk_source_buffer_set_language (buffer, gtk_source_language_manager_get_language (languages, "json"));
  stop (load, cpu0);
  type_one (GTK_TEXT_BUFFER (buffer), key);
  gtk_window_destroy (window);
  g_object_unref (buffer);
}

static char *
write_one_line (const char *dir, const char *name, int n)
{
  char *path = g_build_filename (dir, name, NULL);
  GString *text = g_string_new ("{\"N\": ");

  g_string_append_printf (text, "%d, \"y\": [", n);
  for (int i = 0; i < n; i++)
    g_string_append_printf (text, "%s%.6f", i ? ", " : "", (((gint64) i * 7919) % 100003) / 50001.5 - 1);
  g_string_append (text, "]}\n");
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
  g_string_free (text, TRUE);
  return path;
}

static char *
write_rows (const char *dir, const char *name, int rows, int cols)
{
  char *path = g_build_filename (dir, name, NULL);
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "{\n  \"N\": %d,\n  \"K\": %d,\n  \"x\": [\n", rows, cols);
  for (int r = 0; r < rows; r++)
    {
      g_string_append (text, "    [");
      for (int k = 0; k < cols; k++)
        g_string_append_printf (text, "%s%.6f", k ? ", " : "", (((gint64) (r * cols + k) * 7919) % 100003) / 50001.5 - 1);
      g_string_append (text, r + 1 < rows ? "],\n" : "]\n");
    }
  g_string_append (text, "  ]\n}\n");
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
  g_string_free (text, TRUE);
  return path;
}

static void
print_stall (const char *what, const Stall *s)
{
  if (s->wall_s < 0)
    printf (" | %-26s", what);
  else
    printf (" | %7.2f s, %6.2f s CPU, %5.0f ms", s->wall_s, s->cpu_s, s->longest_us / 1e3);
}

int
main (int argc, char *argv[])
{
  g_autofree char *dir = NULL;
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);

  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_setenv ("GTK_A11Y", "none", TRUE);
  gtk_init ();
  gtk_source_init ();
  g_timeout_add_full (G_PRIORITY_HIGH, 1, turn, NULL, NULL);

  if (argc > 1)
    for (int i = 1; i < argc; i++)
      g_ptr_array_add (paths, g_strdup (argv[i]));
  else
    {
      dir = g_dir_make_tmp ("bench-data-load-XXXXXX", NULL);
      g_ptr_array_add (paths, write_one_line (dir, "one-line-3000.json", 3000));
      g_ptr_array_add (paths, write_one_line (dir, "one-line-100000.json", 100000));
      g_ptr_array_add (paths, write_one_line (dir, "one-line-1000000.json", 1000000));
      g_ptr_array_add (paths, write_rows (dir, "rows-30000x100.json", 30000, 100));
    }

  printf ("Load: wall until idle, the main thread's CPU, the longest main-loop gap; then one keystroke\n"
          "in the middle of the longest line, or Format Data for data too wide to show, the same.\n\n");
  printf ("| file | size | GtkSourceView alone: load | keystroke | data panel: load | keystroke "
          "| Format Data |\n");
  printf ("|---|---:|---|---|---|---|---|\n");
  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = paths->pdata[i];
      GStatBuf st;
      Stall load = { 0 }, key = { 0 }, format = { -1, 0, 0 }, ref_load = { -1, 0, 0 };
      Stall ref_key = { -1, 0, 0 };
      g_autofree char *base = g_path_get_basename (path);
      g_autofree char *size = NULL;

      g_assert_true (g_stat (path, &st) == 0);
      size = g_format_size ((guint64) st.st_size);
      if (st.st_size <= REFERENCE_LIMIT_BYTES || strstr (base, "rows") != NULL)
        bench_reference (path, &ref_load, &ref_key);
      bench_panel (path, &load, &key, &format);
      printf ("| %s | %s", base, size);
      print_stall ("not tried (minutes)", &ref_load);
      print_stall ("", &ref_key);
      print_stall ("", &load);
      print_stall ("summarised: not typed in", &key);
      print_stall ("", &format);
      printf (" |\n");
      fflush (stdout);
    }
  if (dir != NULL)
    {
      for (guint i = 0; i < paths->len; i++)
        g_unlink (paths->pdata[i]);
      g_rmdir (dir);
    }
  return 0;
}
