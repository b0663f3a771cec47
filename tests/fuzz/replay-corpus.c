/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Runs a fuzz target once on every file of its corpus (corpus/FUZZ_TARGET),
 * so the suite re-checks every input the fuzzer kept (and every crash it
 * found, once fixed) without needing libFuzzer. */
#include <glib.h>

#include "fuzz-target.h"

static void
test_replay_corpus (void)
{
  const char *dir_path = g_test_get_filename (G_TEST_DIST, "fuzz", "corpus", FUZZ_TARGET, NULL);
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  const char *name;
  int count = 0;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir_path, name, NULL);
      g_autofree char *contents = NULL;
      gsize length;

      g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
      LLVMFuzzerTestOneInput ((const uint8_t *) contents, length);
      count++;
    }
  g_test_message ("%d inputs", count);
  g_assert_cmpint (count, >, 0);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fuzz/" FUZZ_TARGET "/corpus", test_replay_corpus);
  return g_test_run ();
}
