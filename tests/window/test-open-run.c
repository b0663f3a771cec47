/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Opening a saved run from the application's window: a run of the eight
 * schools example is saved with options that differ from the defaults;
 * opened into a window that holds another model it comes up in a new
 * window with the run's model, data, options and summary, the first
 * window as it was; opened into the window that holds its model it only
 * brings back the results; a folder that is not a run, a corrupt
 * options.json, a missing or corrupt CSV file each give a message naming
 * the file and change nothing. Run under an X server (Xvfb).
 */
#define G_LOG_DOMAIN "tilde-test"

#include <glib/gstdio.h>
#include <string.h>

#include "config.h"
#include "tilde-application-private.h"
#include "tilde-autosave.h"
#include "tilde-run-summary.h"
#include "tilde-window-private.h"
#include "window-test-util.h"

#define wait_for window_test_wait_for

static TildeApplication *app;

static gboolean
data_loaded (gpointer data)
{
  TildeDataPanel *panel = _tilde_window_get_data_panel (data);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (tilde_data_panel_get_buffer (panel));

  return gtk_text_buffer_get_char_count (buffer) > 0;
}

static TildeWindow *
open_eight_schools (void)
{
  g_autofree char *path = window_test_example_path ("eight_schools.stan");
  TildeWindow *window = window_test_open (GTK_APPLICATION (app), path);

  g_assert_true (wait_for (data_loaded, window));
  return window;
}

static TildeRunController *
controller_of (TildeWindow *window)
{
  return tilde_run_panel_get_controller (_tilde_window_get_run_panel (window));
}

static TildeSummaryView *
summary_view_of (TildeWindow *window)
{
  GtkWidget *stack = gtk_widget_get_ancestor (GTK_WIDGET (_tilde_window_get_run_panel (window)),
                                              GTK_TYPE_STACK);
  GtkWidget *summary = gtk_stack_get_child_by_name (GTK_STACK (stack), "summary");

  return tilde_run_summary_get_view (TILDE_RUN_SUMMARY (summary));
}

static char *
text_of (GtkSourceBuffer *source)
{
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (GTK_TEXT_BUFFER (source), &start, &end);
  return gtk_text_buffer_get_text (GTK_TEXT_BUFFER (source), &start, &end, FALSE);
}

static char *
file_text (const char *folder, const char *name)
{
  g_autofree char *path = g_build_filename (folder, name, NULL);
  g_autoptr(GError) error = NULL;
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  return text;
}

/* The editor keeps the text less the newline that saving adds back. */
static void
assert_same_text (const char *shown, const char *saved)
{
  g_autofree char *a = g_strchomp (g_strdup (shown));
  g_autofree char *b = g_strchomp (g_strdup (saved));

  g_assert_cmpstr (a, ==, b);
}

static gboolean
flag_set (gpointer data)
{
  return *(gboolean *) data;
}

static void
note_finished (TildeRunController *controller, const GError *error, gboolean *done)
{
  *done = TRUE;
}

/* Runs the window's model with these options and waits for its end. */
static void
run_with (TildeWindow *window, const TildeRunSettings *settings)
{
  TildeRunController *controller = controller_of (window);
  gboolean done = FALSE;
  gulong id = g_signal_connect (controller, "finished", G_CALLBACK (note_finished), &done);

  tilde_run_panel_set_run_settings (_tilde_window_get_run_panel (window), settings);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (window_test_wait_for_ms (flag_set, &done, 120000));
  g_signal_handler_disconnect (controller, id);
  g_assert_nonnull (tilde_run_controller_get_summary (controller));
}

/* Options unlike the defaults, so that their coming back means something. */
static void
unusual_settings (TildeWindow *window, TildeRunSettings *s)
{
  tilde_run_panel_get_run_settings (_tilde_window_get_run_panel (window), s);
  s->method = TILDE_RUN_SAMPLE;
  s->level = MIR_OPT_O1;
  s->sample.chains = 3;
  s->sample.warmup = 150;
  s->sample.samples = 120;
  s->sample.thin = 2;
  s->sample.seed = 913;
  s->sample.seed_given = TRUE;
  s->sample.metric = TILDE_METRIC_DENSE;
  s->sample.max_depth = 8;
  s->sample.adapt_options.delta = 0.9;
}

static char *
saved_run (TildeWindow *window, const char *name)
{
  char *folder = g_build_filename (window_test_home (), name, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (tilde_run_controller_save (controller_of (window), folder, &error));
  g_assert_no_error (error);
  return folder;
}

typedef struct {
  gboolean     done;
  TildeWindow *window;
  GError      *error;
} Opened;

static void
run_opened (GObject *source, GAsyncResult *result, gpointer data)
{
  Opened *opened = data;

  opened->window = _tilde_window_open_run_finish (TILDE_WINDOW (source), result, &opened->error);
  opened->done = TRUE;
}

static void
open_run (TildeWindow *window, const char *folder, Opened *opened)
{
  *opened = (Opened) { FALSE, NULL, NULL };
  _tilde_window_open_run_async (window, folder, run_opened, opened);
  g_assert_true (window_test_wait_for_ms (flag_set, &opened->done, 60000));
}

static guint
n_windows (void)
{
  return g_list_length (gtk_application_get_windows (GTK_APPLICATION (app)));
}

static char *
mean_cell (TildeWindow *window, guint row)
{
  return tilde_summary_view_get_cell_text (summary_view_of (window), row,
                                           TILDE_SUMMARY_COLUMN_MEAN);
}

static void
test_open_into_new_window (void)
{
  static const char other_model[] = "parameters {\n  real z;\n}\nmodel {\n  z ~ std_normal();\n}\n";
  TildeWindow *first = open_eight_schools ();
  GtkTextBuffer *first_buffer = GTK_TEXT_BUFFER (tilde_window_get_buffer (first));
  TildeWindow *second;
  TildeRunSettings s, shown;
  g_autofree char *folder = NULL;
  g_autofree char *model = NULL;
  g_autofree char *data = NULL;
  g_autofree char *editor_text = NULL;
  g_autofree char *data_text = NULL;
  g_autofree char *first_text = NULL;
  g_autofree char *first_mean = NULL;
  g_autofree char *level = NULL;
  guint n_rows;
  Opened opened;

  unusual_settings (first, &s);
  run_with (first, &s);
  folder = saved_run (first, "eight-schools-run");
  n_rows = tilde_summary_view_get_n_rows (summary_view_of (first));
  first_mean = mean_cell (first, 1);

  /* the first window goes on with another model, not saved */
  {
    GtkTextIter start, end;

    gtk_text_buffer_get_bounds (first_buffer, &start, &end);
    gtk_text_buffer_delete (first_buffer, &start, &end);
    gtk_text_buffer_insert_at_cursor (first_buffer, other_model, -1);
  }
  g_assert_true (gtk_text_buffer_get_modified (first_buffer));

  open_run (first, folder, &opened);
  g_assert_no_error (opened.error);
  second = opened.window;
  g_assert_nonnull (second);
  g_assert_true (second != first);
  g_assert_cmpuint (n_windows (), ==, 2);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (second)));

  /* the new window: the run's model, untitled and unmodified, named after the run */
  model = file_text (folder, "model.stan");
  g_assert_nonnull (strstr (model, "theta_tilde"));
  editor_text = text_of (tilde_window_get_buffer (second));
  assert_same_text (editor_text, model);
  g_assert_null (tilde_window_get_file (second));
  g_assert_false (gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (tilde_window_get_buffer (second))));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (second)), ==, "eight-schools-run");

  /* its data */
  data = file_text (folder, "data.json");
  g_assert_nonnull (strstr (data, "\"J\""));
  data_text = text_of (tilde_data_panel_get_buffer (_tilde_window_get_data_panel (second)));
  assert_same_text (data_text, data);

  /* its options */
  tilde_run_panel_get_run_settings (_tilde_window_get_run_panel (second), &shown);
  g_assert_cmpuint (shown.sample.chains, ==, 3);
  g_assert_cmpuint (shown.sample.warmup, ==, 150);
  g_assert_cmpuint (shown.sample.samples, ==, 120);
  g_assert_cmpuint (shown.sample.thin, ==, 2);
  g_assert_true (shown.sample.seed_given);
  g_assert_cmpuint (shown.sample.seed, ==, 913);
  g_assert_cmpint (shown.sample.metric, ==, TILDE_METRIC_DENSE);
  g_assert_cmpuint (shown.sample.max_depth, ==, 8);
  g_assert_cmpfloat_with_epsilon (shown.sample.adapt_options.delta, 0.9, 1e-9);
  g_assert_cmpint (shown.level, ==, MIR_OPT_O1);
  g_object_get (second, "optimization-level", &level, NULL);
  g_assert_cmpstr (level, ==, "1");

  /* its results */
  g_assert_cmpuint (tilde_summary_view_get_n_rows (summary_view_of (second)), ==, n_rows);
  for (guint row = 1; row < 4; row++)
    {
      g_autofree char *a = mean_cell (first, row);
      g_autofree char *b = mean_cell (second, row);

      g_assert_cmpstr (a, ==, b);
    }
  g_assert_cmpuint (tilde_draws_get_n_chains (tilde_run_controller_get_draws (controller_of (second))),
                    ==, 3);

  /* the first window as it was */
  first_text = text_of (tilde_window_get_buffer (first));
  g_assert_cmpstr (first_text, ==, other_model);
  g_assert_true (gtk_text_buffer_get_modified (first_buffer));
  g_assert_nonnull (tilde_window_get_file (first));
  {
    g_autofree char *again = mean_cell (first, 1);

    g_assert_cmpstr (again, ==, first_mean);
  }

  /* opened, it is named after its model as its files name it */
  g_assert_cmpstr (tilde_run_controller_get_model_name (controller_of (second)), ==, "eight_schools");

  /* the reopened analysis goes on: it runs again as it is, under the
   * model's name rather than a generic one */
  run_with (second, &shown);
  g_assert_cmpuint (tilde_summary_view_get_n_rows (summary_view_of (second)), ==, n_rows);
  g_assert_cmpstr (tilde_run_controller_get_model_name (controller_of (second)), ==, "eight_schools");
  {
    g_autofree char *base = g_path_get_basename (tilde_run_controller_get_folder (controller_of (second)));

    g_test_message ("the re-run's folder: %s", base);
    g_assert_true (g_str_has_prefix (base, "eight_schools-"));
  }

  g_object_unref (opened.window);
  window_test_close_all (GTK_APPLICATION (app));
}

static void
test_open_into_same_model (void)
{
  TildeWindow *window = open_eight_schools ();
  TildeRunController *controller = controller_of (window);
  TildeRunSettings s, other, shown;
  g_autofree char *folder = NULL;
  g_autofree char *mean = NULL;
  g_autofree char *reopened = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  Opened opened;

  unusual_settings (window, &s);
  run_with (window, &s);
  folder = saved_run (window, "same-model-run");
  mean = mean_cell (window, 1);

  /* another run in between, one chain */
  other = s;
  other.sample.chains = 1;
  other.sample.seed = 5;
  run_with (window, &other);
  g_assert_cmpuint (tilde_draws_get_n_chains (tilde_run_controller_get_draws (controller)), ==, 1);
  before = text_of (tilde_window_get_buffer (window));

  open_run (window, folder, &opened);
  g_assert_no_error (opened.error);
  g_assert_true (opened.window == window);
  g_assert_cmpuint (n_windows (), ==, 1);
  reopened = mean_cell (window, 1);
  g_assert_cmpstr (reopened, ==, mean);
  g_assert_cmpuint (tilde_draws_get_n_chains (tilde_run_controller_get_draws (controller)), ==, 3);
  tilde_run_panel_get_run_settings (_tilde_window_get_run_panel (window), &shown);
  g_assert_cmpuint (shown.sample.chains, ==, 3);
  g_assert_cmpuint (shown.sample.seed, ==, 913);
  /* the texts left alone: still the example's file */
  after = text_of (tilde_window_get_buffer (window));
  g_assert_cmpstr (after, ==, before);
  g_assert_nonnull (tilde_window_get_file (window));
  g_assert_false (gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (tilde_window_get_buffer (window))));

  g_object_unref (opened.window);
  window_test_close_all (GTK_APPLICATION (app));
}

static void
copy_run (const char *from, const char *to)
{
  g_autoptr(GDir) dir = g_dir_open (from, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  g_assert_cmpint (g_mkdir_with_parents (to, 0755), ==, 0);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *text = file_text (from, name);
      g_autofree char *path = g_build_filename (to, name, NULL);

      g_assert_true (g_file_set_contents (path, text, -1, NULL));
    }
}

static void
write_file (const char *folder, const char *name, const char *text)
{
  g_autofree char *path = g_build_filename (folder, name, NULL);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

static void
remove_file (const char *folder, const char *name)
{
  g_autofree char *path = g_build_filename (folder, name, NULL);

  g_assert_cmpint (g_remove (path), ==, 0);
}

/* Opens `folder` and expects an error naming `file`, the window as it was. */
static void
assert_not_opened (TildeWindow *window, const char *folder, const char *file)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (tilde_window_get_buffer (window));
  g_autofree char *before = text_of (tilde_window_get_buffer (window));
  g_autofree char *mean = mean_cell (window, 1);
  g_autofree char *after = NULL;
  g_autofree char *mean_after = NULL;
  gboolean modified = gtk_text_buffer_get_modified (buffer);
  Opened opened;

  open_run (window, folder, &opened);
  g_assert_null (opened.window);
  g_assert_nonnull (opened.error);
  g_test_message ("%s", opened.error->message);
  g_assert_nonnull (strstr (opened.error->message, file));
  g_assert_cmpuint (n_windows (), ==, 1);
  after = text_of (tilde_window_get_buffer (window));
  g_assert_cmpstr (after, ==, before);
  g_assert_true (gtk_text_buffer_get_modified (buffer) == modified);
  mean_after = mean_cell (window, 1);
  g_assert_cmpstr (mean_after, ==, mean);
  g_assert_false (tilde_run_controller_get_busy (controller_of (window)));
  g_clear_error (&opened.error);
}

static void
test_broken_runs (void)
{
  TildeWindow *window = open_eight_schools ();
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (tilde_window_get_buffer (window));
  g_autofree char *empty = g_build_filename (window_test_home (), "not-a-run", NULL);
  g_autofree char *bad_options = g_build_filename (window_test_home (), "bad-options", NULL);
  g_autofree char *no_csv = g_build_filename (window_test_home (), "no-csv", NULL);
  g_autofree char *bad_csv = g_build_filename (window_test_home (), "bad-csv", NULL);
  g_autofree char *folder = NULL;
  TildeRunSettings s;

  unusual_settings (window, &s);
  s.sample.chains = 2;
  run_with (window, &s);
  folder = saved_run (window, "good-run");
  /* unsaved work in the window */
  gtk_text_buffer_insert_at_cursor (buffer, "// to be kept\n", -1);

  g_assert_cmpint (g_mkdir_with_parents (empty, 0755), ==, 0);
  assert_not_opened (window, empty, "options.json");

  copy_run (folder, bad_options);
  write_file (bad_options, "options.json", "{\"chains\": ");
  assert_not_opened (window, bad_options, "options.json");

  copy_run (folder, no_csv);
  remove_file (no_csv, "output_2.csv");
  assert_not_opened (window, no_csv, "output_2.csv");

  copy_run (folder, bad_csv);
  write_file (bad_csv, "output_1.csv", "lp__,mu\n0.5,not-a-number\n");
  assert_not_opened (window, bad_csv, "output_1.csv");

  /* the good one still opens, in a new window: this one has unsaved work */
  {
    Opened opened;

    open_run (window, folder, &opened);
    g_assert_no_error (opened.error);
    g_assert_true (opened.window != window);
    g_assert_cmpuint (n_windows (), ==, 2);
    g_object_unref (opened.window);
  }
  window_test_close_all (GTK_APPLICATION (app));
}

static gboolean
has_two_windows (gpointer data)
{
  return n_windows () == 2;
}

static gboolean
summary_filled (gpointer data)
{
  return tilde_summary_view_get_n_rows (summary_view_of (data)) > 0;
}

/* What the summary page's Open Run does with the folder chosen: an empty
 * window takes the run, texts and all, and no other window opens. */
static void
test_open_from_the_summary_page (void)
{
  TildeWindow *window = open_eight_schools ();
  TildeWindow *empty;
  TildeRunSettings s, shown;
  g_autofree char *folder = NULL;
  g_autofree char *editor_text = NULL;
  g_autofree char *model = NULL;
  GtkWidget *stack;
  gboolean handled = FALSE;

  unusual_settings (window, &s);
  s.sample.chains = 2;
  run_with (window, &s);
  folder = saved_run (window, "from-the-summary");

  /* a new, empty window beside it */
  g_action_group_activate_action (G_ACTION_GROUP (app), "new-window", NULL);
  g_assert_true (wait_for (has_two_windows, NULL));
  empty = TILDE_WINDOW (gtk_application_get_active_window (GTK_APPLICATION (app)));
  g_assert_true (empty != window);
  g_assert_true (tilde_window_is_pristine (empty));

  stack = gtk_widget_get_ancestor (GTK_WIDGET (_tilde_window_get_run_panel (empty)), GTK_TYPE_STACK);
  g_signal_emit_by_name (gtk_stack_get_child_by_name (GTK_STACK (stack), "summary"), "open-run",
                         folder, &handled);
  g_assert_true (handled);
  g_assert_true (wait_for (summary_filled, empty));
  g_assert_cmpuint (n_windows (), ==, 2);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (stack)), ==, "summary");
  model = file_text (folder, "model.stan");
  editor_text = text_of (tilde_window_get_buffer (empty));
  assert_same_text (editor_text, model);
  tilde_run_panel_get_run_settings (_tilde_window_get_run_panel (empty), &shown);
  g_assert_cmpuint (shown.sample.chains, ==, 2);
  g_assert_cmpuint (shown.sample.seed, ==, 913);
  window_test_close_all (GTK_APPLICATION (app));
}

int
main (int argc, char *argv[])
{
  g_autoptr(GError) error = NULL;
  int status;

  window_test_isolate_home ();
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_setenv ("GSK_RENDERER", "cairo", FALSE);
  g_setenv ("GTK_A11Y", "none", TRUE);
  g_setenv ("ADW_DISABLE_PORTAL", "1", TRUE);
  gtk_test_init (&argc, &argv, NULL);

  app = tilde_application_new (G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);

  g_test_add_func ("/open-run/into-a-new-window", test_open_into_new_window);
  g_test_add_func ("/open-run/into-the-same-model", test_open_into_same_model);
  g_test_add_func ("/open-run/broken-runs", test_broken_runs);
  g_test_add_func ("/open-run/from-the-summary-page", test_open_from_the_summary_page);
  status = g_test_run ();
  g_clear_object (&app);
  tilde_autosave_flush ();
  window_test_remove_home ();
  return status;
}
