/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The window's heap policy: a block freed and asked for again is written
 * to pages the process already has, as a frame's image is every frame; and
 * pages faulted in ahead on another thread cost the main thread nothing.
 * Each test runs in a process of its own, whose heap has not grown yet. */
#define G_LOG_DOMAIN "tilde"
#define _GNU_SOURCE /* RUSAGE_THREAD */

#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "tilde-heap-policy.h"

/* A whole-window frame of 1200 x 900 pixels and then some. */
#define FRAME_BYTES (8u << 20)
#define FRAME_PAGES (FRAME_BYTES / 4096)

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

/* Runs the test in a fresh process where the policy applies. */
static gboolean
in_a_process_of_its_own (void)
{
  if (g_test_subprocess ())
    {
      g_assert_true (tilde_heap_policy_apply ());
      return TRUE;
    }
  if (!tilde_heap_policy_apply ())
    g_test_skip ("the allocator is not glibc's, or is a sanitizer's");
  else
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_test_trap_assert_passed ();
    }
  return FALSE;
}

static void
test_freed_memory_is_written_again (void)
{
  long first, second, third;

  if (!in_a_process_of_its_own ())
    return;
  first = faults_of_a_frame ();
  second = faults_of_a_frame ();
  third = faults_of_a_frame ();
  g_printerr ("page faults of three frames: %ld, %ld, %ld\n", first, second, third);
  /* The first frame's pages are new; the next frames have them already
   * (glibc's own policy unmapped the first block and faulted the second
   * in afresh: 2,048 faults). */
  g_assert_cmpint (first, >=, FRAME_PAGES / 2);
  g_assert_cmpint (second, <, 64);
  g_assert_cmpint (third, <, 64);
}

static void
test_prefaulted_pages_cost_no_faults (void)
{
  GThread *thread;
  long faults;

  if (!in_a_process_of_its_own ())
    return;
  thread = tilde_heap_policy_prefault (FRAME_BYTES + (1u << 20));
#ifdef MADV_POPULATE_WRITE
  g_assert_nonnull (thread);
#endif
  if (thread != NULL)
    g_thread_join (thread);
  /* Without it, 2,048 faults, as the first frame above. */
  faults = faults_of_a_frame ();
  g_printerr ("page faults of a frame after the pages were faulted in ahead: %ld\n", faults);
  g_assert_cmpint (faults, <, 64);
  /* Nothing is faulted in ahead for nothing. */
  g_assert_null (tilde_heap_policy_prefault (0));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/widgets/heap-policy/freed-memory-is-written-again",
                   test_freed_memory_is_written_again);
  g_test_add_func ("/widgets/heap-policy/prefaulted-pages-cost-no-faults",
                   test_prefaulted_pages_cost_no_faults);
  return g_test_run ();
}
