/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The window's renderer: cairo where OpenGL would run in software (no
 * GPU render node, or software forced), GTK's choice where a GPU is, and
 * GSK_RENDERER as the user set it.
 */
#include <glib/gstdio.h>

#include "tilde-renderer-policy.h"

static char *
dri_dir_with (const char *node)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("tilde-dri-XXXXXX", &error);

  g_assert_no_error (error);
  if (node)
    {
      g_autofree char *path = g_build_filename (dir, node, NULL);
      g_assert_true (g_file_set_contents (path, "", 0, NULL));
    }
  return dir;
}

static void
remove_dir (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
}

static void
test_choose (void)
{
  g_autofree char *gpu = dri_dir_with ("renderD128");
  g_autofree char *card_only = dri_dir_with ("card0");
  g_autofree char *empty = dri_dir_with (NULL);

  g_unsetenv ("LIBGL_ALWAYS_SOFTWARE");
  g_assert_null (tilde_renderer_policy_choose (gpu));
  /* a display controller without a render node draws in software */
  g_assert_cmpstr (tilde_renderer_policy_choose (card_only), ==, "cairo");
  g_assert_cmpstr (tilde_renderer_policy_choose (empty), ==, "cairo");
  g_assert_cmpstr (tilde_renderer_policy_choose ("/nonexistent/dri"), ==, "cairo");
  /* software forced, Mesa's way */
  g_setenv ("LIBGL_ALWAYS_SOFTWARE", "true", TRUE);
  g_assert_cmpstr (tilde_renderer_policy_choose (gpu), ==, "cairo");
  g_setenv ("LIBGL_ALWAYS_SOFTWARE", "0", TRUE);
  g_assert_null (tilde_renderer_policy_choose (gpu));
  g_unsetenv ("LIBGL_ALWAYS_SOFTWARE");
  remove_dir (gpu);
  remove_dir (card_only);
  remove_dir (empty);
}

static void
test_user_choice_stands (void)
{
  g_setenv ("GSK_RENDERER", "gl", TRUE);
  g_assert_null (tilde_renderer_policy_apply ());
  g_assert_cmpstr (g_getenv ("GSK_RENDERER"), ==, "gl");
  g_unsetenv ("GSK_RENDERER");
  /* unset: this machine's answer, and GSK_RENDERER says the same */
  const char *chosen = tilde_renderer_policy_apply ();
  g_assert_cmpstr (g_getenv ("GSK_RENDERER"), ==, chosen);
  g_assert_cmpstr (chosen, ==, tilde_renderer_policy_choose ("/dev/dri"));
  g_unsetenv ("GSK_RENDERER");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/widgets/renderer-policy/choose", test_choose);
  g_test_add_func ("/widgets/renderer-policy/user-choice-stands", test_user_choice_stands);
  return g_test_run ();
}
