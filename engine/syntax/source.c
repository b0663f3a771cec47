/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "source.h"

#include <string.h>

/* A chain of distinct files this long is a mistake, not a model. */
#define MAX_INCLUDE_DEPTH 128

struct TildeSourceSet {
  gint             ref_count;
  GPtrArray       *files;          /* TildeSourceFile*, owned */
  GHashTable      *texts;          /* name -> text, owned */
  GHashTable      *virtual_files;  /* name -> text, owned */
  GPtrArray       *include_paths;  /* char*, owned */
  GStringChunk    *strings;        /* names and directories of the records */
  TildeSourceFile *main;
  gboolean         search_own_directory;
};

TildeSourceSet *
tilde_source_set_new (void)
{
  TildeSourceSet *set = g_new0 (TildeSourceSet, 1);

  set->ref_count = 1;
  set->files = g_ptr_array_new_with_free_func (g_free);
  set->texts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  set->virtual_files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  set->include_paths = g_ptr_array_new_with_free_func (g_free);
  set->strings = g_string_chunk_new (256);
  return set;
}

TildeSourceSet *
tilde_source_set_ref (TildeSourceSet *set)
{
  g_atomic_int_inc (&set->ref_count);
  return set;
}

void
tilde_source_set_unref (TildeSourceSet *set)
{
  if (set == NULL || !g_atomic_int_dec_and_test (&set->ref_count))
    return;
  g_ptr_array_unref (set->files);
  g_hash_table_unref (set->texts);
  g_hash_table_unref (set->virtual_files);
  g_ptr_array_unref (set->include_paths);
  g_string_chunk_free (set->strings);
  g_free (set);
}

void
tilde_source_set_add_include_path (TildeSourceSet *set, const char *path)
{
  g_ptr_array_add (set->include_paths, g_strdup (path));
}

void
tilde_source_set_set_search_own_directory (TildeSourceSet *set, gboolean search)
{
  set->search_own_directory = search;
}

void
tilde_source_set_add_virtual_file (TildeSourceSet *set, const char *name, const char *text)
{
  g_hash_table_replace (set->virtual_files, g_strdup (name), g_strdup (text));
}

/* A NUL byte cannot be part of a valid program; turning it into another
 * invalid byte keeps the text a C string while the lexer still reports it. */
static char *
mask_nul_bytes (char *text, gsize length)
{
  for (gsize i = 0; i < length; i++)
    if (text[i] == '\0')
      text[i] = '\001';
  return text;
}

/* Texts are kept once per name; every inclusion of that name shares it. */
static const char *
intern_text (TildeSourceSet *set, const char *name, char *owned_text)
{
  g_hash_table_replace (set->texts, g_strdup (name), owned_text);
  return owned_text;
}

static TildeSourceFile *
add_record (TildeSourceSet *set, const char *name, const char *directory, const char *text)
{
  TildeSourceFile *file = g_new0 (TildeSourceFile, 1);

  file->name = g_string_chunk_insert_const (set->strings, name);
  file->directory = directory ? g_string_chunk_insert_const (set->strings, directory) : NULL;
  file->text = text;
  file->length = strlen (text);
  g_ptr_array_add (set->files, file);
  return file;
}

const TildeSourceFile *
tilde_source_set_load_main (TildeSourceSet *set, const char *path, GError **error)
{
  char *contents = NULL;
  gsize length = 0;
  g_autofree char *dir = NULL;

  if (!g_file_get_contents (path, &contents, &length, error))
    return NULL;
  mask_nul_bytes (contents, length);
  dir = g_path_get_dirname (path);
  set->main = add_record (set, path, dir, intern_text (set, path, contents));
  return set->main;
}

const TildeSourceFile *
tilde_source_set_set_main_buffer (TildeSourceSet *set,
                                  const char     *display_name,
                                  const char     *directory,
                                  const char     *text,
                                  gssize          len)
{
  gsize n = len < 0 ? strlen (text) : (gsize) len;
  char *copy = g_malloc (n + 1);

  memcpy (copy, text, n);
  copy[n] = '\0';
  mask_nul_bytes (copy, n);

  set->main = add_record (set, display_name, directory, intern_text (set, display_name, copy));
  return set->main;
}

const TildeSourceFile *
tilde_source_set_get_main (TildeSourceSet *set)
{
  return set->main;
}

static gboolean
is_ancestor_name (const TildeSourceFile *file, const char *name)
{
  for (const TildeSourceFile *f = file->included_from; f; f = f->included_from)
    if (strcmp (f->name, name) == 0)
      return TRUE;
  return FALSE;
}

/* Looks for the text of `candidate` in memory, then on disk. */
static const char *
find_text (TildeSourceSet *set, const char *candidate, gboolean *from_disk)
{
  const char *text = g_hash_table_lookup (set->virtual_files, candidate);
  char *contents = NULL;
  gsize length = 0;

  *from_disk = FALSE;
  if (text)
    return text;
  text = g_hash_table_lookup (set->texts, candidate);
  if (text)
    {
      *from_disk = TRUE;
      return text;
    }
  if (!g_file_get_contents (candidate, &contents, &length, NULL))
    return NULL;
  *from_disk = TRUE;
  return intern_text (set, candidate, mask_nul_bytes (contents, length));
}

static char *
not_found_message (TildeSourceSet *set, const char *target)
{
  GString *msg = g_string_new (NULL);

  g_string_append_printf (msg, "Could not find include file '%s' in specified include paths.\n"
                          "Current include paths: ", target);
  if (set->include_paths->len == 0)
    g_string_append (msg, "None");
  for (guint i = 0; i < set->include_paths->len; i++)
    g_string_append_printf (msg, "%s%s", i ? ", " : "",
                            (const char *) g_ptr_array_index (set->include_paths, i));
  return g_string_free (msg, FALSE);
}

static const char *
resolve (TildeSourceSet *set, const TildeSourceFile *from, const char *target,
         char **name, gboolean *from_disk)
{
  const char *text = NULL;

  if (set->search_own_directory && from->directory)
    {
      *name = g_strconcat (from->directory, "/", target, NULL);
      if ((text = find_text (set, *name, from_disk)))
        return text;
      g_clear_pointer (name, g_free);
    }
  for (guint i = 0; i < set->include_paths->len; i++)
    {
      *name = g_strconcat (g_ptr_array_index (set->include_paths, i), "/", target, NULL);
      if ((text = find_text (set, *name, from_disk)))
        return text;
      g_clear_pointer (name, g_free);
    }
  if ((text = g_hash_table_lookup (set->virtual_files, target)))
    {
      *name = g_strdup (target);
      *from_disk = FALSE;
    }
  return text;
}

TildeIncludeStatus
tilde_source_set_open_include (TildeSourceSet        *set,
                               const TildeSourceFile *from,
                               int                    line,
                               int                    column,
                               gsize                  offset,
                               const char            *target,
                               const TildeSourceFile **out,
                               char                 **message)
{
  g_autofree char *name = NULL;
  g_autofree char *dir = NULL;
  gboolean from_disk = FALSE;
  const char *text = resolve (set, from, target, &name, &from_disk);
  TildeSourceFile *file;

  *out = NULL;
  *message = NULL;
  if (text == NULL)
    {
      *message = not_found_message (set, target);
      return TILDE_INCLUDE_NOT_FOUND;
    }
  /* stanc's rule: a directive is refused once the file holding it already
   * appears among its own includers. */
  if (is_ancestor_name (from, from->name))
    {
      *message = g_strdup_printf ("File %s recursively included itself.", target);
      return TILDE_INCLUDE_RECURSIVE;
    }
  if (from->depth + 1 > MAX_INCLUDE_DEPTH)
    {
      *message = g_strdup_printf ("Includes are nested more than %d deep.", MAX_INCLUDE_DEPTH);
      return TILDE_INCLUDE_TOO_DEEP;
    }
  if (from_disk)
    dir = g_path_get_dirname (name);
  file = add_record (set, name, dir, text);
  file->included_from = from;
  file->include_line = line;
  file->include_column = column;
  file->depth = from->depth + 1;
  file->root_offset = from->included_from ? from->root_offset : offset;
  *out = file;
  return TILDE_INCLUDE_FOUND;
}

const char *
tilde_source_set_lookup_text (TildeSourceSet *set, const char *name)
{
  const char *text;

  if (name == NULL)
    return NULL;
  text = g_hash_table_lookup (set->texts, name);
  return text ? text : g_hash_table_lookup (set->virtual_files, name);
}

guint
tilde_source_set_get_n_files (TildeSourceSet *set)
{
  return set->files->len;
}

const TildeSourceFile *
tilde_source_set_get_file (TildeSourceSet *set, guint index)
{
  g_return_val_if_fail (index < set->files->len, NULL);
  return g_ptr_array_index (set->files, index);
}

void
tilde_source_file_add_include_frames (const TildeSourceFile *file, TildeDiagnostic *diag)
{
  for (const TildeSourceFile *f = file; f && f->included_from; f = f->included_from)
    tilde_diagnostic_add_include_frame (diag, f->included_from->name,
                                        f->include_line, f->include_column);
}

TildeSpan
tilde_span_join (const TildeSpan *a, const TildeSpan *b)
{
  TildeSpan span = *a;

  span.end_file = b->end_file;
  span.end_line = b->end_line;
  span.end_column = b->end_column;
  span.end_offset = b->end_offset;
  return span;
}

gsize
tilde_span_root_offset (const TildeSpan *span)
{
  if (span->file == NULL || span->file->included_from == NULL)
    return span->begin_offset;
  return span->file->root_offset;
}
