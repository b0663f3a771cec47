/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-test"

#include "window-test-util.h"

#include <glib/gstdio.h>

#include "scratch.h"

#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

static char *home;

/* GTK 4.8 can find, while it draws a frame, a widget whose size was asked
 * again in that frame: a text view that lays out lines as it draws them,
 * after new text or tags came in between frames (the IR viewer's, an
 * editor's completion popup). It warns, leaves that widget out of this
 * frame and draws it in the next. Under load the tests see it now and
 * then; it says nothing about the program, so it is logged, not fatal.
 * Everything else goes to GLib's writer, which makes warnings fatal in
 * tests. */
static GLogWriterOutput
tolerant_writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer user_data)
{
  const char *domain = NULL, *message = NULL;

  for (gsize i = 0; i < n_fields; i++)
    {
      if (g_str_equal (fields[i].key, "GLIB_DOMAIN"))
        domain = fields[i].value;
      else if (g_str_equal (fields[i].key, "MESSAGE"))
        message = fields[i].value;
    }
  if ((level & G_LOG_LEVEL_WARNING) && g_strcmp0 (domain, "Gtk") == 0 && message != NULL
      && g_str_has_prefix (message, "Trying to snapshot ")
      && g_str_has_suffix (message, " without a current allocation"))
    {
      g_test_message ("GTK drew a widget a frame late: %s", message);
      return G_LOG_WRITER_HANDLED;
    }
  return g_log_writer_default (level, fields, n_fields, user_data);
}

/* The examples, copied to ~/Models of the test's home: tests never write
 * into the source tree, and the window's subtitle (and so the README's
 * screenshots) reads "~/Models" wherever the tree was checked out. */
static void
copy_examples (void)
{
  const char *source = g_getenv ("TILDE_EXAMPLES_DIR");
  g_autofree char *models = g_build_filename (home, "Models", NULL);
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (source == NULL || (dir = g_dir_open (source, 0, NULL)) == NULL)
    return;
  g_assert_cmpint (g_mkdir_with_parents (models, 0700), ==, 0);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *from = g_build_filename (source, name, NULL);
      g_autofree char *to = g_build_filename (models, name, NULL);
      g_autofree char *contents = NULL;
      gsize length;

      if (g_file_test (from, G_FILE_TEST_IS_REGULAR)
          && g_file_get_contents (from, &contents, &length, NULL))
        g_assert_true (g_file_set_contents (to, contents, length, NULL));
    }
  g_setenv ("TILDE_EXAMPLES_DIR", models, TRUE);
}

void
window_test_isolate_home (void)
{
  g_autofree char *cache = NULL;
  g_autofree char *data = NULL;
  g_autofree char *config = NULL;

  home = g_dir_make_tmp ("tilde-window-test-XXXXXX", NULL);
  g_assert_nonnull (home);
  cache = g_build_filename (home, "cache", NULL);
  data = g_build_filename (home, "data", NULL);
  config = g_build_filename (home, "config", NULL);
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  g_setenv ("XDG_CONFIG_HOME", config, TRUE);
  g_setenv ("HOME", home, TRUE);
  copy_examples ();
  g_log_set_writer_func (tolerant_writer, NULL, NULL);
}

void
window_test_remove_home (void)
{
  if (home == NULL)
    return;
  tilde_scratch_folder_remove (home);
  g_clear_pointer (&home, g_free);
}

const char *
window_test_home (void)
{
  return home;
}

static gboolean
timeout_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

gboolean
window_test_wait_for_ms (gboolean (*condition) (gpointer), gpointer data, guint ms)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add (ms, timeout_cb, &timed_out);

  while (!condition (data) && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (id);
  return !timed_out;
}

gboolean
window_test_wait_for (gboolean (*condition) (gpointer), gpointer data)
{
  return window_test_wait_for_ms (condition, data, 10000);
}

void
window_test_run_for_ms (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, timeout_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

static gboolean
idle_reached (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Runs the main loop until it has nothing more urgent to do than a
 * low-priority idle: text views have measured all their lines (they do it
 * in idle time, and a view still measuring may change its size while it
 * is drawn). */
static void
settle (void)
{
  gboolean reached = FALSE;

  g_idle_add_full (G_PRIORITY_LOW, idle_reached, &reached, NULL);
  while (!reached)
    g_main_context_iteration (NULL, TRUE);
}

typedef struct {
  GtkWidget *widget;
  int        paints;
} Paints;

static void
painted (GdkFrameClock *clock, gpointer data)
{
  Paints *p = data;

  /* Another frame after this one, or none would come. */
  if (++p->paints < 2)
    gtk_widget_queue_draw (p->widget);
}

static gboolean
painted_twice (gpointer data)
{
  return ((Paints *) data)->paints >= 2;
}

void
window_test_let_it_draw (GtkWidget *widget)
{
  Paints paints = { widget, 0 };
  GdkFrameClock *clock;
  gulong id;

  /* Two whole frames, laid out and painted, after whatever changed. */
  settle ();
  g_assert_true (gtk_widget_get_realized (widget));
  clock = gtk_widget_get_frame_clock (widget);
  id = g_signal_connect (clock, "after-paint", G_CALLBACK (painted), &paints);
  gtk_widget_queue_draw (widget);
  g_assert_true (window_test_wait_for (painted_twice, &paints));
  g_signal_handler_disconnect (clock, id);
}

static GdkTexture *
render_now (GtkWidget *widget)
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

typedef struct {
  GtkWidget  *widget;
  GdkTexture *texture;
} Render;

static void
render_after_paint (GdkFrameClock *clock, gpointer data)
{
  Render *r = data;

  if (r->texture == NULL)
    r->texture = render_now (r->widget);
}

static gboolean
rendered (gpointer data)
{
  return ((Render *) data)->texture != NULL;
}

GdkTexture *
window_test_render (GtkWidget *widget)
{
  Render r = { widget, NULL };
  GdkFrameClock *clock = gtk_widget_get_frame_clock (widget);
  gulong id;

  /* Right after a frame is painted, when everything is laid out: idle
   * work between frames (a text view measuring its lines) may ask for
   * another layout at any time. */
  g_assert_nonnull (clock);
  settle ();
  id = g_signal_connect (clock, "after-paint", G_CALLBACK (render_after_paint), &r);
  gtk_widget_queue_draw (widget);
  g_assert_true (window_test_wait_for (rendered, &r));
  g_signal_handler_disconnect (clock, id);
  return r.texture;
}

void
window_test_screenshot (GtkWidget *widget, const char *name)
{
  const char *dir = g_getenv ("TILDE_SCREENSHOT_DIR");
  g_autoptr(GdkTexture) shot = NULL;
  g_autofree char *path = NULL;

  if (dir == NULL)
    return;
  shot = window_test_render (widget);
  path = g_build_filename (dir, name, NULL);
  g_assert_true (gdk_texture_save_to_png (shot, path));
}

void
window_test_pointer_away (GtkWidget *widget)
{
#ifdef GDK_WINDOWING_X11
  GdkDisplay *display = gtk_widget_get_display (widget);

  if (GDK_IS_X11_DISPLAY (display))
    {
      Display *x = gdk_x11_display_get_xdisplay (display);
      Screen *screen = DefaultScreenOfDisplay (x);

      XWarpPointer (x, None, RootWindowOfScreen (screen), 0, 0, 0, 0,
                    WidthOfScreen (screen) - 1, HeightOfScreen (screen) - 1);
      XFlush (x);
    }
#endif
}

void
window_test_close_all (GtkApplication *app)
{
  GList *windows = g_list_copy (gtk_application_get_windows (app));

  for (GList *l = windows; l; l = l->next)
    gtk_window_destroy (GTK_WINDOW (l->data));
  g_list_free (windows);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

char *
window_test_example_path (const char *name)
{
  const char *dir = g_getenv ("TILDE_EXAMPLES_DIR");

  g_assert_nonnull (dir);
  return g_build_filename (dir, name, NULL);
}

typedef struct
{
  GtkApplication *app;
  TildeWindow    *window;
} WindowWait;

static gboolean
window_ready (gpointer data)
{
  WindowWait *wait = data;
  GtkWindow *active = gtk_application_get_active_window (wait->app);

  if (!TILDE_IS_WINDOW (active))
    return FALSE;
  wait->window = TILDE_WINDOW (active);
  return !tilde_window_is_loading (wait->window)
         && gtk_widget_get_mapped (GTK_WIDGET (wait->window))
         && tilde_window_get_file (wait->window) != NULL;
}

TildeWindow *
window_test_wait_for_window (GtkApplication *app)
{
  WindowWait wait = { app, NULL };

  g_assert_true (window_test_wait_for (window_ready, &wait));
  return wait.window;
}

TildeWindow *
window_test_open (GtkApplication *app, const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  g_application_open (G_APPLICATION (app), &file, 1, "");
  return window_test_wait_for_window (app);
}
