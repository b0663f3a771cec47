/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The shared memory a window's frames reach the X server through, kept for
 * as long as the window is realized.
 *
 * With GTK's cairo renderer on X11 each frame is painted into an image and
 * copied to the X server through a segment of cairo's shared-memory pool.
 * Cairo drops a pool once nothing in it is in use, so a whole-window frame
 * after a quiet spell (a page brought up) made a fresh segment, 64 MB for
 * a 1200 x 900 window: both processes attached it and faulted its pages
 * in, a few milliseconds of the frame. An image of the largest frame,
 * never drawn into, its pages handed back, keeps one pool alive that every
 * frame fits in: it costs address space, and the frames' own pages stay
 * resident between frames. Other renderers and backends are left alone.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Keeps the memory while @window is realized; one pool per display,
 * however many windows keep it. */
void tilde_frame_memory_keep (GtkWindow *window);

G_END_DECLS
