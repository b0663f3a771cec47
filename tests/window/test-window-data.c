/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The data panel in the window, used as a person uses it: opening a model
 * brings the data next to it; the data are checked against the model in
 * the editor, as it is typed; a template fills the data of a new model;
 * unsaved data are asked about on close, saved from there, and kept in
 * the autosaved copy, from which they come back after a crash. Run under
 * an X server (Xvfb).
 */
#define G_LOG_DOMAIN "tilde-test"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tilde-application-private.h"
#include "scratch.h"
#include "tilde-autosave.h"
#include "tilde-data-panel-private.h"
#include "tilde-window-private.h"
#include "window-test-util.h"

#define wait_for window_test_wait_for

static TildeApplication *app;

/* ---- helpers ---- */

/* A copy of an example model (and of its data, under `data_name`, unless
 * NULL) in a new folder, so that the test may change and save them. */
static char *
copy_example (const char *folder, const char *model, const char *data_name)
{
  g_autofree char *from = window_test_example_path (model);
  g_autofree char *to = g_build_filename (folder, model, NULL);
  g_autofree char *text = NULL;

  g_assert_true (g_file_get_contents (from, &text, NULL, NULL));
  g_assert_true (g_file_set_contents (to, text, -1, NULL));
  if (data_name != NULL)
    {
      g_autofree char *base = g_strndup (model, strlen (model) - strlen (".stan"));
      g_autofree char *data_from_name = g_strconcat (base, ".data.json", NULL);
      g_autofree char *data_from = window_test_example_path (data_from_name);
      g_autofree char *data_to = g_build_filename (folder, data_name, NULL);
      g_autofree char *data = NULL;

      g_assert_true (g_file_get_contents (data_from, &data, NULL, NULL));
      g_assert_true (g_file_set_contents (data_to, data, -1, NULL));
    }
  return g_steal_pointer (&to);
}

static TildeDataPanel *
data_panel (TildeWindow *window)
{
  return _tilde_window_get_data_panel (window);
}

static GtkTextBuffer *
data_buffer (TildeWindow *window)
{
  return GTK_TEXT_BUFFER (tilde_data_panel_get_buffer (data_panel (window)));
}

/* The data as they would be saved. */
static char *
data_text (TildeWindow *window)
{
  GtkSourceBuffer *source = tilde_data_panel_get_buffer (data_panel (window));
  GtkTextIter start, end;
  g_autofree char *text = NULL;

  gtk_text_buffer_get_bounds (GTK_TEXT_BUFFER (source), &start, &end);
  text = gtk_text_buffer_get_text (GTK_TEXT_BUFFER (source), &start, &end, TRUE);
  return gtk_source_buffer_get_implicit_trailing_newline (source) ? g_strconcat (text, "\n", NULL)
                                                                  : g_steal_pointer (&text);
}

static gboolean
data_loaded (gpointer data)
{
  TildeDataPanel *panel = data_panel (data);

  return tilde_data_panel_get_file (panel) != NULL && !tilde_data_panel_get_loading (panel)
         && !tilde_data_panel_get_checking (panel)
         && _tilde_data_panel_get_shown_generation (panel) > 0;
}

static guint
n_problems (TildeWindow *window)
{
  return g_list_model_get_n_items (tilde_data_panel_get_problems (data_panel (window)));
}

static TildeProblem *
problem_at (TildeWindow *window, guint i)
{
  TildeProblem *problem = g_list_model_get_item (tilde_data_panel_get_problems (data_panel (window)), i);

  g_object_unref (problem);   /* the list keeps it */
  return problem;
}

static gboolean
has_problems (gpointer data)
{
  return !tilde_data_panel_get_checking (data_panel (data)) && n_problems (data) > 0;
}

static gboolean
has_no_problems (gpointer data)
{
  return !tilde_data_panel_get_checking (data_panel (data)) && n_problems (data) == 0;
}

static void
find_text (GtkTextBuffer *buffer, const char *needle, GtkTextIter *begin, GtkTextIter *end)
{
  GtkTextIter start, match_end;

  gtk_text_buffer_get_start_iter (buffer, &start);
  g_assert_true (gtk_text_iter_forward_search (&start, needle, GTK_TEXT_SEARCH_TEXT_ONLY,
                                               begin, end ? end : &match_end, NULL));
}

/* Replaces the first `old` with `new` as typing would: one user action. */
static void
edit (GtkTextBuffer *buffer, const char *old, const char *new)
{
  GtkTextIter begin, end;

  find_text (buffer, old, &begin, &end);
  gtk_text_buffer_begin_user_action (buffer);
  gtk_text_buffer_delete_interactive (buffer, &begin, &end, TRUE);
  gtk_text_buffer_insert_interactive (buffer, &begin, new, -1, TRUE);
  gtk_text_buffer_end_user_action (buffer);
}

static gboolean
has_tag (GtkTextBuffer *buffer, const char *needle, const char *tag_name)
{
  GtkTextTag *tag = gtk_text_tag_table_lookup (gtk_text_buffer_get_tag_table (buffer), tag_name);
  GtkTextIter begin;

  g_assert_nonnull (tag);
  find_text (buffer, needle, &begin, NULL);
  return gtk_text_iter_has_tag (&begin, tag);
}

static AdwMessageDialog *
find_message_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (toplevels, i);
      if (ADW_IS_MESSAGE_DIALOG (item) && gtk_widget_get_visible (GTK_WIDGET (item)))
        return ADW_MESSAGE_DIALOG (item);
    }
  return NULL;
}

static gboolean
dialog_shown (gpointer data)
{
  return (*(AdwMessageDialog **) data = find_message_dialog ()) != NULL;
}

static gboolean
dialog_gone (gpointer data)
{
  return find_message_dialog () == NULL;
}

/* As a click on one of its buttons does: the answer, then the dialog closes. */
static void
respond (AdwMessageDialog *dialog, const char *response)
{
  adw_message_dialog_response (dialog, response);
  gtk_window_destroy (GTK_WINDOW (dialog));
}

static gboolean
window_gone (gpointer data)
{
  return *(gpointer *) data == NULL;
}

/* ---- the data next to the model ---- */

static void
test_data_beside_model_loaded (void)
{
  g_autofree char *model = window_test_example_path ("eight_schools.stan");
  g_autofree char *data_path = window_test_example_path ("eight_schools.data.json");
  g_autoptr(GFile) data_file = g_file_new_for_path (data_path);
  g_autofree char *expected = NULL;
  g_autofree char *text = NULL;
  TildeWindow *window = window_test_open (GTK_APPLICATION (app), model);

  g_assert_true (wait_for (data_loaded, window));
  g_assert_true (g_file_equal (tilde_data_panel_get_file (data_panel (window)), data_file));
  g_assert_true (g_file_get_contents (data_path, &expected, NULL, NULL));
  text = data_text (window);
  g_assert_cmpstr (text, ==, expected);
  g_assert_false (tilde_data_panel_get_modified (data_panel (window)));
  /* The example's data fit its model. */
  g_assert_true (wait_for (has_no_problems, window));
  /* A window holding data is not taken for an empty one. */
  g_assert_false (tilde_window_is_pristine (window));
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (data_panel (window))));
  window_test_close_all (GTK_APPLICATION (app));
}

/* "model.json" when there is no "model.data.json"; nothing when neither. */
static void
test_plain_json_beside_model_loaded (void)
{
  g_autofree char *folder = g_dir_make_tmp ("tilde-data-XXXXXX", NULL);
  g_autofree char *model = copy_example (folder, "eight_schools.stan", "eight_schools.json");
  g_autofree char *json_path = g_build_filename (folder, "eight_schools.json", NULL);
  g_autoptr(GFile) json = g_file_new_for_path (json_path);
  g_autofree char *lonely = copy_example (folder, "poisson_glm.stan", NULL);
  TildeWindow *window = window_test_open (GTK_APPLICATION (app), model);

  g_assert_true (wait_for (data_loaded, window));
  g_assert_true (g_file_equal (tilde_data_panel_get_file (data_panel (window)), json));
  window_test_close_all (GTK_APPLICATION (app));

  window = window_test_open (GTK_APPLICATION (app), lonely);
  /* Long enough for both names to have been looked for. */
  window_test_run_for_ms (300);
  g_assert_null (tilde_data_panel_get_file (data_panel (window)));
  g_assert_cmpint (gtk_text_buffer_get_char_count (data_buffer (window)), ==, 0);
  window_test_close_all (GTK_APPLICATION (app));
  tilde_scratch_folder_remove (folder);
}

/* ---- checked against the model as either is typed ---- */

static void
test_bad_value_underlined (void)
{
  g_autofree char *model = window_test_example_path ("eight_schools.stan");
  TildeWindow *window = window_test_open (GTK_APPLICATION (app), model);
  GtkTextBuffer *data;
  GtkTextBuffer *source = GTK_TEXT_BUFFER (tilde_window_get_buffer (window));
  TildeProblem *problem;
  gint64 start;

  g_assert_true (wait_for (data_loaded, window));
  g_assert_true (wait_for (has_no_problems, window));
  data = data_buffer (window);

  /* A standard error below the lower bound the model gives sigma: only
   * the model's data block can tell. */
  start = g_get_monotonic_time ();
  edit (data, "[15, 10, 16", "[15, 10, -16");
  g_assert_true (tilde_data_panel_get_modified (data_panel (window)));
  g_assert_true (window_test_wait_for (has_problems, window));
  g_test_message ("problem shown %.0f ms after the edit", (g_get_monotonic_time () - start) / 1000.0);
  problem = problem_at (window, 0);
  g_assert_cmpint (tilde_problem_get_severity (problem), ==, TILDE_SEVERITY_ERROR);
  g_assert_nonnull (strstr (tilde_problem_get_message (problem), "sigma"));
  g_assert_cmpstr (tilde_problem_get_location (problem), ==, "Line 4");
  g_assert_true (has_tag (data, "[15, 10, -16", "tilde-error"));
  g_assert_false (has_tag (data, "\"J\"", "tilde-error"));

  /* Fixed, it clears. */
  edit (data, "-16", "16");
  g_assert_true (window_test_wait_for (has_no_problems, window));
  g_assert_false (has_tag (data, "[15, 10, 16", "tilde-error"));

  /* The model changes under the data: sigma is renamed in the editor, and
   * the data's sigma is now one the model does not have. */
  edit (source, "array[J] real<lower=0> sigma;", "array[J] real<lower=0> se;");
  edit (source, "y ~ normal(theta, sigma);", "y ~ normal(theta, se);");
  g_assert_true (window_test_wait_for (has_problems, window));
  {
    gboolean names_sigma = FALSE, names_se = FALSE;

    for (guint i = 0; i < n_problems (window); i++)
      {
        const char *message = tilde_problem_get_message (problem_at (window, i));

        names_sigma |= strstr (message, "variable sigma") != NULL;
        names_se |= strstr (message, "variable se") != NULL;
      }
    g_assert_true (names_sigma);
    g_assert_true (names_se);
  }
  gtk_text_buffer_set_modified (source, FALSE);
  gtk_text_buffer_set_modified (data, FALSE);
  window_test_close_all (GTK_APPLICATION (app));
}

/* ---- a template for a new model ---- */

static gboolean
template_in (gpointer data)
{
  return gtk_text_buffer_get_char_count (data_buffer (data)) > 0;
}

static gboolean
model_checked (gpointer data)
{
  return tilde_data_panel_get_model (data_panel (data)) != NULL;
}

static void
test_template_for_new_model (void)
{
  static const char model[] = "data {\n  int<lower=0> N;\n  vector[N] x;\n}\n"
                              "parameters {\n  real mu;\n}\nmodel {\n  x ~ normal(mu, 1);\n}\n";
  TildeWindow *window = tilde_window_new (app);
  g_autofree char *text = NULL;

  gtk_window_present (GTK_WINDOW (window));
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (tilde_window_get_buffer (window)), model, -1);
  g_assert_true (wait_for (model_checked, window));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.data-template", NULL);
  g_assert_true (wait_for (template_in, window));
  text = data_text (window);
  g_assert_nonnull (strstr (text, "\"N\""));
  g_assert_nonnull (strstr (text, "\"x\""));
  g_assert_true (tilde_data_panel_get_modified (data_panel (window)));
  g_assert_null (tilde_data_panel_get_file (data_panel (window)));
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (tilde_window_get_buffer (window)), FALSE);
  gtk_text_buffer_set_modified (data_buffer (window), FALSE);
  window_test_close_all (GTK_APPLICATION (app));
}

/* ---- unsaved data on close ---- */

static void
test_close_with_unsaved_data_asks (void)
{
  g_autofree char *folder = g_dir_make_tmp ("tilde-data-XXXXXX", NULL);
  g_autofree char *model = copy_example (folder, "eight_schools.stan", "eight_schools.data.json");
  g_autofree char *data_path = g_build_filename (folder, "eight_schools.data.json", NULL);
  g_autofree char *saved = NULL;
  AdwMessageDialog *dialog = NULL;
  TildeWindow *window = window_test_open (GTK_APPLICATION (app), model);

  g_assert_true (wait_for (data_loaded, window));
  edit (data_buffer (window), "\"J\": 8", "\"J\": 8 ");
  g_assert_false (gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (tilde_window_get_buffer (window))));

  /* Only the data have changes: the question names them. */
  gtk_window_close (GTK_WINDOW (window));
  g_assert_true (wait_for (dialog_shown, &dialog));
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Save Changes?");
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "The data “eight_schools.data.json”"));
  respond (dialog, "cancel");
  g_assert_true (wait_for (dialog_gone, NULL));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window)));

  /* The model changed too: both are named. */
  gtk_text_buffer_insert_at_cursor (GTK_TEXT_BUFFER (tilde_window_get_buffer (window)), "// edited\n", -1);
  gtk_window_close (GTK_WINDOW (window));
  dialog = NULL;
  g_assert_true (wait_for (dialog_shown, &dialog));
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog),
                            "“eight_schools.stan” and its data “eight_schools.data.json”"));

  /* Save writes both, then the window closes. */
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  respond (dialog, "save");
  g_assert_true (wait_for (window_gone, &window));
  g_assert_true (g_file_get_contents (data_path, &saved, NULL, NULL));
  g_assert_nonnull (strstr (saved, "\"J\": 8 ,"));
  g_clear_pointer (&saved, g_free);
  g_assert_true (g_file_get_contents (model, &saved, NULL, NULL));
  g_assert_true (g_str_has_prefix (saved, "// edited\n"));
  window_test_close_all (GTK_APPLICATION (app));
  tilde_scratch_folder_remove (folder);
}

static void
test_discard_unsaved_data (void)
{
  g_autofree char *folder = g_dir_make_tmp ("tilde-data-XXXXXX", NULL);
  g_autofree char *model = copy_example (folder, "eight_schools.stan", "eight_schools.data.json");
  g_autofree char *data_path = g_build_filename (folder, "eight_schools.data.json", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  AdwMessageDialog *dialog = NULL;
  TildeWindow *window = window_test_open (GTK_APPLICATION (app), model);

  g_assert_true (g_file_get_contents (data_path, &before, NULL, NULL));
  g_assert_true (wait_for (data_loaded, window));
  edit (data_buffer (window), "\"J\": 8", "\"J\": 9");
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  gtk_window_close (GTK_WINDOW (window));
  g_assert_true (wait_for (dialog_shown, &dialog));
  respond (dialog, "discard");
  g_assert_true (wait_for (window_gone, &window));
  g_assert_true (g_file_get_contents (data_path, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, before);
  window_test_close_all (GTK_APPLICATION (app));
  tilde_scratch_folder_remove (folder);
}

/* ---- autosave and restore ---- */

static char *
copy_path (const char *id, const char *extension)
{
  g_autofree char *dir = tilde_autosave_directory ();
  g_autofree char *name = g_strconcat (id, extension, NULL);

  return g_build_filename (dir, name, NULL);
}

static gboolean
autosaved (gpointer data)
{
  return _tilde_window_get_autosaves (data) > 0;
}

static void
test_autosave_keeps_data (void)
{
  g_autofree char *model = window_test_example_path ("eight_schools.stan");
  TildeWindow *window = window_test_open (GTK_APPLICATION (app), model);
  g_autofree char *data_copy_path = NULL;
  g_autofree char *info_path = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *text = NULL;
  g_autofree char *data_uri = NULL;
  g_autofree char *expected_uri = NULL;
  g_autoptr(GKeyFile) info = g_key_file_new ();

  g_assert_true (wait_for (data_loaded, window));
  g_settings_set_int (tilde_application_get_settings (app), "autosave-delay-ms", 200);
  /* The data alone changed. */
  edit (data_buffer (window), "\"J\": 8", "\"J\": 8 ");
  g_assert_true (wait_for (autosaved, window));
  tilde_autosave_flush ();

  data_copy_path = copy_path (_tilde_window_get_autosave_id (window), ".json");
  info_path = copy_path (_tilde_window_get_autosave_id (window), ".info");
  g_assert_true (g_file_get_contents (data_copy_path, &copy, NULL, NULL));
  text = data_text (window);
  g_assert_cmpstr (copy, ==, text);
  g_assert_true (g_key_file_load_from_file (info, info_path, G_KEY_FILE_NONE, NULL));
  data_uri = g_key_file_get_string (info, "Autosave", "data-file", NULL);
  expected_uri = g_file_get_uri (tilde_data_panel_get_file (data_panel (window)));
  g_assert_cmpstr (data_uri, ==, expected_uri);
  g_assert_false (g_key_file_get_boolean (info, "Autosave", "modified", NULL));

  /* Back to the saved state, the copy goes. */
  gtk_text_buffer_set_modified (data_buffer (window), FALSE);
  tilde_autosave_flush ();
  g_assert_false (g_file_test (data_copy_path, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (info_path, G_FILE_TEST_EXISTS));
  window_test_close_all (GTK_APPLICATION (app));
  g_settings_reset (tilde_application_get_settings (app), "autosave-delay-ms");
}

/* A process id that was in use and is no more. */
static GPid
dead_pid (void)
{
  const char *argv[] = { "true", NULL };
  GPid pid;
  int status;

  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD,
                                NULL, NULL, &pid, NULL));
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  return pid;
}

static char *
boot_id (void)
{
  char *contents = NULL;

  if (!g_file_get_contents ("/proc/sys/kernel/random/boot_id", &contents, NULL, NULL))
    return g_strdup ("");
  return g_strstrip (contents);
}

static gboolean
restored_data (gpointer data)
{
  GtkWindow *active = gtk_application_get_active_window (GTK_APPLICATION (app));

  *(TildeWindow **) data = TILDE_IS_WINDOW (active) ? TILDE_WINDOW (active) : NULL;
  return *(TildeWindow **) data != NULL
         && tilde_data_panel_get_modified (data_panel (*(TildeWindow **) data));
}

static void
test_restore_brings_data_back (void)
{
  static const char model[] = "data {\n  int N;\n}\nparameters {\n  real mu;\n}\nmodel {\n  mu ~ normal(0, N);\n}\n";
  static const char data[] = "{\n  \"N\": 3\n}\n";
  g_autofree char *folder = g_dir_make_tmp ("tilde-data-XXXXXX", NULL);
  g_autofree char *data_path = g_build_filename (folder, "crashed.data.json", NULL);
  g_autoptr(GFile) data_file = g_file_new_for_path (data_path);
  g_autofree char *data_uri = g_file_get_uri (data_file);
  g_autofree char *dir = tilde_autosave_directory ();
  g_autofree char *text_path = copy_path ("data-copy", ".stan");
  g_autofree char *json_path = copy_path ("data-copy", ".json");
  g_autofree char *info_path = copy_path ("data-copy", ".info");
  g_autoptr(GKeyFile) info = g_key_file_new ();
  g_autofree char *boot = boot_id ();
  AdwMessageDialog *dialog = NULL;
  TildeWindow *window = NULL;
  g_autofree char *text = NULL;

  /* What a process that crashed with unsaved data in an untitled model
   * leaves behind. */
  g_assert_true (g_file_set_contents (data_path, "{}\n", -1, NULL));
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (text_path, model, -1, NULL));
  g_assert_true (g_file_set_contents (json_path, data, -1, NULL));
  g_key_file_set_string (info, "Autosave", "title", "• Untitled model");
  g_key_file_set_boolean (info, "Autosave", "modified", TRUE);
  g_key_file_set_string (info, "Autosave", "data-file", data_uri);
  g_key_file_set_int64 (info, "Autosave", "pid", dead_pid ());
  g_key_file_set_string (info, "Autosave", "boot", boot);
  g_key_file_set_int64 (info, "Autosave", "saved", g_get_real_time ());
  g_assert_true (g_key_file_save_to_file (info, info_path, NULL));

  window = tilde_window_new (app);
  gtk_window_present (GTK_WINDOW (window));
  _tilde_application_offer_restore (app);
  g_assert_true (wait_for (dialog_shown, &dialog));
  respond (dialog, "restore");
  g_assert_true (wait_for (restored_data, &window));

  text = data_text (window);
  g_assert_cmpstr (text, ==, data);
  g_assert_true (g_file_equal (tilde_data_panel_get_file (data_panel (window)), data_file));
  g_assert_true (gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (tilde_window_get_buffer (window))));
  tilde_autosave_flush ();
  g_assert_false (g_file_test (json_path, G_FILE_TEST_EXISTS));
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (tilde_window_get_buffer (window)), FALSE);
  gtk_text_buffer_set_modified (data_buffer (window), FALSE);
  window_test_close_all (GTK_APPLICATION (app));
  tilde_scratch_folder_remove (folder);
}

/* ---- the layout ---- */

static gboolean
data_position_is (gpointer data)
{
  return gtk_paned_get_position (_tilde_window_get_model_paned (data)) == 360;
}

static void
test_data_divider_remembered (void)
{
  g_autofree char *model = window_test_example_path ("eight_schools.stan");
  GSettings *settings = tilde_application_get_settings (app);
  TildeWindow *window = window_test_open (GTK_APPLICATION (app), model);

  gtk_paned_set_position (_tilde_window_get_model_paned (window), 360);
  g_assert_cmpint (g_settings_get_int (settings, "data-position"), ==, 360);
  window_test_close_all (GTK_APPLICATION (app));

  window = window_test_open (GTK_APPLICATION (app), model);
  g_assert_true (wait_for (data_position_is, window));
  window_test_close_all (GTK_APPLICATION (app));
  g_settings_reset (settings, "data-position");
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
  g_unsetenv ("TILDE_WORKER_CHECK_DELAY_MS");
  gtk_test_init (&argc, &argv, NULL);

  app = tilde_application_new (G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);

  g_test_add_func ("/window-data/beside-model-loaded", test_data_beside_model_loaded);
  g_test_add_func ("/window-data/plain-json-beside-model-loaded", test_plain_json_beside_model_loaded);
  g_test_add_func ("/window-data/bad-value-underlined", test_bad_value_underlined);
  g_test_add_func ("/window-data/template-for-new-model", test_template_for_new_model);
  g_test_add_func ("/window-data/close-with-unsaved-data-asks", test_close_with_unsaved_data_asks);
  g_test_add_func ("/window-data/discard-unsaved-data", test_discard_unsaved_data);
  g_test_add_func ("/window-data/autosave-keeps-data", test_autosave_keeps_data);
  g_test_add_func ("/window-data/restore-brings-data-back", test_restore_brings_data_back);
  g_test_add_func ("/window-data/divider-remembered", test_data_divider_remembered);
  status = g_test_run ();
  g_clear_object (&app);
  tilde_autosave_flush ();
  window_test_remove_home ();
  return status;
}
