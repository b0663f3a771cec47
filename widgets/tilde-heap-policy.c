/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "tilde-heap-policy.h"

#include <stdlib.h>

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#include <malloc.h>
#endif
#ifdef __linux__
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#endif

/* glibc's largest mmap threshold (32 MiB on 64-bit systems): a larger
 * value is refused. */
#define HEAP_BLOCKS_UP_TO ((4u << 20) * sizeof (long))
/* The free top of the heap kept: a few runs' worth of draws and frames. */
#define HEAP_TOP_KEPT (64u << 20)
/* The most faulted in ahead: below the threshold, so that the block asked
 * for comes from the heap, and with the top already kept, below what
 * glibc would give back when it is freed. */
#define PREFAULT_AT_MOST (HEAP_BLOCKS_UP_TO / 4 * 3)

static gboolean applied;

gboolean
tilde_heap_policy_apply (void)
{
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && defined(M_MMAP_THRESHOLD) \
    && defined(M_TRIM_THRESHOLD)
  /* Setting either also stops glibc from moving them as blocks are freed. */
  gboolean blocks = mallopt (M_MMAP_THRESHOLD, (int) HEAP_BLOCKS_UP_TO) == 1;
  gboolean top = mallopt (M_TRIM_THRESHOLD, (int) HEAP_TOP_KEPT) == 1;

  applied = blocks && top;
  return applied;
#else
  return FALSE;
#endif
}

/* A few dozen microseconds of work each: the process's memory map stays
 * locked while a call populates, and a thread at nice 10 preempted in a
 * long one would keep the main thread's next mmap or heap growth waiting
 * on it. */
#define POPULATE_CHUNK (256u << 10)

gboolean
tilde_heap_policy_populate (void *start, gsize length)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  guint8 *at = start;
  gboolean populated = TRUE;

  for (gsize done = 0; done < length; done += POPULATE_CHUNK)
    populated = madvise (at + done, MIN (POPULATE_CHUNK, length - done), MADV_POPULATE_WRITE) == 0
                && populated;
  return populated;
#else
  return FALSE;
#endif
}

#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
typedef struct
{
  guintptr start;
  gsize    length;
} Pages;

/* Populates the pages not in memory yet, in runs of at most a slice. After
 * a first run the heap keeps its pages, freed but there, and populating
 * them again would take the memory map's lock some ninety times while the
 * main thread maps and unmaps images, each time waiting on a thread at
 * nice 10 that the chains may have preempted; one mincore() over the whole
 * range takes it about once per 4,096 pages. (A page only ever read maps
 * the shared zero page and counts as there: its first write still faults.) */
static void
populate_missing (guint8 *start, gsize length)
{
  gsize page = (gsize) sysconf (_SC_PAGESIZE);
  gsize n = length / page, slice = MAX (POPULATE_CHUNK / page, 1), i = 0;
  g_autofree guint8 *resident = g_try_malloc (MAX (n, 1));

  if (resident == NULL || mincore (start, n * page, resident) != 0)
    {
      tilde_heap_policy_populate (start, length);
      return;
    }
  while (i < n)
    {
      gsize first;

      while (i < n && (resident[i] & 1) != 0)
        i++;
      first = i;
      while (i < n && (resident[i] & 1) == 0 && i - first < slice)
        i++;
      if (i > first)
        madvise (start + first * page, (i - first) * page, MADV_POPULATE_WRITE);
    }
}

/* Background work, as the chains are. MADV_POPULATE_WRITE faults the
 * pages in without writing to them, so it does not matter whether the main
 * thread has taken them meanwhile; it fails harmlessly where the pages
 * were given back since, or on a kernel older than 5.14. */
static gpointer
prefault_pages (gpointer data)
{
  Pages *pages = data;

  setpriority (PRIO_PROCESS, 0, 10);
  populate_missing ((guint8 *) pages->start, pages->length);
  g_free (pages);
  return NULL;
}
#endif

GThread *
tilde_heap_policy_prefault (gsize bytes)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  guintptr page = (guintptr) sysconf (_SC_PAGESIZE);
  Pages *pages;
  GThread *thread;
  char *block;

  if (!applied || bytes == 0)
    return NULL;
  bytes = MIN (bytes, PREFAULT_AT_MOST);
  /* Asked for and freed at once, untouched: the heap grows by it where
   * it must, and its pages are where the next allocations go. */
  block = malloc (bytes);
  if (block == NULL)
    return NULL;
  pages = g_new (Pages, 1);
  pages->start = ((guintptr) block + page - 1) / page * page;
  pages->length = ((guintptr) block + bytes) / page * page - pages->start;
  free (block);
  thread = g_thread_try_new ("tilde-prefault", prefault_pages, pages, NULL);
  if (thread == NULL)
    g_free (pages);
  return thread;
#else
  return NULL;
#endif
}
