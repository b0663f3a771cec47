/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/bitset.h"

#include <string.h>

static MirBitset *
bitset_alloc (guint n_bits)
{
  guint n_words = (n_bits + 63) / 64;
  MirBitset *set = g_malloc0 (sizeof (MirBitset) + n_words * sizeof (guint64));

  set->n_bits = n_bits;
  set->n_words = n_words;
  return set;
}

MirBitset *
mir_bitset_new (guint n_bits)
{
  return bitset_alloc (n_bits);
}

MirBitset *
mir_bitset_new_full (guint n_bits)
{
  MirBitset *set = bitset_alloc (n_bits);

  mir_bitset_fill (set);
  return set;
}

MirBitset *
mir_bitset_copy (const MirBitset *set)
{
  gsize size = sizeof (MirBitset) + set->n_words * sizeof (guint64);

  return g_memdup2 (set, size);
}

void
mir_bitset_free (MirBitset *set)
{
  g_free (set);
}

gsize
mir_bitset_size (guint n_bits)
{
  return sizeof (MirBitset) + (n_bits + 63) / 64 * sizeof (guint64);
}

MirBitset *
mir_bitset_new_in (TildeArena *arena, guint n_bits)
{
  MirBitset *set = tilde_arena_alloc0 (arena, mir_bitset_size (n_bits));

  set->n_bits = n_bits;
  set->n_words = (n_bits + 63) / 64;
  return set;
}

MirBitset *
mir_bitset_copy_in (TildeArena *arena, const MirBitset *set)
{
  return tilde_arena_memdup (arena, set, mir_bitset_size (set->n_bits));
}

void
mir_bitset_add (MirBitset *set, guint bit)
{
  g_return_if_fail (bit < set->n_bits);
  set->words[bit / 64] |= G_GUINT64_CONSTANT (1) << (bit % 64);
}

void
mir_bitset_remove (MirBitset *set, guint bit)
{
  g_return_if_fail (bit < set->n_bits);
  set->words[bit / 64] &= ~(G_GUINT64_CONSTANT (1) << (bit % 64));
}

gboolean
mir_bitset_contains (const MirBitset *set, guint bit)
{
  if (bit >= set->n_bits)
    return FALSE;
  return (set->words[bit / 64] >> (bit % 64)) & 1;
}

void
mir_bitset_clear (MirBitset *set)
{
  memset (set->words, 0, set->n_words * sizeof (guint64));
}

void
mir_bitset_fill (MirBitset *set)
{
  if (set->n_words == 0)
    return;
  memset (set->words, 0xff, set->n_words * sizeof (guint64));
  /* bits past n_bits stay clear so that counting and equality need no mask */
  if (set->n_bits % 64)
    set->words[set->n_words - 1] = (G_GUINT64_CONSTANT (1) << (set->n_bits % 64)) - 1;
}

void
mir_bitset_assign (MirBitset *dst, const MirBitset *src)
{
  g_return_if_fail (dst->n_bits == src->n_bits);
  memcpy (dst->words, src->words, dst->n_words * sizeof (guint64));
}

gboolean
mir_bitset_union (MirBitset *dst, const MirBitset *src)
{
  guint64 changed = 0;

  g_return_val_if_fail (dst->n_bits == src->n_bits, FALSE);
  for (guint i = 0; i < dst->n_words; i++)
    {
      guint64 w = dst->words[i] | src->words[i];
      changed |= w ^ dst->words[i];
      dst->words[i] = w;
    }
  return changed != 0;
}

gboolean
mir_bitset_intersect (MirBitset *dst, const MirBitset *src)
{
  guint64 changed = 0;

  g_return_val_if_fail (dst->n_bits == src->n_bits, FALSE);
  for (guint i = 0; i < dst->n_words; i++)
    {
      guint64 w = dst->words[i] & src->words[i];
      changed |= w ^ dst->words[i];
      dst->words[i] = w;
    }
  return changed != 0;
}

gboolean
mir_bitset_subtract (MirBitset *dst, const MirBitset *src)
{
  guint64 changed = 0;

  g_return_val_if_fail (dst->n_bits == src->n_bits, FALSE);
  for (guint i = 0; i < dst->n_words; i++)
    {
      guint64 w = dst->words[i] & ~src->words[i];
      changed |= w ^ dst->words[i];
      dst->words[i] = w;
    }
  return changed != 0;
}

gboolean
mir_bitset_equal (const MirBitset *a, const MirBitset *b)
{
  return a->n_bits == b->n_bits
         && memcmp (a->words, b->words, a->n_words * sizeof (guint64)) == 0;
}

gboolean
mir_bitset_is_empty (const MirBitset *set)
{
  for (guint i = 0; i < set->n_words; i++)
    if (set->words[i])
      return FALSE;
  return TRUE;
}

gboolean
mir_bitset_intersects (const MirBitset *a, const MirBitset *b)
{
  guint n = MIN (a->n_words, b->n_words);

  for (guint i = 0; i < n; i++)
    if (a->words[i] & b->words[i])
      return TRUE;
  return FALSE;
}

gboolean
mir_bitset_is_subset (const MirBitset *a, const MirBitset *b)
{
  g_return_val_if_fail (a->n_bits == b->n_bits, FALSE);
  for (guint i = 0; i < a->n_words; i++)
    if (a->words[i] & ~b->words[i])
      return FALSE;
  return TRUE;
}

guint
mir_bitset_count (const MirBitset *set)
{
  guint n = 0;

  for (guint i = 0; i < set->n_words; i++)
    n += (guint) __builtin_popcountll (set->words[i]);
  return n;
}

int
mir_bitset_next (const MirBitset *set, guint from)
{
  guint i = from / 64;

  if (from >= set->n_bits)
    return -1;
  guint64 w = set->words[i] & (~G_GUINT64_CONSTANT (0) << (from % 64));
  for (;;)
    {
      if (w)
        return (int) (i * 64 + (guint) __builtin_ctzll (w));
      if (++i >= set->n_words)
        return -1;
      w = set->words[i];
    }
}

int
mir_bitset_next_common (const MirBitset *a, const MirBitset *b, guint from)
{
  guint i = from / 64;
  guint64 w;

  g_return_val_if_fail (a->n_bits == b->n_bits, -1);
  if (from >= a->n_bits)
    return -1;
  w = a->words[i] & b->words[i] & (~G_GUINT64_CONSTANT (0) << (from % 64));
  for (;;)
    {
      if (w)
        return (int) (i * 64 + (guint) __builtin_ctzll (w));
      if (++i >= a->n_words)
        return -1;
      w = a->words[i] & b->words[i];
    }
}

void
mir_bitset_append (GString *out, const MirBitset *set, const char *const *labels)
{
  gboolean first = TRUE;

  g_string_append_c (out, '{');
  for (int i = mir_bitset_next (set, 0); i >= 0; i = mir_bitset_next (set, (guint) i + 1))
    {
      if (!first)
        g_string_append (out, ", ");
      first = FALSE;
      if (labels)
        g_string_append (out, labels[i]);
      else
        g_string_append_printf (out, "%d", i);
    }
  g_string_append_c (out, '}');
}

/* ---- pools ---- */

/* Blocks grow from a few sets to this size (or one set, when larger). */
#define POOL_BLOCK_BYTES (64 * 1024)
#define POOL_FIRST_SETS  16

struct MirBitsetPool {
  guint      n_bits;
  gsize      set_bytes;
  MirBitset *empty;
  GPtrArray *blocks;
  gsize      used;       /* bytes used in the last block */
  gsize      capacity;   /* bytes in the last block */
};

MirBitsetPool *
mir_bitset_pool_new (guint n_bits)
{
  MirBitsetPool *pool = g_new0 (MirBitsetPool, 1);

  pool->n_bits = n_bits;
  pool->empty = bitset_alloc (n_bits);
  pool->set_bytes = sizeof (MirBitset) + pool->empty->n_words * sizeof (guint64);
  pool->blocks = g_ptr_array_new_with_free_func (g_free);
  return pool;
}

void
mir_bitset_pool_free (MirBitsetPool *pool)
{
  if (!pool)
    return;
  g_ptr_array_unref (pool->blocks);
  g_free (pool->empty);
  g_free (pool);
}

const MirBitset *
mir_bitset_pool_empty (const MirBitsetPool *pool)
{
  return pool->empty;
}

const MirBitset *
mir_bitset_pool_copy (MirBitsetPool *pool, const MirBitset *set)
{
  MirBitset *copy;

  g_return_val_if_fail (set->n_bits == pool->n_bits, NULL);
  if (pool->used + pool->set_bytes > pool->capacity)
    {
      gsize most = MAX (POOL_BLOCK_BYTES / pool->set_bytes, 1) * pool->set_bytes;

      pool->capacity = pool->capacity ? MIN (2 * pool->capacity, most)
                                      : MIN (POOL_FIRST_SETS * pool->set_bytes, most);
      g_ptr_array_add (pool->blocks, g_malloc (pool->capacity));
      pool->used = 0;
    }
  copy = (MirBitset *) ((char *) g_ptr_array_index (pool->blocks, pool->blocks->len - 1)
                        + pool->used);
  pool->used += pool->set_bytes;
  memcpy (copy, set, pool->set_bytes);
  return copy;
}
