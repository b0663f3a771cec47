/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "tilde-image-reserve.h"

#include "tilde-heap-policy.h"

#include <string.h>

#include <sys/mman.h>
#ifdef __linux__
#include <sys/resource.h>
#include <unistd.h>
#endif

/* A window's worth of bands several times over, at twice the scale. */
#define RESERVE_AT_MOST (16u << 20)

static GMutex lock;
static GCond  mapped;
static guint8 *reserve_start;   /* mapped, populated, not handed out */
static gsize   reserve_length;
static gboolean mapping;        /* a thread is mapping more */

/* Freed images' pages, kept for the next images of their size (the
 * oldest unmapped beyond the bound): a run's rows laid out again free as
 * many images as they make, of the same sizes. Each munmap or mmap on the main thread takes the memory map's
 * lock, and waits while the thread faulting the draws' pages in holds it
 * for a slice (longer when the chains preempt that thread); kept, the
 * pages pass from the old images to the new ones with neither. */
#define KEPT_AT_MOST (16u << 20)

typedef struct
{
  guint8 *pages;
  gsize   bytes;
} Kept;

static GArray *kept;            /* of Kept, the last freed at the end */
static gsize   kept_bytes;

#if defined(__linux__) && defined(MAP_POPULATE)
static gsize
page_size (void)
{
  return (gsize) sysconf (_SC_PAGESIZE);
}

static gsize
whole_pages (gsize bytes)
{
  gsize page = page_size ();

  return (bytes + page - 1) / page * page;
}

/* Background work, as the chains are: they are not sampling yet while
 * the model compiles, and the pages are zeroed here, not in a frame. */
static gpointer
map_pages (gpointer data)
{
  gsize bytes = GPOINTER_TO_SIZE (data);
  void *pages;
  guint8 *old = NULL;
  gsize old_length = 0;

  setpriority (PRIO_PROCESS, 0, 10);
  /* populated a slice at a time, where the system can, rather than all
   * at once under the memory map's lock */
  pages = mmap (NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (pages != MAP_FAILED && !tilde_heap_policy_populate (pages, bytes))
    {
      munmap (pages, bytes);
      pages = mmap (NULL, bytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    }
  g_mutex_lock (&lock);
  if (pages != MAP_FAILED)
    {
      old = reserve_start;
      old_length = reserve_length;
      reserve_start = pages;
      reserve_length = bytes;
    }
  g_mutex_unlock (&lock);
  /* out of the lock: the main thread may be taking an image meanwhile */
  if (old != NULL)
    munmap (old, old_length);
  g_mutex_lock (&lock);
  mapping = FALSE;
  g_cond_broadcast (&mapped);
  g_mutex_unlock (&lock);
  return NULL;
}
#endif

gboolean
_tilde_image_reserve_fill (gsize bytes)
{
#if defined(__linux__) && defined(MAP_POPULATE)
  GThread *thread;

  bytes = whole_pages (MIN (bytes, RESERVE_AT_MOST));
  if (bytes == 0)
    return FALSE;
  g_mutex_lock (&lock);
  if (mapping || reserve_length >= bytes)
    {
      g_mutex_unlock (&lock);
      return FALSE;
    }
  mapping = TRUE;
  g_mutex_unlock (&lock);

  thread = g_thread_try_new ("tilde-image-pages", map_pages, GSIZE_TO_POINTER (bytes), NULL);
  if (thread == NULL)
    {
      g_mutex_lock (&lock);
      mapping = FALSE;
      g_cond_broadcast (&mapped);
      g_mutex_unlock (&lock);
      return FALSE;
    }
  g_thread_unref (thread);
  return TRUE;
#else
  return FALSE;
#endif
}

#if defined(__linux__) && defined(MAP_POPULATE)
/* Kept pages of exactly `bytes`, the last freed first (the likeliest to
 * be in the cache); NULL if none. Called with the lock held. */
static guint8 *
take_kept (gsize bytes)
{
  for (guint i = kept != NULL ? kept->len : 0; i-- > 0;)
    {
      Kept *k = &g_array_index (kept, Kept, i);
      guint8 *pages = k->pages;

      if (k->bytes != bytes)
        continue;
      kept_bytes -= bytes;
      g_array_remove_index (kept, i);
      return pages;
    }
  return NULL;
}
#endif

gpointer
_tilde_image_reserve_take (gsize bytes)
{
#if defined(__linux__) && defined(MAP_POPULATE)
  guint8 *pages = NULL;

  bytes = whole_pages (bytes);
  if (bytes == 0)
    return NULL;
  g_mutex_lock (&lock);
  pages = take_kept (bytes);
  if (pages != NULL)
    {
      g_mutex_unlock (&lock);
      /* an image starts transparent, as new pages are */
      memset (pages, 0, bytes);
      return pages;
    }
  if (reserve_length >= bytes)
    {
      pages = reserve_start;
      reserve_start += bytes;
      reserve_length -= bytes;
      if (reserve_length == 0)
        reserve_start = NULL;
    }
  g_mutex_unlock (&lock);
  return pages;
#else
  return NULL;
#endif
}

void
_tilde_image_reserve_give_back (gpointer pages, gsize bytes)
{
  if (pages == NULL)
    return;
#if defined(__linux__) && defined(MAP_POPULATE)
  {
    gsize whole = whole_pages (bytes);
    g_autoptr(GArray) evicted = NULL;

    g_mutex_lock (&lock);
    if (whole <= KEPT_AT_MOST)
      {
        if (kept == NULL)
          kept = g_array_new (FALSE, FALSE, sizeof (Kept));
        /* The oldest make room: after the window was resized, they are of
         * sizes no image has any more. */
        while (kept_bytes + whole > KEPT_AT_MOST)
          {
            Kept oldest = g_array_index (kept, Kept, 0);

            if (evicted == NULL)
              evicted = g_array_new (FALSE, FALSE, sizeof (Kept));
            g_array_append_val (evicted, oldest);
            g_array_remove_index (kept, 0);
            kept_bytes -= oldest.bytes;
          }
        g_array_append_val (kept, ((Kept) { pages, whole }));
        kept_bytes += whole;
        pages = NULL;
      }
    g_mutex_unlock (&lock);
    for (guint i = 0; evicted != NULL && i < evicted->len; i++)
      munmap (g_array_index (evicted, Kept, i).pages, g_array_index (evicted, Kept, i).bytes);
    if (pages == NULL)
      return;
  }
#endif
  munmap (pages, bytes);
}

gsize
_tilde_image_reserve_get_kept (void)
{
  gsize bytes;

  g_mutex_lock (&lock);
  bytes = kept_bytes;
  g_mutex_unlock (&lock);
  return bytes;
}

gsize
_tilde_image_reserve_get_size (gboolean wait)
{
  gsize length;

  g_mutex_lock (&lock);
  while (wait && mapping)
    g_cond_wait (&mapped, &lock);
  length = reserve_length;
  g_mutex_unlock (&lock);
  return length;
}

void
_tilde_image_reserve_release (void)
{
  guint8 *start;
  gsize length;
  GArray *old_kept;

  g_mutex_lock (&lock);
  while (mapping)
    g_cond_wait (&mapped, &lock);
  start = reserve_start;
  length = reserve_length;
  reserve_start = NULL;
  reserve_length = 0;
  old_kept = g_steal_pointer (&kept);
  kept_bytes = 0;
  g_mutex_unlock (&lock);
#ifdef __linux__
  if (start != NULL)
    munmap (start, length);
  for (guint i = 0; old_kept != NULL && i < old_kept->len; i++)
    munmap (g_array_index (old_kept, Kept, i).pages, g_array_index (old_kept, Kept, i).bytes);
#endif
  if (old_kept != NULL)
    g_array_unref (old_kept);
}
