/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "scratch.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <unistd.h>

static GMutex     lock;
static GPtrArray *folders;     /* made by this process, removed at its exit */
static pid_t      maker;

void
tilde_scratch_folder_remove (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        tilde_scratch_folder_remove (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

static void
remove_at_exit (void)
{
  GPtrArray *made;

  g_mutex_lock (&lock);
  made = g_steal_pointer (&folders);
  g_mutex_unlock (&lock);
  if (made == NULL)
    return;
  if (getpid () == maker)
    for (guint i = 0; i < made->len; i++)
      tilde_scratch_folder_remove (made->pdata[i]);
  g_ptr_array_unref (made);
}

char *
tilde_scratch_folder_new (const char *prefix)
{
  g_autofree char *template = g_strconcat (prefix, "-XXXXXX", NULL);
  g_autoptr(GError) error = NULL;
  char *path = g_dir_make_tmp (template, &error);

  if (path == NULL)
    g_error ("no scratch folder %s: %s", template, error->message);
  g_mutex_lock (&lock);
  if (folders == NULL)
    {
      folders = g_ptr_array_new_with_free_func (g_free);
      maker = getpid ();
      atexit (remove_at_exit);
    }
  g_ptr_array_add (folders, g_strdup (path));
  g_mutex_unlock (&lock);
  return path;
}
