/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The shared memory frames reach the X server through, kept while a window
 * is realized (GTK's cairo renderer on X11, as the window tests run): one
 * segment of cairo's pool lives as long as the windows, costs no memory
 * until frames use it, and full-window frames go through it instead of
 * making segments of their own. The segments are read from
 * /proc/sysvipc/shm, those this process made.
 */
#include <unistd.h>

#include <gtk/gtk.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

#include "tilde-application.h"
#include "tilde-frame-memory-private.h"
#include "window-test-util.h"

static TildeApplication *app;

typedef struct
{
  int shmid;
  guint64 size;
  guint64 resident;
} Segment;

/* The shared-memory segments this process made. */
static GArray *
our_segments (void)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  GArray *segments = g_array_new (FALSE, FALSE, sizeof (Segment));
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_get_contents ("/proc/sysvipc/shm", &text, NULL, &error));
  g_assert_no_error (error);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = g_strsplit_set (g_strstrip (lines[i]), " ", -1);
      char *column[16];
      guint n = 0;

      for (guint f = 0; fields[f] != NULL && n < G_N_ELEMENTS (column); f++)
        if (fields[f][0] != '\0')
          column[n++] = fields[f];
      /* key shmid perms size cpid lpid nattch uid gid cuid cgid atime dtime ctime rss */
      if (n < 15 || (pid_t) g_ascii_strtoll (column[4], NULL, 10) != getpid ())
        continue;
      g_array_append_val (segments, ((Segment) {
        .shmid = (int) g_ascii_strtoll (column[1], NULL, 10),
        .size = g_ascii_strtoull (column[3], NULL, 10),
        .resident = g_ascii_strtoull (column[14], NULL, 10),
      }));
    }
  return segments;
}

/* The one segment that can hold the first monitor's image: the pool. */
static Segment
the_pool (void)
{
  GListModel *monitors = gdk_display_get_monitors (gdk_display_get_default ());
  g_autoptr(GdkMonitor) monitor = g_list_model_get_item (monitors, 0);
  g_autoptr(GArray) segments = our_segments ();
  Segment pool = { -1, 0, 0 };
  GdkRectangle geometry;
  guint found = 0;

  gdk_monitor_get_geometry (monitor, &geometry);
  for (guint i = 0; i < segments->len; i++)
    if (g_array_index (segments, Segment, i).size >= (guint64) geometry.width * geometry.height * 4)
      {
        pool = g_array_index (segments, Segment, i);
        found++;
      }
  g_assert_cmpuint (found, ==, 1);
  return pool;
}

/* X11, with shared memory, and the segments to be read. */
static gboolean
can_keep (void)
{
#ifdef GDK_WINDOWING_X11
  GdkDisplay *display = gdk_display_get_default ();
  int opcode, event, error;

  if (!GDK_IS_X11_DISPLAY (display))
    g_test_skip ("the frame memory is kept on X11 only");
  else if (!XQueryExtension (gdk_x11_display_get_xdisplay (display), "MIT-SHM",
                             &opcode, &event, &error))
    g_test_skip ("the X server has no shared memory");
  else if (!g_file_test ("/proc/sysvipc/shm", G_FILE_TEST_EXISTS))
    g_test_skip ("no /proc/sysvipc/shm to read the segments from");
  else
    return TRUE;
#else
  g_test_skip ("the frame memory is kept on X11 only");
#endif
  return FALSE;
}

static GtkWindow *
kept_window (int width,
             int height)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());

  gtk_window_set_default_size (window, width, height);
  tilde_frame_memory_keep (window);
  gtk_window_present (window);
  return window;
}

static gboolean
mapped (gpointer widget)
{
  return gtk_widget_get_mapped (widget);
}

static void
test_kept_while_realized (void)
{
  GdkDisplay *display = gdk_display_get_default ();
  GtkWindow *first;
  GtkWindow *second;
  Segment pool;

  if (!can_keep ())
    return;

  g_assert_cmpuint (_tilde_frame_memory_get_holders (display), ==, 0);
  first = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (first, 400, 300);
  tilde_frame_memory_keep (first);
  g_assert_cmpuint (_tilde_frame_memory_get_holders (display), ==, 0);

  /* realized, not yet drawn: the pool is there and costs no memory (the
   * keeper's pages were handed back) */
  gtk_widget_realize (GTK_WIDGET (first));
  g_assert_cmpuint (_tilde_frame_memory_get_holders (display), ==, 1);
  g_assert_true (_tilde_frame_memory_is_kept (display));
  pool = the_pool ();
  g_assert_cmpuint (pool.resident, <=, 64 * 1024);

  gtk_window_present (first);
  g_assert_true (window_test_wait_for (mapped, first));
  g_assert_cmpuint (_tilde_frame_memory_get_holders (display), ==, 1);

  /* a second window holds the same pool, and makes none of its own */
  second = kept_window (400, 300);
  g_assert_true (window_test_wait_for (mapped, second));
  g_assert_cmpuint (_tilde_frame_memory_get_holders (display), ==, 2);
  g_assert_cmpint (the_pool ().shmid, ==, pool.shmid);

  gtk_window_destroy (first);
  g_assert_cmpuint (_tilde_frame_memory_get_holders (display), ==, 1);
  g_assert_true (_tilde_frame_memory_is_kept (display));
  gtk_window_destroy (second);
  g_assert_cmpuint (_tilde_frame_memory_get_holders (display), ==, 0);
  g_assert_false (_tilde_frame_memory_is_kept (display));
}

static void
draw_colour (GtkDrawingArea *area,
             cairo_t        *cr,
             int             width,
             int             height,
             gpointer        data)
{
  guint frame = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (area), "frame"));

  cairo_set_source_rgb (cr, (frame % 7) / 7.0, (frame % 3) / 3.0, 0.5);
  cairo_paint (cr);
}

static void
test_frames_go_through_it (void)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  GtkWindow *window;
  GtkWidget *area;
  GdkSurface *surface;
  guint64 frame_bytes;
  Segment pool;
  int scale;

  if (!can_keep ())
    return;
  window = GTK_WINDOW (gtk_window_new ());
  area = gtk_drawing_area_new ();

  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (area), draw_colour, NULL, NULL);
  gtk_window_set_child (window, area);
  gtk_window_set_default_size (window, 1000, 800);
  tilde_frame_memory_keep (window);
  gtk_window_present (window);
  window_test_let_it_draw (area);
  pool = the_pool ();

  /* Every frame repaints the whole window; without the kept pool cairo
   * made a segment for a frame and dropped it once the server had it, so
   * that none was left between frames. */
  for (guint frame = 1; frame <= 24; frame++)
    {
      g_autoptr(GArray) now = NULL;

      g_object_set_data (G_OBJECT (area), "frame", GUINT_TO_POINTER (frame));
      window_test_let_it_draw (area);
      now = our_segments ();
      for (guint i = 0; i < now->len; i++)
        g_hash_table_add (seen, GINT_TO_POINTER (g_array_index (now, Segment, i).shmid));
    }
  g_assert_cmpuint (g_hash_table_size (seen), ==, 1);
  g_assert_true (g_hash_table_contains (seen, GINT_TO_POINTER (pool.shmid)));

  /* and the frames' pixels went through it */
  surface = gtk_native_get_surface (GTK_NATIVE (window));
  scale = gdk_surface_get_scale_factor (surface);
  frame_bytes = (guint64) gdk_surface_get_width (surface) * scale
                * gdk_surface_get_height (surface) * scale * 4;
  g_assert_cmpuint (the_pool ().resident, >=, frame_bytes / 2);
  gtk_window_destroy (window);
}

static void
test_tilde_window_keeps_it (void)
{
  g_autofree char *path = window_test_example_path ("eight_schools.stan");
  GdkDisplay *display = gdk_display_get_default ();

  if (!can_keep ())
    return;
  window_test_open (GTK_APPLICATION (app), path);

  g_assert_cmpuint (_tilde_frame_memory_get_holders (display), ==, 1);
  g_assert_true (_tilde_frame_memory_is_kept (display));
  window_test_close_all (GTK_APPLICATION (app));
  g_assert_cmpuint (_tilde_frame_memory_get_holders (display), ==, 0);
  g_assert_false (_tilde_frame_memory_is_kept (display));
}

int
main (int argc, char *argv[])
{
  g_autoptr(GError) error = NULL;
  int status;

  window_test_isolate_home ();
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_setenv ("GSK_RENDERER", "cairo", TRUE);
  g_setenv ("GTK_A11Y", "none", TRUE);
  g_setenv ("ADW_DISABLE_PORTAL", "1", TRUE);
  gtk_test_init (&argc, &argv, NULL);

  app = tilde_application_new (G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);

  g_test_add_func ("/frame-memory/kept-while-realized", test_kept_while_realized);
  g_test_add_func ("/frame-memory/frames-go-through-it", test_frames_go_through_it);
  g_test_add_func ("/frame-memory/tilde-window-keeps-it", test_tilde_window_keeps_it);
  status = g_test_run ();
  g_clear_object (&app);
  window_test_remove_home ();
  return status;
}
