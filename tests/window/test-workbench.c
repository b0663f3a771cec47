/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the window keeps and offers around the editor, used as a person
 * uses it: the layout and options that come back in the next window (the
 * memory settings backend stands for the user's settings), the autosaved
 * copy of unsaved changes and the offer to restore it after a crash,
 * recent models, the shortcuts window (every shortcut listed) and the
 * about dialog. Run under an X server (Xvfb).
 */
#define G_LOG_DOMAIN "tilde-test"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "tilde-application-private.h"
#include "tilde-autosave.h"
#include "tilde-ir-view-private.h"
#include "tilde-window-private.h"
#include "window-test-util.h"

#define wait_for window_test_wait_for

static TildeApplication *app;

static TildeWindow *
open_example (const char *name)
{
  g_autofree char *path = window_test_example_path (name);
  return window_test_open (GTK_APPLICATION (app), path);
}

static GSettings *
settings (void)
{
  GSettings *s = tilde_application_get_settings (app);

  g_assert_nonnull (s);
  return s;
}

static GtkPaned *
workbench_paned (TildeWindow *window)
{
  return _tilde_window_get_workbench_paned (window);
}

static gboolean
window_gone (gpointer data)
{
  return *(gpointer *) data == NULL;
}

/* Closes `window` the way its close button does. */
static void
close_window (TildeWindow *window)
{
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  gtk_window_close (GTK_WINDOW (window));
  g_assert_true (wait_for (window_gone, &window));
}

/* ---- settings ---- */

static gboolean
position_is (gpointer data)
{
  TildeWindow *window = data;

  return gtk_paned_get_position (workbench_paned (window)) == 430;
}

static void
test_layout_and_options_restored (void)
{
  TildeWindow *window = open_example ("eight_schools.stan");
  TildeIrView *ir = tilde_window_get_ir_view (window);
  g_autofree char *level = NULL;
  gboolean show_ir;

  /* What a person changes: the divider, the level, the stages, the pass
   * list's filter, and last the compiler's output hidden. */
  gtk_paned_set_position (workbench_paned (window), 430);
  g_assert_cmpint (g_settings_get_int (settings (), "workbench-position"), ==, 430);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.optimization-level", "s", "experimental");
  g_object_set (ir, "left-stage", 1, "right-stage", 2, "hide-unchanged", TRUE, NULL);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-ir", NULL);
  g_assert_false (gtk_widget_get_visible (gtk_paned_get_end_child (workbench_paned (window))));

  g_assert_false (g_settings_get_boolean (settings (), "show-ir"));
  level = g_settings_get_string (settings (), "optimization-level");
  g_assert_cmpstr (level, ==, "experimental");
  g_clear_pointer (&level, g_free);
  close_window (window);

  /* The next window comes back the same. */
  window = open_example ("poisson_glm.stan");
  ir = tilde_window_get_ir_view (window);
  g_object_get (window, "show-ir", &show_ir, "optimization-level", &level, NULL);
  g_assert_false (show_ir);
  g_assert_false (gtk_widget_get_visible (gtk_paned_get_end_child (workbench_paned (window))));
  g_assert_cmpstr (level, ==, "experimental");
  g_assert_cmpuint (tilde_ir_view_get_level (ir), ==, 2);
  {
    guint left, right;
    gboolean hide;

    g_object_get (ir, "left-stage", &left, "right-stage", &right, "hide-unchanged", &hide, NULL);
    g_assert_cmpuint (left, ==, 1);
    g_assert_cmpuint (right, ==, 2);
    g_assert_true (hide);
  }

  /* Shown again (F9), with the divider where it was left. */
  {
    g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.show-ir");
    g_assert_cmpstr (accels[0], ==, "F9");
  }
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-ir", NULL);
  g_assert_true (gtk_widget_get_visible (gtk_paned_get_end_child (workbench_paned (window))));
  g_assert_true (wait_for (position_is, window));
  window_test_close_all (GTK_APPLICATION (app));

  for (const char *const *key = (const char *const[]) { "show-ir", "optimization-level", "workbench-position",
                                                       "ir-left-stage", "ir-right-stage",
                                                       "ir-hide-unchanged", NULL };
       *key != NULL; key++)
    g_settings_reset (settings (), *key);
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

static char *
window_text (TildeWindow *window)
{
  GtkSourceBuffer *source = tilde_window_get_buffer (window);
  GtkTextIter start, end;
  g_autofree char *text = NULL;

  gtk_text_buffer_get_bounds (GTK_TEXT_BUFFER (source), &start, &end);
  text = gtk_text_buffer_get_text (GTK_TEXT_BUFFER (source), &start, &end, TRUE);
  return gtk_source_buffer_get_implicit_trailing_newline (source) ? g_strconcat (text, "\n", NULL)
                                                                  : g_steal_pointer (&text);
}

static void
test_autosave_writes_a_copy (void)
{
  TildeWindow *window = open_example ("eight_schools.stan");
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (tilde_window_get_buffer (window));
  g_autofree char *text_path = NULL;
  g_autofree char *info_path = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *text = NULL;
  g_autofree char *uri = NULL;
  g_autofree char *expected_uri = NULL;
  g_autoptr(GKeyFile) info = g_key_file_new ();

  g_settings_set_int (settings (), "autosave-delay-ms", 200);
  gtk_text_buffer_insert_at_cursor (buffer, "// not saved yet\n", -1);
  g_assert_true (wait_for (autosaved, window));
  tilde_autosave_flush ();

  text_path = copy_path (_tilde_window_get_autosave_id (window), ".stan");
  info_path = copy_path (_tilde_window_get_autosave_id (window), ".info");
  g_assert_true (g_file_get_contents (text_path, &copy, NULL, NULL));
  text = window_text (window);
  g_assert_cmpstr (copy, ==, text);
  g_assert_true (g_key_file_load_from_file (info, info_path, G_KEY_FILE_NONE, NULL));
  uri = g_key_file_get_string (info, "Autosave", "file", NULL);
  expected_uri = g_file_get_uri (tilde_window_get_file (window));
  g_assert_cmpstr (uri, ==, expected_uri);
  g_assert_cmpint (g_key_file_get_int64 (info, "Autosave", "pid", NULL), ==, getpid ());

  /* Saved (here: back to the saved state), the copy goes. */
  gtk_text_buffer_set_modified (buffer, FALSE);
  tilde_autosave_flush ();
  g_assert_false (g_file_test (text_path, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (info_path, G_FILE_TEST_EXISTS));
  window_test_close_all (GTK_APPLICATION (app));
  g_settings_reset (settings (), "autosave-delay-ms");
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

/* The two files a process leaves when it ends without closing its window. */
static void
leave_copy (const char *id, GPid pid, const char *file_path, const char *title, const char *text)
{
  g_autofree char *dir = tilde_autosave_directory ();
  g_autofree char *text_path = copy_path (id, ".stan");
  g_autofree char *info_path = copy_path (id, ".info");
  g_autoptr(GKeyFile) info = g_key_file_new ();
  g_autofree char *boot = boot_id ();

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (text_path, text, -1, NULL));
  if (file_path != NULL)
    {
      g_autoptr(GFile) file = g_file_new_for_path (file_path);
      g_autofree char *uri = g_file_get_uri (file);
      g_key_file_set_string (info, "Autosave", "file", uri);
    }
  g_key_file_set_string (info, "Autosave", "title", title);
  g_key_file_set_int64 (info, "Autosave", "pid", pid);
  g_key_file_set_string (info, "Autosave", "boot", boot);
  g_key_file_set_int64 (info, "Autosave", "saved", g_get_real_time ());
  g_assert_true (g_key_file_save_to_file (info, info_path, NULL));
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

static TildeWindow *
window_for (GFile *file)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l; l = l->next)
    if (TILDE_IS_WINDOW (l->data) && tilde_window_get_file (l->data) != NULL
        && g_file_equal (tilde_window_get_file (l->data), file))
      return l->data;
  return NULL;
}

static gboolean
restored_window (gpointer data)
{
  return window_for (data) != NULL;
}

static void
test_restore_after_crash (void)
{
  static const char model[] = "parameters {\n  real mu;\n}\nmodel {\n  mu ~ normal(0, 1);  // typed before the crash\n}\n";
  g_autofree char *dir = g_dir_make_tmp ("tilde-restore-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "crashed.stan", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *live_text = copy_path ("live-copy", ".stan");
  g_autofree char *orphan_text = copy_path ("orphan-copy", ".stan");
  AdwMessageDialog *dialog = NULL;
  TildeWindow *window, *restored;
  g_autofree char *text = NULL;

  g_assert_true (g_file_set_contents (path, "parameters {\n  real mu;\n}\n", -1, NULL));
  leave_copy ("orphan-copy", dead_pid (), path, "• crashed.stan", model);
  /* A copy of a window still open in this process is nobody's orphan. */
  leave_copy ("live-copy", getpid (), NULL, "• live.stan", "model { }\n");

  window = open_example ("eight_schools.stan");
  _tilde_application_offer_restore (app);
  g_assert_true (wait_for (dialog_shown, &dialog));
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Restore Unsaved Changes?");
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "“crashed.stan”"));
  g_assert_null (strstr (adw_message_dialog_get_body (dialog), "live.stan"));
  adw_message_dialog_response (dialog, "restore");

  /* Back in a window of its own (the open one holds a model), unsaved,
   * ready to be saved over its file. */
  g_assert_true (wait_for (restored_window, file));
  restored = window_for (file);
  g_assert_true (restored != window);
  text = window_text (restored);
  g_assert_cmpstr (text, ==, model);
  g_assert_true (gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (tilde_window_get_buffer (restored))));
  g_assert_true (g_str_has_prefix (gtk_window_get_title (GTK_WINDOW (restored)), "• crashed.stan"));
  tilde_autosave_flush ();
  g_assert_false (g_file_test (orphan_text, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (live_text, G_FILE_TEST_EXISTS));
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (tilde_window_get_buffer (restored)), FALSE);
  window_test_close_all (GTK_APPLICATION (app));

  /* Discarded, the copy goes and nothing opens. */
  leave_copy ("orphan-copy", dead_pid (), NULL, "• Untitled model", model);
  window = open_example ("eight_schools.stan");
  _tilde_application_offer_restore (app);
  dialog = NULL;
  g_assert_true (wait_for (dialog_shown, &dialog));
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "“Untitled model”"));
  adw_message_dialog_response (dialog, "discard");
  tilde_autosave_flush ();
  g_assert_false (g_file_test (orphan_text, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (g_list_length (gtk_application_get_windows (GTK_APPLICATION (app))), ==, 1);
  window_test_close_all (GTK_APPLICATION (app));

  g_unlink (live_text);
  {
    g_autofree char *live_info = copy_path ("live-copy", ".info");
    g_unlink (live_info);
  }
  g_unlink (path);
  g_rmdir (dir);
}

/* ---- recent models ---- */

typedef struct {
  TildeWindow *window;
  const char  *uri;
} MenuQuery;

static gboolean
menu_lists (gpointer data)
{
  MenuQuery *q = data;
  GMenuModel *menu = _tilde_window_get_recent_menu (q->window);

  for (int i = 0; i < g_menu_model_get_n_items (menu); i++)
    {
      g_autoptr(GVariant) target = g_menu_model_get_item_attribute_value (menu, i, G_MENU_ATTRIBUTE_TARGET,
                                                                          G_VARIANT_TYPE_STRING);
      if (target != NULL && g_str_equal (g_variant_get_string (target, NULL), q->uri))
        return TRUE;
    }
  return FALSE;
}

static gboolean
pristine_window (gpointer data)
{
  TildeWindow **window = data;
  GtkWindow *active = gtk_application_get_active_window (GTK_APPLICATION (app));

  *window = TILDE_IS_WINDOW (active) ? TILDE_WINDOW (active) : NULL;
  return *window != NULL && tilde_window_is_pristine (*window) && gtk_widget_get_mapped (GTK_WIDGET (*window));
}

static void
test_recent_models (void)
{
  TildeWindow *window = open_example ("logistic_regression.stan");
  g_autofree char *uri = g_file_get_uri (tilde_window_get_file (window));
  MenuQuery query = { window, uri };
  TildeWindow *fresh = NULL;

  g_assert_true (gtk_recent_manager_has_item (gtk_recent_manager_get_default (), uri));
  g_assert_true (wait_for (menu_lists, &query));
  window_test_close_all (GTK_APPLICATION (app));

  /* A new, empty window lists it too, and opening it from there loads it
   * into that window. */
  g_action_group_activate_action (G_ACTION_GROUP (app), "new-window", NULL);
  g_assert_true (wait_for (pristine_window, &fresh));
  query.window = fresh;
  g_assert_true (wait_for (menu_lists, &query));
  gtk_widget_activate_action (GTK_WIDGET (fresh), "win.open-recent", "s", uri);
  window = window_test_wait_for_window (GTK_APPLICATION (app));
  g_assert_true (window == fresh);
  {
    g_autofree char *loaded = g_file_get_uri (tilde_window_get_file (window));
    g_assert_cmpstr (loaded, ==, uri);
  }
  window_test_close_all (GTK_APPLICATION (app));
}

/* ---- the shortcuts window and the about dialog ---- */

static void
collect_listed_actions (GtkWidget *widget, GHashTable *listed)
{
  if (GTK_IS_SHORTCUTS_SHORTCUT (widget))
    {
      char *action = NULL;

      g_object_get (widget, "action-name", &action, NULL);
      if (action != NULL)
        g_hash_table_add (listed, action);
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    collect_listed_actions (child, listed);
}

static void
test_shortcuts_window_lists_every_shortcut (void)
{
  TildeWindow *window = open_example ("eight_schools.stan");
  GtkShortcutsWindow *overlay = gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (window));
  g_autoptr(GHashTable) listed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto(GStrv) actions = gtk_application_list_action_descriptions (GTK_APPLICATION (app));
  guint with_accels = 0;

  g_assert_nonnull (overlay);
  collect_listed_actions (GTK_WIDGET (overlay), listed);
  for (guint i = 0; actions[i] != NULL; i++)
    {
      g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), actions[i]);

      if (accels[0] == NULL)
        continue;
      with_accels++;
      if (!g_hash_table_contains (listed, actions[i]))
        g_error ("%s (%s) is not in the shortcuts window", actions[i], accels[0]);
    }
  g_assert_cmpuint (with_accels, >=, 12);
  /* And what it lists by action has a shortcut. */
  {
    GHashTableIter iter;
    gpointer action;

    g_hash_table_iter_init (&iter, listed);
    while (g_hash_table_iter_next (&iter, &action, NULL))
      {
        g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), action);
        if (accels[0] == NULL)
          g_error ("the shortcuts window lists %s, which has no shortcut", (const char *) action);
      }
  }
  window_test_close_all (GTK_APPLICATION (app));
}

static gboolean
data_formatted (gpointer data)
{
  TildeDataPanel *panel = data;
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (tilde_data_panel_get_buffer (panel));
  GtkTextIter start, end;
  g_autofree char *text = NULL;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
  return g_str_has_prefix (text, "{\n  \"J\": 8,\n");
}

static gboolean
data_loaded (gpointer data)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (tilde_data_panel_get_buffer (data));

  return gtk_text_buffer_get_char_count (buffer) > 0 && !tilde_data_panel_get_loading (data)
         && !tilde_data_panel_get_checking (data);
}

static gboolean
file_formatted (gpointer data)
{
  g_autofree char *text = NULL;

  return g_file_get_contents (data, &text, NULL, NULL) && g_str_has_prefix (text, "{\n  \"J\": 8,\n");
}

/* Save and Format Model's keys save and format the data while the focus
 * is in the data panel (the application's accelerators would take them
 * first), and stay the model's elsewhere. */
static void
test_keys_in_data_panel (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tilde-keys-XXXXXX", NULL);
  g_autofree char *model_path = g_build_filename (dir, "es.stan", NULL);
  g_autofree char *data_path = g_build_filename (dir, "es.data.json", NULL);
  g_autofree char *example = window_test_example_path ("eight_schools.stan");
  g_autofree char *model = NULL;
  TildeWindow *window;
  TildeDataPanel *panel;

  g_assert_true (g_file_get_contents (example, &model, NULL, NULL));
  g_assert_true (g_file_set_contents (model_path, model, -1, NULL));
  g_assert_true (g_file_set_contents (data_path,
                                      "{\"J\": 8, \"y\": [28, 8, -3, 7, -1, 1, 18, 12], "
                                      "\"sigma\": [15, 10, 16, 11, 9, 11, 10, 18]}\n", -1, NULL));
  window = window_test_open (GTK_APPLICATION (app), model_path);
  panel = _tilde_window_get_data_panel (window);
  g_assert_true (wait_for (data_loaded, panel));

  /* the focus in the model: the keys are left to the accelerators */
  gtk_widget_grab_focus (GTK_WIDGET (tilde_editor_get_view (tilde_window_get_editor (window))));
  g_assert_false (_tilde_window_key_for_data_panel (window, GDK_KEY_F, GDK_SHIFT_MASK | GDK_ALT_MASK));
  g_assert_false (_tilde_window_key_for_data_panel (window, GDK_KEY_s, GDK_CONTROL_MASK));

  /* in the data: formatted, then saved, the model left alone */
  gtk_widget_grab_focus (GTK_WIDGET (tilde_data_panel_get_view (panel)));
  g_assert_true (_tilde_window_key_for_data_panel (window, GDK_KEY_F, GDK_SHIFT_MASK | GDK_ALT_MASK));
  g_assert_true (wait_for (data_formatted, panel));
  g_assert_true (tilde_data_panel_get_modified (panel));
  g_assert_false (_tilde_window_key_for_data_panel (window, GDK_KEY_f, GDK_CONTROL_MASK));
  g_assert_true (_tilde_window_key_for_data_panel (window, GDK_KEY_s, GDK_CONTROL_MASK));
  g_assert_true (wait_for (file_formatted, data_path));
  g_assert_false (gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (tilde_editor_get_buffer (tilde_window_get_editor (window)))));

  window_test_close_all (GTK_APPLICATION (app));
  g_unlink (data_path);
  g_unlink (model_path);
  g_rmdir (dir);
}

static AdwAboutWindow *
find_about (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (toplevels, i);
      if (ADW_IS_ABOUT_WINDOW (item) && gtk_widget_get_visible (GTK_WIDGET (item)))
        return ADW_ABOUT_WINDOW (item);
    }
  return NULL;
}

static gboolean
about_shown (gpointer data)
{
  return (*(AdwAboutWindow **) data = find_about ()) != NULL;
}

static void
test_about_dialog (void)
{
  TildeWindow *window = open_example ("eight_schools.stan");
  AdwAboutWindow *about = NULL;

  g_action_group_activate_action (G_ACTION_GROUP (app), "about", NULL);
  g_assert_true (wait_for (about_shown, &about));
  g_assert_cmpstr (adw_about_window_get_application_name (about), ==, "Tilde");
  g_assert_cmpstr (adw_about_window_get_version (about), ==, PACKAGE_VERSION);
  g_assert_cmpint (adw_about_window_get_license_type (about), ==, GTK_LICENSE_GPL_3_0);
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (about)) == GTK_WINDOW (window));
  gtk_window_destroy (GTK_WINDOW (about));
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

  g_test_add_func ("/workbench/layout-and-options-restored", test_layout_and_options_restored);
  g_test_add_func ("/workbench/autosave-writes-a-copy", test_autosave_writes_a_copy);
  g_test_add_func ("/workbench/restore-after-crash", test_restore_after_crash);
  g_test_add_func ("/workbench/recent-models", test_recent_models);
  g_test_add_func ("/workbench/shortcuts-window-lists-every-shortcut", test_shortcuts_window_lists_every_shortcut);
  g_test_add_func ("/workbench/about-dialog", test_about_dialog);
  g_test_add_func ("/workbench/keys-in-data-panel", test_keys_in_data_panel);
  status = g_test_run ();
  g_clear_object (&app);
  tilde_autosave_flush ();
  window_test_remove_home ();
  return status;
}
