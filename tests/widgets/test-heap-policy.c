/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The window's heap policy: a block freed and asked for again is written
 * to pages the process already has, as a frame's image is every frame. */
#define G_LOG_DOMAIN "tilde"
#define _GNU_SOURCE /* RUSAGE_THREAD */

#include <string.h>
#include <sys/resource.h>

#include "tilde-heap-policy.h"

/* A whole-window frame of 1200 x 900 pixels and then some. */
#define FRAME_BYTES (8u << 20)

static volatile char sink;

static long
thread_faults (void)
{
  struct rusage usage;

  g_assert_cmpint (getrusage (RUSAGE_THREAD, &usage), ==, 0);
  return usage.ru_minflt + usage.ru_majflt;
}

/* The page faults of asking for a block, writing all of it and freeing it. */
static long
faults_of_a_frame (void)
{
  long before = thread_faults ();
  char *image = g_malloc (FRAME_BYTES);
  long faults;

  memset (image, 1, FRAME_BYTES);
  sink = image[FRAME_BYTES - 1];
  faults = thread_faults () - before;
  g_free (image);
  return faults;
}

static void
test_freed_memory_is_written_again (void)
{
  long first, second, third;

  if (!tilde_heap_policy_apply ())
    {
      g_test_skip ("the allocator is not glibc's, or is a sanitizer's");
      return;
    }
  first = faults_of_a_frame ();
  second = faults_of_a_frame ();
  third = faults_of_a_frame ();
  g_test_message ("page faults of three frames: %ld, %ld, %ld", first, second, third);
  /* The first frame's pages are new; the next frames have them already
   * (glibc's own policy unmapped the first block and faulted the second
   * in afresh: 2,048 faults). */
  g_assert_cmpint (first, >=, FRAME_BYTES / 4096 / 2);
  g_assert_cmpint (second, <, 64);
  g_assert_cmpint (third, <, 64);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/widgets/heap-policy/freed-memory-is-written-again",
                   test_freed_memory_is_written_again);
  return g_test_run ();
}
