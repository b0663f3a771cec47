/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "tilde-frame-memory-private.h"

#if defined(GDK_WINDOWING_X11) && CAIRO_HAS_XLIB_SURFACE
#include <cairo-xlib.h>
#include <gdk/x11/gdkx.h>
#include <sys/mman.h>
#include <unistd.h>
#define CAN_KEEP_FRAME_MEMORY 1
#endif

/* On the display: its FrameMemory. On a window: that it holds it. */
#define FRAME_MEMORY_KEY "tilde-frame-memory"
#define HOLDS_KEY "tilde-frame-memory-holds"

/* A window as large as its monitor paints a surface larger by its
 * client-side shadow; room for that. */
#define SHADOW_MARGIN 64
/* The side of the image that keeps the pool: 16 KiB, above cairo's
 * smallest request from a pool. */
#define KEEPER_SIZE 64

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
/* The largest monitor in device pixels: no window's frame is larger, but
 * for its shadow. */
static void
largest_monitor (GdkDisplay *display,
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

      gdk_monitor_get_geometry (monitor, &geometry);
      if ((gint64) geometry.width * geometry.height * scale * scale > (gint64) *width * *height)
        {
          *width = geometry.width * scale;
          *height = geometry.height * scale;
        }
    }
}

/* Cairo clears the images it gives; a large one's pages are handed back
 * before it goes, and read as zeros if ever touched again. A plain image
 * (no shared memory) is private memory, which refuses, and is freed. */
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
  if (end > start)
    madvise ((void *) start, end - start, MADV_REMOVE);
#else
  (void) image;
#endif
}

/* Cairo makes a pool for a request that finds no room, 8 times the power
 * of two above it, serves from it requests up to that power of two, and
 * drops it once nothing in it is in use. A request of the whole monitor
 * opens a pool every frame fits in; a small image taken from it then keeps
 * it, and the large one goes. The requests go through a surface of the
 * display's connection: cairo keeps one list of pools per connection, the
 * one GTK paints through. */
static cairo_surface_t *
keeper_new (GdkDisplay *display)
{
  Display *xdisplay = gdk_x11_display_get_xdisplay (display);
  int screen = DefaultScreen (xdisplay);
  cairo_surface_t *root;
  cairo_surface_t *opener;
  cairo_surface_t *keeper;
  int width, height;

  largest_monitor (display, &width, &height);
  if (width <= 0 || height <= 0)
    return NULL;

  root = cairo_xlib_surface_create (xdisplay, RootWindow (xdisplay, screen),
                                    DefaultVisual (xdisplay, screen), 1, 1);
  opener = cairo_surface_create_similar_image (root, CAIRO_FORMAT_ARGB32,
                                               width + 2 * SHADOW_MARGIN,
                                               height + 2 * SHADOW_MARGIN);
  keeper = cairo_surface_create_similar_image (root, CAIRO_FORMAT_ARGB32, KEEPER_SIZE, KEEPER_SIZE);
  if (cairo_surface_status (opener) == CAIRO_STATUS_SUCCESS)
    hand_back_pages (opener);
  cairo_surface_destroy (opener);
  cairo_surface_destroy (root);
  if (cairo_surface_status (keeper) != CAIRO_STATUS_SUCCESS)
    g_clear_pointer (&keeper, cairo_surface_destroy);
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
