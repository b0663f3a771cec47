/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tilde-renderer-policy.h"


static gboolean
software_forced (void)
{
  const char *value = g_getenv ("LIBGL_ALWAYS_SOFTWARE");

  /* Mesa reads it as a boolean: "1", "true", "yes" */
  return value != NULL && (g_str_equal (value, "1") || g_ascii_strcasecmp (value, "true") == 0
                           || g_ascii_strcasecmp (value, "yes") == 0);
}

static gboolean
has_render_node (const char *dri_dir)
{
  g_autoptr(GDir) dir = g_dir_open (dri_dir, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_prefix (name, "renderD"))
      return TRUE;
  return FALSE;
}

const char *
tilde_renderer_policy_choose (const char *dri_dir)
{
  if (software_forced () || !has_render_node (dri_dir))
    return "cairo";
  return NULL;
}

const char *
tilde_renderer_policy_apply (void)
{
  const char *renderer;

  if (g_getenv ("GSK_RENDERER") != NULL)
    return NULL;
  renderer = tilde_renderer_policy_choose ("/dev/dri");
  if (renderer != NULL)
    g_setenv ("GSK_RENDERER", renderer, TRUE);
  return renderer;
}
