/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Fixed-size sets of small integers, the representation every set-valued
 * data-flow fact uses (variables, expressions, definitions, copies, nodes
 * of a flow graph). The operations that grow or shrink a set in place say
 * whether it changed, which is what a worklist solver needs to know.
 */
#pragma once

#include <glib.h>

#include "tilde-arena.h"

G_BEGIN_DECLS

typedef struct {
  guint   n_bits;
  guint   n_words;
  guint64 words[];
} MirBitset;

MirBitset *mir_bitset_new       (guint n_bits);           /* empty */
MirBitset *mir_bitset_new_full  (guint n_bits);           /* {0, ..., n_bits - 1} */
MirBitset *mir_bitset_copy      (const MirBitset *set);
void       mir_bitset_free      (MirBitset *set);
/* Sets that share one lifetime (the facts of one analysis) come from an
 * arena and go with it, never through mir_bitset_free. */
MirBitset *mir_bitset_new_in    (TildeArena *arena, guint n_bits);
MirBitset *mir_bitset_copy_in   (TildeArena *arena, const MirBitset *set);
/* The bytes one set of n_bits takes, for sizing an arena. */
gsize      mir_bitset_size      (guint n_bits);

void       mir_bitset_add       (MirBitset *set, guint bit);
void       mir_bitset_remove    (MirBitset *set, guint bit);
gboolean   mir_bitset_contains  (const MirBitset *set, guint bit);
void       mir_bitset_clear     (MirBitset *set);
void       mir_bitset_fill      (MirBitset *set);
/* dst := src; both have the same size */
void       mir_bitset_assign    (MirBitset *dst, const MirBitset *src);

/* dst := dst ∪ src, dst ∩ src, dst − src; TRUE when dst changed */
gboolean   mir_bitset_union     (MirBitset *dst, const MirBitset *src);
gboolean   mir_bitset_intersect (MirBitset *dst, const MirBitset *src);
gboolean   mir_bitset_subtract  (MirBitset *dst, const MirBitset *src);

gboolean   mir_bitset_equal     (const MirBitset *a, const MirBitset *b);
gboolean   mir_bitset_is_empty  (const MirBitset *set);
gboolean   mir_bitset_intersects (const MirBitset *a, const MirBitset *b);
/* a ⊆ b */
gboolean   mir_bitset_is_subset (const MirBitset *a, const MirBitset *b);
guint      mir_bitset_count     (const MirBitset *set);
/* The smallest member >= from, or -1. Iterate with
 * for (int i = mir_bitset_next (s, 0); i >= 0; i = mir_bitset_next (s, i + 1)) */
int        mir_bitset_next      (const MirBitset *set, guint from);
/* The smallest member of a ∩ b that is >= from, or -1 (sets of one size). */
int        mir_bitset_next_common (const MirBitset *a, const MirBitset *b, guint from);

/* Many sets of one size that are written once and then only read (the
 * effects of each node of a graph): copies live in large blocks, and the
 * empty ones can all be the pool's one empty set (which a reader can then
 * tell by its address). Sets from a pool are freed with it, never one by
 * one, and must not be changed. */
typedef struct MirBitsetPool MirBitsetPool;

MirBitsetPool   *mir_bitset_pool_new  (guint n_bits);
void             mir_bitset_pool_free (MirBitsetPool *pool);
/* A copy of `set` (of the pool's size) that lives as long as the pool. */
const MirBitset *mir_bitset_pool_copy  (MirBitsetPool *pool, const MirBitset *set);
/* The pool's empty set. */
const MirBitset *mir_bitset_pool_empty (const MirBitsetPool *pool);

/* "{a, b}" with each member written as labels[i] (indices when NULL). */
void       mir_bitset_append    (GString *out, const MirBitset *set,
                                 const char *const *labels);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MirBitset, mir_bitset_free)

G_END_DECLS
