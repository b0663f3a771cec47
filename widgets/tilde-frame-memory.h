/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The shared memory a window's frames reach the X server through, kept for
 * as long as the window is realized.
 *
 * With GTK's cairo renderer on X11 each frame is painted into an image and
 * copied to the X server through a segment of cairo's shared-memory pool.
 * Cairo drops the pool whenever nothing in it is in use, so a large frame
 * (a page brought up, the window resized) often starts a fresh 64 MB
 * segment: both processes attach it and fault its pages in again, a few
 * milliseconds of the frame. An image of the monitor's size, never drawn
 * into, keeps one pool alive that every frame fits in; it costs address
 * space, not memory. Other renderers and backends are left alone.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Keeps the memory while @window is realized; one pool per display,
 * however many windows keep it. */
void tilde_frame_memory_keep (GtkWindow *window);

G_END_DECLS
