/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The IR viewer puts a compile's result into its views a slice at a time.
 * A newer result that arrives while one is half in must leave the views
 * as if only the newer one had been shown: the text of each side is the
 * compiler's (as `tilde compile` prints it), one row per buffer line, and
 * the rows link to the lines of the model they came from, also those
 * below the edit, whose line numbers moved. The same when another stage
 * replaces every row half-way, and when what was shown is forgotten (a
 * file loaded) half-way. Run under an X server (Xvfb).
 */
#define G_LOG_DOMAIN "tilde-test"

#include <glib/gstdio.h>
#include <string.h>

#include "tilde-application-private.h"
#include "tilde-autosave.h"
#include "tilde-editor-private.h"
#include "tilde-ir-view-private.h"
#include "tilde-line-diff.h"
#include "worker/mir-stages.h"
#include "tilde-window-private.h"
#include "window-test-util.h"

static TildeApplication *app;

typedef struct {
  TildeIrView *ir;
  guint        results;
  guint        applying;
} Awaited;

static gboolean
result_shown (gpointer data)
{
  Awaited *a = data;

  return _tilde_ir_view_get_results (a->ir) > a->results && !tilde_ir_view_get_compiling (a->ir)
         && _tilde_ir_view_get_applying (a->ir) == 0;
}

static gboolean
apply_begun (gpointer data)
{
  Awaited *a = data;

  return _tilde_ir_view_get_applying (a->ir) > a->applying;
}

/* A model whose MIR has hundreds of lines: many slices of a few rows. */
static char *
write_model (void)
{
  GString *text = g_string_new ("data {\n  int N;\n  vector[N] y;\n}\n"
                                "parameters {\n  real mu;\n  real<lower=0> sigma;\n}\n"
                                "model {\n  mu ~ normal(0, 1);\n");
  char *path = g_build_filename (window_test_home (), "many.stan", NULL);

  for (int i = 1; i <= 120; i++)
    g_string_append_printf (text, "  target += normal_lpdf(mu | %d, 10);\n", i);
  g_string_append (text, "  y ~ normal(mu, sigma);\n}\n");
  g_assert_true (g_file_set_contents (path, text->str, -1, NULL));
  g_string_free (text, TRUE);
  return path;
}

static void
replace (TildeWindow *window, const char *old, const char *new)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (tilde_window_get_buffer (window));
  GtkTextIter start, begin, end;

  gtk_text_buffer_get_start_iter (buffer, &start);
  g_assert_true (gtk_text_iter_forward_search (&start, old, GTK_TEXT_SEARCH_TEXT_ONLY, &begin, &end, NULL));
  gtk_text_buffer_delete (buffer, &begin, &end);
  gtk_text_buffer_insert (buffer, &begin, new, -1);
}

/* What `tilde compile FLAG LEVEL` prints for the editor's text. */
static char *
cli_output_at (TildeWindow *window, const char *flag, const char *level)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (tilde_window_get_buffer (window));
  g_autofree char *path = g_build_filename (window_test_home (), "edited.stan", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  GtkTextIter start, end;
  char *out = NULL;
  int status;
  const char *argv[] = { g_getenv ("TILDE_CLI"), "compile", flag, level, path, NULL };

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                               &out, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return out;
}

static char *
cli_output (TildeWindow *window, const char *flag)
{
  return cli_output_at (window, flag, "--O0");
}

static GtkTextBuffer *
side_buffer (TildeIrView *ir, TildeIrSide side)
{
  return gtk_text_view_get_buffer (GTK_TEXT_VIEW (_tilde_ir_view_get_source_view (ir, side)));
}

/* The side's buffer without the filler rows that stand for lines of the
 * other side, one line each, as the compiler prints it. */
static char *
shown_text (TildeIrView *ir, TildeIrSide side)
{
  GtkTextBuffer *buffer = side_buffer (ir, side);
  GArray *rows = _tilde_ir_view_get_rows (ir);
  GString *text = g_string_new (NULL);

  g_assert_cmpint (gtk_text_buffer_get_line_count (buffer), ==, (int) rows->len);
  for (guint i = 0; i < rows->len; i++)
    {
      const TildeDiffRow *row = &g_array_index (rows, TildeDiffRow, i);
      int line = side == TILDE_IR_SIDE_LEFT ? row->old_line : row->new_line;
      GtkTextIter begin, end;
      g_autofree char *slice = NULL;

      if (line < 0)
        continue;
      gtk_text_buffer_get_iter_at_line (buffer, &begin, (int) i);
      end = begin;
      if (!gtk_text_iter_ends_line (&end))
        gtk_text_iter_forward_to_line_end (&end);
      slice = gtk_text_iter_get_slice (&begin, &end);
      g_string_append (text, slice);
      g_string_append_c (text, '\n');
    }
  return g_string_free (text, FALSE);
}

static int
find_row (TildeIrView *ir, TildeIrSide side, const char *needle)
{
  GtkTextBuffer *buffer = side_buffer (ir, side);
  GtkTextIter start, match;

  gtk_text_buffer_get_start_iter (buffer, &start);
  if (!gtk_text_iter_forward_search (&start, needle, GTK_TEXT_SEARCH_TEXT_ONLY, &match, NULL, NULL))
    return -1;
  return gtk_text_iter_get_line (&match);
}

static int
find_last_row (TildeIrView *ir, TildeIrSide side, const char *needle)
{
  GtkTextBuffer *buffer = side_buffer (ir, side);
  GtkTextIter end, match;

  gtk_text_buffer_get_end_iter (buffer, &end);
  if (!gtk_text_iter_backward_search (&end, needle, GTK_TEXT_SEARCH_TEXT_ONLY, &match, NULL, NULL))
    return -1;
  return gtk_text_iter_get_line (&match);
}

/* Clicks the row and returns the editor's selection and its line. */
static char *
click_row (TildeWindow *window, TildeIrView *ir, TildeIrSide side, int row, int *line)
{
  GtkTextBuffer *buffer = side_buffer (ir, side);
  GtkTextBuffer *editor = GTK_TEXT_BUFFER (tilde_window_get_buffer (window));
  GtkTextIter iter, begin, end;

  gtk_text_buffer_get_iter_at_line_offset (buffer, &iter, row, 4);
  gtk_text_buffer_place_cursor (buffer, &iter);
  if (!gtk_text_buffer_get_selection_bounds (editor, &begin, &end))
    return NULL;
  *line = gtk_text_iter_get_line (&begin) + 1;
  return gtk_text_iter_get_slice (&begin, &end);
}

static void
test_newer_result_takes_over (void)
{
  g_autofree char *path = write_model ();
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *transformed = NULL;
  g_autofree char *optimized = NULL;
  g_autofree char *left = NULL;
  g_autofree char *right = NULL;
  g_autofree char *selected = NULL;
  g_autoptr(GArray) marked = NULL;
  TildeWindow *window = NULL;
  TildeIrView *ir;
  Awaited awaited;
  int row, line = 0;

  g_application_open (G_APPLICATION (app), &file, 1, "");
  window = window_test_wait_for_window (GTK_APPLICATION (app));
  ir = tilde_window_get_ir_view (window);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.optimization-level", "s", "0");
  awaited = (Awaited) { ir, 0, 0 };
  g_assert_true (window_test_wait_for (result_shown, &awaited));

  /* A first edit, at both ends of the model block: every row between
   * them goes in again, 8 a slice, and the apply waits after its first. */
  _tilde_ir_view_set_apply_limits (ir, 8, TRUE);
  awaited = (Awaited) { ir, _tilde_ir_view_get_results (ir), _tilde_ir_view_get_applying (ir) };
  replace (window, "mu ~ normal(0, 1);", "mu ~ normal(0, 2);");
  replace (window, "y ~ normal(mu, sigma);", "y ~ normal(mu, 2 * sigma);");
  tilde_ir_view_compile_now (ir);
  g_assert_true (window_test_wait_for (apply_begun, &awaited));
  /* Half in: the result is not shown yet. */
  window_test_run_for_ms (100);
  g_assert_cmpuint (_tilde_ir_view_get_applying (ir), !=, 0);
  g_assert_cmpuint (_tilde_ir_view_get_results (ir), ==, awaited.results);

  /* A second edit, a line added near the top: its result takes over. */
  awaited.applying = _tilde_ir_view_get_applying (ir);
  replace (window, "mu ~ normal(0, 2);", "mu ~ cauchy(0, 3);\n  sigma ~ exponential(1);");
  tilde_ir_view_compile_now (ir);
  g_assert_true (window_test_wait_for (apply_begun, &awaited));
  _tilde_ir_view_set_apply_limits (ir, 8, FALSE);
  g_assert_true (window_test_wait_for (result_shown, &awaited));

  /* Each side holds what the compiler prints for the second text. */
  transformed = cli_output (window, "--debug-transformed-mir-pretty");
  optimized = cli_output (window, "--debug-optimized-mir-pretty");
  left = shown_text (ir, TILDE_IR_SIDE_LEFT);
  right = shown_text (ir, TILDE_IR_SIDE_RIGHT);
  g_assert_cmpstr (left, ==, transformed);
  g_assert_cmpstr (right, ==, optimized);
  g_assert_cmpint (gtk_text_buffer_get_line_count (side_buffer (ir, TILDE_IR_SIDE_RIGHT)), ==,
                   gtk_text_buffer_get_line_count (side_buffer (ir, TILDE_IR_SIDE_LEFT)));

  /* Rows link to their statements: the new one (line 10), the one added
   * below it (11), and the last, whose line moved down by one (132). */
  row = find_row (ir, TILDE_IR_SIDE_RIGHT, "target += cauchy_lupdf(mu");
  g_assert_cmpint (row, >=, 0);
  selected = click_row (window, ir, TILDE_IR_SIDE_RIGHT, row, &line);
  g_assert_cmpstr (selected, ==, "mu ~ cauchy(0, 3);");
  g_assert_cmpint (line, ==, 10);
  g_clear_pointer (&selected, g_free);
  row = find_row (ir, TILDE_IR_SIDE_LEFT, "target += exponential_lupdf(sigma");
  g_assert_cmpint (row, >=, 0);
  selected = click_row (window, ir, TILDE_IR_SIDE_LEFT, row, &line);
  g_assert_cmpstr (selected, ==, "sigma ~ exponential(1);");
  g_assert_cmpint (line, ==, 11);
  g_clear_pointer (&selected, g_free);
  row = find_row (ir, TILDE_IR_SIDE_RIGHT, "target += normal_lupdf(y, mu, (2 * sigma));");
  g_assert_cmpint (row, >=, 0);
  selected = click_row (window, ir, TILDE_IR_SIDE_RIGHT, row, &line);
  g_assert_cmpstr (selected, ==, "y ~ normal(mu, 2 * sigma);");
  g_assert_cmpint (line, ==, 132);
  g_clear_pointer (&selected, g_free);

  /* Below the edits, where the rows' places in the compiler's text moved:
   * sigma's declaration in transform_inits (after mu's lines) comes from
   * its declaration, line 7. */
  row = find_last_row (ir, TILDE_IR_SIDE_RIGHT, "  real sigma;\n  sigma = FnReadData__");
  g_assert_cmpint (row, >=, 0);
  selected = click_row (window, ir, TILDE_IR_SIDE_RIGHT, row, &line);
  g_assert_cmpint (line, ==, 7);
  g_assert_nonnull (strstr (selected, "sigma"));
  g_clear_pointer (&selected, g_free);

  /* And the editor's cursor on line 10 marks that row. */
  {
    GtkTextBuffer *editor = GTK_TEXT_BUFFER (tilde_window_get_buffer (window));
    GtkTextIter iter;

    gtk_text_buffer_get_iter_at_line_offset (editor, &iter, 9, 4);
    gtk_text_buffer_place_cursor (editor, &iter);
  }
  marked = _tilde_ir_view_get_highlighted_rows (ir, TILDE_IR_SIDE_RIGHT);
  g_assert_cmpuint (marked->len, ==, 1);
  g_assert_cmpint ((int) g_array_index (marked, guint, 0), ==,
                   find_row (ir, TILDE_IR_SIDE_RIGHT, "target += cauchy_lupdf(mu"));

  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (tilde_window_get_buffer (window)), FALSE);
  window_test_close_all (GTK_APPLICATION (app));
}

/* Both sides show what the compiler prints at `level`, and nothing else. */
static void
assert_shows_compiler_output (TildeWindow *window, TildeIrView *ir, const char *level)
{
  g_autofree char *transformed = cli_output_at (window, "--debug-transformed-mir-pretty", level);
  g_autofree char *optimized = cli_output_at (window, "--debug-optimized-mir-pretty", level);
  g_autofree char *left = shown_text (ir, TILDE_IR_SIDE_LEFT);
  g_autofree char *right = shown_text (ir, TILDE_IR_SIDE_RIGHT);

  g_assert_cmpstr (left, ==, transformed);
  g_assert_cmpstr (right, ==, optimized);
}

static TildeIrView *
open_many (TildeWindow **window)
{
  g_autofree char *path = write_model ();
  g_autoptr(GFile) file = g_file_new_for_path (path);
  TildeIrView *ir;
  Awaited awaited;

  g_application_open (G_APPLICATION (app), &file, 1, "");
  *window = window_test_wait_for_window (GTK_APPLICATION (app));
  ir = tilde_window_get_ir_view (*window);
  gtk_widget_activate_action (GTK_WIDGET (*window), "win.optimization-level", "s", "0");
  awaited = (Awaited) { ir, 0, 0 };
  g_assert_true (window_test_wait_for (result_shown, &awaited));
  return ir;
}

static gboolean
apply_done (gpointer data)
{
  return _tilde_ir_view_get_applying (data) == 0;
}

/* Another stage on the left replaces every row; going back while that is
 * half in takes over from there. */
static void
test_stage_changed_mid_apply (void)
{
  TildeWindow *window = NULL;
  TildeIrView *ir = open_many (&window);
  Awaited awaited = { ir, _tilde_ir_view_get_results (ir), _tilde_ir_view_get_applying (ir) };

  _tilde_ir_view_set_apply_limits (ir, 8, TRUE);
  g_object_set (ir, "left-stage", TILDE_MIR_STAGE_AST, NULL);
  g_assert_true (window_test_wait_for (apply_begun, &awaited));
  window_test_run_for_ms (50);
  g_assert_cmpuint (_tilde_ir_view_get_applying (ir), !=, 0);
  awaited.applying = _tilde_ir_view_get_applying (ir);
  g_object_set (ir, "left-stage", TILDE_MIR_STAGE_TRANSFORMED, NULL);
  g_assert_true (window_test_wait_for (apply_begun, &awaited));
  _tilde_ir_view_set_apply_limits (ir, 0, FALSE);
  g_assert_true (window_test_wait_for (apply_done, ir));
  assert_shows_compiler_output (window, ir, "--O0");

  /* And another level, to the end this time. */
  awaited = (Awaited) { ir, _tilde_ir_view_get_results (ir), 0 };
  gtk_widget_activate_action (GTK_WIDGET (window), "win.optimization-level", "s", "1");
  g_assert_true (window_test_wait_for (result_shown, &awaited));
  assert_shows_compiler_output (window, ir, "--O1");
  window_test_close_all (GTK_APPLICATION (app));
}

/* Forgetting what was shown (another file loaded) while a result is half
 * in: the next result replaces all of it. */
static void
test_reset_mid_apply (void)
{
  TildeWindow *window = NULL;
  TildeIrView *ir = open_many (&window);
  Awaited awaited = { ir, _tilde_ir_view_get_results (ir), _tilde_ir_view_get_applying (ir) };

  _tilde_ir_view_set_apply_limits (ir, 8, TRUE);
  replace (window, "mu ~ normal(0, 1);", "mu ~ normal(0, 2);");
  replace (window, "y ~ normal(mu, sigma);", "y ~ student_t(3, mu, sigma);");
  tilde_ir_view_compile_now (ir);
  g_assert_true (window_test_wait_for (apply_begun, &awaited));
  tilde_ir_view_reset (ir);
  g_assert_cmpuint (_tilde_ir_view_get_applying (ir), ==, 0);
  _tilde_ir_view_set_apply_limits (ir, 0, FALSE);
  tilde_ir_view_compile_now (ir);
  g_assert_true (window_test_wait_for (result_shown, &awaited));
  assert_shows_compiler_output (window, ir, "--O0");
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (tilde_window_get_buffer (window)), FALSE);
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

  g_test_add_func ("/ir-view-apply/newer-result-takes-over", test_newer_result_takes_over);
  g_test_add_func ("/ir-view-apply/stage-changed-mid-apply", test_stage_changed_mid_apply);
  g_test_add_func ("/ir-view-apply/reset-mid-apply", test_reset_mid_apply);
  status = g_test_run ();
  g_clear_object (&app);
  tilde_autosave_flush ();
  window_test_remove_home ();
  return status;
}
