/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Pages for the plots' images, mapped and faulted in ahead, off the main
 * thread.
 *
 * The frame that lays out a run's rows makes an image for every band of
 * rows in view: megabytes (1200 x 900 pixels are 4.3 MB), mapped with
 * their pages populated in that frame, some 900 page faults on the main
 * thread at 1 to 10 µs each on a virtual machine. When a run starts, the
 * plot asks for that much here; a thread at nice 10 maps it, populated,
 * while the model compiles, and the images made next are cut from its
 * front. A freed image's pages come back here, kept (up to 16 MiB) for
 * the next image of their size.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Maps `bytes` (rounded up to pages, at most 16 MiB) on a thread of its own
 * unless the reserve holds that much already or a thread is mapping; the
 * pages left from before are unmapped once the new ones are there. FALSE
 * when nothing started (not Linux, or no thread). */
gboolean _tilde_image_reserve_fill     (gsize bytes);

/* `bytes` of zeroed, faulted-in memory, page-aligned, to give back with
 * _tilde_image_reserve_give_back(): pages kept from a freed image of that
 * size (zeroed here), else from the reserve's front; NULL when neither
 * has them. Any thread. */
gpointer _tilde_image_reserve_take     (gsize bytes);

/* Takes back an image's pages (`bytes` long, mapped with mmap() or taken
 * above), kept for the next image of that size; the pages kept longest
 * are unmapped to keep 16 MiB at most, and pages of more than that are
 * unmapped at once. Any thread. */
void     _tilde_image_reserve_give_back (gpointer pages, gsize bytes);

/* The bytes of freed images' pages kept now (tests). */
gsize    _tilde_image_reserve_get_kept (void);

/* The bytes the reserve holds now, after waiting for a thread mapping
 * more when `wait` is TRUE (tests and benchmarks). */
gsize    _tilde_image_reserve_get_size (gboolean wait);

/* Unmaps what the reserve holds and the pages kept, after the thread
 * mapping more if any. */
void     _tilde_image_reserve_release  (void);

G_END_DECLS
