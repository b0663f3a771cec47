/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "tilde-autosave.h"

#define GROUP "Autosave"

typedef enum {
  OP_WRITE,
  OP_REMOVE,
  OP_FIND,
} OpKind;

typedef struct {
  OpKind    kind;
  char     *id;
  char     *uri;
  char     *title;
  char     *text;
  gboolean  modified;
  char     *data_uri;
  char     *data_text;
  GTask    *task;
} Op;

/* One thread, so operations happen in the order they were asked for. */
static GThreadPool *pool;

void
tilde_autosave_free (TildeAutosave *autosave)
{
  if (autosave == NULL)
    return;
  g_free (autosave->id);
  g_clear_object (&autosave->file);
  g_free (autosave->title);
  g_free (autosave->text);
  g_clear_object (&autosave->data_file);
  g_free (autosave->data_text);
  g_free (autosave);
}

char *
tilde_autosave_directory (void)
{
  return g_build_filename (g_get_user_cache_dir (), "tilde", "autosave", NULL);
}

char *
tilde_autosave_new_id (void)
{
  return g_uuid_string_random ();
}

static char *
copy_path (const char *id, const char *extension)
{
  g_autofree char *dir = tilde_autosave_directory ();
  g_autofree char *name = g_strconcat (id, extension, NULL);

  return g_build_filename (dir, name, NULL);
}

/* Tells this boot from the next, so that a process id from before a
 * restart is not taken for a live one. Empty where the system says not. */
static char *
boot_id (void)
{
  char *contents = NULL;

  if (!g_file_get_contents ("/proc/sys/kernel/random/boot_id", &contents, NULL, NULL))
    return g_strdup ("");
  return g_strstrip (contents);
}

static gboolean
write_copy (const Op *op, GError **error)
{
  g_autofree char *dir = tilde_autosave_directory ();
  g_autofree char *text_path = copy_path (op->id, ".stan");
  g_autofree char *info_path = copy_path (op->id, ".info");
  g_autofree char *data_path = copy_path (op->id, ".json");
  g_autoptr(GKeyFile) info = g_key_file_new ();
  g_autofree char *boot = boot_id ();
  g_autofree char *data = NULL;
  gsize length;

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "%s: %s", dir, g_strerror (saved_errno));
      return FALSE;
    }
  if (!g_file_set_contents_full (text_path, op->text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600, error))
    return FALSE;
  if (op->data_text != NULL)
    {
      if (!g_file_set_contents_full (data_path, op->data_text, -1, G_FILE_SET_CONTENTS_CONSISTENT,
                                     0600, error))
        return FALSE;
    }
  else
    /* Saved since the last copy: the file has them now. */
    g_unlink (data_path);
  if (op->uri != NULL)
    g_key_file_set_string (info, GROUP, "file", op->uri);
  g_key_file_set_boolean (info, GROUP, "modified", op->modified);
  if (op->data_uri != NULL)
    g_key_file_set_string (info, GROUP, "data-file", op->data_uri);
  g_key_file_set_string (info, GROUP, "title", op->title ? op->title : "");
  g_key_file_set_int64 (info, GROUP, "pid", (gint64) getpid ());
  g_key_file_set_string (info, GROUP, "boot", boot);
  g_key_file_set_int64 (info, GROUP, "saved", g_get_real_time ());
  data = g_key_file_to_data (info, &length, NULL);
  return g_file_set_contents_full (info_path, data, (gssize) length, G_FILE_SET_CONTENTS_CONSISTENT,
                                   0600, error);
}

static void
remove_copy (const char *id)
{
  g_autofree char *text_path = copy_path (id, ".stan");
  g_autofree char *info_path = copy_path (id, ".info");
  g_autofree char *data_path = copy_path (id, ".json");

  /* The description first: a text without one is never offered. */
  g_unlink (info_path);
  g_unlink (text_path);
  g_unlink (data_path);
}

/* Whether the process that wrote a copy is still running. */
static gboolean
writer_alive (GKeyFile *info, const char *boot)
{
  g_autofree char *written_boot = g_key_file_get_string (info, GROUP, "boot", NULL);
  gint64 pid = g_key_file_get_int64 (info, GROUP, "pid", NULL);

  if (pid <= 0 || pid > G_MAXINT || g_strcmp0 (written_boot, boot) != 0)
    return FALSE;
  if ((pid_t) pid == getpid ())
    return TRUE;
  return kill ((pid_t) pid, 0) == 0 || errno == EPERM;
}

static TildeAutosave *
read_orphan (const char *dir, const char *info_name, const char *boot)
{
  g_autofree char *info_path = g_build_filename (dir, info_name, NULL);
  g_autoptr(GKeyFile) info = g_key_file_new ();
  g_autofree char *id = g_strndup (info_name, strlen (info_name) - strlen (".info"));
  g_autofree char *text_path = copy_path (id, ".stan");
  g_autofree char *data_path = copy_path (id, ".json");
  g_autofree char *uri = NULL;
  g_autofree char *data_uri = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  TildeAutosave *autosave;

  if (!g_key_file_load_from_file (info, info_path, G_KEY_FILE_NONE, NULL)
      || writer_alive (info, boot)
      || !g_file_get_contents (text_path, &text, NULL, NULL))
    return NULL;
  autosave = g_new0 (TildeAutosave, 1);
  autosave->id = g_steal_pointer (&id);
  uri = g_key_file_get_string (info, GROUP, "file", NULL);
  if (uri != NULL && uri[0] != '\0')
    autosave->file = g_file_new_for_uri (uri);
  /* A copy without the key is one of a changed model. */
  autosave->modified = g_key_file_get_boolean (info, GROUP, "modified", &error);
  if (error != NULL)
    autosave->modified = TRUE;
  data_uri = g_key_file_get_string (info, GROUP, "data-file", NULL);
  if (data_uri != NULL && data_uri[0] != '\0')
    autosave->data_file = g_file_new_for_uri (data_uri);
  if (!g_file_get_contents (data_path, &autosave->data_text, NULL, NULL))
    autosave->data_text = NULL;
  autosave->title = g_key_file_get_string (info, GROUP, "title", NULL);
  autosave->saved = g_key_file_get_int64 (info, GROUP, "saved", NULL);
  autosave->text = g_steal_pointer (&text);
  return autosave;
}

static int
newest_first (gconstpointer a, gconstpointer b)
{
  const TildeAutosave *x = *(TildeAutosave *const *) a;
  const TildeAutosave *y = *(TildeAutosave *const *) b;

  return (x->saved < y->saved) - (x->saved > y->saved);
}

static GPtrArray *
find_orphans (void)
{
  g_autofree char *dir = tilde_autosave_directory ();
  g_autofree char *boot = boot_id ();
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  GPtrArray *orphans = g_ptr_array_new_with_free_func ((GDestroyNotify) tilde_autosave_free);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      TildeAutosave *autosave;

      if (!g_str_has_suffix (name, ".info") || strlen (name) <= strlen (".info"))
        continue;
      if ((autosave = read_orphan (dir, name, boot)) != NULL)
        g_ptr_array_add (orphans, autosave);
    }
  g_ptr_array_sort (orphans, newest_first);
  return orphans;
}

static void
op_free (Op *op)
{
  g_free (op->id);
  g_free (op->uri);
  g_free (op->title);
  g_free (op->text);
  g_free (op->data_uri);
  g_free (op->data_text);
  g_clear_object (&op->task);
  g_free (op);
}

static void
run_op (gpointer data, gpointer user_data)
{
  Op *op = data;
  GError *error = NULL;

  switch (op->kind)
    {
    case OP_WRITE:
      if (write_copy (op, &error))
        g_task_return_boolean (op->task, TRUE);
      else
        g_task_return_error (op->task, error);
      break;
    case OP_REMOVE:
      remove_copy (op->id);
      break;
    case OP_FIND:
      g_task_return_pointer (op->task, find_orphans (), (GDestroyNotify) g_ptr_array_unref);
      break;
    default:
      g_assert_not_reached ();
    }
  op_free (op);
}

static void
push (Op *op)
{
  if (pool == NULL)
    pool = g_thread_pool_new (run_op, NULL, 1, FALSE, NULL);
  g_thread_pool_push (pool, op, NULL);
}

void
tilde_autosave_write_async (const TildeAutosave *copy, GAsyncReadyCallback callback,
                            gpointer user_data)
{
  Op *op;

  g_return_if_fail (copy != NULL && copy->id != NULL);
  g_return_if_fail (copy->text != NULL);

  op = g_new0 (Op, 1);
  op->kind = OP_WRITE;
  op->id = g_strdup (copy->id);
  op->uri = copy->file ? g_file_get_uri (copy->file) : NULL;
  op->title = g_strdup (copy->title);
  op->text = g_strdup (copy->text);
  op->modified = copy->modified;
  op->data_uri = copy->data_file ? g_file_get_uri (copy->data_file) : NULL;
  op->data_text = g_strdup (copy->data_text);
  op->task = g_task_new (NULL, NULL, callback, user_data);
  g_task_set_source_tag (op->task, tilde_autosave_write_async);
  push (op);
}

gboolean
tilde_autosave_write_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

void
tilde_autosave_remove (const char *id)
{
  Op *op;

  g_return_if_fail (id != NULL);
  op = g_new0 (Op, 1);
  op->kind = OP_REMOVE;
  op->id = g_strdup (id);
  push (op);
}

void
tilde_autosave_find_orphans_async (GAsyncReadyCallback callback, gpointer user_data)
{
  Op *op = g_new0 (Op, 1);

  op->kind = OP_FIND;
  op->task = g_task_new (NULL, NULL, callback, user_data);
  g_task_set_source_tag (op->task, tilde_autosave_find_orphans_async);
  push (op);
}

GPtrArray *
tilde_autosave_find_orphans_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

void
tilde_autosave_flush (void)
{
  if (pool == NULL)
    return;
  g_thread_pool_free (pool, FALSE, TRUE);
  pool = NULL;
}
