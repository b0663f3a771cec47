/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-test"

#include "syntax-test-util.h"

#include <stdarg.h>

#include "tilde-diagnostic-render.h"

char *
syntax_test_model_path (const char *first, ...)
{
  g_autoptr(GPtrArray) parts = g_ptr_array_new ();
  va_list ap;

  g_ptr_array_add (parts, (gpointer) g_getenv ("G_TEST_SRCDIR"));
  g_ptr_array_add (parts, (gpointer) "syntax");
  g_ptr_array_add (parts, (gpointer) "models");
  va_start (ap, first);
  for (const char *p = first; p; p = va_arg (ap, const char *))
    g_ptr_array_add (parts, (gpointer) p);
  va_end (ap);
  g_ptr_array_add (parts, NULL);
  return g_build_filenamev ((char **) parts->pdata);
}

char *
syntax_test_read (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *text = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
}

TildeProgram *
syntax_test_parse (const char *name, const char *text, GPtrArray **diags)
{
  TildeParseFlags flags = g_str_has_suffix (name, ".stanfunctions")
                            ? TILDE_PARSE_FUNCTIONS_ONLY : TILDE_PARSE_DEFAULT;

  *diags = tilde_diagnostic_list_new ();
  return tilde_parse_buffer (name, NULL, text, -1, NULL, flags, *diags);
}

char *
syntax_test_render_all (GPtrArray *diags, TildeProgram *program)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < diags->len; i++)
    {
      g_autofree char *text =
        tilde_diagnostic_render_with_sources (g_ptr_array_index (diags, i),
                                              program ? program->sources : NULL);
      g_string_append (out, text);
    }
  return g_string_free (out, FALSE);
}

TildeDiagnostic *
syntax_test_first_error (GPtrArray *diags)
{
  for (guint i = 0; i < diags->len; i++)
    if (tilde_diagnostic_is_error (g_ptr_array_index (diags, i)))
      return g_ptr_array_index (diags, i);
  return NULL;
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

GPtrArray *
syntax_test_list (const char *dir, const char *suffix)
{
  g_autofree char *path = syntax_test_model_path (dir, NULL);
  g_autoptr(GDir) d = g_dir_open (path, 0, NULL);
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)))
    if (g_str_has_suffix (name, suffix))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  return names;
}
