/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The IR viewer's OpenCL stage in the real window, with or without an
 * OpenCL device: a GLM over data annotated @gpu shows where its data live
 * (the lines of `tilde compile --debug-mem-patterns`) and its kernel (as
 * `--debug-opencl` prints it); copying the side gives that text; a model
 * with nothing for a device says why in one line. Run under an X server.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <glib/gstdio.h>
#include <string.h>

#include "tilde-application-private.h"
#include "tilde-autosave.h"
#include "tilde-line-diff.h"
#include "tilde-ir-view-private.h"
#include "tilde-window-private.h"
#include "window-test-util.h"
#include "worker/mir-stages.h"

static TildeApplication *app;
static char *dir;

#define wait_for window_test_wait_for

static const char *gpu_model =
  "data {\n"
  "  int<lower=0> N;\n"
  "  @gpu matrix[N, 2] X;\n"
  "  array[N] int c;\n"
  "}\n"
  "parameters {\n"
  "  real alpha;\n"
  "  vector[2] beta;\n"
  "}\n"
  "model {\n"
  "  c ~ poisson_log_glm(X, alpha, beta);\n"
  "}\n";

static gboolean
ir_settled (gpointer data)
{
  TildeIrView *ir = data;

  return !tilde_ir_view_get_compiling (ir) && _tilde_ir_view_get_results (ir) > 0;
}

static TildeWindow *
open_model (const char *name, const char *text)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  TildeWindow *window = NULL;

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  g_application_open (G_APPLICATION (app), &file, 1, "");
  window = window_test_wait_for_window (GTK_APPLICATION (app));
  g_assert_true (wait_for (ir_settled, tilde_window_get_ir_view (window)));
  return window;
}

/* The right side's buffer holds what the stage's text says, once its rows
 * are in. */
static gboolean
right_side_shows (gpointer data)
{
  TildeIrView *ir = data;
  const char *text = tilde_ir_view_get_text (ir, TILDE_IR_SIDE_RIGHT);
  GtkTextBuffer *buffer;
  GtkTextIter begin, end;
  g_autofree char *shown = NULL;

  if (text == NULL || _tilde_ir_view_get_applying (ir) > 0 || _tilde_ir_view_get_rows (ir) == NULL)
    return FALSE;
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (_tilde_ir_view_get_source_view (ir, TILDE_IR_SIDE_RIGHT)));
  gtk_text_buffer_get_bounds (buffer, &begin, &end);
  shown = gtk_text_buffer_get_text (buffer, &begin, &end, FALSE);
  return strstr (shown, "OpenCL") != NULL;
}

/* Chooses the OpenCL stage on the right as its drop-down does. */
static void
choose_opencl (TildeIrView *ir)
{
  g_object_set (ir, "right-stage", TILDE_MIR_STAGE_OPENCL, NULL);
  g_assert_true (wait_for (right_side_shows, ir));
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
close_all (TildeWindow *window)
{
  g_object_set (tilde_window_get_ir_view (window), "right-stage", TILDE_MIR_STAGE_OPTIMIZED,
                "use-opencl", FALSE, NULL);
  window_test_close_all (GTK_APPLICATION (app));
}

static void
test_glm_kernel (void)
{
  TildeWindow *window = open_model ("glm.stan", gpu_model);
  TildeIrView *ir = tilde_window_get_ir_view (window);
  GdkClipboard *clipboard = gtk_widget_get_clipboard (GTK_WIDGET (ir));
  g_autofree char *copied = NULL;
  const char *text;

  choose_opencl (ir);
  text = tilde_ir_view_get_text (ir, TILDE_IR_SIDE_RIGHT);
  /* the plan line --debug-mem-patterns prints for X, and the kernel */
  g_assert_nonnull (strstr (text, "matrix[N, 2] X: device  // annotated @gpu; design matrix of "
                                  "poisson_log_glm_lupmf at line 11"));
  g_assert_nonnull (strstr (text, "// OpenCL kernel for poisson_log_glm (K = 2)\n"));
  g_assert_nonnull (strstr (text, "__kernel"));
  g_assert_nonnull (strstr (text, "void glm_pass ("));
  g_assert_nonnull (strstr (text, "#define K 2\n"));
  /* the left side is still the transformed MIR; the two are different
   * languages, so their lines face each other in order, none marked as a
   * change */
  g_assert_nonnull (strstr (tilde_ir_view_get_text (ir, TILDE_IR_SIDE_LEFT), "log_prob {"));
  {
    GArray *rows = _tilde_ir_view_get_rows (ir);
    int lines[2] = { 0, 0 };

    g_assert_cmpuint (rows->len, >, 0);
    for (guint i = 0; i < rows->len; i++)
      {
        const TildeDiffRow *row = &g_array_index (rows, TildeDiffRow, i);

        g_assert_cmpint (row->kind, ==, TILDE_DIFF_SAME);
        if (row->old_line >= 0)
          g_assert_cmpint (row->old_line, ==, lines[0]++);
        if (row->new_line >= 0)
          g_assert_cmpint (row->new_line, ==, lines[1]++);
      }
    g_assert_cmpuint (rows->len, ==, MAX (lines[0], lines[1]));
    g_assert_cmpint (lines[1], >, lines[0]);
  }
  window_test_let_it_draw (GTK_WIDGET (window));
  window_test_screenshot (GTK_WIDGET (window), "ir-view-opencl.png");

  gtk_widget_activate_action (GTK_WIDGET (ir), "ir.copy", "i", TILDE_IR_SIDE_RIGHT);
  gdk_clipboard_read_text_async (clipboard, NULL, clipboard_read, &copied);
  g_assert_true (wait_for (is_set, &copied));
  g_assert_cmpstr (copied, ==, text);
  close_all (window);
}

/* A GLM over data not annotated: the line says which annotation to add;
 * with "use OpenCL for large data" the matrix is chosen without it. */
static void
test_explanation_and_use_opencl (void)
{
  g_autofree char *plain = g_strdup (gpu_model);
  TildeWindow *window;
  TildeIrView *ir;
  const char *text;
  guint results;

  memcpy (strstr (plain, "@gpu"), "    ", 4);
  window = open_model ("plain.stan", plain);
  ir = tilde_window_get_ir_view (window);
  choose_opencl (ir);
  text = tilde_ir_view_get_text (ir, TILDE_IR_SIDE_RIGHT);
  g_assert_cmpstr (text, ==, "// No statement runs on an OpenCL device: annotate X with @gpu (the "
                             "design matrix of poisson_log_glm_lupmf at line 11) to run that "
                             "statement as a kernel\n");
  g_assert_null (strstr (text, "__kernel"));

  results = _tilde_ir_view_get_results (ir);
  tilde_ir_view_set_use_opencl (ir, TRUE);
  g_assert_true (tilde_ir_view_get_compiling (ir) || _tilde_ir_view_get_results (ir) > results);
  g_assert_true (wait_for (ir_settled, ir));
  g_assert_true (wait_for (right_side_shows, ir));
  text = tilde_ir_view_get_text (ir, TILDE_IR_SIDE_RIGHT);
  g_assert_nonnull (strstr (text, "matrix[N, 2] X: device  // --use-opencl: design matrix of "
                                  "poisson_log_glm_lupmf at line 11, on the device when it has at "
                                  "least 10000 elements"));
  g_assert_nonnull (strstr (text, "__kernel"));
  close_all (window);
}

/* A normal regression, X annotated: it stays on the CPU by its sufficient
 * statistics, and the note says so instead of asking for @gpu. */
static void
test_normal_by_statistics (void)
{
  TildeWindow *window = open_model ("normal.stan",
                                    "data {\n  int N;\n  int K;\n  @gpu matrix[N, K] X;\n"
                                    "  vector[N] y;\n}\nparameters {\n  real alpha;\n"
                                    "  vector[K] beta;\n  real<lower=0> sigma;\n}\n"
                                    "model {\n  y ~ normal_id_glm(X, alpha, beta, sigma);\n}\n");
  TildeIrView *ir = tilde_window_get_ir_view (window);
  const char *text;

  choose_opencl (ir);
  text = tilde_ir_view_get_text (ir, TILDE_IR_SIDE_RIGHT);
  g_assert_true (g_str_has_prefix (text, "// No statement runs on an OpenCL device: "
                                         "normal_id_glm_lupdf at line 13 runs on the CPU by its "
                                         "sufficient statistics"));
  /* and the plan's line for X says why it stays on the host */
  g_assert_nonnull (strstr (text, "X: host  // annotated @gpu, but stays on the host: design "
                                  "matrix of normal_id_glm_lupdf at line 13"));
  g_assert_null (strstr (text, "OpenCL kernel for"));
  close_all (window);
}

/* No GLM at all: one line naming the annotation. */
static void
test_nothing_for_a_device (void)
{
  TildeWindow *window = open_model ("mean.stan", "parameters {\n  real mu;\n}\nmodel {\n"
                                                 "  mu ~ normal(0, 1);\n}\n");
  TildeIrView *ir = tilde_window_get_ir_view (window);
  const char *text;

  choose_opencl (ir);
  text = tilde_ir_view_get_text (ir, TILDE_IR_SIDE_RIGHT);
  g_assert_true (g_str_has_prefix (text, "// No statement runs on an OpenCL device: only GLM "
                                         "statements over a design matrix annotated @gpu do"));
  g_assert_nonnull (strstr (text, "@gpu matrix[N, K] X"));
  g_assert_cmpint (strchr (text, '\n') - text, ==, (int) strlen (text) - 1);
  close_all (window);
}

static void
remove_dir (void)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (dir);
  g_clear_pointer (&dir, g_free);
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
  dir = g_dir_make_tmp ("tilde-ir-opencl-XXXXXX", &error);
  g_assert_no_error (error);

  app = tilde_application_new (G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);

  g_test_add_func ("/ir-view/opencl/glm-kernel", test_glm_kernel);
  g_test_add_func ("/ir-view/opencl/explanation-and-use-opencl", test_explanation_and_use_opencl);
  g_test_add_func ("/ir-view/opencl/nothing-for-a-device", test_nothing_for_a_device);
  g_test_add_func ("/ir-view/opencl/normal-by-statistics", test_normal_by_statistics);
  status = g_test_run ();
  g_clear_object (&app);
  tilde_autosave_flush ();
  remove_dir ();
  window_test_remove_home ();
  return status;
}
