/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * How the window's process keeps the memory it frees, so that frames and
 * a run's draws write to pages it already has.
 *
 * Each frame GTK paints into an image the size of what changed, from
 * malloc, freed after the frame; a run's draws and the plots' series grow
 * between frames. glibc serves blocks of a few megabytes with mmap until
 * the first is freed, then from the heap, whose top it gives back to the
 * system once twice that size lies free there: frames and runs kept
 * writing to fresh pages, each 4 KiB a page fault (a run again of 44,000
 * draws behind 10 traces: 2,500 to 7,000 in the main thread, up to 1,700
 * in a frame, at 1 to 10 µs each on a virtual machine). Here blocks up to
 * glibc's largest threshold (32 MiB) come from the heap and up to 64 MiB
 * of its top stays the process's once freed; beyond that it goes back.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Applies the policy to the whole process, at its start; FALSE where the
 * allocator is not glibc's (or is a sanitizer's) and nothing changed. */
gboolean tilde_heap_policy_apply    (void);

/* Where the policy applies: faults in, on a thread of its own at nice 10,
 * the heap pages that the main thread's next `bytes` of allocations (at
 * most 24 MiB) will most likely take, so that a run about to stream that
 * much into the window's store and plots writes to pages the process has;
 * pages already there are left alone. Returns that thread, to join or
 * unref, or NULL when nothing started (no policy, Linux older than 5.14 at
 * build time, or not Linux). */
GThread *tilde_heap_policy_prefault (gsize bytes);

/* Faults in the pages of [start, start + length), which must be mapped
 * and page-aligned, a slice at a time so that the process's memory map is
 * never locked for long; FALSE where some slice failed or the system
 * cannot (not Linux, or older than 5.14 at build time). */
gboolean tilde_heap_policy_populate (void *start, gsize length);

G_END_DECLS
