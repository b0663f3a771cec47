/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Scratch folders: removed with what they hold (a nested folder, and a
 * link whose target outside stays) when the process that made them
 * exits, and at once when asked.
 */
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "scratch.h"

/* Fills a folder: a file, a nested folder with a file, and a link to
 * `outside`. */
static void
fill (const char *folder, const char *outside)
{
  g_autofree char *file = g_build_filename (folder, "model.stan", NULL);
  g_autofree char *nested = g_build_filename (folder, "run-1", NULL);
  g_autofree char *inner = g_build_filename (nested, "chain_1.csv", NULL);
  g_autofree char *link = g_build_filename (folder, "outside", NULL);

  g_assert_true (g_file_set_contents (file, "model {}\n", -1, NULL));
  g_assert_cmpint (g_mkdir (nested, 0700), ==, 0);
  g_assert_true (g_file_set_contents (inner, "lp__\n", -1, NULL));
  g_assert_cmpint (symlink (outside, link), ==, 0);
}

static void
test_removed_at_exit (void)
{
  /* the test's own files, in a folder the subprocess is told of */
  g_autofree char *base = g_test_subprocess () ? g_strdup (g_getenv ("SCRATCH_TEST_BASE"))
                                               : tilde_scratch_folder_new ("tilde-scratch-test");
  g_autofree char *outside = g_build_filename (base, "outside", NULL);
  g_autofree char *kept = g_build_filename (outside, "kept.txt", NULL);
  g_autofree char *report = g_build_filename (base, "report", NULL);
  g_autofree char *path = NULL;

  if (g_test_subprocess ())
    {
      g_autofree char *folder = tilde_scratch_folder_new ("tilde-scratch");
      fill (folder, outside);
      /* where it is, for the test to look after this process exits */
      g_assert_true (g_file_set_contents (report, folder, -1, NULL));
      return;
    }
  g_assert_cmpint (g_mkdir (outside, 0700), ==, 0);
  g_assert_true (g_file_set_contents (kept, "", -1, NULL));
  g_setenv ("SCRATCH_TEST_BASE", base, TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  g_assert_true (g_file_get_contents (report, &path, NULL, NULL));
  g_assert_cmpuint (strlen (path), >, 0);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  /* the link went, not what it pointed to */
  g_assert_true (g_file_test (kept, G_FILE_TEST_EXISTS));
}

static void
test_removed_when_asked (void)
{
  g_autofree char *folder = tilde_scratch_folder_new ("tilde-scratch");
  g_autofree char *outside = tilde_scratch_folder_new ("tilde-scratch-outside");
  g_autofree char *name = g_path_get_basename (folder);

  g_assert_true (g_file_test (folder, G_FILE_TEST_IS_DIR));
  g_assert_true (g_str_has_prefix (name, "tilde-scratch-"));
  fill (folder, outside);
  tilde_scratch_folder_remove (folder);
  g_assert_false (g_file_test (folder, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (outside, G_FILE_TEST_IS_DIR));
  /* removed already: the exit handler passes over it */
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/scratch/removed-at-exit", test_removed_at_exit);
  g_test_add_func ("/scratch/removed-when-asked", test_removed_when_asked);
  return g_test_run ();
}
