/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-test"

/* Pedantic mode against stanc: each fixture under models/pedantic holds a
 * program and, in its .expected file, the warnings stanc's --warn-pedantic
 * prints for it (an empty file: none, which is how the known false alarms
 * of stanc are pinned down). Line breaks inside a warning are not compared,
 * only the text. The warnings come from the front end with pedantic mode
 * on (the tree's checks together with the MIR's analyses). Every corpus
 * program must go through pedantic mode without trouble, and a tree the
 * checker never saw must not upset the tree's checks. */

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "tilde-frontend.h"
#include "tilde-diagnostic-render.h"
#include "semantics/pedantic.h"
#include "syntax/parser.h"

static char *
fixtures_dir (void)
{
  return g_test_build_filename (G_TEST_DIST, "semantics", "models", "pedantic", NULL);
}

static char *
read_file (const char *path)
{
  g_autoptr (GError) error = NULL;
  char *text = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
}

/* stanc's text with its line breaks inside warnings undone. */
static char *
unwrap (const char *text)
{
  g_auto (GStrv) parts = g_strsplit (text, "\n    ", -1);

  return g_strjoinv (" ", parts);
}

static TildeCheckResult *
check_fixture (const char *path, const TildeFrontendOptions *opts)
{
  g_autofree char *text = read_file (path);
  g_autofree char *base = g_path_get_basename (path);

  return tilde_frontend_check_buffer (base, NULL, text, -1, opts);
}

/* The diagnostics of one kind, in the order found. */
static GPtrArray *
warnings_of_kind (TildeCheckResult *r, TildeDiagnosticKind kind)
{
  GPtrArray *all = tilde_check_result_get_diagnostics (r);
  GPtrArray *diags = g_ptr_array_new ();

  for (guint i = 0; i < all->len; i++)
    if (((TildeDiagnostic *) g_ptr_array_index (all, i))->kind == kind)
      g_ptr_array_add (diags, g_ptr_array_index (all, i));
  return diags;
}

static char *
render_all (GPtrArray *diags, TildeSourceSet *sources)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < diags->len; i++)
    {
      g_autofree char *text = tilde_diagnostic_render_with_sources (g_ptr_array_index (diags, i),
                                                                    sources);
      g_string_append (out, text);
    }
  return g_string_free (out, FALSE);
}

static void
assert_all_kind (GPtrArray *diags, TildeDiagnosticKind kind)
{
  for (guint i = 0; i < diags->len; i++)
    {
      const TildeDiagnostic *d = g_ptr_array_index (diags, i);

      g_assert_cmpint (d->kind, ==, kind);
      g_assert_cmpint (d->severity, ==, TILDE_SEVERITY_WARNING);
      g_assert_nonnull (d->message);
      g_assert_cmpuint (strlen (d->message), >, 0);
    }
}

/* Located warnings come first, last position first (stanc prints its set
 * backwards), then those without a location; positions are sane. */
static void
assert_stanc_order (GPtrArray *diags)
{
  const TildeDiagnostic *prev = NULL;

  for (guint i = 0; i < diags->len; i++)
    {
      const TildeDiagnostic *d = g_ptr_array_index (diags, i);

      if (d->begin_line == 0)
        {
          g_assert_null (d->file);
          prev = d;
          continue;
        }
      g_assert_nonnull (d->file);
      g_assert_cmpint (d->begin_column, >=, 0);
      g_assert_true (d->end_line > d->begin_line
                     || (d->end_line == d->begin_line && d->end_column >= d->begin_column));
      if (prev)
        {
          g_assert_cmpint (prev->begin_line, >, 0);
          if (g_str_equal (prev->file, d->file))
            g_assert_true (prev->begin_line > d->begin_line
                           || (prev->begin_line == d->begin_line
                               && prev->begin_column >= d->begin_column));
        }
      prev = d;
    }
}

/* ------------------------------------------------------------ fixtures */

static void
test_fixture (gconstpointer data)
{
  const char *path = data;
  TildeFrontendOptions opts = { .pedantic = TRUE };
  g_autoptr (TildeCheckResult) r = check_fixture (path, &opts);
  g_autofree char *stem = g_strndup (path, strlen (path) - strlen (".stan"));
  g_autofree char *expected_path = g_strconcat (stem, ".expected", NULL);
  g_autofree char *expected = read_file (expected_path);
  g_autoptr (GPtrArray) diags = NULL;
  g_autofree char *actual = NULL;
  g_autofree char *actual_flat = NULL;
  g_autofree char *expected_flat = NULL;

  if (tilde_check_result_has_errors (r))
    {
      g_autofree char *text = tilde_check_result_render_first_error (r);

      g_test_message ("%s does not check:\n%s", path, text);
      g_test_fail ();
      return;
    }
  diags = warnings_of_kind (r, TILDE_DIAG_PEDANTIC);
  assert_all_kind (diags, TILDE_DIAG_PEDANTIC);
  assert_stanc_order (diags);
  actual = render_all (diags, tilde_check_result_get_sources (r));
  actual_flat = unwrap (actual);
  expected_flat = unwrap (expected);
  g_assert_cmpstr (actual_flat, ==, expected_flat);
}

static void
add_fixture_tests (void)
{
  g_autofree char *dir = fixtures_dir ();
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)))
    if (g_str_has_suffix (name, ".stan"))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, (GCompareFunc) g_ascii_strcasecmp);
  g_assert_cmpuint (names->len, >, 0);
  for (guint i = 0; i < names->len; i++)
    {
      const char *n = g_ptr_array_index (names, i);
      g_autofree char *stem = g_strndup (n, strlen (n) - strlen (".stan"));
      g_autofree char *test = g_strdup_printf ("/engine/semantics/pedantic/fixtures/%s", stem);

      g_test_add_data_func_full (test, g_build_filename (dir, n, NULL), test_fixture, g_free);
    }
}

/* ------------------------------------------------------------ corpora */

static void
test_corpus_file (gconstpointer data)
{
  const char *path = data;
  g_autoptr (GError) error = NULL;
  TildeFrontendOptions pedantic_opts = { .pedantic = TRUE };
  TildeFrontendOptions uninit_opts = { .warn_uninitialized = TRUE };
  g_autoptr (TildeCheckResult) r = tilde_frontend_check_file (path, &pedantic_opts, &error);
  g_autoptr (TildeCheckResult) u = NULL;
  g_autoptr (GPtrArray) diags = NULL;
  g_autoptr (GPtrArray) uninit = NULL;

  g_assert_no_error (error);
  if (tilde_check_result_get_program (r) == NULL)
    {
      g_test_skip ("does not parse");
      return;
    }
  if (tilde_check_result_has_errors (r))
    {
      /* The front end stops at the errors, but the tree's checks must cope
       * with whatever the checker left untyped. */
      g_autoptr (GPtrArray) tree = tilde_diagnostic_list_new ();

      tilde_pedantic_check_tree (tilde_check_result_get_program (r), NULL, tree);
      assert_all_kind (tree, TILDE_DIAG_PEDANTIC);
      return;
    }
  diags = warnings_of_kind (r, TILDE_DIAG_PEDANTIC);
  assert_all_kind (diags, TILDE_DIAG_PEDANTIC);
  assert_stanc_order (diags);
  u = tilde_frontend_check_file (path, &uninit_opts, &error);
  g_assert_no_error (error);
  uninit = warnings_of_kind (u, TILDE_DIAG_UNINITIALIZED);
  assert_all_kind (uninit, TILDE_DIAG_UNINITIALIZED);
  for (guint i = 0; i < uninit->len; i++)
    {
      const TildeDiagnostic *w = g_ptr_array_index (uninit, i);
      gboolean also_pedantic = FALSE;

      for (guint k = 0; k < diags->len && !also_pedantic; k++)
        {
          const TildeDiagnostic *p = g_ptr_array_index (diags, k);

          also_pedantic = p->begin_line == w->begin_line && p->begin_column == w->begin_column
                          && g_str_equal (p->message, w->message);
        }
      g_assert_true (also_pedantic);
    }
}

static guint
add_corpus_tests (const char *dir, const char *kind)
{
  g_autoptr (GDir) d = dir ? g_dir_open (dir, 0, NULL) : NULL;
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (d == NULL)
    return 0;
  while ((name = g_dir_read_name (d)))
    {
      char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          char *model = g_build_filename (path, "model.stan", NULL);

          g_free (path);
          path = model;
        }
      if ((g_str_has_suffix (path, ".stan") || g_str_has_suffix (path, ".stanfunctions"))
          && g_file_test (path, G_FILE_TEST_EXISTS))
        g_ptr_array_add (paths, path);
      else
        g_free (path);
    }
  g_ptr_array_sort (paths, (GCompareFunc) g_ascii_strcasecmp);
  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      g_autofree char *parent = g_path_get_dirname (path);
      g_autofree char *label = g_str_has_suffix (path, "/model.stan")
                               ? g_path_get_basename (parent) : g_path_get_basename (path);
      g_autofree char *test = g_strdup_printf ("/engine/semantics/pedantic/%s/%s", kind, label);

      g_test_add_data_func_full (test, g_strdup (path), test_corpus_file, g_free);
    }
  return paths->len;
}

/* ------------------------------------------------------------ entry points */

/* --warn-uninitialized gives just those warnings, with their own kind. */
static void
test_uninitialized_only (void)
{
  g_autofree char *dir = fixtures_dir ();
  g_autofree char *path = g_build_filename (dir, "uninitialized.stan", NULL);
  TildeFrontendOptions opts = { .warn_uninitialized = TRUE };
  g_autoptr (TildeCheckResult) r = check_fixture (path, &opts);
  g_autoptr (GPtrArray) diags = NULL;
  g_autoptr (GPtrArray) pedantic = NULL;
  static const struct { int line, column; const char *name; } expected[] = {
    { 16, 11, "g" }, { 12, 18, "b" }, { 12, 14, "a" },
  };

  g_assert_false (tilde_check_result_has_errors (r));
  pedantic = warnings_of_kind (r, TILDE_DIAG_PEDANTIC);
  g_assert_cmpuint (pedantic->len, ==, 0);
  diags = warnings_of_kind (r, TILDE_DIAG_UNINITIALIZED);
  assert_all_kind (diags, TILDE_DIAG_UNINITIALIZED);
  g_assert_cmpuint (diags->len, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < diags->len; i++)
    {
      const TildeDiagnostic *d = g_ptr_array_index (diags, i);
      g_autofree char *message = g_strdup_printf ("The variable %s may not have been assigned "
                                                  "a value before its use.", expected[i].name);

      g_assert_cmpint (d->begin_line, ==, expected[i].line);
      g_assert_cmpint (d->begin_column, ==, expected[i].column);
      g_assert_cmpint (d->end_column, ==, expected[i].column + 1);
      g_assert_cmpstr (d->file, ==, "uninitialized.stan");
      g_assert_cmpstr (d->message, ==, message);
    }
}

/* A tree straight from the parser has no checker slots filled: the block
 * variables are still found by name, and nothing breaks. The warning about
 * control flow comes from the MIR, which only a checked program has. */
static void
test_unchecked_tree (void)
{
  const char *text =
    "parameters {\n"
    "  real a;\n"
    "  real<lower=0, upper=10> b;\n"
    "}\n"
    "model {\n"
    "  real z;\n"
    "  a ~ normal(0, 1);\n"
    "  if (a > z) target += 1;\n"
    "}\n";
  g_autoptr (GPtrArray) parse_diags = tilde_diagnostic_list_new ();
  g_autoptr (TildeProgram) program = tilde_parse_buffer ("unchecked.stan", NULL, text, -1, NULL,
                                                          TILDE_PARSE_DEFAULT, parse_diags);
  g_autoptr (GPtrArray) diags = tilde_diagnostic_list_new ();
  TildeFrontendOptions opts = { .pedantic = TRUE };
  g_autoptr (TildeCheckResult) r = tilde_frontend_check_buffer ("unchecked.stan", NULL, text, -1,
                                                                &opts);
  g_autoptr (GPtrArray) checked = NULL;
  gboolean unused_b = FALSE, hard_b = FALSE, control_a = FALSE;

  g_assert_false (tilde_diagnostic_list_has_errors (parse_diags));
  tilde_pedantic_check_tree (program, NULL, diags);
  assert_all_kind (diags, TILDE_DIAG_PEDANTIC);
  for (guint i = 0; i < diags->len; i++)
    {
      const TildeDiagnostic *d = g_ptr_array_index (diags, i);

      unused_b |= g_str_has_prefix (d->message, "The parameter b was declared but");
      hard_b |= g_str_has_prefix (d->message, "Your Stan program has a parameter b ");
    }
  g_assert_true (unused_b);
  g_assert_true (hard_b);
  checked = warnings_of_kind (r, TILDE_DIAG_PEDANTIC);
  for (guint i = 0; i < checked->len; i++)
    {
      const TildeDiagnostic *d = g_ptr_array_index (checked, i);

      control_a |= d->begin_line == 8 && g_str_equal (d->message, "A control flow statement "
                                                        "depends on parameter(s): a.");
    }
  g_assert_true (control_a);
}

/* Warnings in an included file name it and the chain that led there. */
static void
test_included_file (void)
{
  const char *main_text =
    "parameters {\n"
    "  real mu;\n"
    "  real sigma;\n"
    "}\n"
    "model {\n"
    "#include \"likelihood.stan\"\n"
    "}\n";
  g_autoptr (GPtrArray) diags = NULL;
  g_autoptr (TildeCheckResult) r = NULL;
  const char *const paths[] = { "inc", NULL };
  TildeFrontendOptions opts = { paths, FALSE, FALSE, FALSE, TRUE };
  const TildeDiagnostic *d = NULL;

  {
    g_autofree char *dir = g_dir_make_tmp ("tilde-pedantic-XXXXXX", NULL);
    g_autofree char *inc = g_build_filename (dir, "inc", NULL);
    g_autofree char *inc_file = g_build_filename (inc, "likelihood.stan", NULL);
    g_autofree char *main_file = g_build_filename (dir, "main.stan", NULL);
    g_autofree char *cwd = g_get_current_dir ();

    g_assert_cmpint (g_mkdir (inc, 0700), ==, 0);
    g_assert_true (g_file_set_contents (inc_file, "mu ~ normal(0, 1);\nmu ~ normal(0, sigma);\n",
                                        -1, NULL));
    g_assert_true (g_file_set_contents (main_file, main_text, -1, NULL));
    g_assert_cmpint (g_chdir (dir), ==, 0);
    r = tilde_frontend_check_file ("main.stan", &opts, NULL);
    g_assert_cmpint (g_chdir (cwd), ==, 0);
    g_remove (inc_file);
    g_remove (main_file);
    g_rmdir (inc);
    g_rmdir (dir);
  }
  g_assert_nonnull (r);
  g_assert_false (tilde_check_result_has_errors (r));
  diags = warnings_of_kind (r, TILDE_DIAG_PEDANTIC);
  for (guint i = 0; i < diags->len; i++)
    if (g_str_has_prefix (((TildeDiagnostic *) g_ptr_array_index (diags, i))->message,
                          "A normal distribution is given parameter sigma"))
      d = g_ptr_array_index (diags, i);
  g_assert_nonnull (d);
  g_assert_cmpstr (d->file, ==, "inc/likelihood.stan");
  g_assert_cmpint (d->begin_line, ==, 2);
  g_assert_cmpint (d->begin_column, ==, 15);
  g_assert_nonnull (d->include_frames);
  g_assert_cmpuint (d->include_frames->len, ==, 1);
  g_assert_cmpstr (g_array_index (d->include_frames, TildeIncludeFrame, 0).file, ==, "main.stan");
  g_assert_cmpint (g_array_index (d->include_frames, TildeIncludeFrame, 0).line, ==, 6);
}

/* What the tree's checks learn from the MIR's analyses: the value a
 * variable was given (in a function body too, where stanc's substitution
 * puts the warning at the value's place), and that a read before any
 * assignment is not warned about when the variable is @silent. */
static void
test_flow_facts (void)
{
  const char *text =
    "functions {\n"                                                /* 1 */
    "  real f_lpdf(real x, real s) {\n"                            /* 2 */
    "    real t = -1;\n"                                           /* 3 */
    "    return normal_lupdf(x | 0, t) + normal_lupdf(x | 0, s);\n"  /* 4 */
    "  }\n"                                                        /* 5 */
    "}\n"                                                          /* 6 */
    "parameters {\n"                                               /* 7 */
    "  real<lower=0> mu;\n"                                        /* 8 */
    "}\n"                                                          /* 9 */
    "model {\n"                                                    /* 10 */
    "  @silent real quiet;\n"                                      /* 11 */
    "  real loud;\n"                                               /* 12 */
    "  real scale = 2;\n"                                          /* 13 */
    "  scale = -scale;\n"                                          /* 14 */
    "  mu ~ normal(quiet + loud, scale);\n"                        /* 15 */
    "  target += f_lupdf(mu | 1);\n"                               /* 16 */
    "}\n";
  TildeFrontendOptions opts = { .pedantic = TRUE };
  g_autoptr (TildeCheckResult) r = tilde_frontend_check_buffer ("flow.stan", NULL, text, -1,
                                                                &opts);
  g_autoptr (GPtrArray) diags = NULL;
  gboolean value_in_function = FALSE, loud = FALSE, quiet = FALSE, scale = FALSE;

  g_assert_false (tilde_check_result_has_errors (r));
  diags = warnings_of_kind (r, TILDE_DIAG_PEDANTIC);
  for (guint i = 0; i < diags->len; i++)
    {
      const TildeDiagnostic *d = g_ptr_array_index (diags, i);

      value_in_function |= d->begin_line == 3 && d->begin_column == 13
                           && g_str_equal (d->message, "A normal distribution is given value -1 "
                                           "as a scale parameter (argument 2), but a scale "
                                           "parameter is not strictly positive.");
      loud |= d->begin_line == 15
              && g_str_equal (d->message, "The variable loud may not have been assigned a "
                              "value before its use.");
      quiet |= g_str_has_prefix (d->message, "The variable quiet");
      /* scale = -scale takes the value the declaration gave scale */
      scale |= d->begin_line == 14 && d->begin_column == 10 && d->end_column == 16
               && g_str_equal (d->message, "A normal distribution is given value -2 as a scale "
                               "parameter (argument 2), but a scale parameter is not strictly "
                               "positive.");
    }
  g_assert_true (value_in_function);
  g_assert_true (loud);
  g_assert_false (quiet);
  g_assert_true (scale);
}

int
main (int argc, char **argv)
{
  const char *root;

  g_test_init (&argc, &argv, NULL);
  add_fixture_tests ();
  root = g_getenv ("TILDE_SOURCE_ROOT");
  {
    g_autofree char *syntax = root ? g_build_filename (root, "tests", "syntax", "models",
                                                       "valid", NULL) : NULL;

    g_assert_cmpuint (add_corpus_tests (syntax, "syntax-corpus"), >, 0);
    add_corpus_tests (g_getenv ("TILDE_REFERENCE_DIR"), "reference-models");
    add_corpus_tests (g_getenv ("TILDE_EXAMPLES_DIR"), "examples");
  }
  g_test_add_func ("/engine/semantics/pedantic/uninitialized-only", test_uninitialized_only);
  g_test_add_func ("/engine/semantics/pedantic/unchecked-tree", test_unchecked_tree);
  g_test_add_func ("/engine/semantics/pedantic/included-file", test_included_file);
  g_test_add_func ("/engine/semantics/pedantic/flow-facts", test_flow_facts);
  return g_test_run ();
}
