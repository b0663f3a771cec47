/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-test"

#include "mir-test-util.h"

#include <string.h>

#include "mir/mir-lower.h"

static MirProgram *
lower_result (TildeCheckResult *r, TildeCheckResult **result)
{
  if (tilde_check_result_has_errors (r))
    {
      g_autofree char *text = tilde_check_result_render_all (r);
      g_test_message ("%s", text);
      g_test_fail ();
      tilde_check_result_unref (r);
      return NULL;
    }
  MirProgram *p = mir_lower_program (tilde_check_result_get_program (r));
  if (result)
    *result = r;
  else
    tilde_check_result_unref (r);
  return p;
}

MirProgram *
mir_test_lower (const char *name, const char *text, TildeCheckResult **result)
{
  return lower_result (tilde_frontend_check_buffer (name, NULL, text, -1, NULL), result);
}

MirProgram *
mir_test_lower_file (const char *path, TildeCheckResult **result)
{
  g_autoptr (GError) error = NULL;
  TildeCheckResult *r = tilde_frontend_check_file (path, NULL, &error);
  g_assert_no_error (error);
  return lower_result (r, result);
}

char *
mir_test_path (const char *dir, const char *name)
{
  if (g_strcmp0 (dir, "syntax") == 0)
    return g_test_build_filename (G_TEST_DIST, "syntax", "models", "valid", name, NULL);
  return g_test_build_filename (G_TEST_DIST, "mir", dir, name, NULL);
}

char *
mir_test_squash (const char *text)
{
  GString *out = g_string_new (NULL);
  gboolean space = FALSE;
  for (const char *p = text; *p; p++)
    {
      if (g_ascii_isspace (*p))
        {
          space = out->len > 0;
          continue;
        }
      /* a fold inside brackets leaves no space once joined */
      gboolean inside = out->len > 0 && strchr ("([", out->str[out->len - 1]) && TRUE;
      if (space && !inside && !strchr (")]", *p))
        g_string_append_c (out, ' ');
      space = FALSE;
      g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}

void
mir_test_assert_text (const char *what, const char *got, const char *expected)
{
  if (g_strcmp0 (got, expected) == 0)
    return;
  g_auto (GStrv) a = g_strsplit (got, "\n", -1);
  g_auto (GStrv) b = g_strsplit (expected, "\n", -1);
  guint i = 0;
  while (a[i] && b[i] && g_strcmp0 (a[i], b[i]) == 0)
    i++;
  g_test_message ("%s differs at line %u:\n  got:      %s\n  expected: %s\n--- got:\n%s",
                  what, i + 1, a[i] ? a[i] : "<end>", b[i] ? b[i] : "<end>", got);
  g_test_fail ();
}
