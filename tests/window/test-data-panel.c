/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The data panel in a plain window, with the eight schools model: its data
 * load without a problem; a value deleted from y is underlined and listed
 * within a second, an unknown variable is a warning, and fixing both
 * clears them; a template of the data block fills empty data and checks
 * clean; saving clears :modified; the panel follows an editor's model.
 * Run under an X server (Xvfb); screenshots go to $TILDE_SCREENSHOT_DIR
 * when it is set.
 */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "tilde-data-panel-private.h"
#include "window-test-util.h"
#include "tilde-editor-private.h"
#include "tilde-problems-list.h"

static gboolean
frames_drawn (gpointer data)
{
  int *countdown = data;

  return --(*countdown) <= 0;
}

static void
let_it_draw (void)
{
  int countdown = 20;

  window_test_wait_for (frames_drawn, &countdown);
}

static TildeCheckResult *
eight_schools (void)
{
  g_autofree char *path = window_test_example_path ("eight_schools.stan");
  g_autoptr(GError) error = NULL;
  TildeCheckResult *check = tilde_frontend_check_file (path, NULL, &error);

  g_assert_no_error (error);
  g_assert_false (tilde_check_result_has_errors (check));
  return check;
}

static void
set_scheme (GtkSourceBuffer *buffer, const char *id)
{
  GtkSourceStyleSchemeManager *schemes = gtk_source_style_scheme_manager_get_default ();
  GtkSourceStyleScheme *scheme = gtk_source_style_scheme_manager_get_scheme (schemes, id);

  g_assert_nonnull (scheme);
  gtk_source_buffer_set_style_scheme (buffer, scheme);
}

static gboolean
mapped (gpointer data)
{
  return gtk_widget_get_mapped (data);
}

/* A window holding `child` alone, on screen. */
static GtkWindow *
window_with (GtkWidget *child, int width, int height)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());

  gtk_window_set_default_size (window, width, height);
  gtk_window_set_child (window, child);
  gtk_window_present (window);
  g_assert_true (window_test_wait_for (mapped, child));
  return window;
}

static TildeDataPanel *
panel_window (TildeCheckResult *model, GtkWindow **window)
{
  TildeDataPanel *panel = TILDE_DATA_PANEL (tilde_data_panel_new ());

  set_scheme (tilde_data_panel_get_buffer (panel), "Adwaita");
  tilde_data_panel_set_model (panel, model);
  *window = window_with (GTK_WIDGET (panel), 560, 520);
  return panel;
}

static void
async_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static gboolean
has_result (gpointer data)
{
  return *(GAsyncResult **) data != NULL;
}

static gboolean
check_shown (gpointer data)
{
  TildeDataPanel *panel = data;

  return !tilde_data_panel_get_checking (panel) && _tilde_data_panel_get_shown_generation (panel) > 0;
}

static void
load (TildeDataPanel *panel, const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  /* A bound, not a timing: the large file's load and check take seconds
   * in the sanitized build beside other tests. */
  tilde_data_panel_load_async (panel, file, NULL, async_done, &result);
  g_assert_true (window_test_wait_for_ms (has_result, &result, 120000));
  g_assert_true (tilde_data_panel_load_finish (panel, result, &error));
  g_assert_no_error (error);
  g_assert_true (window_test_wait_for_ms (check_shown, panel, 120000));
}

static GtkTextBuffer *
buffer_of (TildeDataPanel *panel)
{
  return GTK_TEXT_BUFFER (tilde_data_panel_get_buffer (panel));
}

static char *
text_of (TildeDataPanel *panel)
{
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer_of (panel), &start, &end);
  return gtk_text_buffer_get_text (buffer_of (panel), &start, &end, TRUE);
}

static void
find_text (TildeDataPanel *panel, const char *needle, GtkTextIter *begin, GtkTextIter *end)
{
  GtkTextIter start, match_end;

  gtk_text_buffer_get_start_iter (buffer_of (panel), &start);
  g_assert_true (gtk_text_iter_forward_search (&start, needle, GTK_TEXT_SEARCH_TEXT_ONLY,
                                               begin, end ? end : &match_end, NULL));
}

/* Replaces the first `old` with `new` as typing would: one user action. */
static void
edit (TildeDataPanel *panel, const char *old, const char *new)
{
  GtkTextBuffer *buffer = buffer_of (panel);
  GtkTextIter begin, end;

  find_text (panel, old, &begin, &end);
  gtk_text_buffer_begin_user_action (buffer);
  gtk_text_buffer_delete_interactive (buffer, &begin, &end, TRUE);
  gtk_text_buffer_insert_interactive (buffer, &begin, new, -1, TRUE);
  gtk_text_buffer_end_user_action (buffer);
}

static guint
n_problems (TildeDataPanel *panel)
{
  return g_list_model_get_n_items (tilde_data_panel_get_problems (panel));
}

static TildeProblem *
problem_at (TildeDataPanel *panel, guint i)
{
  TildeProblem *problem = g_list_model_get_item (tilde_data_panel_get_problems (panel), i);

  g_object_unref (problem);   /* the model keeps it */
  return problem;
}

static gboolean
has_problems (gpointer data)
{
  return !tilde_data_panel_get_checking (data) && n_problems (data) > 0;
}

static gboolean
has_two_problems (gpointer data)
{
  return !tilde_data_panel_get_checking (data) && n_problems (data) == 2;
}

static gboolean
has_no_problems (gpointer data)
{
  return !tilde_data_panel_get_checking (data) && n_problems (data) == 0;
}

static GtkTextTag *
tag_named (TildeDataPanel *panel, const char *name)
{
  GtkTextTag *tag = gtk_text_tag_table_lookup (gtk_text_buffer_get_tag_table (buffer_of (panel)), name);

  g_assert_nonnull (tag);
  return tag;
}

static guint
n_marks_on_line (TildeDataPanel *panel, int line, const char *category)
{
  GSList *marks = gtk_source_buffer_get_source_marks_at_line (tilde_data_panel_get_buffer (panel),
                                                              line, category);
  guint n = g_slist_length (marks);

  g_slist_free (marks);
  return n;
}

static GtkWidget *
find_descendant (GtkWidget *widget, GType type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_descendant (child, type);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
collect_labels (GtkWidget *widget, GPtrArray *texts)
{
  if (!gtk_widget_get_mapped (widget))
    return;
  if (GTK_IS_LABEL (widget))
    g_ptr_array_add (texts, g_strdup (gtk_label_get_text (GTK_LABEL (widget))));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    collect_labels (child, texts);
}

static gboolean
label_shown (GtkWidget *widget, const char *text)
{
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);

  collect_labels (widget, texts);
  for (guint i = 0; i < texts->len; i++)
    if (strstr (texts->pdata[i], text) != NULL)
      return TRUE;
  return FALSE;
}

/* ---- pixels ---- */

static GdkTexture *
render_widget (GtkWidget *widget)
{
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));

  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  return gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));
}

static void
save_screenshot (GtkWidget *widget, const char *name)
{
  const char *dir = g_getenv ("TILDE_SCREENSHOT_DIR");
  g_autoptr(GdkTexture) shot = NULL;
  g_autofree char *path = NULL;

  if (dir == NULL)
    return;
  shot = render_widget (widget);
  path = g_build_filename (dir, name, NULL);
  g_assert_true (gdk_texture_save_to_png (shot, path));
}

/* Where the text between two iterators is drawn, in the view's widget
 * coordinates (one line). */
static GdkRectangle
range_rectangle (GtkSourceView *view, const GtkTextIter *begin, const GtkTextIter *end)
{
  GtkTextIter last = *end;
  GdkRectangle first, final, rect;

  gtk_text_iter_backward_char (&last);
  gtk_text_view_get_iter_location (GTK_TEXT_VIEW (view), begin, &first);
  gtk_text_view_get_iter_location (GTK_TEXT_VIEW (view), &last, &final);
  gtk_text_view_buffer_to_window_coords (GTK_TEXT_VIEW (view), GTK_TEXT_WINDOW_WIDGET,
                                         first.x, first.y, &rect.x, &rect.y);
  rect.width = final.x + final.width - first.x;
  rect.height = first.height;
  return rect;
}

/* Pixels inside RECT (and just below it) that are clearly red: the error
 * squiggle of the Adwaita scheme, a colour it gives no JSON token. */
static guint
count_squiggle_pixels (GtkWidget *widget, GdkRectangle rect)
{
  g_autoptr(GdkTexture) texture = render_widget (widget);
  int width = gdk_texture_get_width (texture);
  int height = gdk_texture_get_height (texture);
  gsize stride = (gsize) width * 4;
  g_autofree guchar *pixels = g_malloc (stride * height);
  guint n = 0;

  gdk_texture_download (texture, pixels, stride);
  g_assert_cmpint (rect.x + rect.width, <=, width);
  g_assert_cmpint (rect.y + rect.height + 2, <=, height);
  for (int y = rect.y; y < rect.y + rect.height + 2; y++)
    for (int x = rect.x; x < rect.x + rect.width; x++)
      {
        const guchar *p = pixels + y * stride + x * 4;   /* B, G, R, A */
        int r = p[2], g = p[1], b = p[0];

        if (r - MAX (g, b) > 80)
          n++;
      }
  return n;
}

/* ---- tests ---- */

static void
test_example_data_check_clean (void)
{
  g_autoptr(TildeCheckResult) model = eight_schools ();
  g_autofree char *path = window_test_example_path ("eight_schools.data.json");
  GtkWindow *window;
  TildeDataPanel *panel = panel_window (model, &window);

  load (panel, path);
  g_assert_cmpuint (n_problems (panel), ==, 0);
  g_assert_false (tilde_data_panel_get_modified (panel));
  g_assert_nonnull (tilde_data_panel_get_file (panel));
  let_it_draw ();
  g_assert_true (label_shown (GTK_WIDGET (panel), "eight_schools.data.json"));
  /* The problems list says there are none. */
  g_assert_true (label_shown (GTK_WIDGET (panel), "None"));
  gtk_window_destroy (window);
}

static void
test_errors_and_warnings_shown_and_cleared (void)
{
  g_autoptr(TildeCheckResult) model = eight_schools ();
  g_autofree char *path = window_test_example_path ("eight_schools.data.json");
  GtkWindow *window;
  TildeDataPanel *panel = panel_window (model, &window);
  GtkSourceView *view = tilde_data_panel_get_view (panel);
  GtkWidget *list_view;
  GtkTextIter begin, end, cursor;
  TildeProblem *problem;
  guint with_error, without_error;
  gint64 start;

  load (panel, path);

  /* The last value of y deleted. */
  start = g_get_monotonic_time ();
  edit (panel, "18, 12]", "18]");
  g_assert_true (tilde_data_panel_get_modified (panel));
  g_assert_true (window_test_wait_for (has_problems, panel));
  g_test_message ("problem shown %.0f ms after the edit", (g_get_monotonic_time () - start) / 1000.0);
  g_assert_cmpuint (n_problems (panel), ==, 1);
  problem = problem_at (panel, 0);
  g_assert_cmpint (tilde_problem_get_severity (problem), ==, TILDE_SEVERITY_ERROR);
  g_assert_cmpstr (tilde_problem_get_message (problem), ==,
                   "variable y: expected array[8] real, found an array of 7 values");
  g_assert_cmpstr (tilde_problem_get_location (problem), ==, "Line 3");

  /* The squiggle covers y's value and not its name. */
  find_text (panel, "[28", &begin, NULL);
  find_text (panel, "18]", NULL, &end);
  g_assert_true (gtk_text_iter_has_tag (&begin, tag_named (panel, "tilde-error")));
  gtk_text_iter_backward_char (&end);
  g_assert_true (gtk_text_iter_has_tag (&end, tag_named (panel, "tilde-error")));
  gtk_text_iter_forward_char (&end);
  find_text (panel, "\"y\"", &cursor, NULL);
  g_assert_false (gtk_text_iter_has_tag (&cursor, tag_named (panel, "tilde-error")));
  g_assert_cmpuint (n_marks_on_line (panel, 2, "tilde-error"), ==, 1);
  g_assert_cmpuint (n_marks_on_line (panel, 1, "tilde-error"), ==, 0);
  let_it_draw ();
  with_error = count_squiggle_pixels (GTK_WIDGET (view), range_rectangle (view, &begin, &end));

  /* The row names y; activating it takes the cursor to the value. */
  list_view = find_descendant (GTK_WIDGET (panel), GTK_TYPE_LIST_VIEW);
  g_assert_true (label_shown (list_view, "variable y: expected array[8] real"));
  g_assert_true (label_shown (list_view, "Line 3"));
  gtk_text_buffer_get_start_iter (buffer_of (panel), &cursor);
  gtk_text_buffer_place_cursor (buffer_of (panel), &cursor);
  g_assert_true (gtk_widget_activate_action (list_view, "list.activate-item", "u", 0));
  gtk_text_buffer_get_iter_at_mark (buffer_of (panel), &cursor,
                                    gtk_text_buffer_get_insert (buffer_of (panel)));
  g_assert_cmpint (gtk_text_iter_get_line (&cursor), ==, 2);
  g_assert_cmpint (gtk_text_iter_get_line_offset (&cursor), ==, 7);

  /* A variable the model does not have: a warning on its name. */
  edit (panel, "\"J\": 8,", "\"J\": 8,\n  \"tau\": 1,");
  g_assert_true (window_test_wait_for (has_two_problems, panel));
  problem = problem_at (panel, 0);
  g_assert_cmpint (tilde_problem_get_severity (problem), ==, TILDE_SEVERITY_WARNING);
  g_assert_cmpstr (tilde_problem_get_message (problem), ==,
                   "variable tau is not declared in the model's data block; it is ignored");
  g_assert_cmpstr (tilde_problem_get_location (problem), ==, "Line 3");
  find_text (panel, "\"tau\"", &cursor, NULL);
  g_assert_true (gtk_text_iter_has_tag (&cursor, tag_named (panel, "tilde-warning")));
  g_assert_cmpuint (n_marks_on_line (panel, 2, "tilde-warning"), ==, 1);
  let_it_draw ();
  g_assert_true (label_shown (GTK_WIDGET (panel), "1 error, 1 warning"));
  save_screenshot (GTK_WIDGET (window), "data-panel-problems.png");

  /* Both fixed: everything clears. */
  start = g_get_monotonic_time ();
  edit (panel, "\n  \"tau\": 1,", "");
  edit (panel, "18]", "18, 12]");
  g_assert_true (window_test_wait_for (has_no_problems, panel));
  g_test_message ("problems cleared %.0f ms after the edit", (g_get_monotonic_time () - start) / 1000.0);
  find_text (panel, "[28", &begin, NULL);
  find_text (panel, "18, 12]", NULL, &end);
  g_assert_false (gtk_text_iter_has_tag (&begin, tag_named (panel, "tilde-error")));
  g_assert_cmpuint (n_marks_on_line (panel, 2, "tilde-error"), ==, 0);
  let_it_draw ();
  without_error = count_squiggle_pixels (GTK_WIDGET (view), range_rectangle (view, &begin, &end));
  g_test_message ("red pixels under y's value: %u with the error, %u without", with_error, without_error);
  g_assert_cmpuint (with_error, >=, 4);
  g_assert_cmpuint (without_error, ==, 0);
  gtk_window_destroy (window);
}

/* Whether the button bound to `action` (in the placeholder, drawn or
 * not) is sensitive: it follows whether the action is enabled. */
static gboolean
action_enabled (GtkWidget *widget, const char *action)
{
  if (GTK_IS_BUTTON (widget)
      && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), action) == 0)
    return gtk_widget_get_sensitive (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    if (action_enabled (child, action))
      return TRUE;
  return FALSE;
}

static void
test_template_checks_clean (void)
{
  g_autoptr(TildeCheckResult) model = eight_schools ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  GtkWindow *window;
  TildeDataPanel *panel = panel_window (model, &window);

  /* Empty data: the placeholder offers a template. */
  let_it_draw ();
  g_assert_true (label_shown (GTK_WIDGET (panel), "No Data"));
  g_assert_true (action_enabled (GTK_WIDGET (panel), "data.insert-template"));
  save_screenshot (GTK_WIDGET (window), "data-panel-empty.png");

  tilde_data_panel_insert_template_async (panel, NULL, async_done, &result);
  g_assert_true (window_test_wait_for (has_result, &result));
  g_assert_true (tilde_data_panel_insert_template_finish (panel, result, &error));
  g_assert_no_error (error);
  text = text_of (panel);
  g_test_message ("%s", text);
  /* Every variable of the data block, in its order. */
  g_assert_true (g_str_has_prefix (text, "{\n  \"J\": "));
  g_assert_nonnull (strstr (text, "\n  \"y\": ["));
  g_assert_nonnull (strstr (text, "\n  \"sigma\": ["));
  g_assert_true (strstr (text, "\"y\"") < strstr (text, "\"sigma\""));
  g_assert_true (window_test_wait_for (check_shown, panel));
  g_assert_true (window_test_wait_for (has_no_problems, panel));
  g_assert_cmpuint (n_problems (panel), ==, 0);
  let_it_draw ();
  g_assert_false (label_shown (GTK_WIDGET (panel), "No Data"));
  /* Not empty any more: no second template. */
  g_assert_false (action_enabled (GTK_WIDGET (panel), "data.insert-template"));
  g_assert_true (tilde_data_panel_get_modified (panel));
  save_screenshot (GTK_WIDGET (window), "data-panel-template.png");

  /* One undo takes it away. */
  g_assert_true (gtk_text_buffer_get_can_undo (buffer_of (panel)));
  gtk_text_buffer_undo (buffer_of (panel));
  g_assert_cmpint (gtk_text_buffer_get_char_count (buffer_of (panel)), ==, 0);
  gtk_window_destroy (window);
}

static void
count_notify (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  (*(guint *) user_data)++;
}

static void
test_save_clears_modified (void)
{
  g_autoptr(TildeCheckResult) model = eight_schools ();
  g_autofree char *dir = g_dir_make_tmp ("tilde-data-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "schools.data.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *saved = NULL;
  g_autofree char *text = NULL;
  GtkWindow *window;
  TildeDataPanel *panel = panel_window (model, &window);
  guint notified = 0;

  g_signal_connect (panel, "notify::modified", G_CALLBACK (count_notify), &notified);
  gtk_text_buffer_insert_interactive_at_cursor (buffer_of (panel), "{\"J\": 1, \"y\": [1], \"sigma\": [2]}",
                                                -1, TRUE);
  g_assert_true (tilde_data_panel_get_modified (panel));
  g_assert_cmpuint (notified, ==, 1);
  g_assert_null (tilde_data_panel_get_file (panel));

  tilde_data_panel_save_async (panel, file, NULL, async_done, &result);
  g_assert_true (window_test_wait_for (has_result, &result));
  g_assert_true (tilde_data_panel_save_finish (panel, result, &error));
  g_assert_no_error (error);
  g_assert_false (tilde_data_panel_get_modified (panel));
  g_assert_cmpuint (notified, ==, 2);
  g_assert_true (g_file_equal (tilde_data_panel_get_file (panel), file));
  g_assert_true (g_file_get_contents (path, &saved, NULL, NULL));
  text = text_of (panel);
  /* The file ends with a newline, as text files do. */
  g_assert_true (g_str_has_prefix (saved, text));
  g_assert_cmpstr (saved + strlen (text), ==, "\n");

  edit (panel, "[2]", "[3]");
  g_assert_true (tilde_data_panel_get_modified (panel));
  let_it_draw ();
  g_assert_true (label_shown (GTK_WIDGET (panel), "• schools.data.json"));
  gtk_window_destroy (window);
  g_unlink (path);
  g_rmdir (dir);
}

static gboolean
editor_check_shown (gpointer data)
{
  return !tilde_editor_get_checking (data) && _tilde_editor_get_shown_generation (data) > 0;
}

static void
test_follows_editor (void)
{
  g_autofree char *model_path = window_test_example_path ("eight_schools.stan");
  g_autofree char *data_path = window_test_example_path ("eight_schools.data.json");
  g_autofree char *source = NULL;
  TildeEditor *editor = TILDE_EDITOR (tilde_editor_new ());
  TildeDataPanel *panel = TILDE_DATA_PANEL (tilde_data_panel_new ());
  GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  GtkWindow *window;
  GtkTextIter begin, end;
  TildeProblem *problem;

  g_assert_true (g_file_get_contents (model_path, &source, NULL, NULL));
  set_scheme (tilde_editor_get_buffer (editor), "Adwaita");
  gtk_paned_set_start_child (GTK_PANED (paned), GTK_WIDGET (editor));
  gtk_paned_set_end_child (GTK_PANED (paned), GTK_WIDGET (panel));
  gtk_paned_set_position (GTK_PANED (paned), 520);
  window = window_with (paned, 1040, 560);
  tilde_data_panel_set_editor (panel, editor);
  /* The editor's style scheme is the panel's. */
  g_assert_true (gtk_source_buffer_get_style_scheme (tilde_data_panel_get_buffer (panel))
                 == gtk_source_buffer_get_style_scheme (tilde_editor_get_buffer (editor)));

  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (tilde_editor_get_buffer (editor)), source, -1);
  tilde_editor_check_now (editor);
  g_assert_true (window_test_wait_for (editor_check_shown, editor));
  g_assert_nonnull (tilde_data_panel_get_model (panel));
  load (panel, data_path);
  g_assert_cmpuint (n_problems (panel), ==, 0);

  /* y renamed in the model: the data are checked against the new model. */
  gtk_text_buffer_get_start_iter (GTK_TEXT_BUFFER (tilde_editor_get_buffer (editor)), &begin);
  g_assert_true (gtk_text_iter_forward_search (&begin, "array[J] real y;", GTK_TEXT_SEARCH_TEXT_ONLY,
                                               &begin, &end, NULL));
  gtk_text_buffer_delete (GTK_TEXT_BUFFER (tilde_editor_get_buffer (editor)), &begin, &end);
  gtk_text_buffer_insert (GTK_TEXT_BUFFER (tilde_editor_get_buffer (editor)), &begin,
                          "array[J] real y_obs;", -1);
  gtk_text_buffer_get_start_iter (GTK_TEXT_BUFFER (tilde_editor_get_buffer (editor)), &begin);
  g_assert_true (gtk_text_iter_forward_search (&begin, "  y ~", GTK_TEXT_SEARCH_TEXT_ONLY,
                                               &begin, &end, NULL));
  gtk_text_buffer_delete (GTK_TEXT_BUFFER (tilde_editor_get_buffer (editor)), &begin, &end);
  gtk_text_buffer_insert (GTK_TEXT_BUFFER (tilde_editor_get_buffer (editor)), &begin, "  y_obs ~", -1);
  g_assert_true (window_test_wait_for (has_two_problems, panel));
  problem = problem_at (panel, 0);
  g_assert_cmpstr (tilde_problem_get_message (problem), ==,
                   "variable y is not declared in the model's data block; it is ignored");
  problem = problem_at (panel, 1);
  g_assert_cmpstr (tilde_problem_get_message (problem), ==,
                   "variable y_obs not found in the data (declared as array[J] real)");
  let_it_draw ();
  save_screenshot (GTK_WIDGET (window), "data-panel-with-editor.png");
  gtk_window_destroy (window);
}

static GtkWidget *
find_label (GtkWidget *widget, const char *text)
{
  if (GTK_IS_LABEL (widget) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_label (child, text);

      if (found)
        return found;
    }
  return NULL;
}

static GtkWidget *
find_of_type (GtkWidget *widget, GType type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_of_type (child, type);

      if (found)
        return found;
    }
  return NULL;
}

/* In a panel too short for the placeholder, the placeholder stays inside
 * the data's own area (scrolling if it must) and never draws over the
 * problems list below it. */
static void
test_empty_state_fits (void)
{
  g_autoptr(TildeCheckResult) model = eight_schools ();
  TildeDataPanel *panel = TILDE_DATA_PANEL (tilde_data_panel_new ());
  GtkWindow *window;
  GtkWidget *title, *placeholder, *overlay, *problems;
  graphene_rect_t shown, area, list;

  tilde_data_panel_set_model (panel, model);
  window = window_with (GTK_WIDGET (panel), 480, 230);
  let_it_draw ();
  title = find_label (GTK_WIDGET (panel), "No Data");
  g_assert_nonnull (title);
  g_assert_true (gtk_widget_get_mapped (title));
  /* The overlay's own child is what is drawn over the data. */
  placeholder = title;
  while (!GTK_IS_OVERLAY (gtk_widget_get_parent (placeholder)))
    placeholder = gtk_widget_get_parent (placeholder);
  overlay = gtk_widget_get_parent (placeholder);
  problems = find_of_type (GTK_WIDGET (panel), TILDE_TYPE_PROBLEMS_LIST);
  g_assert_nonnull (problems);
  g_assert_true (gtk_widget_compute_bounds (placeholder, GTK_WIDGET (panel), &shown));
  g_assert_true (gtk_widget_compute_bounds (overlay, GTK_WIDGET (panel), &area));
  g_assert_true (gtk_widget_compute_bounds (problems, GTK_WIDGET (panel), &list));
  g_test_message ("placeholder %.0f..%.0f, data area %.0f..%.0f, problems from %.0f",
                  shown.origin.y, shown.origin.y + shown.size.height,
                  area.origin.y, area.origin.y + area.size.height, list.origin.y);
  save_screenshot (GTK_WIDGET (window), "data-panel-empty-short.png");
  g_assert_cmpfloat (shown.origin.y, >=, area.origin.y);
  g_assert_cmpfloat (shown.origin.y + shown.size.height, <=, area.origin.y + area.size.height);
  g_assert_cmpfloat (shown.origin.y + shown.size.height, <=, list.origin.y);
  /* Still all there: the actions stay reachable. */
  g_assert_true (action_enabled (GTK_WIDGET (panel), "data.insert-template"));
  gtk_window_destroy (window);
}

static gboolean
object_gone (gpointer data)
{
  return *(gpointer *) data == NULL;
}

static void
test_closing_stops_engine_thread (void)
{
  g_autoptr(TildeCheckResult) model = eight_schools ();
  GtkWindow *window;
  TildeDataPanel *panel = panel_window (model, &window);
  gint64 start;

  /* A data check that would take a minute is under way when the window
   * goes. */
  tilde_worker_set_check_delay (_tilde_data_panel_get_worker (panel), 60000);
  gtk_text_buffer_insert_interactive_at_cursor (buffer_of (panel), "{\"J\": 1}", -1, TRUE);
  tilde_data_panel_check_now (panel);
  g_object_add_weak_pointer (G_OBJECT (panel), (gpointer *) &panel);
  start = g_get_monotonic_time ();
  gtk_window_destroy (window);
  /* gone well before the check could end (the wait gives up after ten
   * seconds) */
  g_assert_true (window_test_wait_for (object_gone, &panel));
  g_test_message ("panel gone %.0f ms after the window",
                  (g_get_monotonic_time () - start) / 1000.0);
}

/* A file over two million characters is shown without highlighting, and
 * says so; the next small file is highlighted again. */
static void
test_large_file_not_highlighted (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tilde-data-panel-XXXXXX", NULL);
  g_autofree char *large_path = g_build_filename (dir, "large.json", NULL);
  g_autofree char *small_path = g_build_filename (dir, "small.json", NULL);
  g_autoptr(GString) large = g_string_new ("{\n  \"x\": [\n");
  GtkWindow *window;
  TildeDataPanel *panel = panel_window (NULL, &window);

  for (int row = 0; row < 2600; row++)
    {
      g_string_append (large, "    ");
      for (int k = 0; k < 100; k++)
        g_string_append_printf (large, "%s%.3f", k ? ", " : "", (row * 100 + k) / 1000.0);
      g_string_append (large, row + 1 < 2600 ? ",\n" : "\n");
    }
  g_string_append (large, "  ]\n}\n");
  g_assert_cmpuint (large->len, >, 2 * 1024 * 1024);
  g_assert_true (g_file_set_contents (large_path, large->str, (gssize) large->len, NULL));
  g_assert_true (g_file_set_contents (small_path, "{\"x\": [1, 2]}\n", -1, NULL));

  load (panel, large_path);
  window_test_let_it_draw (GTK_WIDGET (panel));
  window_test_screenshot (GTK_WIDGET (window), "data-panel-large-file.png");
  g_assert_null (gtk_source_buffer_get_language (tilde_data_panel_get_buffer (panel)));
  g_assert_nonnull (_tilde_data_panel_get_message (panel));
  g_assert_nonnull (strstr (_tilde_data_panel_get_message (panel), "large"));
  g_autofree char *text = text_of (panel);
  g_assert_cmpuint (strlen (text) + 1, ==, large->len);
  g_assert_true (strncmp (text, large->str, strlen (text)) == 0);

  load (panel, small_path);
  g_assert_nonnull (gtk_source_buffer_get_language (tilde_data_panel_get_buffer (panel)));
  g_assert_null (_tilde_data_panel_get_message (panel));

  gtk_window_destroy (window);
  g_unlink (large_path);
  g_unlink (small_path);
  g_rmdir (dir);
}

static char *
one_line_data (const char *before, int n)
{
  GString *text = g_string_new ("{");

  g_string_append (text, before);
  g_string_append (text, "\"sigma\": [");
  for (int i = 0; i < n; i++)
    g_string_append_printf (text, "%s%.4f", i ? ", " : "", 10 + (i % 997) / 100.0);
  g_string_append (text, "]}\n");
  return g_string_free (text, FALSE);
}

static gboolean
view_shows_buffer (TildeDataPanel *panel)
{
  return gtk_text_view_get_buffer (GTK_TEXT_VIEW (tilde_data_panel_get_view (panel))) == buffer_of (panel);
}

static const char *
content_page (TildeDataPanel *panel)
{
  GtkWidget *view = GTK_WIDGET (tilde_data_panel_get_view (panel));
  GtkWidget *stack = gtk_widget_get_ancestor (view, GTK_TYPE_STACK);

  g_assert_nonnull (stack);
  return gtk_stack_get_visible_child_name (GTK_STACK (stack));
}

/* A file on one line of 10 KB (as JSON writers put a whole file on one
 * line) is shown as text, without highlighting, and says why; typing or
 * pasting a line that long into highlighted data turns highlighting off,
 * and removing it turns it on again. */
static void
test_long_line_not_highlighted (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tilde-data-panel-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "one-line.json", NULL);
  g_autofree char *small_path = g_build_filename (dir, "small.json", NULL);
  g_autofree char *data = one_line_data ("\"J\": 8, ", 1000);
  g_autoptr(GString) paste = g_string_new ("\n");
  GtkWindow *window;
  TildeDataPanel *panel = panel_window (NULL, &window);

  g_assert_cmpuint (strlen (data), >, 4096);
  g_assert_true (g_file_set_contents (path, data, -1, NULL));
  g_assert_true (g_file_set_contents (small_path, "{\"x\": [1, 2]}\n", -1, NULL));

  load (panel, path);
  g_assert_true (view_shows_buffer (panel));
  g_assert_cmpstr (content_page (panel), ==, "text");
  g_assert_null (gtk_source_buffer_get_language (tilde_data_panel_get_buffer (panel)));
  g_assert_nonnull (strstr (_tilde_data_panel_get_message (panel), "A line of these data is"));
  g_autofree char *text = text_of (panel);
  g_assert_cmpuint (strlen (text) + 1, ==, strlen (data));
  g_assert_true (strncmp (text, data, strlen (text)) == 0);
  g_assert_false (tilde_data_panel_get_modified (panel));

  load (panel, small_path);
  g_assert_nonnull (gtk_source_buffer_get_language (tilde_data_panel_get_buffer (panel)));
  g_assert_null (_tilde_data_panel_get_message (panel));
  /* a short line typed stays highlighted; a long one pasted does not */
  gtk_text_buffer_insert_interactive_at_cursor (buffer_of (panel), "\n ", -1, TRUE);
  g_assert_nonnull (gtk_source_buffer_get_language (tilde_data_panel_get_buffer (panel)));
  for (int i = 0; i < 1000; i++)
    g_string_append (paste, "1.25, ");
  gtk_text_buffer_insert_interactive_at_cursor (buffer_of (panel), paste->str, -1, TRUE);
  g_assert_null (gtk_source_buffer_get_language (tilde_data_panel_get_buffer (panel)));
  g_assert_nonnull (strstr (_tilde_data_panel_get_message (panel), "A line of these data is"));
  /* undone, the line is gone and the data are highlighted again */
  gtk_text_buffer_undo (buffer_of (panel));
  g_assert_nonnull (gtk_source_buffer_get_language (tilde_data_panel_get_buffer (panel)));
  g_assert_null (_tilde_data_panel_get_message (panel));

  gtk_window_destroy (window);
  g_unlink (path);
  g_unlink (small_path);
  g_rmdir (dir);
}

/* A line too wide to lay out (300 KB) is not shown: the view lets go of
 * the text, and a summary of the variables stands in; the data are still
 * checked against the model, their problems listed, and the text is the
 * file's. The next file of short lines is shown as text again. */
static void
test_wide_line_summarised (void)
{
  g_autoptr(TildeCheckResult) model = eight_schools ();
  g_autofree char *dir = g_dir_make_tmp ("tilde-data-panel-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "wide.json", NULL);
  g_autofree char *example = window_test_example_path ("eight_schools.data.json");
  g_autofree char *data = one_line_data ("\"J\": 8, \"y\": [28, 8, -3, 7, -1, 1, 18, 12], ", 30000);
  GtkWindow *window;
  TildeDataPanel *panel = panel_window (model, &window);

  g_assert_cmpuint (strlen (data), >, 256 * 1024);
  g_assert_true (g_file_set_contents (path, data, -1, NULL));

  load (panel, path);
  g_assert_false (view_shows_buffer (panel));
  g_assert_cmpstr (content_page (panel), ==, "summary");
  window_test_let_it_draw (GTK_WIDGET (panel));
  window_test_screenshot (GTK_WIDGET (window), "data-panel-wide-line.png");
  g_assert_true (label_shown (GTK_WIDGET (panel), "Data Too Wide to Show"));
  g_assert_true (label_shown (GTK_WIDGET (panel), "more than the editor lays out"));
  g_assert_nonnull (find_label (GTK_WIDGET (panel), "sigma"));
  g_assert_nonnull (find_label (GTK_WIDGET (panel), "30000"));
  g_assert_nonnull (find_label (GTK_WIDGET (panel), "J"));
  g_assert_nonnull (find_label (GTK_WIDGET (panel), "8"));
  /* the summary says it all: no second note above it */
  g_assert_null (_tilde_data_panel_get_message (panel));
  g_autofree char *text = text_of (panel);
  g_assert_cmpuint (strlen (text) + 1, ==, strlen (data));
  g_assert_true (strncmp (text, data, strlen (text)) == 0);
  /* sigma has 30000 values where the model declares 8 */
  g_assert_cmpuint (n_problems (panel), ==, 1);
  TildeProblem *problem = problem_at (panel, 0);
  g_assert_nonnull (strstr (tilde_problem_get_message (problem), "sigma"));
  tilde_data_panel_go_to_problem (panel, problem);
  g_assert_false (view_shows_buffer (panel));

  load (panel, example);
  g_assert_true (view_shows_buffer (panel));
  g_assert_cmpstr (content_page (panel), ==, "text");
  g_assert_nonnull (gtk_source_buffer_get_language (tilde_data_panel_get_buffer (panel)));
  g_assert_cmpuint (n_problems (panel), ==, 0);

  /* restored text goes the same way */
  tilde_data_panel_restore_text (panel, NULL, data);
  g_assert_false (view_shows_buffer (panel));
  g_assert_cmpstr (content_page (panel), ==, "summary");
  g_assert_true (tilde_data_panel_get_modified (panel));

  gtk_window_destroy (window);
  g_unlink (path);
  g_rmdir (dir);
}

static void
save_to (TildeDataPanel *panel, const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  tilde_data_panel_save_async (panel, file, NULL, async_done, &result);
  g_assert_true (window_test_wait_for_ms (has_result, &result, 120000));
  g_assert_true (tilde_data_panel_save_finish (panel, result, &error));
  g_assert_no_error (error);
}

/* Files as GtkSourceView's loader takes them, and saved back byte for
 * byte: CRLF and CR line breaks, ISO-8859-15 text; a UTF-8 byte order
 * mark is dropped; a zero byte is not text. */
static void
test_file_encodings_round_trip (void)
{
  static const struct { const char *name, *bytes, *shown; } files[] = {
    { "crlf.json", "{\r\n  \"x\": [1, 2]\r\n}\r\n", "{\r\n  \"x\": [1, 2]\r\n}" },
    { "cr.json", "{\r  \"x\": [1, 2]\r}\r", "{\n  \"x\": [1, 2]\n}" },
    { "latin.json", "{\"x\": [1, 2], \"s\": \"caf\xe9\"}\n", "{\"x\": [1, 2], \"s\": \"caf\xc3\xa9\"}" },
  };
  g_autofree char *dir = g_dir_make_tmp ("tilde-data-panel-XXXXXX", NULL);
  g_autofree char *saved = g_build_filename (dir, "saved.json", NULL);
  g_autofree char *bom = g_build_filename (dir, "bom.json", NULL);
  g_autofree char *nul = g_build_filename (dir, "nul.json", NULL);
  g_autoptr(GFile) nul_file = g_file_new_for_path (nul);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  GtkWindow *window;
  TildeDataPanel *panel = panel_window (NULL, &window);

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (dir, files[i].name, NULL);
      g_autofree char *text = NULL, *back = NULL;
      gsize len;

      g_assert_true (g_file_set_contents (path, files[i].bytes, -1, NULL));
      load (panel, path);
      g_assert_true (view_shows_buffer (panel));
      text = text_of (panel);
      g_assert_cmpstr (text, ==, files[i].shown);
      g_assert_cmpuint (n_problems (panel), ==, 0);
      g_assert_nonnull (gtk_source_buffer_get_language (tilde_data_panel_get_buffer (panel)));
      save_to (panel, saved);
      g_assert_true (g_file_get_contents (saved, &back, &len, NULL));
      g_assert_cmpstr (back, ==, files[i].bytes);
      g_unlink (path);
    }

  g_assert_true (g_file_set_contents (bom, "\xEF\xBB\xBF{\"x\": 1}\n", -1, NULL));
  load (panel, bom);
  g_autofree char *without_bom = text_of (panel);
  g_assert_cmpstr (without_bom, ==, "{\"x\": 1}");

  g_assert_true (g_file_set_contents (nul, "{\"x\": 1}\0\n", 11, NULL));
  tilde_data_panel_load_async (panel, nul_file, NULL, async_done, &result);
  g_assert_true (window_test_wait_for_ms (has_result, &result, 120000));
  g_assert_false (tilde_data_panel_load_finish (panel, result, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_null (tilde_data_panel_get_file (panel));
  g_assert_false (tilde_data_panel_get_loading (panel));

  gtk_window_destroy (window);
  g_unlink (bom);
  g_unlink (nul);
  g_unlink (saved);
  g_rmdir (dir);
}

static gboolean
not_loading (gpointer data)
{
  return !tilde_data_panel_get_loading (data);
}

/* A load taken over by the next one answers that it was cancelled, and
 * the text is the next file's; a load cancelled while its text goes in
 * answers so too and leaves the panel ready for the next. */
static void
test_load_superseded_or_cancelled (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tilde-data-panel-XXXXXX", NULL);
  g_autofree char *large_path = g_build_filename (dir, "large.json", NULL);
  g_autofree char *small_path = g_build_filename (dir, "small.json", NULL);
  g_autoptr(GString) large = g_string_new ("{\n  \"x\": [\n");
  g_autoptr(GFile) large_file = NULL, small_file = NULL;
  g_autoptr(GAsyncResult) first = NULL, second = NULL, third = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  GtkWindow *window;
  TildeDataPanel *panel = panel_window (NULL, &window);

  for (int row = 0; row < 20000; row++)
    g_string_append_printf (large, "    %d.5%s\n", row, row + 1 < 20000 ? "," : "");
  g_string_append (large, "  ]\n}\n");
  g_assert_true (g_file_set_contents (large_path, large->str, (gssize) large->len, NULL));
  g_assert_true (g_file_set_contents (small_path, "{\"x\": [1, 2]}\n", -1, NULL));
  large_file = g_file_new_for_path (large_path);
  small_file = g_file_new_for_path (small_path);

  tilde_data_panel_load_async (panel, large_file, NULL, async_done, &first);
  tilde_data_panel_load_async (panel, small_file, NULL, async_done, &second);
  g_assert_true (window_test_wait_for_ms (has_result, &second, 120000));
  g_assert_true (window_test_wait_for_ms (has_result, &first, 120000));
  g_assert_false (tilde_data_panel_load_finish (panel, first, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_assert_true (tilde_data_panel_load_finish (panel, second, &error));
  g_assert_no_error (error);
  g_autofree char *text = text_of (panel);
  g_assert_cmpstr (text, ==, "{\"x\": [1, 2]}");
  g_assert_false (tilde_data_panel_get_loading (panel));

  tilde_data_panel_load_async (panel, large_file, cancellable, async_done, &third);
  g_cancellable_cancel (cancellable);
  g_assert_true (window_test_wait_for_ms (has_result, &third, 120000));
  g_assert_false (tilde_data_panel_load_finish (panel, third, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_true (window_test_wait_for_ms (not_loading, panel, 120000));
  g_assert_true (view_shows_buffer (panel));

  load (panel, large_path);
  g_autofree char *loaded = text_of (panel);
  g_assert_cmpuint (strlen (loaded) + 1, ==, large->len);

  gtk_window_destroy (window);
  g_unlink (large_path);
  g_unlink (small_path);
  g_rmdir (dir);
}

static gboolean
format (TildeDataPanel *panel, GError **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  tilde_data_panel_format_async (panel, NULL, async_done, &result);
  g_assert_true (window_test_wait_for_ms (has_result, &result, 120000));
  return tilde_data_panel_format_finish (panel, result, error);
}

static char *
without_blanks (const char *text)
{
  GString *out = g_string_new (NULL);

  for (const char *p = text; *p; p++)
    if (!g_ascii_isspace (*p))
      g_string_append_c (out, *p);
  return g_string_free (out, FALSE);
}

/* Format Data lays small data out as one undoable step; data too wide to
 * show come back as text the view shows, highlighted; text that is not
 * JSON is left alone with the error; data laid out already stay
 * unmodified. */
static void
test_format_data (void)
{
  g_autoptr(TildeCheckResult) model = eight_schools ();
  g_autofree char *dir = g_dir_make_tmp ("tilde-data-panel-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "wide.json", NULL);
  g_autofree char *small =
    g_strdup ("{\"J\": 8, \"y\": [28, 8, -3, 7, -1, 1, 18, 12], \"sigma\": [15, 10, 16, 11, 9, 11, 10, 18]}");
  g_autofree char *wide = one_line_data ("\"J\": 8, \"y\": [28, 8, -3, 7, -1, 1, 18, 12], ", 30000);
  g_autoptr(GError) error = NULL;
  GtkWindow *window;
  TildeDataPanel *panel = panel_window (model, &window);

  g_assert_false (action_enabled (GTK_WIDGET (panel), "data.format"));   /* nothing to format */
  tilde_data_panel_restore_text (panel, NULL, small);
  gtk_text_buffer_set_modified (buffer_of (panel), FALSE);
  g_assert_true (action_enabled (GTK_WIDGET (panel), "data.format"));
  g_assert_true (format (panel, &error));
  g_assert_no_error (error);
  g_autofree char *laid_out = text_of (panel);
  g_assert_cmpstr (laid_out, ==,
                   "{\n"
                   "  \"J\": 8,\n"
                   "  \"y\": [28, 8, -3, 7, -1, 1, 18, 12],\n"
                   "  \"sigma\": [15, 10, 16, 11, 9, 11, 10, 18]\n"
                   "}");
  g_assert_true (tilde_data_panel_get_modified (panel));
  g_assert_true (gtk_text_buffer_get_can_undo (buffer_of (panel)));
  gtk_text_buffer_undo (buffer_of (panel));
  g_autofree char *undone = text_of (panel);
  g_assert_cmpstr (undone, ==, small);
  gtk_text_buffer_redo (buffer_of (panel));

  /* laid out already: nothing changes */
  gtk_text_buffer_set_modified (buffer_of (panel), FALSE);
  g_assert_true (format (panel, &error));
  g_assert_false (tilde_data_panel_get_modified (panel));

  /* not JSON: left as it is, the error shown */
  tilde_data_panel_restore_text (panel, NULL, "{\"J\": 8,, }");
  g_assert_false (format (panel, &error));
  g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA);
  g_clear_error (&error);
  g_autofree char *bad = text_of (panel);
  g_assert_cmpstr (bad, ==, "{\"J\": 8,, }");

  /* too wide to show, then shown */
  g_assert_true (g_file_set_contents (path, wide, -1, NULL));
  load (panel, path);
  g_assert_cmpstr (content_page (panel), ==, "summary");
  g_assert_true (action_enabled (GTK_WIDGET (panel), "data.format"));
  g_assert_true (format (panel, &error));
  g_assert_no_error (error);
  g_assert_true (window_test_wait_for_ms (check_shown, panel, 120000));
  g_assert_cmpstr (content_page (panel), ==, "text");
  g_assert_true (view_shows_buffer (panel));
  g_assert_nonnull (gtk_source_buffer_get_language (tilde_data_panel_get_buffer (panel)));
  g_assert_true (tilde_data_panel_get_modified (panel));
  g_assert_false (tilde_data_panel_get_loading (panel));
  g_autofree char *text = text_of (panel);
  g_autofree char *tokens = without_blanks (text);
  g_autofree char *wide_tokens = without_blanks (wide);
  g_assert_cmpstr (tokens, ==, wide_tokens);
  g_assert_cmpuint (n_problems (panel), ==, 1);   /* sigma still has 30000 values */
  /* not undoable: an undo would bring the line too wide to show back */
  g_assert_false (gtk_text_buffer_get_can_undo (buffer_of (panel)));
  window_test_let_it_draw (GTK_WIDGET (panel));
  window_test_screenshot (GTK_WIDGET (window), "data-panel-formatted.png");

  gtk_window_destroy (window);
  g_unlink (path);
  g_rmdir (dir);
}

static gboolean
pieces_going_in (gpointer data)
{
  return gtk_text_buffer_get_char_count (buffer_of (data)) > 0;
}

static char *
rows_of_data (int rows)
{
  GString *text = g_string_new ("{\n  \"x\": [\n");

  for (int row = 0; row < rows; row++)
    g_string_append_printf (text, "    %d.5, 1.25, 2.5, 3.75, 4.5, 5.25, 6.5, 7.75%s\n", row,
                            row + 1 < rows ? "," : "");
  g_string_append (text, "  ]\n}\n");
  return g_string_free (text, FALSE);
}

/* A load cancelled while its text goes in leaves no part of the file and
 * no file, so that Save cannot write the part over it; data restored
 * while a file is read or going in take over, and the panel is ready
 * again; a format that ends after a load began gives way to the load. */
static void
test_loads_taken_over (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tilde-data-panel-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "large.json", NULL);
  g_autofree char *data = rows_of_data (100000);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GAsyncResult) cancelled = NULL, during_read = NULL, during_pieces = NULL;
  g_autoptr(GAsyncResult) formatted = NULL, loaded = NULL;
  g_autoptr(GError) error = NULL;
  GtkWindow *window;
  TildeDataPanel *panel = panel_window (NULL, &window);

  g_assert_true (g_file_set_contents (path, data, -1, NULL));

  tilde_data_panel_load_async (panel, file, cancellable, async_done, &cancelled);
  g_assert_true (window_test_wait_for_ms (pieces_going_in, panel, 120000));
  g_cancellable_cancel (cancellable);
  g_assert_true (window_test_wait_for_ms (has_result, &cancelled, 120000));
  g_assert_false (tilde_data_panel_load_finish (panel, cancelled, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_assert_true (window_test_wait_for_ms (not_loading, panel, 120000));
  g_assert_cmpint (gtk_text_buffer_get_char_count (buffer_of (panel)), ==, 0);
  g_assert_null (tilde_data_panel_get_file (panel));
  g_assert_false (tilde_data_panel_get_modified (panel));

  tilde_data_panel_load_async (panel, file, NULL, async_done, &during_read);
  tilde_data_panel_restore_text (panel, NULL, "{\"x\": [1, 2]}\n");
  g_assert_true (window_test_wait_for_ms (has_result, &during_read, 120000));
  g_assert_false (tilde_data_panel_load_finish (panel, during_read, NULL));
  g_assert_false (tilde_data_panel_get_loading (panel));
  g_assert_true (gtk_text_view_get_editable (GTK_TEXT_VIEW (tilde_data_panel_get_view (panel))));
  g_assert_true (action_enabled (GTK_WIDGET (panel), "data.open"));

  tilde_data_panel_load_async (panel, file, NULL, async_done, &during_pieces);
  g_assert_true (window_test_wait_for_ms (pieces_going_in, panel, 120000));
  tilde_data_panel_restore_text (panel, NULL, "{\"x\": [1, 2]}\n");
  g_assert_true (window_test_wait_for_ms (has_result, &during_pieces, 120000));
  g_assert_false (tilde_data_panel_load_finish (panel, during_pieces, NULL));
  g_assert_false (tilde_data_panel_get_loading (panel));
  g_autofree char *restored = text_of (panel);
  g_assert_cmpstr (restored, ==, "{\"x\": [1, 2]}");

  tilde_data_panel_restore_text (panel, NULL, "{\"x\":[1,2]}\n");
  tilde_data_panel_format_async (panel, NULL, async_done, &formatted);
  tilde_data_panel_load_async (panel, file, NULL, async_done, &loaded);
  g_assert_true (window_test_wait_for_ms (has_result, &formatted, 120000));
  g_assert_true (window_test_wait_for_ms (has_result, &loaded, 120000));
  g_assert_false (tilde_data_panel_format_finish (panel, formatted, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_true (tilde_data_panel_load_finish (panel, loaded, NULL));
  g_autofree char *text = text_of (panel);
  g_assert_cmpuint (strlen (text) + 1, ==, strlen (data));
  g_assert_false (tilde_data_panel_get_modified (panel));
  g_assert_nonnull (tilde_data_panel_get_file (panel));

  gtk_window_destroy (window);
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int argc, char *argv[])
{
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_setenv ("GSK_RENDERER", "cairo", FALSE);
  g_setenv ("GTK_A11Y", "none", TRUE);
  g_setenv ("ADW_DISABLE_PORTAL", "1", TRUE);
  g_unsetenv ("TILDE_WORKER_CHECK_DELAY_MS");
  gtk_test_init (&argc, &argv, NULL);
  /* The look the application gives it. */
  adw_init ();
  gtk_source_init ();

  g_test_add_func ("/data-panel/example-data-check-clean", test_example_data_check_clean);
  g_test_add_func ("/data-panel/errors-and-warnings-shown-and-cleared",
                   test_errors_and_warnings_shown_and_cleared);
  g_test_add_func ("/data-panel/template-checks-clean", test_template_checks_clean);
  g_test_add_func ("/data-panel/empty-state-fits", test_empty_state_fits);
  g_test_add_func ("/data-panel/save-clears-modified", test_save_clears_modified);
  g_test_add_func ("/data-panel/follows-editor", test_follows_editor);
  g_test_add_func ("/data-panel/closing-stops-engine-thread", test_closing_stops_engine_thread);
  g_test_add_func ("/data-panel/large-file-not-highlighted", test_large_file_not_highlighted);
  g_test_add_func ("/data-panel/long-line-not-highlighted", test_long_line_not_highlighted);
  g_test_add_func ("/data-panel/wide-line-summarised", test_wide_line_summarised);
  g_test_add_func ("/data-panel/file-encodings-round-trip", test_file_encodings_round_trip);
  g_test_add_func ("/data-panel/load-superseded-or-cancelled", test_load_superseded_or_cancelled);
  g_test_add_func ("/data-panel/format-data", test_format_data);
  g_test_add_func ("/data-panel/loads-taken-over", test_loads_taken_over);
  return g_test_run ();
}
