/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The editor in the real window: live checking as the model is edited
 * (squiggles that are drawn, gutter marks, the problems list), results of
 * slow checks that must never replace newer ones, jumping to a problem,
 * completion, formatting, pedantic mode, includes next to the file, search
 * and replace. Run under an X server (Xvfb); screenshots go to
 * $TILDE_SCREENSHOT_DIR when it is set.
 */
#include <glib/gstdio.h>
#include <string.h>

#include "tilde-application.h"
#include "tilde-completion-proposal.h"
#include "tilde-diagnostic-hover.h"
#include "tilde-editor-private.h"
#include "tilde-window.h"
#include "window-test-util.h"

static TildeApplication *app;

static gboolean
check_shown (gpointer data)
{
  TildeEditor *editor = data;

  return !tilde_editor_get_checking (editor) && _tilde_editor_get_shown_generation (editor) > 0;
}

static TildeWindow *
open_path (const char *path)
{
  TildeWindow *window = window_test_open (GTK_APPLICATION (app), path);

  g_assert_true (window_test_wait_for (check_shown, tilde_window_get_editor (window)));
  return window;
}

static TildeWindow *
open_example (const char *name)
{
  g_autofree char *path = window_test_example_path (name);

  return open_path (path);
}

/* A model written to a fresh temporary folder; free with remove_model(). */
static char *
write_model (const char *name, const char *text)
{
  g_autofree char *dir = g_dir_make_tmp ("tilde-editor-XXXXXX", NULL);
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static void
remove_model (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *file = g_build_filename (dir, name, NULL);
      g_unlink (file);
    }
  g_rmdir (dir);
}

static GtkTextBuffer *
editor_buffer (TildeEditor *editor)
{
  return GTK_TEXT_BUFFER (tilde_editor_get_buffer (editor));
}

static char *
text_of (TildeEditor *editor)
{
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (editor_buffer (editor), &start, &end);
  return gtk_text_buffer_get_text (editor_buffer (editor), &start, &end, TRUE);
}

/* The first match of `needle`; `end` may be NULL. */
static void
find_text (TildeEditor *editor, const char *needle, GtkTextIter *begin, GtkTextIter *end)
{
  GtkTextIter start, match_end;

  gtk_text_buffer_get_start_iter (editor_buffer (editor), &start);
  g_assert_true (gtk_text_iter_forward_search (&start, needle, GTK_TEXT_SEARCH_TEXT_ONLY,
                                               begin, end ? end : &match_end, NULL));
}

/* Replaces the first `old` with `new` as typing would: one user action. */
static void
edit (TildeEditor *editor, const char *old, const char *new)
{
  GtkTextBuffer *buffer = editor_buffer (editor);
  GtkTextIter begin, end;

  find_text (editor, old, &begin, &end);
  gtk_text_buffer_begin_user_action (buffer);
  gtk_text_buffer_delete_interactive (buffer, &begin, &end, TRUE);
  gtk_text_buffer_insert_interactive (buffer, &begin, new, -1, TRUE);
  gtk_text_buffer_end_user_action (buffer);
}

static guint
n_problems (TildeEditor *editor)
{
  return g_list_model_get_n_items (tilde_editor_get_problems (editor));
}

static TildeProblem *
problem_at (TildeEditor *editor, guint i)
{
  TildeProblem *problem = g_list_model_get_item (tilde_editor_get_problems (editor), i);

  g_object_unref (problem);   /* the model keeps it */
  return problem;
}

static gboolean
has_problems (gpointer data)
{
  return !tilde_editor_get_checking (data) && n_problems (data) > 0;
}

static gboolean
has_no_problems (gpointer data)
{
  return !tilde_editor_get_checking (data) && n_problems (data) == 0;
}

static GtkTextTag *
tag_named (TildeEditor *editor, const char *name)
{
  GtkTextTag *tag = gtk_text_tag_table_lookup (gtk_text_buffer_get_tag_table (editor_buffer (editor)),
                                               name);

  g_assert_nonnull (tag);
  return tag;
}

static guint
n_marks_on_line (TildeEditor *editor, int line, const char *category)
{
  GSList *marks = gtk_source_buffer_get_source_marks_at_line (tilde_editor_get_buffer (editor),
                                                              line, category);
  guint n = g_slist_length (marks);

  g_slist_free (marks);
  return n;
}

/* ---- pixels ---- */

/* The rendering of WIDGET as it is on screen, right after a frame. */
static GdkTexture *
render_widget (GtkWidget *widget)
{
  return window_test_render (widget);
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

/* Two frames of the window, laid out and painted. */
static void
let_it_draw (void)
{
  window_test_let_it_draw (GTK_WIDGET (gtk_application_get_active_window (GTK_APPLICATION (app))));
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

/* Scrolls the editor so that `iter` is drawn, well inside the view. */
static void
show_iter (GtkSourceView *view, const GtkTextIter *iter)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
  GtkTextMark *mark = gtk_text_buffer_create_mark (buffer, NULL, iter, TRUE);

  gtk_text_view_scroll_to_mark (GTK_TEXT_VIEW (view), mark, 0.2, FALSE, 0, 0);
  let_it_draw ();
  gtk_text_buffer_delete_mark (buffer, mark);
}

/* Pixels inside RECT whose colour is clearly red or orange: the error
 * squiggle of any reasonable scheme, and no colour the Adwaita scheme
 * gives an identifier or a number. */
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
test_error_squiggle_mark_and_row (void)
{
  TildeWindow *window = open_example ("eight_schools.stan");
  TildeEditor *editor = tilde_window_get_editor (window);
  GtkSourceView *view = tilde_editor_get_view (editor);
  GtkTextIter begin, end;
  GdkRectangle rect;
  TildeProblem *problem;
  guint with_error, without_error;
  gint64 start;

  g_assert_cmpuint (n_problems (editor), ==, 0);

  /* An undeclared name in the prior of tau (line 22). */
  start = g_get_monotonic_time ();
  edit (editor, "cauchy(0, 5)", "cauchy(0, scale)");
  g_assert_true (window_test_wait_for (has_problems, editor));
  g_test_message ("problem shown %.0f ms after the edit",
                  (g_get_monotonic_time () - start) / 1000.0);
  g_assert_cmpuint (n_problems (editor), ==, 1);
  problem = problem_at (editor, 0);
  g_assert_cmpint (tilde_problem_get_severity (problem), ==, TILDE_SEVERITY_ERROR);
  /* stanc's message for it. */
  g_assert_true (g_str_has_prefix (tilde_problem_get_message (problem),
                                   "Identifier 'scale' not in scope."));
  g_assert_cmpstr (tilde_problem_get_location (problem), ==, "Line 22");

  /* The squiggle covers the name and nothing before it. */
  find_text (editor, "scale", &begin, &end);
  g_assert_true (gtk_text_iter_has_tag (&begin, tag_named (editor, "tilde-error")));
  gtk_text_iter_backward_char (&begin);
  g_assert_false (gtk_text_iter_has_tag (&begin, tag_named (editor, "tilde-error")));
  gtk_text_iter_forward_char (&begin);
  g_assert_cmpuint (n_marks_on_line (editor, 21, "tilde-error"), ==, 1);
  g_assert_cmpuint (n_marks_on_line (editor, 20, "tilde-error"), ==, 0);

  show_iter (view, &begin);
  let_it_draw ();
  save_screenshot (GTK_WIDGET (window), "editor-error.png");
  rect = range_rectangle (view, &begin, &end);
  with_error = count_squiggle_pixels (GTK_WIDGET (view), rect);

  /* Declaring the name (on a line of its own kind, so line 22 keeps its
   * text and place) clears everything. */
  start = g_get_monotonic_time ();
  edit (editor, "int<lower=0> J;", "int<lower=0> J; real scale;");
  g_assert_true (window_test_wait_for (has_no_problems, editor));
  g_test_message ("problem cleared %.0f ms after the edit",
                  (g_get_monotonic_time () - start) / 1000.0);
  find_text (editor, "scale)", &begin, &end);
  g_assert_false (gtk_text_iter_has_tag (&begin, tag_named (editor, "tilde-error")));
  g_assert_cmpuint (n_marks_on_line (editor, 21, "tilde-error"), ==, 0);
  let_it_draw ();
  gtk_text_iter_forward_chars (&end, -1);
  without_error = count_squiggle_pixels (GTK_WIDGET (view), range_rectangle (view, &begin, &end));
  g_test_message ("red pixels under the name: %u with the error, %u without",
                  with_error, without_error);
  g_assert_cmpuint (with_error, >=, 4);
  g_assert_cmpuint (without_error, ==, 0);
  window_test_close_all (GTK_APPLICATION (app));
}

static void
record_generation (TildeEditor *editor, gpointer user_data)
{
  GArray *shown = user_data;
  guint64 generation = _tilde_editor_get_shown_generation (editor);

  g_array_append_val (shown, generation);
}

static gboolean
worker_finished (gpointer data)
{
  TildeEditor *editor = data;
  TildeWorkerStats stats;

  tilde_worker_get_stats (_tilde_editor_get_worker (editor), &stats);
  return stats.finished == stats.submitted && !tilde_editor_get_checking (editor);
}

static gboolean
has_pedantic_problem (TildeEditor *editor)
{
  for (guint i = 0; i < n_problems (editor); i++)
    if (tilde_problem_get_diagnostic (problem_at (editor, i))->kind == TILDE_DIAG_PEDANTIC)
      return TRUE;
  return FALSE;
}

/* What was shown after the slow check was asked for: nothing from it or
 * from before it, and the fast check's result last. (A busy machine may
 * show a check of the same text in between; it is never a stale one.) */
static void
assert_newest_shown (GArray *shown, guint64 slow, guint64 fast)
{
  g_assert_cmpuint (shown->len, >=, 1);
  for (guint i = 0; i < shown->len; i++)
    g_assert_cmpuint (g_array_index (shown, guint64, i), >, slow);
  g_assert_cmpuint (g_array_index (shown, guint64, shown->len - 1), ==, fast);
}

static void
test_stale_check_never_shown (void)
{
  TildeWindow *window = open_example ("eight_schools.stan");
  TildeEditor *editor = tilde_window_get_editor (window);
  TildeWorker *worker = _tilde_editor_get_worker (editor);
  g_autoptr(GArray) shown = g_array_new (FALSE, FALSE, sizeof (guint64));
  TildeWorkerStats before, after;
  guint64 slow, fast;

  g_signal_connect (editor, "checked", G_CALLBACK (record_generation), shown);
  tilde_worker_get_stats (worker, &before);

  /* A slow check of a broken model, then a fast one of the repaired model:
   * the slow result arrives last and must not be shown. */
  tilde_worker_set_check_delay (worker, 700);
  edit (editor, "cauchy(0, 5)", "cauchy(0, scale)");
  tilde_editor_check_now (editor);
  slow = tilde_worker_get_generation (worker, TILDE_JOB_CHECK);
  window_test_run_for_ms (150);
  tilde_worker_set_check_delay (worker, 0);
  edit (editor, "cauchy(0, scale)", "cauchy(0, 5)");
  tilde_editor_check_now (editor);
  fast = tilde_worker_get_generation (worker, TILDE_JOB_CHECK);
  g_assert_cmpuint (fast, >, slow);
  g_assert_true (window_test_wait_for (worker_finished, editor));
  window_test_run_for_ms (100);
  assert_newest_shown (shown, slow, fast);
  g_assert_cmpuint (n_problems (editor), ==, 0);

  /* The same with the text unchanged: a slow plain check, then pedantic
   * mode turned on. Only the generation tells the results apart. */
  g_array_set_size (shown, 0);
  edit (editor, "normal(0, 5)", "normal(0, -5)");
  g_assert_true (window_test_wait_for (worker_finished, editor));
  g_array_set_size (shown, 0);
  tilde_worker_set_check_delay (worker, 700);
  tilde_editor_check_now (editor);
  slow = tilde_worker_get_generation (worker, TILDE_JOB_CHECK);
  window_test_run_for_ms (150);
  tilde_worker_set_check_delay (worker, 0);
  tilde_editor_set_pedantic (editor, TRUE);
  fast = tilde_worker_get_generation (worker, TILDE_JOB_CHECK);
  g_assert_true (window_test_wait_for (worker_finished, editor));
  window_test_run_for_ms (100);
  assert_newest_shown (shown, slow, fast);
  g_assert_true (has_pedantic_problem (editor));

  tilde_worker_get_stats (worker, &after);
  g_test_message ("worker: %u discarded, %u dropped, %u skipped",
                  after.discarded - before.discarded, after.dropped - before.dropped,
                  after.skipped - before.skipped);
  /* Both slow checks were thrown away (or, on a busy machine, never started). */
  g_assert_cmpuint ((after.discarded - before.discarded) + (after.dropped - before.dropped)
                    + (after.skipped - before.skipped), >=, 2);
  tilde_editor_set_pedantic (editor, FALSE);
  window_test_close_all (GTK_APPLICATION (app));
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

/* The completion popup: the popover of the view that is on screen. */
static GtkWidget *
shown_popover (GtkWidget *widget)
{
  if (GTK_IS_POPOVER (widget) && gtk_widget_get_mapped (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = shown_popover (child);
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
label_shown (GtkWidget *widget, const char *text, gboolean exact)
{
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);

  collect_labels (widget, texts);
  for (guint i = 0; i < texts->len; i++)
    if (exact ? g_str_equal (texts->pdata[i], text) : strstr (texts->pdata[i], text) != NULL)
      return TRUE;
  return FALSE;
}

static const char error_at_known_place[] =
  "parameters {\n"
  "  real mu;\n"
  "}\n"
  "model {\n"
  "  mu ~ normal(0, 1);\n"
  "  mu ~ normal(0, /* \xcf\x83 */ spread);\n"
  "}\n";

static void
test_activating_problem_moves_cursor (void)
{
  g_autofree char *path = write_model ("known.stan", error_at_known_place);
  TildeWindow *window = open_path (path);
  TildeEditor *editor = tilde_window_get_editor (window);
  GtkWidget *list_view = find_descendant (GTK_WIDGET (tilde_window_get_problems_list (window)),
                                          GTK_TYPE_LIST_VIEW);
  GtkTextBuffer *buffer = editor_buffer (editor);
  GtkTextIter cursor, start;

  g_assert_cmpuint (n_problems (editor), ==, 1);
  g_assert_nonnull (list_view);
  let_it_draw ();
  /* The row is on screen, with the line and stanc's message. */
  g_assert_true (label_shown (list_view, "Line 6", TRUE));
  g_assert_true (label_shown (list_view, "Identifier 'spread' not in scope.", FALSE));
  save_screenshot (GTK_WIDGET (window), "editor-problems.png");

  gtk_text_buffer_get_start_iter (buffer, &start);
  gtk_text_buffer_place_cursor (buffer, &start);
  /* What a click on the row or Enter on it does. */
  g_assert_true (gtk_widget_activate_action (list_view, "list.activate-item", "u", 0));
  gtk_text_buffer_get_iter_at_mark (buffer, &cursor, gtk_text_buffer_get_insert (buffer));
  /* At the name itself: the engine's byte column, less one for the
   * two-byte sigma in the comment before it. */
  find_text (editor, "spread", &start, NULL);
  g_assert_cmpint (gtk_text_iter_get_line (&cursor), ==, 5);
  g_assert_cmpint (gtk_text_iter_get_line_offset (&cursor), ==, gtk_text_iter_get_line_offset (&start));
  g_assert_cmpint (gtk_text_iter_get_line_offset (&cursor), ==, 25);   /* byte 26 */
  g_assert_true (gtk_text_iter_has_tag (&cursor, tag_named (editor, "tilde-error")));
  gtk_text_iter_backward_char (&cursor);
  g_assert_false (gtk_text_iter_has_tag (&cursor, tag_named (editor, "tilde-error")));
  g_assert_true (gtk_widget_has_focus (GTK_WIDGET (tilde_editor_get_view (editor))));
  window_test_close_all (GTK_APPLICATION (app));
  remove_model (path);
}

static gboolean
completion_shows (gpointer data)
{
  return label_shown (data, "normal", TRUE);
}

static gboolean
completion_shows_signature (gpointer data)
{
  return label_shown (data, "(real, real, real) => real", FALSE);
}

static TildeCompletionProposal *
find_proposal (GListModel *proposals, const char *name)
{
  for (guint i = 0; i < g_list_model_get_n_items (proposals); i++)
    {
      g_autoptr(TildeCompletionProposal) p = g_list_model_get_item (proposals, i);

      if (g_str_equal (tilde_completion_proposal_get_name (p), name))
        return p;   /* the list keeps it */
    }
  return NULL;
}

static void
test_completion (void)
{
  TildeWindow *window = open_example ("eight_schools.stan");
  TildeEditor *editor = tilde_window_get_editor (window);
  GtkSourceView *view = tilde_editor_get_view (editor);
  TildeCompletionProvider *provider = _tilde_editor_get_completion_provider (editor);
  GtkTextBuffer *buffer = editor_buffer (editor);
  g_autoptr(GListModel) norm = NULL;
  g_autoptr(GListModel) th = NULL;
  TildeCompletionProposal *normal, *theta;
  GtkTextIter begin, end;

  /* What the list holds for "norm" in the model block (line 24). */
  norm = tilde_completion_provider_propose (provider, "norm", 24, 2);
  normal = find_proposal (norm, "normal");
  g_assert_nonnull (normal);
  g_assert_cmpint (tilde_completion_proposal_get_kind (normal), ==, TILDE_COMPLETION_DISTRIBUTION);
  /* Its signatures, from the signature table, spelled as stanc lists them. */
  g_assert_nonnull (strstr (tilde_completion_proposal_get_detail (normal), "normal_lpdf"));
  g_assert_nonnull (strstr (tilde_completion_proposal_get_detail (normal),
                            "(real, real, real) => real"));
  g_assert_nonnull (find_proposal (norm, "normal_rng"));
  g_assert_null (find_proposal (norm, "cauchy"));
  /* The model's variables in scope there, with their declared types. */
  th = tilde_completion_provider_propose (provider, "th", 24, 2);
  theta = find_proposal (th, "theta");
  g_assert_nonnull (theta);
  g_assert_cmpint (tilde_completion_proposal_get_kind (theta), ==, TILDE_COMPLETION_VARIABLE);
  g_assert_cmpstr (tilde_completion_proposal_get_detail (theta), ==, "vector[J]");
  g_assert_nonnull (find_proposal (th, "theta_tilde"));

  /* The popup itself, for "norm" typed at the end of the model block. */
  find_text (editor, "y ~ normal(theta, sigma);", &begin, &end);
  gtk_text_buffer_insert (buffer, &end, "\n  norm", -1);
  gtk_text_buffer_place_cursor (buffer, &end);
  gtk_widget_grab_focus (GTK_WIDGET (view));
  gtk_source_completion_show (gtk_source_view_get_completion (view));
  g_assert_true (window_test_wait_for (completion_shows, view));
  let_it_draw ();
  save_screenshot (shown_popover (GTK_WIDGET (view)), "editor-completion-norm.png");
  /* One more letter leaves "normal" first, its signatures under the list. */
  gtk_text_buffer_insert_at_cursor (buffer, "a", -1);
  g_assert_true (window_test_wait_for (completion_shows_signature, view));
  let_it_draw ();
  save_screenshot (shown_popover (GTK_WIDGET (view)), "editor-completion-norma.png");
  gtk_source_completion_hide (gtk_source_view_get_completion (view));
  gtk_text_buffer_set_modified (buffer, FALSE);
  window_test_close_all (GTK_APPLICATION (app));
}

static const char messy[] =
  "data{int N;vector[N] y;}\n"
  "parameters{real mu;}\n"
  "model{for(i in 1:N){y[i]~normal(mu,1);}\n"
  "mu~normal(0,1);}\n";

/* stanc --auto-format's layout (the Stan style guide). */
static const char messy_formatted[] =
  "data {\n"
  "  int N;\n"
  "  vector[N] y;\n"
  "}\n"
  "parameters {\n"
  "  real mu;\n"
  "}\n"
  "model {\n"
  "  for (i in 1 : N) {\n"
  "    y[i] ~ normal(mu, 1);\n"
  "  }\n"
  "  mu ~ normal(0, 1);\n"
  "}\n";

typedef struct {
  TildeEditor *editor;
  const char  *expected;
} TextWait;

static gboolean
text_is (gpointer data)
{
  TextWait *w = data;
  g_autofree char *text = text_of (w->editor);
  g_autofree char *with_newline = g_strconcat (text, "\n", NULL);

  return g_str_equal (with_newline, w->expected);
}

static void
test_format_keeps_cursor_and_undoes (void)
{
  g_autofree char *path = write_model ("messy.stan", messy);
  TildeWindow *window = open_path (path);
  TildeEditor *editor = tilde_window_get_editor (window);
  GtkTextBuffer *buffer = editor_buffer (editor);
  TextWait formatted = { editor, messy_formatted };
  TextWait original = { editor, messy };
  GtkTextIter begin, end, cursor, line_start, line_end;
  g_autofree char *line = NULL;

  /* The cursor on "normal" in the loop's statement. */
  find_text (editor, "normal(mu", &begin, &end);
  gtk_text_buffer_place_cursor (buffer, &begin);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.format", NULL));
  g_assert_true (window_test_wait_for (text_is, &formatted));

  /* Still on that statement, at the same character. */
  gtk_text_buffer_get_iter_at_mark (buffer, &cursor, gtk_text_buffer_get_insert (buffer));
  line_start = line_end = cursor;
  gtk_text_iter_set_line_offset (&line_start, 0);
  gtk_text_iter_forward_to_line_end (&line_end);
  line = gtk_text_iter_get_slice (&line_start, &line_end);
  g_assert_cmpstr (line, ==, "    y[i] ~ normal(mu, 1);");
  g_assert_cmpint (gtk_text_iter_get_line_offset (&cursor), ==, 11);
  let_it_draw ();
  save_screenshot (GTK_WIDGET (window), "editor-formatted.png");

  /* One undo brings the original text back. */
  g_assert_true (gtk_text_buffer_get_can_undo (buffer));
  gtk_text_buffer_undo (buffer);
  g_assert_true (text_is (&original));
  gtk_text_buffer_redo (buffer);
  g_assert_true (text_is (&formatted));
  gtk_text_buffer_set_modified (buffer, FALSE);
  window_test_close_all (GTK_APPLICATION (app));
  remove_model (path);
}

typedef struct {
  GObject      *source;
  GAsyncResult *result;
} AsyncWait;

static void
async_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AsyncWait *w = user_data;

  w->result = g_object_ref (result);
}

static gboolean
async_finished (gpointer data)
{
  return ((AsyncWait *) data)->result != NULL;
}

static void
test_format_refuses_broken_model (void)
{
  g_autofree char *path = write_model ("broken.stan", "model {\n  y ~ normal(0, 1)\n}\n");
  TildeWindow *window = open_path (path);
  TildeEditor *editor = tilde_window_get_editor (window);
  g_autofree char *before = text_of (editor);
  g_autofree char *after = NULL;
  g_autoptr(GError) error = NULL;
  AsyncWait w = { NULL, NULL };

  tilde_editor_format_async (editor, NULL, async_done, &w);
  g_assert_true (window_test_wait_for (async_finished, &w));
  g_assert_false (tilde_editor_format_finish (editor, w.result, &error));
  g_assert_error (error, TILDE_EDITOR_ERROR, TILDE_EDITOR_ERROR_NOT_FORMATTED);
  after = text_of (editor);
  g_assert_cmpstr (after, ==, before);
  g_object_unref (w.result);
  window_test_close_all (GTK_APPLICATION (app));
  remove_model (path);
}

static const char pedantic_model[] =
  "parameters {\n"
  "  real<lower=0> sigma;\n"
  "}\n"
  "model {\n"
  "  sigma ~ normal(0, -1);\n"
  "}\n";

static gboolean
pedantic_shown (gpointer data)
{
  return !tilde_editor_get_checking (data) && has_pedantic_problem (data);
}

static gboolean
pedantic_gone (gpointer data)
{
  return !tilde_editor_get_checking (data) && !has_pedantic_problem (data);
}

static void
test_pedantic_toggle (void)
{
  g_autofree char *path = write_model ("pedantic.stan", pedantic_model);
  TildeWindow *window = open_path (path);
  TildeEditor *editor = tilde_window_get_editor (window);
  TildeProblem *problem = NULL;

  g_assert_false (tilde_editor_get_pedantic (editor));
  g_assert_false (has_pedantic_problem (editor));

  /* The main menu's toggle. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.pedantic", NULL));
  g_assert_true (tilde_editor_get_pedantic (editor));
  g_assert_true (window_test_wait_for (pedantic_shown, editor));
  for (guint i = 0; i < n_problems (editor); i++)
    if (tilde_problem_get_diagnostic (problem_at (editor, i))->kind == TILDE_DIAG_PEDANTIC)
      problem = problem_at (editor, i);
  /* stanc --warn-pedantic's text, underlined where the -1 is. */
  g_assert_nonnull (strstr (tilde_problem_get_message (problem),
                            "A normal distribution is given value -1 as a scale parameter"));
  g_assert_cmpstr (tilde_problem_get_location (problem), ==, "Line 5");
  g_assert_cmpuint (n_marks_on_line (editor, 4, "tilde-warning"), ==, 1);
  {
    GtkTextIter begin, end;

    find_text (editor, "-1", &begin, &end);
    g_assert_true (gtk_text_iter_has_tag (&begin, tag_named (editor, "tilde-warning")));
  }
  let_it_draw ();
  save_screenshot (GTK_WIDGET (window), "editor-pedantic.png");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.pedantic", NULL));
  g_assert_true (window_test_wait_for (pedantic_gone, editor));
  g_assert_cmpuint (n_marks_on_line (editor, 4, "tilde-warning"), ==, 0);
  window_test_close_all (GTK_APPLICATION (app));
  remove_model (path);
}

static gboolean
toast_shown (gpointer data)
{
  return label_shown (data, "so it is shown without syntax highlighting", FALSE);
}

/* A line of 3,000 numbers pasted into the model suspends highlighting
 * (GtkSourceView's would take about a second a keystroke), with a toast
 * saying why; deleting it brings highlighting back. */
static void
test_long_line_suspends_highlighting (void)
{
  g_autofree char *path = write_model ("long-line.stan", pedantic_model);
  TildeWindow *window = open_path (path);
  TildeEditor *editor = tilde_window_get_editor (window);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (tilde_editor_get_buffer (editor));
  g_autoptr(GString) line = g_string_new ("// ");
  GtkTextIter start, end;
  int lines;

  g_assert_false (tilde_editor_get_highlight_suspended (editor));
  g_assert_true (gtk_source_buffer_get_highlight_syntax (tilde_editor_get_buffer (editor)));
  for (int i = 0; i < 3000; i++)
    g_string_append_printf (line, "%d.25, ", i);
  lines = gtk_text_buffer_get_line_count (buffer);
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert (buffer, &end, "\n", -1);
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert (buffer, &end, line->str, -1);
  g_assert_true (tilde_editor_get_highlight_suspended (editor));
  g_assert_false (gtk_source_buffer_get_highlight_syntax (tilde_editor_get_buffer (editor)));
  g_assert_true (window_test_wait_for (toast_shown, window));

  /* typing elsewhere keeps it suspended; deleting the line ends it */
  gtk_text_buffer_get_start_iter (buffer, &start);
  gtk_text_buffer_insert (buffer, &start, "// a short line\n", -1);
  g_assert_true (tilde_editor_get_highlight_suspended (editor));
  gtk_text_buffer_get_iter_at_line (buffer, &start, lines);
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_delete (buffer, &start, &end);
  g_assert_false (tilde_editor_get_highlight_suspended (editor));
  g_assert_true (gtk_source_buffer_get_highlight_syntax (tilde_editor_get_buffer (editor)));

  window_test_close_all (GTK_APPLICATION (app));
  remove_model (path);
}

static void
test_include_next_to_file (void)
{
  g_autofree char *path = write_model ("main.stan",
                                       "functions {\n"
                                       "#include \"helpers.stanfunctions\"\n"
                                       "}\n"
                                       "parameters {\n"
                                       "  real x;\n"
                                       "}\n"
                                       "model {\n"
                                       "  x ~ normal(half(4.0), 1);\n"
                                       "}\n");
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *helpers = g_build_filename (dir, "helpers.stanfunctions", NULL);
  TildeWindow *window;
  TildeEditor *editor;
  TildeProblem *problem;

  g_assert_true (g_file_set_contents (helpers, "real half(real v) {\n  return v / 2;\n}\n", -1, NULL));
  window = open_path (path);
  editor = tilde_window_get_editor (window);
  /* Found next to the model, though no include path names the folder. */
  g_assert_cmpuint (n_problems (editor), ==, 0);

  /* An error inside the included file is listed with its file and line,
   * and underlined at the #include. */
  g_assert_true (g_file_set_contents (helpers, "real half(real v) {\n  return w / 2;\n}\n", -1, NULL));
  tilde_editor_check_now (editor);
  g_assert_true (window_test_wait_for (has_problems, editor));
  problem = problem_at (editor, 0);
  g_assert_cmpstr (tilde_problem_get_location (problem), ==, "helpers.stanfunctions:2");
  g_assert_cmpuint (n_marks_on_line (editor, 1, "tilde-error"), ==, 1);
  window_test_close_all (GTK_APPLICATION (app));
  remove_model (path);
}

static void
test_search_and_replace (void)
{
  TildeWindow *window = open_example ("eight_schools.stan");
  TildeEditor *editor = tilde_window_get_editor (window);
  GtkTextBuffer *buffer = editor_buffer (editor);
  GtkWidget *search_bar = find_descendant (GTK_WIDGET (editor), GTK_TYPE_SEARCH_BAR);
  GtkWidget *entry = find_descendant (search_bar, GTK_TYPE_SEARCH_ENTRY);
  GtkWidget *replace_entry = find_descendant (search_bar, GTK_TYPE_ENTRY);
  GtkTextIter start, end;
  g_autofree char *selected = NULL;
  g_autofree char *text = NULL;

  gtk_widget_grab_focus (GTK_WIDGET (tilde_editor_get_view (editor)));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (editor), "editor.find-replace", NULL));
  g_assert_true (gtk_search_bar_get_search_mode (GTK_SEARCH_BAR (search_bar)));
  gtk_editable_set_text (GTK_EDITABLE (entry), "theta_tilde");
  window_test_run_for_ms (300);   /* the entry's search-changed delay */
  g_assert_true (gtk_text_buffer_get_selection_bounds (buffer, &start, &end));
  selected = gtk_text_iter_get_slice (&start, &end);
  g_assert_cmpstr (selected, ==, "theta_tilde");
  let_it_draw ();
  save_screenshot (GTK_WIDGET (window), "editor-search.png");

  gtk_editable_set_text (GTK_EDITABLE (replace_entry), "z");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (editor), "editor.replace-all", NULL));
  text = text_of (editor);
  g_assert_null (strstr (text, "theta_tilde"));
  g_assert_nonnull (strstr (text, "vector[J] z;"));
  g_assert_nonnull (strstr (text, "mu + tau * z;"));
  gtk_text_buffer_set_modified (buffer, FALSE);
  window_test_close_all (GTK_APPLICATION (app));
}

static gboolean
object_gone (gpointer data)
{
  return *(gpointer *) data == NULL;
}

static void
test_closing_stops_engine_thread (void)
{
  TildeWindow *window = open_example ("eight_schools.stan");
  TildeEditor *editor = tilde_window_get_editor (window);
  gint64 start;

  /* A check that would take a minute is under way when the window goes. */
  tilde_worker_set_check_delay (_tilde_editor_get_worker (editor), 60000);
  edit (editor, "cauchy(0, 5)", "cauchy(0, scale)");
  tilde_editor_check_now (editor);
  window_test_run_for_ms (100);
  g_object_add_weak_pointer (G_OBJECT (editor), (gpointer *) &editor);
  start = g_get_monotonic_time ();
  gtk_window_destroy (GTK_WINDOW (window));
  /* The editor is gone well before the check could end (the wait gives up
   * after ten seconds): its thread was joined without waiting for it. */
  g_assert_true (window_test_wait_for (object_gone, &editor));
  g_test_message ("editor gone %.0f ms after the window",
                  (g_get_monotonic_time () - start) / 1000.0);
  window_test_run_for_ms (200);
  window_test_close_all (GTK_APPLICATION (app));
}

static void
set_scheme (TildeEditor *editor, const char *id)
{
  GtkSourceStyleSchemeManager *schemes = gtk_source_style_scheme_manager_get_default ();
  GtkSourceStyleScheme *scheme = gtk_source_style_scheme_manager_get_scheme (schemes, id);

  g_assert_nonnull (scheme);
  gtk_source_buffer_set_style_scheme (tilde_editor_get_buffer (editor), scheme);
}

static void
test_squiggles_follow_scheme (void)
{
  TildeWindow *window = open_example ("eight_schools.stan");
  TildeEditor *editor = tilde_window_get_editor (window);
  GtkTextTag *error_tag = tag_named (editor, "tilde-error");
  GtkTextTag *warning_tag = tag_named (editor, "tilde-warning");
  PangoUnderline underline;
  gboolean underline_set, background_set;
  GdkRGBA *colour = NULL;

  /* Adwaita: both are squiggles, in the scheme's red_4 (#c01c28). */
  set_scheme (editor, "Adwaita");
  g_object_get (error_tag, "underline", &underline, "underline-rgba", &colour, NULL);
  g_assert_cmpint (underline, ==, PANGO_UNDERLINE_ERROR);
  g_assert_cmpint ((int) (colour->red * 255 + 0.5), ==, 0xc0);
  g_assert_cmpint ((int) (colour->green * 255 + 0.5), ==, 0x1c);
  g_clear_pointer (&colour, gdk_rgba_free);

  /* Solarized has def:error but no def:warning: warnings fall back to a
   * squiggle of their own. */
  set_scheme (editor, "solarized-light");
  g_object_get (warning_tag, "underline", &underline, "underline-set", &underline_set, NULL);
  g_assert_true (underline_set);
  g_assert_cmpint (underline, ==, PANGO_UNDERLINE_ERROR);

  /* Classic marks errors and warnings with a background, and so do we. */
  set_scheme (editor, "classic");
  g_object_get (warning_tag, "underline-set", &underline_set, "background-set", &background_set, NULL);
  g_assert_false (underline_set);
  g_assert_true (background_set);
  g_object_get (error_tag, "background-set", &background_set, NULL);
  g_assert_true (background_set);

  set_scheme (editor, "Adwaita");
  window_test_close_all (GTK_APPLICATION (app));
}

static void
test_hover_signatures (void)
{
  g_autofree char *name = NULL;
  g_autofree char *signatures = NULL;

  /* stanc's text for `mu ~ normal(0, 1, 2)`: the hover adds every
   * signature of the density. */
  signatures = tilde_diagnostic_hover_signatures_for ("Ill-typed arguments supplied to function "
                                                      "'normal':\n(real, int, int, int)", &name);
  g_assert_cmpstr (name, ==, "normal_lpdf");
  g_assert_nonnull (strstr (signatures, "(real, real, real) => real\n"));
  g_assert_null (tilde_diagnostic_hover_signatures_for ("Identifier 'x' not in scope.", NULL));
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

  g_test_add_func ("/editor/error-squiggle-mark-and-row", test_error_squiggle_mark_and_row);
  g_test_add_func ("/editor/stale-check-never-shown", test_stale_check_never_shown);
  g_test_add_func ("/editor/activating-problem-moves-cursor", test_activating_problem_moves_cursor);
  g_test_add_func ("/editor/completion", test_completion);
  g_test_add_func ("/editor/format-keeps-cursor-and-undoes", test_format_keeps_cursor_and_undoes);
  g_test_add_func ("/editor/format-refuses-broken-model", test_format_refuses_broken_model);
  g_test_add_func ("/editor/pedantic-toggle", test_pedantic_toggle);
  g_test_add_func ("/editor/long-line-suspends-highlighting", test_long_line_suspends_highlighting);
  g_test_add_func ("/editor/include-next-to-file", test_include_next_to_file);
  g_test_add_func ("/editor/search-and-replace", test_search_and_replace);
  g_test_add_func ("/editor/closing-stops-engine-thread", test_closing_stops_engine_thread);
  g_test_add_func ("/editor/squiggles-follow-scheme", test_squiggles_follow_scheme);
  g_test_add_func ("/editor/hover-signatures", test_hover_signatures);
  status = g_test_run ();
  g_clear_object (&app);
  window_test_remove_home ();
  return status;
}
