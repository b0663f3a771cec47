/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "tilde-frame-memory-private.h"

#if defined(GDK_WINDOWING_X11) && CAIRO_HAS_XLIB_SURFACE
#include <cairo-xlib.h>
#include <gdk/x11/gdkx.h>
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>
#define CAN_KEEP_FRAME_MEMORY 1
#endif

/* On the display: its FrameMemory. On a window: that it holds it. */
#define FRAME_MEMORY_KEY "tilde-frame-memory"
#define HOLDS_KEY "tilde-frame-memory-holds"

/* A window nearly as large as its monitor, not maximized, paints a
 * surface larger by its client-side shadow: room for that, in the
 * monitor's logical pixels. */
#define SHADOW_MARGIN 64

typedef struct
{
  cairo_surface_t *keeper; /* the image that keeps the pool */
  guint holders;           /* windows realized that keep it */
} FrameMemory;

static void
frame_memory_free (gpointer data)
{
  FrameMemory *memory = data;

  g_clear_pointer (&memory->keeper, cairo_surface_destroy);
  g_free (memory);
}

#ifdef CAN_KEEP_FRAME_MEMORY
/* The largest monitor in device pixels, with room for a shadow: no
 * window's frame is larger. */
static void
largest_frame (GdkDisplay *display,
               int        *width,
               int        *height)
{
  GListModel *monitors = gdk_display_get_monitors (display);

  *width = *height = 0;
  for (guint i = 0; i < g_list_model_get_n_items (monitors); i++)
    {
      g_autoptr (GdkMonitor) monitor = g_list_model_get_item (monitors, i);
      int scale = gdk_monitor_get_scale_factor (monitor);
      GdkRectangle geometry;
      int frame_width, frame_height;

      gdk_monitor_get_geometry (monitor, &geometry);
      frame_width = (geometry.width + 2 * SHADOW_MARGIN) * scale;
      frame_height = (geometry.height + 2 * SHADOW_MARGIN) * scale;
      if ((gint64) frame_width * frame_height > (gint64) *width * *height)
        {
          *width = frame_width;
          *height = frame_height;
        }
    }
}

/* Cairo clears the images it gives out: the keeper's pages are handed
 * back, and never touched again, since nothing draws into it. */
static void
hand_back_pages (cairo_surface_t *image)
{
#ifdef MADV_REMOVE
  guintptr page = (guintptr) sysconf (_SC_PAGESIZE);
  guintptr start = (guintptr) cairo_image_surface_get_data (image);
  guintptr end = start + (guintptr) cairo_image_surface_get_stride (image)
                         * (guintptr) cairo_image_surface_get_height (image);

  start = (start + page - 1) / page * page;
  end = end / page * page;
  if (end > start && madvise ((void *) start, end - start, MADV_REMOVE) != 0)
    g_debug ("The frame memory's keeper keeps its pages: %s", g_strerror (errno));
#else
  (void) image;
#endif
}

/* Cairo puts a request in the first pool with room for it, or in a new
 * one 8 times the power of two above it, which serves requests up to that
 * power of two; it drops a pool once nothing in it is in use. An image of
 * the largest frame, kept, so keeps a pool every frame fits in, whichever
 * pool it went to. The request goes through a surface of the display's
 * connection: cairo keeps one list of pools per connection, the one GTK
 * paints through. An image without a device is a plain one (the server has
 * no shared memory), and nothing is kept. */
static cairo_surface_t *
keeper_new (GdkDisplay *display)
{
  Display *xdisplay = gdk_x11_display_get_xdisplay (display);
  int screen = DefaultScreen (xdisplay);
  cairo_surface_t *root;
  cairo_surface_t *keeper;
  int width, height;

  largest_frame (display, &width, &height);
  if (width <= 0 || height <= 0)
    return NULL;

  root = cairo_xlib_surface_create (xdisplay, RootWindow (xdisplay, screen),
                                    DefaultVisual (xdisplay, screen), 1, 1);
  keeper = cairo_surface_create_similar_image (root, CAIRO_FORMAT_ARGB32, width, height);
  cairo_surface_destroy (root);
  if (cairo_surface_status (keeper) != CAIRO_STATUS_SUCCESS
      || cairo_surface_get_device (keeper) == NULL)
    {
      cairo_surface_destroy (keeper);
      return NULL;
    }
  hand_back_pages (keeper);
  return keeper;
}
#endif

static FrameMemory *
frame_memory_of (GdkDisplay *display)
{
  return g_object_get_data (G_OBJECT (display), FRAME_MEMORY_KEY);
}

/* GDK closes the connection after ::closed: the image goes first. */
static void
display_closed (GdkDisplay *display)
{
  FrameMemory *memory = frame_memory_of (display);

  memory->holders = 0;
  g_clear_pointer (&memory->keeper, cairo_surface_destroy);
}

static void
hold (GdkDisplay *display)
{
  FrameMemory *memory = frame_memory_of (display);

  if (memory == NULL)
    {
      memory = g_new0 (FrameMemory, 1);
      g_object_set_data_full (G_OBJECT (display), FRAME_MEMORY_KEY, memory, frame_memory_free);
      g_signal_connect (display, "closed", G_CALLBACK (display_closed), NULL);
    }
#ifdef CAN_KEEP_FRAME_MEMORY
  if (memory->holders == 0)
    memory->keeper = keeper_new (display);
#endif
  memory->holders++;
}

static void
release (GdkDisplay *display)
{
  FrameMemory *memory = frame_memory_of (display);

  if (memory == NULL || memory->holders == 0)
    return;
  if (--memory->holders == 0)
    g_clear_pointer (&memory->keeper, cairo_surface_destroy);
}

/* GTK 4.8's other renderers send frames through GL, and other backends
 * through their own buffers. */
static gboolean
frames_through_cairo_xlib (GtkWidget *window)
{
#ifdef CAN_KEEP_FRAME_MEMORY
  return GDK_IS_X11_DISPLAY (gtk_widget_get_display (window))
         && GSK_IS_CAIRO_RENDERER (gtk_native_get_renderer (GTK_NATIVE (window)));
#else
  (void) window;
  return FALSE;
#endif
}

/* After GtkWindow's own handler, which made the renderer. */
static void
window_realized (GtkWidget *window)
{
  if (g_object_get_data (G_OBJECT (window), HOLDS_KEY) || !frames_through_cairo_xlib (window))
    return;
  hold (gtk_widget_get_display (window));
  g_object_set_data (G_OBJECT (window), HOLDS_KEY, GINT_TO_POINTER (TRUE));
}

/* Before GtkWindow's own handler, while the display is the window's. */
static void
window_unrealized (GtkWidget *window)
{
  if (!g_object_get_data (G_OBJECT (window), HOLDS_KEY))
    return;
  g_object_set_data (G_OBJECT (window), HOLDS_KEY, NULL);
  release (gtk_widget_get_display (window));
}

void
tilde_frame_memory_keep (GtkWindow *window)
{
  g_return_if_fail (GTK_IS_WINDOW (window));

  g_signal_connect (window, "realize", G_CALLBACK (window_realized), NULL);
  g_signal_connect (window, "unrealize", G_CALLBACK (window_unrealized), NULL);
  if (gtk_widget_get_realized (GTK_WIDGET (window)))
    window_realized (GTK_WIDGET (window));
}

guint
_tilde_frame_memory_get_holders (GdkDisplay *display)
{
  FrameMemory *memory = frame_memory_of (display);

  return memory != NULL ? memory->holders : 0;
}

gboolean
_tilde_frame_memory_is_kept (GdkDisplay *display)
{
  FrameMemory *memory = frame_memory_of (display);

  return memory != NULL && memory->keeper != NULL;
}
