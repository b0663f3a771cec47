/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A bump allocator: many small allocations that share one lifetime (the nodes
 * of one syntax tree, the temporaries of one log-density evaluation) come from
 * a list of large chunks and are released together.
 *
 * Resetting keeps every chunk for reuse, so a workload that resets the arena
 * between rounds stops calling malloc once it has reached its peak size.
 * Allocations are aligned for any fundamental type. Not thread-safe.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct TildeArena TildeArena;

/* chunk_size 0 selects the default (16 KiB). */
TildeArena *tilde_arena_new        (gsize chunk_size);
void        tilde_arena_free       (TildeArena *arena);
/* Forget every allocation; the chunks stay allocated for reuse. */
void        tilde_arena_reset      (TildeArena *arena);

gpointer    tilde_arena_alloc      (TildeArena *arena, gsize size);
gpointer    tilde_arena_alloc0     (TildeArena *arena, gsize size);
gpointer    tilde_arena_memdup     (TildeArena *arena, gconstpointer data, gsize size);
/* A NUL-terminated copy of the first len bytes of str. */
char       *tilde_arena_strndup    (TildeArena *arena, const char *str, gsize len);
char       *tilde_arena_strdup     (TildeArena *arena, const char *str);

/* Bytes handed out since creation or the last reset. */
gsize       tilde_arena_bytes_used (const TildeArena *arena);
/* Bytes held in chunks, used or not. */
gsize       tilde_arena_bytes_held (const TildeArena *arena);

#define tilde_arena_new0(arena, Type) ((Type *) tilde_arena_alloc0 ((arena), sizeof (Type)))
#define tilde_arena_newv(arena, Type, n) \
  ((Type *) tilde_arena_alloc0 ((arena), sizeof (Type) * (gsize) (n)))

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeArena, tilde_arena_free)

G_END_DECLS
