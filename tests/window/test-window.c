/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The window, driven as a person uses it: the real TildeApplication opens an
 * example model under an X server (Xvfb in CI); the tests look at the buffer and
 * at the pixels that were drawn.
 */
#include <glib/gstdio.h>

#include "tilde-application.h"
#include "tilde-window.h"
#include "window-test-util.h"

static TildeApplication *app;

static gboolean
not_saving (gpointer data)
{
  return !tilde_window_is_saving (TILDE_WINDOW (data));
}

static gboolean
window_gone (gpointer data)
{
  GtkWindow **window = data;

  return *window == NULL;
}

static TildeWindow *
open_example (const char *name)
{
  g_autofree char *path = window_test_example_path (name);
  return window_test_open (GTK_APPLICATION (app), path);
}

/* The text the buffer stands for on disk: GtkSourceView keeps the file's final
 * newline out of the buffer and writes it back on save. */
static char *
buffer_text (TildeWindow *window)
{
  GtkTextIter start, end;
  GtkSourceBuffer *source = tilde_window_get_buffer (window);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (source);
  g_autofree char *text = NULL;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
  if (gtk_source_buffer_get_implicit_trailing_newline (source))
    return g_strconcat (text, "\n", NULL);
  return g_steal_pointer (&text);
}

static void
test_open_example (void)
{
  g_autofree char *path = window_test_example_path ("eight_schools.stan");
  g_autofree char *expected = NULL;
  g_autofree char *text = NULL;
  TildeWindow *window = open_example ("eight_schools.stan");
  GtkSourceLanguage *language;

  g_assert_true (g_file_get_contents (path, &expected, NULL, NULL));
  text = buffer_text (window);
  g_assert_cmpstr (text, ==, expected);
  language = gtk_source_buffer_get_language (tilde_window_get_buffer (window));
  g_assert_nonnull (language);
  g_assert_cmpstr (gtk_source_language_get_id (language), ==, "stan");
  g_assert_true (g_str_has_prefix (gtk_window_get_title (GTK_WINDOW (window)), "eight_schools.stan"));
  g_assert_false (gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (tilde_window_get_buffer (window))));
  window_test_close_all (GTK_APPLICATION (app));
}

/* The rendering of WIDGET as it is on screen, right after a frame. */
static GdkTexture *
render_widget (GtkWidget *widget)
{
  return window_test_render (widget);
}

typedef struct { int r, g, b; } Rgb;

static int
rgb_distance (Rgb a, Rgb b)
{
  return abs (a.r - b.r) + abs (a.g - b.g) + abs (a.b - b.b);
}

/* The colour of the glyphs inside RECT: the pixel that differs most from the
 * background, read at the rectangle's left edge just before the text. */
static Rgb
ink_colour (const guchar *pixels, gsize stride, int width, int height, GdkRectangle rect)
{
  Rgb background, ink;
  int best = -1;

  #define PIXEL(x, y) ((Rgb) { pixels[(y) * stride + (x) * 4 + 2], \
                               pixels[(y) * stride + (x) * 4 + 1], \
                               pixels[(y) * stride + (x) * 4 + 0] })
  g_assert_cmpint (rect.x, >=, 1);
  g_assert_cmpint (rect.x + rect.width, <=, width);
  g_assert_cmpint (rect.y + rect.height, <=, height);
  background = PIXEL (rect.x - 1, rect.y + rect.height / 2);
  ink = background;
  for (int y = rect.y; y < rect.y + rect.height; y++)
    for (int x = rect.x; x < rect.x + rect.width; x++)
      {
        Rgb p = PIXEL (x, y);
        int d = rgb_distance (p, background);
        if (d > best)
          {
            best = d;
            ink = p;
          }
      }
  #undef PIXEL
  g_assert_cmpint (best, >, 100); /* something was drawn there */
  return ink;
}

/* Where the first occurrence of WORD is drawn, in the view's widget coordinates;
 * occurrences inside comments are skipped unless WORD starts one. */
static GdkRectangle
word_rectangle (GtkSourceView *view, const char *word)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
  GtkSourceBuffer *source = GTK_SOURCE_BUFFER (buffer);
  GtkTextIter start, match_start, match_end;
  GdkRectangle first, last, rect;

  gtk_text_buffer_get_start_iter (buffer, &start);
  for (;;)
    {
      g_assert_true (gtk_text_iter_forward_search (&start, word, GTK_TEXT_SEARCH_TEXT_ONLY,
                                                   &match_start, &match_end, NULL));
      if (g_str_has_prefix (word, "//")
          || !gtk_source_buffer_iter_has_context_class (source, &match_start, "comment"))
        break;
      start = match_end;
    }
  gtk_text_iter_backward_char (&match_end);
  gtk_text_view_get_iter_location (GTK_TEXT_VIEW (view), &match_start, &first);
  gtk_text_view_get_iter_location (GTK_TEXT_VIEW (view), &match_end, &last);
  gtk_text_view_buffer_to_window_coords (GTK_TEXT_VIEW (view), GTK_TEXT_WINDOW_WIDGET,
                                         first.x, first.y, &rect.x, &rect.y);
  rect.width = last.x + last.width - first.x;
  rect.height = first.height;
  return rect;
}

static void
test_highlighting_drawn (void)
{
  TildeWindow *window = open_example ("eight_schools.stan");
  GtkSourceView *view = tilde_window_get_view (window);
  GtkSourceBuffer *buffer = tilde_window_get_buffer (window);
  const char *dir = g_getenv ("TILDE_SCREENSHOT_DIR");
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree guchar *pixels = NULL;
  GtkTextIter start, end;
  int width, height;
  gsize stride;
  Rgb keyword, identifier, comment, type;

  gtk_text_buffer_get_bounds (GTK_TEXT_BUFFER (buffer), &start, &end);
  gtk_source_buffer_ensure_highlight (buffer, &start, &end);
  window_test_let_it_draw (GTK_WIDGET (window));

  texture = render_widget (GTK_WIDGET (view));
  width = gdk_texture_get_width (texture);
  height = gdk_texture_get_height (texture);
  stride = (gsize) width * 4;
  pixels = g_malloc (stride * height);
  gdk_texture_download (texture, pixels, stride);

  if (dir != NULL)
    {
      g_autoptr(GdkTexture) shot = render_widget (GTK_WIDGET (window));
      g_autofree char *path = g_build_filename (dir, "window-example.png", NULL);

      g_assert_true (gdk_texture_save_to_png (shot, path));
    }

  /* Block keyword, type, comment and a plain identifier are each drawn, and the
   * styled ones are drawn in colours that differ from plain text. */
  keyword = ink_colour (pixels, stride, width, height, word_rectangle (view, "parameters"));
  type = ink_colour (pixels, stride, width, height, word_rectangle (view, "real"));
  comment = ink_colour (pixels, stride, width, height, word_rectangle (view, "//"));
  identifier = ink_colour (pixels, stride, width, height, word_rectangle (view, "theta_tilde"));
  g_assert_cmpint (rgb_distance (keyword, identifier), >, 60);
  g_assert_cmpint (rgb_distance (type, identifier), >, 60);
  g_assert_cmpint (rgb_distance (comment, identifier), >, 60);
  window_test_close_all (GTK_APPLICATION (app));
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
  AdwMessageDialog **dialog = data;

  *dialog = find_message_dialog ();
  return *dialog != NULL;
}

static void
test_unsaved_changes_protected (void)
{
  TildeWindow *window = open_example ("eight_schools.stan");
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (tilde_window_get_buffer (window));
  AdwMessageDialog *dialog = NULL;

  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  gtk_text_buffer_insert_at_cursor (buffer, "// edited\n", -1);
  g_assert_true (gtk_text_buffer_get_modified (buffer));
  g_assert_true (g_str_has_prefix (gtk_window_get_title (GTK_WINDOW (window)), "• "));

  /* Closing asks first; Cancel keeps the window and the edit. */
  gtk_window_close (GTK_WINDOW (window));
  g_assert_true (window_test_wait_for (dialog_shown, &dialog));
  g_assert_nonnull (window);
  adw_message_dialog_response (dialog, "cancel");
  g_assert_nonnull (window);
  g_assert_true (gtk_text_buffer_get_modified (buffer));

  /* Discard closes it without writing the file. */
  gtk_window_close (GTK_WINDOW (window));
  dialog = NULL;
  g_assert_true (window_test_wait_for (dialog_shown, &dialog));
  adw_message_dialog_response (dialog, "discard");
  g_assert_true (window_test_wait_for (window_gone, &window));
  {
    g_autofree char *path = window_test_example_path ("eight_schools.stan");
    g_autofree char *contents = NULL;

    g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
    g_assert_null (strstr (contents, "// edited"));
  }
  window_test_close_all (GTK_APPLICATION (app));
}

static void
test_save_as (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tilde-window-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "copy.stan", NULL);
  g_autoptr(GFile) target = g_file_new_for_path (path);
  g_autofree char *contents = NULL;
  g_autofree char *text = NULL;
  TildeWindow *window = open_example ("eight_schools.stan");
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (tilde_window_get_buffer (window));

  gtk_text_buffer_insert_at_cursor (buffer, "// saved copy\n", -1);
  tilde_window_save_to_file (window, target);
  g_assert_true (window_test_wait_for (not_saving, window));
  g_assert_false (gtk_text_buffer_get_modified (buffer));
  g_assert_true (g_file_equal (tilde_window_get_file (window), target));
  g_assert_true (g_str_has_prefix (gtk_window_get_title (GTK_WINDOW (window)), "copy.stan"));
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  text = buffer_text (window);
  g_assert_cmpstr (contents, ==, text);
  g_assert_nonnull (strstr (contents, "// saved copy"));
  window_test_close_all (GTK_APPLICATION (app));
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_open_missing_file (void)
{
  g_autoptr(GFile) file = g_file_new_for_path ("/nonexistent/tilde/model.stan");
  GtkWindow *window;

  g_application_open (G_APPLICATION (app), &file, 1, "");
  window_test_run_for_ms (500);
  /* The window stays, with nothing lost and no file that Save would overwrite. */
  window = gtk_application_get_active_window (GTK_APPLICATION (app));
  g_assert_true (TILDE_IS_WINDOW (window));
  g_assert_false (tilde_window_is_loading (TILDE_WINDOW (window)));
  g_assert_null (tilde_window_get_file (TILDE_WINDOW (window)));
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

  g_test_add_func ("/window/open-example", test_open_example);
  g_test_add_func ("/window/highlighting-drawn", test_highlighting_drawn);
  g_test_add_func ("/window/unsaved-changes-protected", test_unsaved_changes_protected);
  g_test_add_func ("/window/save-as", test_save_as);
  g_test_add_func ("/window/open-missing-file", test_open_missing_file);
  status = g_test_run ();
  g_clear_object (&app);
  window_test_remove_home ();
  return status;
}
