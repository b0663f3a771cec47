/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The IR viewer in the real window, driven as a person uses it: an example
 * model opened, its MIR at O0 and O1 (the lines the Stan compiler prints
 * for it), the pass list and stepping through it, clicking a MIR line to
 * find its source and moving the editor's cursor to find its MIR, edits
 * recompiled after the check delay, the banner while the model has errors.
 * Also the window around it: settings that outlive the window, autosave
 * and the offer to restore after a crash, recent models, the shortcuts
 * window and the about dialog. Run under an X server (Xvfb); screenshots go
 * to $TILDE_SCREENSHOT_DIR when it is set.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

#include "config.h"
#include "mir/passes/pipeline.h"
#include "tilde-application-private.h"
#include "tilde-autosave.h"
#include "tilde-editor-private.h"
#include "tilde-ir-pass.h"
#include "tilde-ir-view-private.h"
#include "tilde-line-diff.h"
#include "tilde-window-private.h"
#include "window-test-util.h"

static TildeApplication *app;

#define wait_for window_test_wait_for
#define wait_for_ms window_test_wait_for_ms
#define run_for_ms window_test_run_for_ms
#define let_it_draw window_test_let_it_draw
#define render_widget window_test_render
#define save_screenshot window_test_screenshot

/* ---- windows ---- */

static gboolean
ir_settled (gpointer data)
{
  TildeIrView *ir = data;

  return !tilde_ir_view_get_compiling (ir) && _tilde_ir_view_get_results (ir) > 0;
}

static TildeWindow *
open_path (const char *path)
{
  TildeWindow *window = window_test_open (GTK_APPLICATION (app), path);

  g_assert_true (wait_for (ir_settled, tilde_window_get_ir_view (window)));
  return window;
}

static TildeWindow *
open_example (const char *name)
{
  g_autofree char *path = window_test_example_path (name);

  return open_path (path);
}

typedef struct {
  TildeIrView *ir;
  guint        results;
} Awaited;

static gboolean
new_result (gpointer data)
{
  Awaited *a = data;

  return _tilde_ir_view_get_results (a->ir) > a->results && !tilde_ir_view_get_compiling (a->ir);
}

/* Compiles again at `level` ("0", "1", "experimental"), as the menu does. */
static void
set_level (TildeWindow *window, const char *level)
{
  TildeIrView *ir = tilde_window_get_ir_view (window);
  Awaited awaited = { ir, _tilde_ir_view_get_results (ir) };
  g_autofree char *current = NULL;

  g_object_get (window, "optimization-level", &current, NULL);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.optimization-level", "s", level);
  if (g_strcmp0 (current, level) != 0)
    g_assert_true (wait_for (new_result, &awaited));
  g_assert_true (wait_for (ir_settled, ir));
}

/* ---- the text shown ---- */

static GtkTextBuffer *
side_buffer (TildeIrView *ir, TildeIrSide side)
{
  return gtk_text_view_get_buffer (GTK_TEXT_VIEW (_tilde_ir_view_get_source_view (ir, side)));
}

static char *
row_text (TildeIrView *ir, TildeIrSide side, int row)
{
  GtkTextBuffer *buffer = side_buffer (ir, side);
  GtkTextIter begin, end;

  gtk_text_buffer_get_iter_at_line (buffer, &begin, row);
  end = begin;
  if (!gtk_text_iter_ends_line (&end))
    gtk_text_iter_forward_to_line_end (&end);
  return gtk_text_iter_get_slice (&begin, &end);
}

/* The first row of a side that holds `needle`, or -1. */
static int
find_row (TildeIrView *ir, TildeIrSide side, const char *needle)
{
  int n = gtk_text_buffer_get_line_count (side_buffer (ir, side));

  for (int row = 0; row < n; row++)
    {
      g_autofree char *text = row_text (ir, side, row);

      if (strstr (text, needle) != NULL)
        return row;
    }
  return -1;
}

static gboolean
text_has_line (const char *text, const char *line)
{
  g_auto(GStrv) lines = tilde_line_diff_split (text, NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_equal (g_strstrip (lines[i]), line))
      return TRUE;
  return FALSE;
}

static guint
n_passes (TildeIrView *ir)
{
  return g_list_model_get_n_items (G_LIST_MODEL (_tilde_ir_view_get_pass_selection (ir)));
}

static TildeIrPass *
pass_at (TildeIrView *ir, guint position)
{
  TildeIrPass *pass = g_list_model_get_item (G_LIST_MODEL (_tilde_ir_view_get_pass_selection (ir)),
                                             position);

  g_object_unref (pass);   /* the list keeps it */
  return pass;
}

/* ---- pixels ---- */

typedef struct { int r, g, b; } Rgb;

typedef struct {
  GtkTextView *view;
  int          row;
} RowQuery;

/* The row is laid out (text views measure their lines a few at a time)
 * and in view. */
static gboolean
row_shown (gpointer data)
{
  RowQuery *q = data;
  GtkTextIter iter;
  GdkRectangle visible;
  int y, height;

  gtk_text_buffer_get_iter_at_line (gtk_text_view_get_buffer (q->view), &iter, q->row);
  gtk_text_view_get_line_yrange (q->view, &iter, &y, &height);
  gtk_text_view_get_visible_rect (q->view, &visible);
  if (height > 0 && y >= visible.y && y + height <= visible.y + visible.height)
    return TRUE;
  gtk_widget_queue_draw (GTK_WIDGET (q->view));
  return FALSE;
}

/* The colour drawn behind `row` of a side, right of its text (where only
 * the line's background is). */
static Rgb
row_background (TildeIrView *ir, TildeIrSide side, int row)
{
  GtkTextView *view = GTK_TEXT_VIEW (_tilde_ir_view_get_source_view (ir, side));
  RowQuery query = { view, row };
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree guchar *pixels = NULL;
  GtkTextIter iter;
  GdkRectangle rect;
  int width, height, x, y;
  gsize stride;
  const guchar *p;

  g_assert_true (wait_for (row_shown, &query));
  texture = render_widget (GTK_WIDGET (view));
  width = gdk_texture_get_width (texture);
  height = gdk_texture_get_height (texture);
  stride = (gsize) width * 4;
  pixels = g_malloc (stride * height);
  gdk_texture_download (texture, pixels, stride);
  gtk_text_buffer_get_iter_at_line (gtk_text_view_get_buffer (view), &iter, row);
  gtk_text_view_get_iter_location (view, &iter, &rect);
  gtk_text_view_buffer_to_window_coords (view, GTK_TEXT_WINDOW_WIDGET, rect.x, rect.y, &x, &y);
  /* Right of the text of a short line, left of where the scrollbar shows. */
  x = width - 24;
  y += rect.height / 2;
  g_assert_cmpint (y, >=, 0);
  g_assert_cmpint (y, <, height);
  p = pixels + y * stride + x * 4;    /* B, G, R, A */
  return (Rgb) { p[2], p[1], p[0] };
}

static int
rgb_distance (Rgb a, Rgb b)
{
  return abs (a.r - b.r) + abs (a.g - b.g) + abs (a.b - b.b);
}

/* ---- the IR viewer ---- */

static void
test_mir_at_o0 (void)
{
  TildeWindow *window = open_example ("eight_schools.stan");
  TildeIrView *ir = tilde_window_get_ir_view (window);
  const char *left, *right;

  set_level (window, "0");
  g_assert_cmpint (tilde_ir_view_get_level (ir), ==, 0);
  g_assert_false (tilde_ir_view_get_has_errors (ir));
  g_assert_cmpint (tilde_ir_view_get_step (ir), ==, -1);
  left = tilde_ir_view_get_text (ir, TILDE_IR_SIDE_LEFT);
  right = tilde_ir_view_get_text (ir, TILDE_IR_SIDE_RIGHT);
  g_assert_nonnull (left);
  g_assert_nonnull (right);

  /* stanc's transformed MIR of eight schools: data read after its
   * declaration, the parameter read with its constraint, the sampling
   * statement as a target increment of the unnormalised density. */
  g_assert_true (text_has_line (right, "J = FnReadData__(\"J\")[1];"));
  g_assert_true (text_has_line (right, "real tau = (FnReadParam(constrain(Lower 0))(dims())(mem_pattern AoS))__();"));
  g_assert_true (text_has_line (right, "theta = (mu + (tau * theta_tilde));"));
  g_assert_true (text_has_line (right, "target += normal_lupdf(y, theta, sigma);"));
  /* O0 runs no pass: both sides are the same, and no pass is listed. */
  g_assert_cmpstr (left, ==, right);
  g_assert_cmpuint (n_passes (ir), ==, 1);
  g_assert_cmpint (tilde_ir_pass_get_index (pass_at (ir, 0)), ==, -1);
  for (guint i = 0; i < _tilde_ir_view_get_rows (ir)->len; i++)
    g_assert_cmpint (g_array_index (_tilde_ir_view_get_rows (ir), TildeDiffRow, i).kind, ==, TILDE_DIFF_SAME);
  g_assert_false (tilde_ir_view_step_by (ir, 1));

  /* Highlighted as MIR by the view itself, not by GtkSourceView's context
   * engine: the data read's name is coloured as the scheme's strings. */
  {
    GtkSourceBuffer *buffer = GTK_SOURCE_BUFFER (side_buffer (ir, TILDE_IR_SIDE_RIGHT));
    int row = find_row (ir, TILDE_IR_SIDE_RIGHT, "J = FnReadData__(\"J\")[1];");
    GtkSourceStyleScheme *scheme = gtk_source_buffer_get_style_scheme (buffer);
    GtkSourceStyle *style;
    g_autofree char *colour = NULL;
    GdkRGBA want;
    GtkTextIter quote;
    GSList *tags;
    gboolean coloured = FALSE;

    g_assert_null (gtk_source_buffer_get_language (buffer));
    g_assert_false (gtk_source_buffer_get_highlight_syntax (buffer));
    g_assert_nonnull (scheme);
    style = gtk_source_style_scheme_get_style (scheme, "def:string");
    g_assert_nonnull (style);
    g_object_get (style, "foreground", &colour, NULL);
    g_assert_true (gdk_rgba_parse (&want, colour));
    gtk_text_buffer_get_iter_at_line (GTK_TEXT_BUFFER (buffer), &quote, row);
    g_assert_true (gtk_text_iter_forward_search (&quote, "\"J\"", GTK_TEXT_SEARCH_TEXT_ONLY, &quote, NULL, NULL));
    gtk_text_iter_forward_char (&quote);
    tags = gtk_text_iter_get_tags (&quote);
    for (GSList *l = tags; l != NULL; l = l->next)
      {
        gboolean set;
        GdkRGBA *rgba = NULL;

        g_object_get (l->data, "foreground-set", &set, "foreground-rgba", &rgba, NULL);
        if (set && rgba != NULL && gdk_rgba_equal (rgba, &want))
          coloured = TRUE;
        g_clear_pointer (&rgba, gdk_rgba_free);
      }
    g_slist_free (tags);
    g_assert_true (coloured);
  }
  window_test_close_all (GTK_APPLICATION (app));
}

/* How many characters of the row carry a tag. */
static guint
tagged_in_row (GtkTextBuffer *buffer, int row)
{
  GtkTextIter at;
  guint n = 0;

  gtk_text_buffer_get_iter_at_line (buffer, &at, row);
  while (!gtk_text_iter_ends_line (&at))
    {
      GSList *tags = gtk_text_iter_get_tags (&at);

      n += tags != NULL;
      g_slist_free (tags);
      gtk_text_iter_forward_char (&at);
    }
  return n;
}

/* A MIR line too long to highlight (a constant array of 3,000 numbers,
 * whose tags took 1.7 s of the main thread) goes in plain; the lines
 * around it are highlighted as always. */
static void
test_long_line_plain (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tilde-ir-view-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "long.stan", NULL);
  g_autoptr(GString) model = g_string_new ("transformed data {\n  array[3000] real x = {");
  TildeWindow *window;
  TildeIrView *ir;
  GtkTextBuffer *buffer;
  int long_row, short_row;

  for (int i = 0; i < 3000; i++)
    g_string_append_printf (model, "%s%d.25", i ? ", " : "", i);
  g_string_append (model, "};\n}\nparameters {\n  real mu;\n}\nmodel {\n  x ~ normal(mu, 1);\n}\n");
  g_assert_true (g_file_set_contents (path, model->str, -1, NULL));
  window = open_path (path);
  ir = tilde_window_get_ir_view (window);
  set_level (window, "0");
  buffer = side_buffer (ir, TILDE_IR_SIDE_RIGHT);
  long_row = find_row (ir, TILDE_IR_SIDE_RIGHT, "1500.25");
  short_row = find_row (ir, TILDE_IR_SIDE_RIGHT, "target += normal_lupdf(");
  g_assert_cmpint (long_row, >=, 0);
  g_assert_cmpint (short_row, >=, 0);
  {
    GtkTextIter line;
    gtk_text_buffer_get_iter_at_line (buffer, &line, long_row);
    g_assert_cmpint (gtk_text_iter_get_bytes_in_line (&line), >, 4096);
  }
  g_assert_cmpuint (tagged_in_row (buffer, long_row), ==, 0);
  g_assert_cmpuint (tagged_in_row (buffer, short_row), >, 0);
  window_test_close_all (GTK_APPLICATION (app));
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_mir_at_o1_and_passes (void)
{
  TildeWindow *window = open_example ("eight_schools.stan");
  TildeIrView *ir = tilde_window_get_ir_view (window);
  const char *left, *right;
  guint n, steps_seen = 0;
  int fma_row, partial = -1;
  g_autofree char *last_title = NULL;
  g_autofree char *fma_left = NULL;

  set_level (window, "1");
  left = tilde_ir_view_get_text (ir, TILDE_IR_SIDE_LEFT);
  right = tilde_ir_view_get_text (ir, TILDE_IR_SIDE_RIGHT);
  /* stanc's partial evaluator turns a + b * c into fma(b, c, a). */
  g_assert_true (text_has_line (left, "theta = (mu + (tau * theta_tilde));"));
  g_assert_true (text_has_line (right, "theta = fma(tau, theta_tilde, mu);"));
  g_assert_false (text_has_line (right, "theta = (mu + (tau * theta_tilde));"));
  /* The two stand on one row, marked changed. */
  fma_row = find_row (ir, TILDE_IR_SIDE_RIGHT, "theta = fma(tau, theta_tilde, mu);");
  g_assert_cmpint (fma_row, >=, 0);
  g_assert_cmpint (g_array_index (_tilde_ir_view_get_rows (ir), TildeDiffRow, fma_row).kind, ==,
                   TILDE_DIFF_CHANGED);
  fma_left = row_text (ir, TILDE_IR_SIDE_LEFT, fma_row);
  g_assert_nonnull (strstr (fma_left, "(mu + (tau * theta_tilde))"));

  /* Every pass of O1, in order, after the row of the stages. */
  {
    guint n_steps;
    const MirPass *const *steps = mir_pipeline_steps (MIR_OPT_O1, &n_steps);

    n = n_passes (ir);
    g_assert_cmpuint (n, ==, n_steps + 1);
    for (guint i = 1; i < n; i++)
      {
        g_assert_cmpstr (tilde_ir_pass_get_name (pass_at (ir, i)), ==, steps[i - 1]->name);
        if (g_str_equal (steps[i - 1]->name, "partial_evaluation"))
          partial = (int) i;
      }
    g_assert_cmpint (partial, >, 0);
    g_assert_cmpuint (tilde_ir_pass_get_edits (pass_at (ir, partial)), >, 0);
  }

  /* Stepping, as F7 does, walks the passes and shows each one's diff. */
  {
    g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.next-pass");

    g_assert_cmpstr (accels[0], ==, "F7");
  }
  for (guint i = 1; i < n; i++)
    {
      const char *title;

      gtk_widget_activate_action (GTK_WIDGET (window), "win.next-pass", NULL);
      g_assert_cmpint (tilde_ir_view_get_step (ir), ==, (int) i - 1);
      title = gtk_label_get_text (_tilde_ir_view_get_title (ir, TILDE_IR_SIDE_RIGHT));
      g_assert_cmpstr (title, !=, last_title);
      g_free (last_title);
      last_title = g_strdup (title);
      steps_seen++;
      if ((int) i == partial)
        {
          GArray *rows = _tilde_ir_view_get_rows (ir);
          gboolean differs = FALSE;

          for (guint r = 0; r < rows->len; r++)
            differs |= g_array_index (rows, TildeDiffRow, r).kind != TILDE_DIFF_SAME;
          g_assert_true (differs);
          g_assert_true (text_has_line (tilde_ir_view_get_text (ir, TILDE_IR_SIDE_LEFT),
                                        "theta = (mu + (tau * theta_tilde));"));
          g_assert_true (text_has_line (tilde_ir_view_get_text (ir, TILDE_IR_SIDE_RIGHT),
                                        "theta = fma(tau, theta_tilde, mu);"));
          g_assert_nonnull (strstr (title, "partial_evaluation"));
        }
    }
  g_assert_cmpuint (steps_seen, ==, n - 1);
  g_assert_false (tilde_ir_view_step_by (ir, 1));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.previous-pass", NULL);
  g_assert_cmpint (tilde_ir_view_get_step (ir), ==, (int) n - 3);

  /* Hiding the passes that changed nothing leaves those that did. */
  g_object_set (ir, "hide-unchanged", TRUE, NULL);
  g_assert_cmpuint (n_passes (ir), <, n);
  for (guint i = 1; i < n_passes (ir); i++)
    g_assert_cmpuint (tilde_ir_pass_get_edits (pass_at (ir, i)), >, 0);
  g_object_set (ir, "hide-unchanged", FALSE, NULL);
  g_assert_cmpuint (n_passes (ir), ==, n);
  window_test_close_all (GTK_APPLICATION (app));
}

/* Puts the cursor of one side on `row`, as a click there does. */
static void
click_row (TildeIrView *ir, TildeIrSide side, int row)
{
  GtkTextBuffer *buffer = side_buffer (ir, side);
  GtkTextIter iter;

  gtk_text_buffer_get_iter_at_line_offset (buffer, &iter, row, 4);
  gtk_text_buffer_place_cursor (buffer, &iter);
}

static char *
editor_selection (TildeWindow *window, int *line)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (tilde_window_get_buffer (window));
  GtkTextIter begin, end;

  if (!gtk_text_buffer_get_selection_bounds (buffer, &begin, &end))
    return NULL;
  *line = gtk_text_iter_get_line (&begin) + 1;
  return gtk_text_iter_get_slice (&begin, &end);
}

static void
test_click_selects_source (void)
{
  TildeWindow *window = open_example ("eight_schools.stan");
  TildeIrView *ir = tilde_window_get_ir_view (window);
  g_autofree char *selected = NULL;
  int row, line = 0;

  set_level (window, "1");

  /* The likelihood: `y ~ normal(theta, sigma);` on line 24 of the file. */
  row = find_row (ir, TILDE_IR_SIDE_RIGHT, "target += normal_lupdf(y, theta, sigma);");
  g_assert_cmpint (row, >=, 0);
  click_row (ir, TILDE_IR_SIDE_RIGHT, row);
  selected = editor_selection (window, &line);
  g_assert_cmpstr (selected, ==, "y ~ normal(theta, sigma);");
  g_assert_cmpint (line, ==, 24);
  g_clear_pointer (&selected, g_free);

  /* The left side too: the transformed parameter's assignment, line 18. */
  row = find_row (ir, TILDE_IR_SIDE_LEFT, "theta = (mu + (tau * theta_tilde));");
  click_row (ir, TILDE_IR_SIDE_LEFT, row);
  selected = editor_selection (window, &line);
  g_assert_cmpint (line, ==, 18);
  g_assert_nonnull (strstr (selected, "theta = mu + tau * theta_tilde"));
  g_clear_pointer (&selected, g_free);

  /* The data read goes to J's declaration, line 8. */
  row = find_row (ir, TILDE_IR_SIDE_RIGHT, "J = FnReadData__(\"J\")[1];");
  click_row (ir, TILDE_IR_SIDE_RIGHT, row);
  selected = editor_selection (window, &line);
  g_assert_cmpint (line, ==, 8);
  g_assert_nonnull (strstr (selected, "int<lower=0> J;"));
  window_test_close_all (GTK_APPLICATION (app));
}

static void
put_editor_cursor (TildeWindow *window, int line)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (tilde_window_get_buffer (window));
  GtkTextIter iter;

  gtk_text_buffer_get_iter_at_line_offset (buffer, &iter, line - 1, 4);
  gtk_text_buffer_place_cursor (buffer, &iter);
}

static void
test_cursor_highlights_mir (void)
{
  TildeWindow *window = open_example ("eight_schools.stan");
  TildeIrView *ir = tilde_window_get_ir_view (window);
  g_autoptr(GArray) rows = NULL;
  g_autoptr(GArray) left_rows = NULL;
  int plain_row;
  Rgb highlighted, plain;

  set_level (window, "1");
  gtk_window_set_default_size (GTK_WINDOW (window), 1260, 860);

  /* `tau ~ cauchy(0, 5);`, line 22: the one target increment it became. */
  put_editor_cursor (window, 22);
  rows = _tilde_ir_view_get_highlighted_rows (ir, TILDE_IR_SIDE_RIGHT);
  g_assert_cmpuint (rows->len, ==, 1);
  {
    g_autofree char *text = row_text (ir, TILDE_IR_SIDE_RIGHT, g_array_index (rows, guint, 0));
    g_assert_nonnull (strstr (text, "target += cauchy_lupdf(tau"));
  }
  g_clear_pointer (&rows, g_array_unref);

  /* `vector[J] theta = ...;`, line 18: every line made from it, on both
   * sides, and nothing else. */
  put_editor_cursor (window, 18);
  rows = _tilde_ir_view_get_highlighted_rows (ir, TILDE_IR_SIDE_RIGHT);
  left_rows = _tilde_ir_view_get_highlighted_rows (ir, TILDE_IR_SIDE_LEFT);
  g_assert_cmpuint (rows->len, >=, 3);
  g_assert_cmpuint (left_rows->len, >=, 3);
  for (guint i = 0; i < rows->len; i++)
    {
      g_autofree char *text = row_text (ir, TILDE_IR_SIDE_RIGHT, g_array_index (rows, guint, i));
      g_assert_nonnull (strstr (text, "theta"));
      g_assert_null (strstr (text, "theta_tilde ="));
    }
  {
    int fma_row = find_row (ir, TILDE_IR_SIDE_RIGHT, "theta = fma(tau, theta_tilde, mu);");
    gboolean found = FALSE;

    for (guint i = 0; i < rows->len; i++)
      {
        found |= (int) g_array_index (rows, guint, i) == fma_row;
      }
    g_assert_true (found);
  }

  /* And it is drawn: the row's background differs from a plain row's
   * (both short lines: `vector[J] theta;` and the `{` of the model block). */
  let_it_draw (GTK_WIDGET (window));
  plain_row = find_row (ir, TILDE_IR_SIDE_RIGHT, "vector[J] theta;") + 2;
  {
    g_autofree char *text = row_text (ir, TILDE_IR_SIDE_RIGHT, plain_row);
    g_assert_cmpstr (g_strstrip (text), ==, "{");
  }
  highlighted = row_background (ir, TILDE_IR_SIDE_RIGHT, find_row (ir, TILDE_IR_SIDE_RIGHT, "vector[J] theta;"));
  plain = row_background (ir, TILDE_IR_SIDE_RIGHT, plain_row);
  g_assert_cmpint (rgb_distance (highlighted, plain), >, 20);

  /* Line 1 is a comment: nothing came from it. */
  put_editor_cursor (window, 1);
  g_clear_pointer (&rows, g_array_unref);
  rows = _tilde_ir_view_get_highlighted_rows (ir, TILDE_IR_SIDE_RIGHT);
  g_assert_cmpuint (rows->len, ==, 0);
  window_test_close_all (GTK_APPLICATION (app));
}

/* Replaces the first `old` with `new` as typing would. */
static void
edit (TildeWindow *window, const char *old, const char *new)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (tilde_window_get_buffer (window));
  GtkTextIter start, begin, end;

  gtk_text_buffer_get_start_iter (buffer, &start);
  g_assert_true (gtk_text_iter_forward_search (&start, old, GTK_TEXT_SEARCH_TEXT_ONLY, &begin, &end, NULL));
  gtk_text_buffer_begin_user_action (buffer);
  gtk_text_buffer_delete_interactive (buffer, &begin, &end, TRUE);
  gtk_text_buffer_insert_interactive (buffer, &begin, new, -1, TRUE);
  gtk_text_buffer_end_user_action (buffer);
}

static void
test_edit_recompiles_after_delay (void)
{
  TildeWindow *window = open_example ("eight_schools.stan");
  TildeIrView *ir = tilde_window_get_ir_view (window);
  guint delay = tilde_editor_get_check_delay (tilde_window_get_editor (window));
  Awaited awaited = { ir, 0 };
  gint64 start, waited;

  set_level (window, "0");
  awaited.results = _tilde_ir_view_get_results (ir);
  edit (window, "tau ~ cauchy(0, 5);", "tau ~ exponential(1);");
  start = g_get_monotonic_time ();
  g_assert_true (tilde_ir_view_get_compiling (ir));
  /* Nothing is compiled while the person may still be typing. */
  run_for_ms (delay / 2);
  g_assert_cmpuint (_tilde_ir_view_get_results (ir), ==, awaited.results);
  g_assert_true (text_has_line (tilde_ir_view_get_text (ir, TILDE_IR_SIDE_RIGHT),
                                "target += cauchy_lupdf(tau, promote(0, real, data), promote(5, real, data));"));
  g_assert_true (wait_for_ms (new_result, &awaited, 5000));
  waited = (g_get_monotonic_time () - start) / 1000;
  g_assert_cmpint (waited, >=, delay - 10);
  g_assert_true (text_has_line (tilde_ir_view_get_text (ir, TILDE_IR_SIDE_RIGHT),
                                "target += exponential_lupdf(tau, promote(1, real, data));"));
  g_assert_false (text_has_line (tilde_ir_view_get_text (ir, TILDE_IR_SIDE_RIGHT),
                                 "target += cauchy_lupdf(tau, promote(0, real, data), promote(5, real, data));"));
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (tilde_window_get_buffer (window)), FALSE);
  window_test_close_all (GTK_APPLICATION (app));
}

static void
test_errors_show_banner (void)
{
  TildeWindow *window = open_example ("eight_schools.stan");
  TildeIrView *ir = tilde_window_get_ir_view (window);
  GtkInfoBar *banner = _tilde_ir_view_get_banner (ir);
  Awaited awaited = { ir, 0 };
  g_autofree char *before = NULL;

  set_level (window, "1");
  before = g_strdup (tilde_ir_view_get_text (ir, TILDE_IR_SIDE_RIGHT));
  g_assert_false (gtk_info_bar_get_revealed (banner));

  awaited.results = _tilde_ir_view_get_results (ir);
  edit (window, "mu ~ normal(0, 5);", "mu ~ normal(0, );");
  g_assert_true (wait_for (new_result, &awaited));
  g_assert_true (tilde_ir_view_get_has_errors (ir));
  g_assert_true (gtk_info_bar_get_revealed (banner));
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (banner)));

  /* The last output that compiled stays, dimmed. */
  g_assert_cmpstr (tilde_ir_view_get_text (ir, TILDE_IR_SIDE_RIGHT), ==, before);
  g_assert_true (gtk_widget_has_css_class (_tilde_ir_view_get_content (ir), "dim-label"));
  let_it_draw (GTK_WIDGET (window));
  save_screenshot (GTK_WIDGET (window), "ir-view-errors.png");

  awaited.results = _tilde_ir_view_get_results (ir);
  edit (window, "mu ~ normal(0, );", "mu ~ normal(1, 5);");
  g_assert_true (wait_for (new_result, &awaited));
  g_assert_false (tilde_ir_view_get_has_errors (ir));
  g_assert_false (gtk_info_bar_get_revealed (banner));
  g_assert_false (gtk_widget_has_css_class (_tilde_ir_view_get_content (ir), "dim-label"));
  g_assert_true (text_has_line (tilde_ir_view_get_text (ir, TILDE_IR_SIDE_RIGHT),
                                "target += normal_lupdf(mu, promote(1, real, data), promote(5, real, data));"));
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (tilde_window_get_buffer (window)), FALSE);
  window_test_close_all (GTK_APPLICATION (app));
}

static gboolean
window_is_wide (gpointer data)
{
  return gtk_widget_get_width (data) >= 1260 && gtk_widget_get_height (data) >= 840;
}

static void
clipboard_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  char **text = user_data;

  *text = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (source), result, NULL);
  if (*text == NULL)
    *text = g_strdup ("");
}

static gboolean
is_set (gpointer data)
{
  return *(char **) data != NULL;
}

static void
test_copy (void)
{
  TildeWindow *window = open_example ("eight_schools.stan");
  TildeIrView *ir = tilde_window_get_ir_view (window);
  GdkClipboard *clipboard = gtk_widget_get_clipboard (GTK_WIDGET (ir));
  g_autofree char *copied = NULL;

  set_level (window, "1");
  gtk_widget_activate_action (GTK_WIDGET (ir), "ir.copy", "i", TILDE_IR_SIDE_RIGHT);
  gdk_clipboard_read_text_async (clipboard, NULL, clipboard_read, &copied);
  g_assert_true (wait_for (is_set, &copied));
  g_assert_cmpstr (copied, ==, tilde_ir_view_get_text (ir, TILDE_IR_SIDE_RIGHT));
  g_assert_true (text_has_line (copied, "theta = fma(tau, theta_tilde, mu);"));
  g_clear_pointer (&copied, g_free);

  gtk_widget_activate_action (GTK_WIDGET (ir), "ir.copy", "i", TILDE_IR_SIDE_LEFT);
  gdk_clipboard_read_text_async (clipboard, NULL, clipboard_read, &copied);
  g_assert_true (wait_for (is_set, &copied));
  g_assert_true (text_has_line (copied, "theta = (mu + (tau * theta_tilde));"));
  window_test_close_all (GTK_APPLICATION (app));
}

/* A model that never compiled: no output, and the reason. */
static void
test_errors_from_the_start (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tilde-ir-view-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "broken.stan", NULL);
  TildeWindow *window;
  TildeIrView *ir;

  g_assert_true (g_file_set_contents (path, "parameters {\n  real mu;\n}\nmodel {\n  mu ~ normal(0, sd);\n}\n",
                                      -1, NULL));
  window = open_path (path);
  ir = tilde_window_get_ir_view (window);
  g_assert_true (tilde_ir_view_get_has_errors (ir));
  g_assert_null (tilde_ir_view_get_text (ir, TILDE_IR_SIDE_RIGHT));
  g_assert_false (gtk_info_bar_get_revealed (_tilde_ir_view_get_banner (ir)));
  window_test_close_all (GTK_APPLICATION (app));
  g_unlink (path);
  g_rmdir (dir);
}

/* The screenshot of the README: O1, the partial evaluation pass, the
 * lines of the transformed parameter highlighted. */
static void
test_screenshot (void)
{
  TildeWindow *window = open_example ("eight_schools.stan");
  TildeIrView *ir = tilde_window_get_ir_view (window);
  GtkPaned *workbench = _tilde_window_get_workbench_paned (window);
  int partial = -1;

  /* As wide as the X server allows, the editor a little narrower. */
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 860);
  g_assert_true (wait_for (window_is_wide, window));
  gtk_paned_set_position (workbench, 470);
  window_test_pointer_away (GTK_WIDGET (window));
  let_it_draw (GTK_WIDGET (window));
  set_level (window, "1");
  for (guint i = 1; i < n_passes (ir); i++)
    if (g_str_equal (tilde_ir_pass_get_name (pass_at (ir, i)), "partial_evaluation"))
      partial = tilde_ir_pass_get_index (pass_at (ir, i));
  tilde_ir_view_select_step (ir, partial);
  put_editor_cursor (window, 18);
  let_it_draw (GTK_WIDGET (window));
  save_screenshot (GTK_WIDGET (window), "ir-view.png");

  /* The same in the dark: the diff's colours come from the theme. */
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
  let_it_draw (GTK_WIDGET (window));
  save_screenshot (GTK_WIDGET (window), "ir-view-dark.png");
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);

  tilde_ir_view_select_step (ir, -1);
  let_it_draw (GTK_WIDGET (window));
  save_screenshot (GTK_WIDGET (window), "ir-view-stages.png");
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
  g_unsetenv ("TILDE_WORKER_CHECK_DELAY_MS");
  gtk_test_init (&argc, &argv, NULL);

  app = tilde_application_new (G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);

  g_test_add_func ("/ir-view/mir-at-o0", test_mir_at_o0);
  g_test_add_func ("/ir-view/mir-at-o1-and-passes", test_mir_at_o1_and_passes);
  g_test_add_func ("/ir-view/click-selects-source", test_click_selects_source);
  g_test_add_func ("/ir-view/cursor-highlights-mir", test_cursor_highlights_mir);
  g_test_add_func ("/ir-view/edit-recompiles-after-delay", test_edit_recompiles_after_delay);
  g_test_add_func ("/ir-view/errors-show-banner", test_errors_show_banner);
  g_test_add_func ("/ir-view/errors-from-the-start", test_errors_from_the_start);
  g_test_add_func ("/ir-view/copy", test_copy);
  g_test_add_func ("/ir-view/screenshot", test_screenshot);
  g_test_add_func ("/ir-view/long-line-plain", test_long_line_plain);
  status = g_test_run ();
  g_clear_object (&app);
  tilde_autosave_flush ();
  window_test_remove_home ();
  return status;
}
