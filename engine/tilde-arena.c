/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "tilde-arena.h"

#include <stdalign.h>
#include <stddef.h>
#include <string.h>

#define DEFAULT_CHUNK_SIZE (16 * 1024)
#define ALIGNMENT (alignof (max_align_t))

typedef struct Chunk Chunk;
struct Chunk {
  Chunk *next;
  gsize  capacity;
  gsize  used;
  /* The payload follows, aligned to ALIGNMENT. */
};

struct TildeArena {
  Chunk *first;
  Chunk *current;
  gsize  chunk_size;
  gsize  bytes_used;
};

static gsize
header_size (void)
{
  return (sizeof (Chunk) + ALIGNMENT - 1) & ~(ALIGNMENT - 1);
}

static guint8 *
chunk_payload (Chunk *chunk)
{
  return (guint8 *) chunk + header_size ();
}

static Chunk *
chunk_new (gsize capacity)
{
  Chunk *chunk = g_malloc (header_size () + capacity);

  chunk->next = NULL;
  chunk->capacity = capacity;
  chunk->used = 0;
  return chunk;
}

TildeArena *
tilde_arena_new (gsize chunk_size)
{
  TildeArena *arena = g_new0 (TildeArena, 1);

  arena->chunk_size = chunk_size ? chunk_size : DEFAULT_CHUNK_SIZE;
  arena->first = chunk_new (arena->chunk_size);
  arena->current = arena->first;
  return arena;
}

void
tilde_arena_free (TildeArena *arena)
{
  Chunk *chunk;

  if (arena == NULL)
    return;
  chunk = arena->first;
  while (chunk)
    {
      Chunk *next = chunk->next;
      g_free (chunk);
      chunk = next;
    }
  g_free (arena);
}

void
tilde_arena_reset (TildeArena *arena)
{
  for (Chunk *chunk = arena->first; chunk; chunk = chunk->next)
    chunk->used = 0;
  arena->current = arena->first;
  arena->bytes_used = 0;
}

static gsize
round_up (gsize size)
{
  return (size + ALIGNMENT - 1) & ~(ALIGNMENT - 1);
}

/* Moves to a later chunk with room for size bytes, reusing chunks kept by a
 * reset before allocating a new one after the current chunk. */
static Chunk *
chunk_with_room (TildeArena *arena, gsize size)
{
  Chunk *chunk = arena->current;
  Chunk *fresh;

  for (Chunk *next = chunk->next; next; next = next->next)
    if (next->capacity - next->used >= size)
      {
        arena->current = next;
        return next;
      }

  fresh = chunk_new (MAX (size, arena->chunk_size));
  fresh->next = chunk->next;
  chunk->next = fresh;
  /* An oversized allocation gets a chunk of its own; ordinary ones continue
   * in the fresh chunk. */
  if (size <= arena->chunk_size)
    arena->current = fresh;
  return fresh;
}

gpointer
tilde_arena_alloc (TildeArena *arena, gsize size)
{
  Chunk *chunk = arena->current;
  gpointer mem;

  size = round_up (size ? size : 1);
  if (chunk->capacity - chunk->used < size)
    chunk = chunk_with_room (arena, size);
  mem = chunk_payload (chunk) + chunk->used;
  chunk->used += size;
  arena->bytes_used += size;
  return mem;
}

gpointer
tilde_arena_alloc0 (TildeArena *arena, gsize size)
{
  gpointer mem = tilde_arena_alloc (arena, size);

  memset (mem, 0, size);
  return mem;
}

gpointer
tilde_arena_memdup (TildeArena *arena, gconstpointer data, gsize size)
{
  gpointer mem = tilde_arena_alloc (arena, size);

  if (size)
    memcpy (mem, data, size);
  return mem;
}

char *
tilde_arena_strndup (TildeArena *arena, const char *str, gsize len)
{
  char *copy = tilde_arena_alloc (arena, len + 1);

  memcpy (copy, str, len);
  copy[len] = '\0';
  return copy;
}

char *
tilde_arena_strdup (TildeArena *arena, const char *str)
{
  return str ? tilde_arena_strndup (arena, str, strlen (str)) : NULL;
}

gsize
tilde_arena_bytes_used (const TildeArena *arena)
{
  return arena->bytes_used;
}

gsize
tilde_arena_bytes_held (const TildeArena *arena)
{
  gsize held = 0;

  for (Chunk *chunk = arena->first; chunk; chunk = chunk->next)
    held += chunk->capacity;
  return held;
}
