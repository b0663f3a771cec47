/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * #include handling. The tests run inside models/included with the include
 * path "../included", the layout of stanc3's own include tests, so that file
 * names print exactly as in stanc's expected output.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <glib/gstdio.h>
#include <string.h>

#include "syntax/printer.h"
#include "tilde-diagnostic-render.h"
#include "syntax-test-util.h"

static const char *const include_paths[] = { "../included", NULL };

static TildeProgram *
parse_included (const char *name, GPtrArray *diags)
{
  g_autoptr(GError) error = NULL;
  TildeProgram *program = tilde_parse_file (name, include_paths, 0, diags, &error);

  g_assert_no_error (error);
  return program;
}

static void
check_expected (gconstpointer data)
{
  const char *base = data;
  g_autofree char *stan = g_strconcat (base, ".stan", NULL);
  g_autofree char *exp = g_strconcat (base, ".expected", NULL);
  g_autofree char *expected = syntax_test_read (exp);
  g_autoptr(GPtrArray) diags = tilde_diagnostic_list_new ();
  g_autoptr(TildeProgram) program = parse_included (stan, diags);
  TildeDiagnostic *first = syntax_test_first_error (diags);
  g_autofree char *rendered = NULL;

  g_assert_nonnull (first);
  rendered = tilde_diagnostic_render_with_sources (first, program->sources);
  g_assert_cmpstr (rendered, ==, expected);
}

static void
test_nested (void)
{
  g_autoptr(GPtrArray) diags = tilde_diagnostic_list_new ();
  g_autoptr(TildeProgram) p = parse_included ("stanc_helper_with_good_include.stan", diags);
  TildeBlock *params = p->blocks[TILDE_BLOCK_PARAMETERS];
  const TildeSpan *w;
  g_autoptr(TildeDiagnostic) d = NULL;
  const TildeIncludeFrame *frame;

  g_assert_cmpuint (diags->len, ==, 0);
  g_assert_cmpint (params->n_stmts, ==, 3);
  g_assert_cmpstr (params->stmts[0]->u.var_decl.items[0].ident.name, ==, "y");
  g_assert_cmpstr (params->stmts[1]->u.var_decl.items[0].ident.name, ==, "w");
  g_assert_cmpstr (params->stmts[2]->u.var_decl.items[0].ident.name, ==, "x");
  w = &params->stmts[1]->span;
  g_assert_cmpstr (w->file->name, ==, "../included/incl_stanc_helper2.stan");
  g_assert_cmpint (w->begin_line, ==, 1);
  g_assert_cmpint (w->begin_column, ==, 2);
  g_assert_cmpint (w->file->depth, ==, 2);
  g_assert_cmpstr (w->file->included_from->name, ==, "../included/incl_stanc_helper.stan");
  g_assert_cmpint (w->file->include_line, ==, 2);
  g_assert_cmpint (w->file->include_column, ==, 2);
  /* Ordering across files uses the position of the outermost directive. */
  g_assert_cmpuint (tilde_span_root_offset (w), ==, strlen ("parameters {\n"));

  d = tilde_diagnostic_new (TILDE_SEVERITY_ERROR, TILDE_DIAG_SEMANTIC, w->file->name,
                            w->begin_line, w->begin_column, w->end_line, w->end_column, "m");
  tilde_source_file_add_include_frames (w->file, d);
  g_assert_cmpuint (d->include_frames->len, ==, 2);
  frame = &g_array_index (d->include_frames, TildeIncludeFrame, 1);
  g_assert_cmpstr (frame->file, ==, "stanc_helper_with_good_include.stan");
  g_assert_cmpint (frame->line, ==, 2);
  g_assert_cmpint (frame->column, ==, 0);
}

static void
test_directive_forms (void)
{
  const char *const names[] = { "included-quote.stan", "included-brackets.stan" };

  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(GPtrArray) diags = tilde_diagnostic_list_new ();
      g_autoptr(TildeProgram) p = parse_included (names[i], diags);

      g_assert_cmpuint (diags->len, ==, 0);
      g_assert_cmpint (p->blocks[TILDE_BLOCK_DATA]->n_stmts, ==, 3);
    }
}

static void
test_include_in_expression (void)
{
  g_autoptr(GPtrArray) diags = tilde_diagnostic_list_new ();
  g_autoptr(TildeProgram) p = parse_included ("include-in-expression.stan", diags);
  TildeStmt *s;
  g_autofree char *printed = NULL;

  /* Includes are spliced into the token stream, anywhere. */
  g_assert_cmpuint (diags->len, ==, 0);
  s = p->blocks[TILDE_BLOCK_TRANSFORMED_DATA]->stmts[0];
  printed = tilde_print_expr (s->u.var_decl.items[0].init);
  g_assert_cmpstr (printed, ==, "10 * 1 + 2");
}

static void
test_missing (void)
{
  g_autoptr(GPtrArray) diags = tilde_diagnostic_list_new ();
  g_autoptr(GPtrArray) none = tilde_diagnostic_list_new ();
  g_autoptr(TildeProgram) p = parse_included ("missing-include.stan", diags);
  g_autoptr(TildeProgram) q = tilde_parse_buffer ("m.stan", NULL, "#include nowhere.stan\n", -1,
                                                  NULL, 0, none);
  TildeDiagnostic *d = syntax_test_first_error (diags);

  g_assert_nonnull (d);
  g_assert_cmpint (d->kind, ==, TILDE_DIAG_INCLUDE);
  g_assert_cmpint (d->begin_line, ==, 2);
  g_assert_cmpint (d->begin_column, ==, 0);
  g_assert_cmpstr (d->message, ==, "Could not find include file 'nowhere.stan' in specified "
                                   "include paths.\nCurrent include paths: ../included");
  /* Parsing goes on after the directive. */
  g_assert_nonnull (p->blocks[TILDE_BLOCK_MODEL]);
  g_assert_cmpstr (syntax_test_first_error (none)->message, ==,
                   "Could not find include file 'nowhere.stan' in specified include paths.\n"
                   "Current include paths: None");
}

static void
test_own_directory (void)
{
  g_autoptr(GPtrArray) diags = tilde_diagnostic_list_new ();
  g_autoptr(GPtrArray) diags2 = tilde_diagnostic_list_new ();
  g_autofree char *text = syntax_test_read ("needs-own-directory.stan");
  g_autoptr(GError) error = NULL;
  g_autoptr(TildeProgram) stanc_like = tilde_parse_file ("needs-own-directory.stan", NULL, 0,
                                                         diags, &error);
  g_autoptr(TildeProgram) editor = tilde_parse_buffer ("needs-own-directory.stan", ".", text, -1,
                                                       NULL, 0, diags2);

  /* stanc does not look next to the including file... */
  g_assert_no_error (error);
  g_assert_nonnull (syntax_test_first_error (diags));
  g_assert_cmpint (syntax_test_first_error (diags)->kind, ==, TILDE_DIAG_INCLUDE);
  /* ...the editor can ask for it. */
  g_assert_cmpuint (diags2->len, ==, 0);
  g_assert_cmpstr (editor->blocks[TILDE_BLOCK_DATA]->stmts[0]->span.file->name, ==,
                   "./sibling.stan");
}

static void
test_virtual_files (void)
{
  g_autoptr(TildeSourceSet) set = tilde_source_set_new ();
  g_autoptr(GPtrArray) diags = tilde_diagnostic_list_new ();
  g_autoptr(TildeProgram) p = NULL;

  tilde_source_set_add_virtual_file (set, "lib/defs.stan", "  int N;\n");
  tilde_source_set_add_include_path (set, "lib");
  tilde_source_set_set_main_buffer (set, "main.stan", NULL, "data {\n#include defs.stan\n}\n", -1);
  p = tilde_parse_program (set, 0, diags);
  g_assert_cmpuint (diags->len, ==, 0);
  g_assert_cmpstr (p->blocks[TILDE_BLOCK_DATA]->stmts[0]->span.file->name, ==, "lib/defs.stan");
  g_assert_cmpstr (tilde_source_set_lookup_text (set, "lib/defs.stan"), ==, "  int N;\n");
  g_assert_cmpuint (tilde_source_set_get_n_files (set), ==, 2);
}

static void
test_directives_recorded (void)
{
  g_autoptr(GPtrArray) diags = tilde_diagnostic_list_new ();
  g_autoptr(TildeProgram) p = parse_included ("keep-include.stan", diags);
  int includes = 0;

  g_assert_cmpuint (diags->len, ==, 0);
  for (int i = 0; i < p->n_comments; i++)
    if (p->comments[i].kind == TILDE_COMMENT_INCLUDE)
      {
        g_autofree char *text = g_strndup (p->comments[i].text, p->comments[i].length);

        g_assert_cmpstr (text, ==, "#include helpers.stanfunctions");
        g_assert_cmpint (p->comments[i].span.begin_line, ==, 3);
        includes++;
      }
  g_assert_cmpint (includes, ==, 1);
}

int
main (int argc, char **argv)
{
  g_autofree char *dir = NULL;
  g_autoptr(GPtrArray) expected = NULL;

  g_test_init (&argc, &argv, NULL);
  dir = syntax_test_model_path ("included", NULL);
  expected = syntax_test_list ("included", ".expected");
  g_assert_cmpint (g_chdir (dir), ==, 0);
  for (guint i = 0; i < expected->len; i++)
    {
      char *name = expected->pdata[i];
      g_autofree char *test = NULL;

      name[strlen (name) - strlen (".expected")] = '\0';
      test = g_strdup_printf ("/engine/include/stanc-expected/%s", name);
      g_test_add_data_func (test, name, check_expected);
    }
  g_test_add_func ("/engine/include/nested", test_nested);
  g_test_add_func ("/engine/include/directive-forms", test_directive_forms);
  g_test_add_func ("/engine/include/in-expression", test_include_in_expression);
  g_test_add_func ("/engine/include/missing", test_missing);
  g_test_add_func ("/engine/include/own-directory", test_own_directory);
  g_test_add_func ("/engine/include/virtual-files", test_virtual_files);
  g_test_add_func ("/engine/include/directives-recorded", test_directives_recorded);
  return g_test_run ();
}
