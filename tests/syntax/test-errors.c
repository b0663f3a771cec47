/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Every program under models/invalid has an .expected file with the text
 * stanc prints for it (taken from stanc3's own test expectations). The first
 * error we report must render to exactly that text.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <string.h>

#include "tilde-diagnostic-render.h"
#include "syntax-test-util.h"

static void
check_fixture (gconstpointer data)
{
  const char *name = data;
  g_autofree char *path = syntax_test_model_path ("invalid", name, NULL);
  g_autofree char *base = g_strndup (name, strlen (name) - strlen (".stan"));
  g_autofree char *expected_name = g_strconcat (base, ".expected", NULL);
  g_autofree char *expected_path = syntax_test_model_path ("invalid", expected_name, NULL);
  g_autofree char *text = syntax_test_read (path);
  g_autofree char *expected = syntax_test_read (expected_path);
  g_autoptr(GPtrArray) diags = NULL;
  g_autoptr(TildeProgram) program = syntax_test_parse (name, text, &diags);
  TildeDiagnostic *first = syntax_test_first_error (diags);
  g_autofree char *rendered = NULL;

  g_assert_nonnull (first);
  rendered = tilde_diagnostic_render_with_sources (first, program->sources);
  g_assert_cmpstr (rendered, ==, expected);
}

int
main (int argc, char **argv)
{
  g_autoptr(GPtrArray) names = NULL;

  g_test_init (&argc, &argv, NULL);
  names = syntax_test_list ("invalid", ".stan");
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *test = g_strdup_printf ("/engine/parser/stanc-errors/%s",
                                               (char *) names->pdata[i]);
      g_test_add_data_func (test, names->pdata[i], check_fixture);
    }
  return g_test_run ();
}
