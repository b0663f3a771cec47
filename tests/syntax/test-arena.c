/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-test"

#include <stdalign.h>
#include <stddef.h>
#include <string.h>

#include "tilde-arena.h"

static void
test_alignment (void)
{
  g_autoptr(TildeArena) arena = tilde_arena_new (256);

  for (int i = 1; i < 200; i++)
    {
      guint8 *p = tilde_arena_alloc (arena, (gsize) i);

      g_assert_cmpuint ((guintptr) p % alignof (max_align_t), ==, 0);
      memset (p, 0xAB, (gsize) i);
    }
}

static void
test_separate_allocations (void)
{
  g_autoptr(TildeArena) arena = tilde_arena_new (128);
  int *blocks[500];

  /* Many allocations across many chunks must not overlap. */
  for (int i = 0; i < 500; i++)
    {
      blocks[i] = tilde_arena_alloc (arena, sizeof (int) * 5);
      for (int k = 0; k < 5; k++)
        blocks[i][k] = i * 5 + k;
    }
  for (int i = 0; i < 500; i++)
    for (int k = 0; k < 5; k++)
      g_assert_cmpint (blocks[i][k], ==, i * 5 + k);
}

static void
test_large_allocation (void)
{
  g_autoptr(TildeArena) arena = tilde_arena_new (64);
  guint8 *small = tilde_arena_alloc0 (arena, 8);
  guint8 *big = tilde_arena_alloc0 (arena, 10000);
  guint8 *after = tilde_arena_alloc0 (arena, 8);

  memset (big, 1, 10000);
  for (int i = 0; i < 8; i++)
    {
      g_assert_cmpuint (small[i], ==, 0);
      g_assert_cmpuint (after[i], ==, 0);
    }
  g_assert_cmpuint (tilde_arena_bytes_held (arena), >=, 10000);
}

static void
test_reset_reuses_chunks (void)
{
  g_autoptr(TildeArena) arena = tilde_arena_new (1024);
  gsize held;

  for (int i = 0; i < 100; i++)
    tilde_arena_alloc (arena, 100);
  held = tilde_arena_bytes_held (arena);
  g_assert_cmpuint (tilde_arena_bytes_used (arena), >=, 100 * 100);
  for (int round = 0; round < 10; round++)
    {
      tilde_arena_reset (arena);
      g_assert_cmpuint (tilde_arena_bytes_used (arena), ==, 0);
      for (int i = 0; i < 100; i++)
        tilde_arena_alloc (arena, 100);
      /* The same workload after a reset needs no new chunk. */
      g_assert_cmpuint (tilde_arena_bytes_held (arena), ==, held);
    }
}

static void
test_strings (void)
{
  g_autoptr(TildeArena) arena = tilde_arena_new (0);
  char *s = tilde_arena_strndup (arena, "hello world", 5);
  int data[3] = { 1, 2, 3 };
  int *copy = tilde_arena_memdup (arena, data, sizeof data);

  g_assert_cmpstr (s, ==, "hello");
  g_assert_cmpstr (tilde_arena_strdup (arena, "abc"), ==, "abc");
  g_assert_null (tilde_arena_strdup (arena, NULL));
  g_assert_cmpint (copy[2], ==, 3);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/arena/alignment", test_alignment);
  g_test_add_func ("/engine/arena/separate-allocations", test_separate_allocations);
  g_test_add_func ("/engine/arena/large-allocation", test_large_allocation);
  g_test_add_func ("/engine/arena/reset-reuses-chunks", test_reset_reuses_chunks);
  g_test_add_func ("/engine/arena/strings", test_strings);
  return g_test_run ();
}
