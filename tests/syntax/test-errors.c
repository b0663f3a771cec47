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

/* ---- rendering of diagnostics the parser does not produce ---- */

static const char *
lookup_fixed (const char *file, gpointer user_data)
{
  return user_data;
}

static void
test_render_semantic_multiline (void)
{
  /* stanc's output for test/integration/bad/bad_fundef_returntypes1.stan */
  const char *text = "functions {\n  real foo() {\n    return {1};\n    real x  = 54;\n"
                     "    return 1;\n  }\n}\n";
  g_autoptr(TildeDiagnostic) d =
    tilde_diagnostic_new (TILDE_SEVERITY_ERROR, TILDE_DIAG_SEMANTIC,
                          "bad_fundef_returntypes1.stan", 2, 13, 6, 3,
                          "Branches of function definition need to have the same return type. "
                          "Instead, found return types array[] int and int.");
  g_autofree char *out = tilde_diagnostic_render (d, lookup_fixed, (gpointer) text);

  g_assert_cmpstr (out, ==,
    "Semantic error in 'bad_fundef_returntypes1.stan', line 2, column 13 to line 6, column 3:\n"
    "   -------------------------------------------------\n"
    "     1:  functions {\n"
    "     2:    real foo() {\n"
    "                      ^\n"
    "     3:      return {1};\n"
    "     4:      real x  = 54;\n"
    "   -------------------------------------------------\n"
    "\n"
    "Branches of function definition need to have the same return type. Instead, found "
    "return types array[] int and int.\n");
}

static void
test_render_semantic_included (void)
{
  /* stanc's output for stanc_helper_with_bad_include_semantic_error.stan */
  g_autoptr(TildeDiagnostic) d =
    tilde_diagnostic_new (TILDE_SEVERITY_ERROR, TILDE_DIAG_SEMANTIC, "../included/sem-err.stan",
                          2, 2, 2, 8, "(Transformed) Parameters cannot be integers.");
  g_autofree char *out = NULL;

  tilde_diagnostic_add_include_frame (d, "../included/incl_stanc_helper_semantic_error.stan", 2, 2);
  tilde_diagnostic_add_include_frame (d, "stanc_helper_with_bad_include_semantic_error.stan", 2, 0);
  out = tilde_diagnostic_render (d, lookup_fixed, (gpointer) "  real z;\n  int w;\n");
  g_assert_cmpstr (out, ==,
    "Semantic error in '../included/sem-err.stan', line 2, column 2, included from\n"
    "'../included/incl_stanc_helper_semantic_error.stan', line 2, column 2, included from\n"
    "'stanc_helper_with_bad_include_semantic_error.stan', line 2, column 0:\n"
    "   -------------------------------------------------\n"
    "     1:    real z;\n"
    "     2:    int w;\n"
    "           ^\n"
    "   -------------------------------------------------\n"
    "\n"
    "(Transformed) Parameters cannot be integers.\n");
}

static void
test_render_without_text_or_location (void)
{
  g_autoptr(TildeDiagnostic) no_loc =
    tilde_diagnostic_new (TILDE_SEVERITY_ERROR, TILDE_DIAG_SEMANTIC, NULL, 0, 0, 0, 0,
                          "file 'x.stan' not found or cannot be opened");
  g_autoptr(TildeDiagnostic) no_text =
    tilde_diagnostic_new (TILDE_SEVERITY_ERROR, TILDE_DIAG_PARSING, "gone.stan", 1, 0, 1, 4,
                          "Expected \"{\" after \"model\".");
  g_autofree char *a = tilde_diagnostic_render (no_loc, NULL, NULL);
  g_autofree char *b = tilde_diagnostic_render (no_text, NULL, NULL);

  g_assert_cmpstr (a, ==, "Error: file 'x.stan' not found or cannot be opened\n");
  g_assert_cmpstr (b, ==, "Syntax error in 'gone.stan', line 1, column 0 to column 4, parsing error:\n"
                          "\n"
                          "Expected \"{\" after \"model\".\n");
}

static void
test_render_caret_past_line_end (void)
{
  g_autofree char *out = tilde_diagnostic_render_excerpt ("ab\n", 1, 5);

  g_assert_cmpstr (out, ==,
    "   -------------------------------------------------\n"
    "     1:  ab\n"
    "              ^\n"
    "   -------------------------------------------------\n");
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
  g_test_add_func ("/engine/render/semantic-multiline", test_render_semantic_multiline);
  g_test_add_func ("/engine/render/semantic-included", test_render_semantic_included);
  g_test_add_func ("/engine/render/without-text-or-location", test_render_without_text_or_location);
  g_test_add_func ("/engine/render/caret-past-line-end", test_render_caret_past_line_end);
  return g_test_run ();
}
