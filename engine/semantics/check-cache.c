/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

/* Memoised overload resolution against the built-in library. The library
 * never changes and types are interned, so a call's outcome depends only on
 * the function's name and the argument types and levels; models repeat the
 * same few calls, and resolving one scans every signature of the name. */

#include "check-private.h"

#include <string.h>

#define MAX_ARGS   8
#define MAX_ENTRIES 4096

typedef struct {
  gconstpointer   name;   /* interned name, or an operator code */
  guint           n;
  TildeArgType    args[MAX_ARGS];
} Key;

typedef struct {
  Key        key;
  TildeMatch match;
} Entry;

static GMutex      lock;
static GHashTable *entries;   /* Key* -> Entry* (the key is the entry's) */

static guint
key_hash (gconstpointer p)
{
  const Key *k = p;
  guint h = g_direct_hash (k->name) ^ (k->n * 2654435761u);

  for (guint i = 0; i < k->n; i++)
    h = h * 31 + g_direct_hash (k->args[i].type) + (guint) k->args[i].ad;
  return h;
}

static gboolean
key_equal (gconstpointer a, gconstpointer b)
{
  const Key *x = a, *y = b;

  if (x->name != y->name || x->n != y->n)
    return FALSE;
  for (guint i = 0; i < x->n; i++)
    if (x->args[i].type != y->args[i].type || x->args[i].ad != y->args[i].ad)
      return FALSE;
  return TRUE;
}

static gboolean
make_key (Key *k, gconstpointer name, const TildeArgType *args, guint n)
{
  if (n > MAX_ARGS)
    return FALSE;
  memset (k, 0, sizeof *k);
  k->name = name;
  k->n = n;
  memcpy (k->args, args, sizeof (TildeArgType) * n);
  return TRUE;
}

static gboolean
lookup (const Key *k, TildeMatch *match)
{
  Entry *e;

  g_mutex_lock (&lock);
  e = entries ? g_hash_table_lookup (entries, k) : NULL;
  if (e)
    *match = e->match;
  g_mutex_unlock (&lock);
  return e != NULL;
}

static void
store (const Key *k, const TildeMatch *match)
{
  Entry *e = g_new (Entry, 1);

  e->key = *k;
  e->match = *match;
  g_mutex_lock (&lock);
  if (entries == NULL)
    entries = g_hash_table_new_full (key_hash, key_equal, NULL, g_free);
  if (g_hash_table_size (entries) >= MAX_ENTRIES)
    g_hash_table_remove_all (entries);
  g_hash_table_replace (entries, &e->key, e);
  g_mutex_unlock (&lock);
}

TildeMatchStatus
_tilde_cached_library_resolve (const char *name, const TildeArgType *args, guint n,
                               TildeMatch *match)
{
  Key k;

  name = g_intern_string (name);
  if (!make_key (&k, name, args, n))
    return tilde_library_resolve (name, args, n, match, NULL);
  if (lookup (&k, match))
    return match->status;
  tilde_library_resolve (name, args, n, match, NULL);
  store (&k, match);
  return match->status;
}

TildeMatchStatus
_tilde_cached_operator_resolve (TildeOperator op, const TildeArgType *args, guint n,
                                TildeMatch *match)
{
  Key k;

  /* operator codes are small integers, far from any string's address */
  if (!make_key (&k, GUINT_TO_POINTER ((guint) op + 1), args, n))
    return tilde_library_resolve_operator (op, args, n, match, NULL);
  if (lookup (&k, match))
    return match->status;
  tilde_library_resolve_operator (op, args, n, match, NULL);
  store (&k, match);
  return match->status;
}
