/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "tilde-heap-policy.h"

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#include <malloc.h>
#endif

/* glibc's largest mmap threshold (32 MiB on 64-bit systems): a larger
 * value is refused. */
#define HEAP_BLOCKS_UP_TO ((4u << 20) * sizeof (long))
/* The free top of the heap kept: a few runs' worth of draws and frames. */
#define HEAP_TOP_KEPT (64u << 20)

gboolean
tilde_heap_policy_apply (void)
{
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && defined(M_MMAP_THRESHOLD) \
    && defined(M_TRIM_THRESHOLD)
  /* Setting either also stops glibc from moving them as blocks are freed. */
  gboolean blocks = mallopt (M_MMAP_THRESHOLD, (int) HEAP_BLOCKS_UP_TO) == 1;
  gboolean top = mallopt (M_TRIM_THRESHOLD, (int) HEAP_TOP_KEPT) == 1;

  return blocks && top;
#else
  return FALSE;
#endif
}
