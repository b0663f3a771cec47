/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-test"

/* The type checker against stanc's behaviour: fixtures under models/bad hold
 * a program and the text stanc prints for its first error; models/good hold
 * programs stanc accepts (with the warnings it prints, when a .expected file
 * is there); the syntax corpus, the reference models and the examples must
 * all check cleanly; and small programs pin down types, AD levels, symbols
 * and error recovery. */

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "tilde-frontend.h"
#include "semantics/check.h"
#include "semantics/types.h"

static char *
models_dir (const char *kind)
{
  return g_test_build_filename (G_TEST_DIST, "semantics", "models", kind, NULL);
}

static TildeCheckResult *
check_text (const char *name, const char *text)
{
  return tilde_frontend_check_buffer (name, NULL, text, -1, NULL);
}

/* A fixture read from disk but shown under its base name, as stanc prints
 * the file name it was given. */
static TildeCheckResult *
check_fixture (const char *path)
{
  g_autofree char *text = NULL;
  g_autofree char *base = g_path_get_basename (path);
  g_autoptr (GError) error = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return check_text (base, text);
}

static char *
read_expected (const char *stan_path)
{
  g_autofree char *stem = g_strndup (stan_path, strlen (stan_path) - strlen (".stan"));
  g_autofree char *path = g_strconcat (stem, ".expected", NULL);
  char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  return text;
}

static guint
count_errors (TildeCheckResult *r)
{
  GPtrArray *diags = tilde_check_result_get_diagnostics (r);
  guint n = 0;

  for (guint i = 0; i < diags->len; i++)
    n += tilde_diagnostic_is_error (g_ptr_array_index (diags, i));
  return n;
}

static void
assert_no_errors (TildeCheckResult *r, const char *what)
{
  if (tilde_check_result_has_errors (r))
    {
      g_autofree char *text = tilde_check_result_render_first_error (r);
      g_test_message ("%s:\n%s", what, text);
      g_test_fail ();
    }
}

/* ------------------------------------------------------------ fixtures */

static void
test_bad_fixture (gconstpointer data)
{
  const char *path = data;
  g_autoptr (TildeCheckResult) r = check_fixture (path);
  g_autofree char *expected = read_expected (path);
  g_autofree char *actual = tilde_check_result_render_first_error (r);
  const TildeDiagnostic *first = tilde_check_result_get_first_error (r);

  g_assert_nonnull (expected);
  g_assert_nonnull (actual);
  g_assert_cmpint (first->kind, ==, TILDE_DIAG_SEMANTIC);
  g_assert_cmpstr (actual, ==, expected);
}

static void
test_good_fixture (gconstpointer data)
{
  const char *path = data;
  g_autoptr (TildeCheckResult) r = check_fixture (path);
  g_autofree char *expected = read_expected (path);

  assert_no_errors (r, path);
  g_assert_nonnull (tilde_check_result_get_program (r));
  if (expected)
    {
      g_autofree char *actual = tilde_check_result_render_all (r);
      g_assert_cmpstr (actual, ==, expected);
    }
}

static void
add_fixture_tests (const char *kind, GTestDataFunc func)
{
  g_autofree char *dir = models_dir (kind);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert (d != NULL);
  while ((name = g_dir_read_name (d)))
    if (g_str_has_suffix (name, ".stan"))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, (GCompareFunc) g_ascii_strcasecmp);
  g_assert_cmpuint (names->len, >, 0);
  for (guint i = 0; i < names->len; i++)
    {
      const char *n = g_ptr_array_index (names, i);
      g_autofree char *stem = g_strndup (n, strlen (n) - strlen (".stan"));
      g_autofree char *test = g_strdup_printf ("/engine/semantics/checker/%s/%s", kind, stem);

      g_test_add_data_func_full (test, g_build_filename (dir, n, NULL), func, g_free);
    }
}

/* ------------------------------------------------------------ corpora */

/* Corpus programs with a real type error, which the checker must find: the
 * first error's line. A corrected program (no error at all) passes too. */
static const struct { const char *file; int line; } known_ill_typed[] = {
  /* `w = (A' * v)';` assigns a row_vector to the vector w */
  { "all_expressions.stan", 42 },
};

static void
test_corpus_file (gconstpointer data)
{
  const char *path = data;
  g_autofree char *base = g_path_get_basename (path);
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeCheckResult) r = tilde_frontend_check_file (path, NULL, &error);

  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (known_ill_typed); i++)
    if (strcmp (base, known_ill_typed[i].file) == 0 && tilde_check_result_has_errors (r))
      {
        const TildeDiagnostic *d = tilde_check_result_get_first_error (r);

        g_assert_cmpint (d->kind, ==, TILDE_DIAG_SEMANTIC);
        g_assert_cmpint (d->begin_line, ==, known_ill_typed[i].line);
        return;
      }
  assert_no_errors (r, path);
  g_assert_nonnull (tilde_check_result_get_program (r));
}

/* One test per program of a corpus directory (`model.stan` of each
 * sub-directory for the reference posteriors). */
static guint
add_corpus_tests (const char *dir, const char *kind)
{
  g_autoptr (GDir) d = dir ? g_dir_open (dir, 0, NULL) : NULL;
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while (d && (name = g_dir_read_name (d)))
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
      g_autofree char *test = g_strdup_printf ("/engine/semantics/checker/%s/%s", kind, label);

      g_test_add_data_func_full (test, g_strdup (path), test_corpus_file, g_free);
    }
  return paths->len;
}

static void
test_corpora_present (void)
{
  const char *root = g_getenv ("TILDE_SOURCE_ROOT");
  g_autofree char *examples = root ? g_build_filename (root, "data", "examples", NULL) : NULL;

  /* the examples ship with the project: a missing directory is a broken setup */
  if (examples == NULL)
    {
      g_test_skip ("TILDE_SOURCE_ROOT not set");
      return;
    }
  g_assert_true (g_file_test (examples, G_FILE_TEST_IS_DIR));
}

/* ------------------------------------------------------------ types */

/* The items of the first print statement of `block`. */
static TildeStmt *
find_print (TildeProgram *p, TildeBlockKind block)
{
  TildeBlock *b = p->blocks[block];

  for (int i = 0; b && i < b->n_stmts; i++)
    if (b->stmts[i]->kind == TILDE_STMT_PRINT)
      return b->stmts[i];
  g_assert_not_reached ();
  return NULL;
}

static const char *const type_program =
  "data {\n"
  "  int N;\n"
  "  vector[N] v;\n"
  "  row_vector[N] rv;\n"
  "  matrix[N, N] A;\n"
  "  array[N] int idx;\n"
  "  array[N, N] real arr;\n"
  "  complex z;\n"
  "  tuple(int, vector[N]) t;\n"
  "}\n"
  "transformed data {\n"
  "  print(A * v, v', {1, 2.5}, rv * v, v * rv, A[1], A[:, 1], A[1, 2],\n"
  "        v[idx], arr[1], arr[:, 1], [1, 2], [[1, 2], [3, 4]], (1, 2.5),\n"
  "        t.2, 1 ? 1 : 2.5, 3i, [1, 3i], 1 < 2.5, 7 %/% 2, normal_rng(0, 1),\n"
  "        rep_vector(0, 3), {{1, 2}, {3, 4}}, A', v .* v, -A, z * 2, A \\ v,\n"
  "        {v, v}, arr[1:2, 2], idx[2:], sum(idx), target_like(1));\n"
  "}\n";

static void
test_expression_types (void)
{
  static const char *const expected[] = {
    "vector", "row_vector", "array[] real", "real", "matrix", "row_vector", "vector",
    "real", "vector", "array[] real", "array[] real", "row_vector", "matrix",
    "tuple(int, real)", "vector", "real", "complex", "complex_row_vector", "int", "int",
    "real", "vector", "array[,] int", "matrix", "vector", "matrix", "complex", "vector",
    "array[] vector", "array[] real", "array[] int", "int",
  };
  g_autofree char *text = NULL;
  g_autoptr (TildeCheckResult) r = NULL;
  TildeStmt *print;

  /* the last item is deliberately unknown: everything before it is still typed */
  text = g_strdup (type_program);
  r = check_text ("types.stan", text);
  g_assert_cmpuint (count_errors (r), ==, 1);
  g_assert_nonnull (strstr (tilde_check_result_get_first_error (r)->message, "target_like"));
  print = find_print (tilde_check_result_get_program (r), TILDE_BLOCK_TRANSFORMED_DATA);
  g_assert_cmpint (print->u.printables.n_items, ==, G_N_ELEMENTS (expected) + 1);
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      TildeExpr *e = print->u.printables.items[i];
      g_autofree char *t = NULL;

      g_assert_nonnull (e->type);
      t = tilde_type_to_string (e->type);
      g_assert_cmpstr (t, ==, expected[i]);
    }
  g_assert_null (print->u.printables.items[G_N_ELEMENTS (expected)]->type);
}

static void
test_ad_levels (void)
{
  static const char *const text =
    "data {\n"
    "  real d;\n"
    "  vector[2] dv;\n"
    "}\n"
    "parameters {\n"
    "  real p;\n"
    "}\n"
    "model {\n"
    "  int n = 2;\n"
    "  real local = d;\n"
    "  print(d, p, d + p, dv * d, n, local, p > 0, exp(d), exp(p), (d, p), dv[n]);\n"
    "}\n"
    "generated quantities {\n"
    "  print(p, d + p);\n"
    "}\n";
  static const TildeAdLevel model_levels[] = {
    TILDE_AD_DATA, TILDE_AD_AUTODIFF, TILDE_AD_AUTODIFF, TILDE_AD_DATA, TILDE_AD_DATA,
    TILDE_AD_AUTODIFF, TILDE_AD_AUTODIFF, TILDE_AD_DATA, TILDE_AD_AUTODIFF,
    TILDE_AD_AUTODIFF, TILDE_AD_DATA,
  };
  g_autoptr (TildeCheckResult) r = check_text ("ad.stan", text);
  TildeProgram *p = tilde_check_result_get_program (r);
  TildeStmt *print;

  assert_no_errors (r, "ad.stan");
  print = find_print (p, TILDE_BLOCK_MODEL);
  g_assert_cmpint (print->u.printables.n_items, ==, G_N_ELEMENTS (model_levels));
  for (guint i = 0; i < G_N_ELEMENTS (model_levels); i++)
    g_assert_cmpint (print->u.printables.items[i]->ad_level, ==, model_levels[i]);
  /* generated quantities only reads values: nothing is differentiated */
  print = find_print (p, TILDE_BLOCK_GENERATED_QUANTITIES);
  g_assert_cmpint (print->u.printables.items[0]->ad_level, ==, TILDE_AD_DATA);
  g_assert_cmpint (print->u.printables.items[1]->ad_level, ==, TILDE_AD_DATA);
}

/* ------------------------------------------------------------ symbols */

/* "jacobian += e" adds to a variable named jacobian where one is in scope
 * (stanc 2.36), and is the Jacobian adjustment elsewhere. */
static void
test_jacobian_variable_or_adjustment (void)
{
  static const char *const text =
    "parameters {\n"
    "  real<lower=0> s;\n"
    "}\n"
    "transformed parameters {\n"
    "  real t = s;\n"
    "  jacobian += log(s);\n"
    "  {\n"
    "    real jacobian = 1;\n"
    "    jacobian += s;\n"
    "  }\n"
    "}\n";
  g_autoptr (TildeCheckResult) r = check_text ("jacobian.stan", text);
  TildeProgram *p = tilde_check_result_get_program (r);
  TildeBlock *tp;
  TildeStmt *inner;

  assert_no_errors (r, "jacobian.stan");
  tp = p->blocks[TILDE_BLOCK_TRANSFORMED_PARAMETERS];
  g_assert_cmpint (tp->stmts[1]->kind, ==, TILDE_STMT_JACOBIAN_PLUS);
  inner = tp->stmts[2]->u.block.stmts[1];
  g_assert_cmpint (inner->kind, ==, TILDE_STMT_ASSIGN);
  g_assert_cmpint (inner->u.assign.op, ==, TILDE_ASSIGN_PLUS);
  g_assert_cmpstr (inner->u.assign.lhs->u.variable.name, ==, "jacobian");
  g_assert_cmpint (inner->u.assign.rhs->kind, ==, TILDE_EXPR_VARIABLE);
}

static void
test_declarations_resolved (void)
{
  static const char *const text =
    "functions {\n"
    "  real twice(data real x) {\n"
    "    return 2 * x;\n"
    "  }\n"
    "  real mine_lpdf(real y, real mu) {\n"
    "    return -square(y - mu);\n"
    "  }\n"
    "}\n"
    "data {\n"
    "  real d;\n"
    "}\n"
    "parameters {\n"
    "  real mu;\n"
    "}\n"
    "model {\n"
    "  for (i in 1:3)\n"
    "    target += i;\n"
    "  target += twice(d) + exp(mu);\n"
    "  mu ~ mine(d);\n"
    "}\n";
  g_autoptr (TildeCheckResult) r = check_text ("decls.stan", text);
  TildeProgram *p = tilde_check_result_get_program (r);
  TildeBlock *model, *functions;
  TildeStmt *loop, *inc, *tilde, *ret;
  TildeExpr *sum, *twice_call, *exp_call, *arg, *x_use;
  TildeVariable *var;
  TildeFunction *fn;

  assert_no_errors (r, "decls.stan");
  model = p->blocks[TILDE_BLOCK_MODEL];
  functions = p->blocks[TILDE_BLOCK_FUNCTIONS];
  loop = model->stmts[0];
  inc = loop->u.for_stmt.body;
  var = tilde_decl_as_variable (inc->u.increment.expr->u.variable.decl);
  g_assert (var != NULL);
  g_assert_cmpint (var->role, ==, TILDE_VAR_LOOP);
  g_assert_true (var->readonly);
  g_assert_true (var->stmt == loop);

  sum = model->stmts[1]->u.increment.expr;
  twice_call = sum->u.binary.lhs;
  exp_call = sum->u.binary.rhs;
  fn = tilde_decl_as_function (twice_call->u.call.decl);
  g_assert (fn != NULL);
  g_assert_cmpstr (fn->name, ==, "twice");
  g_assert_true (fn->definition == functions->stmts[0]);
  g_assert_null (exp_call->u.call.decl);   /* the library */
  arg = twice_call->u.call.args[0];
  var = tilde_decl_as_variable (arg->u.variable.decl);
  g_assert (var != NULL);
  g_assert_cmpint (var->role, ==, TILDE_VAR_BLOCK);
  g_assert_cmpint (var->block, ==, TILDE_BLOCK_DATA);
  g_assert_cmpstr (var->name, ==, "d");

  tilde = model->stmts[2];
  fn = tilde_decl_as_function (tilde->u.tilde.decl);
  g_assert (fn != NULL);
  g_assert_cmpstr (fn->name, ==, "mine_lpdf");

  /* inside a function: the argument, data-only, read-only */
  ret = functions->stmts[0]->u.fun_def.body->u.block.stmts[0];
  x_use = ret->u.ret.expr->u.binary.rhs;
  var = tilde_decl_as_variable (x_use->u.variable.decl);
  g_assert (var != NULL);
  g_assert_cmpint (var->role, ==, TILDE_VAR_ARGUMENT);
  g_assert_cmpint (var->origin, ==, TILDE_BLOCK_DATA);
  g_assert_cmpint (x_use->ad_level, ==, TILDE_AD_DATA);
}

/* ------------------------------------------------------------ recovery */

static void
test_several_errors (void)
{
  static const char *const text =
    "data {\n"
    "  int N;\n"
    "}\n"
    "transformed data {\n"
    "  real a = undefined_one + 1;\n"
    "  real b = a * 2;\n"
    "  int c = 2.5;\n"
    "}\n"
    "parameters {\n"
    "  int k;\n"
    "}\n"
    "model {\n"
    "  N = 3;\n"
    "  break;\n"
    "}\n";
  static const struct { int line; const char *start; } expected[] = {
    { 5, "Identifier 'undefined_one' not in scope." },
    { 7, "Ill-typed arguments supplied to assignment operator =:" },
    { 10, "(Transformed) Parameters cannot be integers." },
    { 13, "Cannot assign to global variable 'N' declared in previous blocks." },
    { 14, "Break statements may only be used in loops." },
  };
  g_autoptr (TildeCheckResult) r = check_text ("several.stan", text);
  GPtrArray *diags = tilde_check_result_get_diagnostics (r);
  guint k = 0;

  /* the failed initialiser of `a` does not make `a` unknown, nor `a * 2` wrong */
  g_assert_cmpuint (count_errors (r), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < diags->len; i++)
    {
      const TildeDiagnostic *d = g_ptr_array_index (diags, i);

      if (!tilde_diagnostic_is_error (d))
        continue;
      g_assert_cmpint (d->begin_line, ==, expected[k].line);
      g_assert_true (g_str_has_prefix (d->message, expected[k].start));
      k++;
    }
}

static void
test_no_cascade (void)
{
  static const char *const text =
    "parameters {\n"
    "  real mu;\n"
    "}\n"
    "model {\n"
    "  vector[3] v = rep_vector(mu, 3) + nosuch(mu);\n"
    "  real s = sum(v) + sum(nosuch(mu) * v);\n"
    "  v ~ normal(s, 1);\n"
    "}\n";
  g_autoptr (TildeCheckResult) r = check_text ("cascade.stan", text);

  /* each unknown call is reported once; its enclosing expressions are not */
  g_assert_cmpuint (count_errors (r), ==, 2);
}

/* ------------------------------------------------------------ annotations */

static void
test_annotation_warning_location (void)
{
  static const char *const text =
    "data {\n"
    "  @silent @frobnicate real x;\n"
    "  @gpu vector[3] v;\n"
    "}\n"
    "parameters {\n"
    "  @gpu real p;\n"
    "}\n";
  g_autoptr (TildeCheckResult) r = check_text ("ann.stan", text);
  GPtrArray *diags = tilde_check_result_get_diagnostics (r);
  const TildeDiagnostic *d;

  assert_no_errors (r, "ann.stan");
  g_assert_cmpuint (diags->len, ==, 2);
  d = g_ptr_array_index (diags, 0);
  g_assert_cmpint (d->kind, ==, TILDE_DIAG_WARNING);
  g_assert_cmpint (d->begin_line, ==, 2);
  g_assert_cmpint (d->begin_column, ==, 10);
  g_assert_cmpstr (d->message, ==, "Unknown annotation 'frobnicate' will be ignored by the "
                   "compiler");
  d = g_ptr_array_index (diags, 1);
  g_assert_cmpint (d->begin_line, ==, 6);
  g_assert_nonnull (strstr (d->message, "'gpu'"));
}

/* ------------------------------------------------------------ facade */

static void
test_frontend_file_errors (void)
{
  g_autoptr (GError) error = NULL;
  TildeCheckResult *r = tilde_frontend_check_file ("/nonexistent/model.stan", NULL, &error);

  g_assert_null (r);
  g_assert_nonnull (error);
}

static void
test_frontend_syntax_error (void)
{
  g_autoptr (TildeCheckResult) r = check_text ("broken.stan", "model {\n  real x = ;\n}\n");
  const TildeDiagnostic *d = tilde_check_result_get_first_error (r);
  g_autofree char *text = tilde_check_result_render_first_error (r);

  g_assert_true (tilde_check_result_has_errors (r));
  g_assert_null (tilde_check_result_get_program (r));
  g_assert_cmpint (d->kind, ==, TILDE_DIAG_PARSING);
  g_assert_true (g_str_has_prefix (text, "Syntax error in 'broken.stan', line 2"));
}

static void
test_frontend_success (void)
{
  g_autoptr (TildeCheckResult) r = check_text ("ok.stan", "parameters {\n  real y;\n}\n"
                                               "model {\n  y ~ std_normal();\n}\n");
  g_autoptr (TildeCheckResult) again = NULL;
  g_autofree char *all = NULL;

  g_assert_false (tilde_check_result_has_errors (r));
  g_assert_nonnull (tilde_check_result_get_program (r));
  g_assert_nonnull (tilde_check_result_get_sources (r));
  g_assert_null (tilde_check_result_render_first_error (r));
  all = tilde_check_result_render_all (r);
  g_assert_cmpstr (all, ==, "");
  again = tilde_check_result_ref (r);
  g_assert_true (again == r);
  tilde_check_result_unref (g_steal_pointer (&again));
  g_assert_nonnull (tilde_check_result_get_program (r));
}

static void
test_frontend_options (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tilde-checker-XXXXXX", NULL);
  g_autofree char *inc = g_build_filename (dir, "helpers.stanfunctions", NULL);
  g_autofree char *main_path = g_build_filename (dir, "main.stan", NULL);
  const char *paths[] = { dir, NULL };
  TildeFrontendOptions opts = { 0 };
  static const char *const decl_only = "functions {\n  real ext(real x);\n}\n";
  g_autoptr (TildeCheckResult) strict = NULL;
  g_autoptr (TildeCheckResult) lenient = NULL;
  g_autoptr (TildeCheckResult) included = NULL;
  g_autoptr (TildeCheckResult) fn_only = NULL;

  g_assert_true (g_file_set_contents (inc, "real helper(real x) {\n  return x;\n}\n", -1, NULL));
  g_assert_true (g_file_set_contents (main_path, "functions {\n#include helpers.stanfunctions\n}\n"
                                      "transformed data {\n  real y = helper(1.0);\n}\n", -1,
                                      NULL));

  /* forward declarations without definitions need allow_undefined */
  strict = tilde_frontend_check_buffer ("decl.stan", NULL, decl_only, -1, &opts);
  g_assert_true (tilde_check_result_has_errors (strict));
  opts.allow_undefined = TRUE;
  lenient = tilde_frontend_check_buffer ("decl.stan", NULL, decl_only, -1, &opts);
  g_assert_false (tilde_check_result_has_errors (lenient));

  opts.allow_undefined = FALSE;
  opts.include_paths = paths;
  included = tilde_frontend_check_file (main_path, &opts, NULL);
  g_assert_nonnull (included);
  assert_no_errors (included, main_path);

  opts.include_paths = NULL;
  opts.functions_only = TRUE;
  fn_only = tilde_frontend_check_buffer ("lib", NULL, "real helper(real x) {\n  return x;\n}\n",
                                         -1, &opts);
  assert_no_errors (fn_only, "functions only");

  g_unlink (inc);
  g_unlink (main_path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  add_fixture_tests ("bad", test_bad_fixture);
  add_fixture_tests ("good", test_good_fixture);
  {
    const char *root = g_getenv ("TILDE_SOURCE_ROOT");
    g_autofree char *syntax = root ? g_build_filename (root, "tests", "syntax", "models",
                                                       "valid", NULL) : NULL;

    add_corpus_tests (syntax, "syntax-corpus");
    add_corpus_tests (g_getenv ("TILDE_REFERENCE_DIR"), "reference-models");
    add_corpus_tests (g_getenv ("TILDE_EXAMPLES_DIR"), "examples");
    g_test_add_func ("/engine/semantics/checker/corpora-present", test_corpora_present);
  }
  g_test_add_func ("/engine/semantics/checker/expression-types", test_expression_types);
  g_test_add_func ("/engine/semantics/checker/ad-levels", test_ad_levels);
  g_test_add_func ("/engine/semantics/checker/declarations-resolved", test_declarations_resolved);
  g_test_add_func ("/engine/semantics/checker/jacobian-variable-or-adjustment",
                   test_jacobian_variable_or_adjustment);
  g_test_add_func ("/engine/semantics/checker/several-errors", test_several_errors);
  g_test_add_func ("/engine/semantics/checker/no-cascade", test_no_cascade);
  g_test_add_func ("/engine/semantics/checker/annotation-warnings",
                   test_annotation_warning_location);
  g_test_add_func ("/engine/semantics/checker/frontend/unreadable", test_frontend_file_errors);
  g_test_add_func ("/engine/semantics/checker/frontend/syntax-error", test_frontend_syntax_error);
  g_test_add_func ("/engine/semantics/checker/frontend/success", test_frontend_success);
  g_test_add_func ("/engine/semantics/checker/frontend/options", test_frontend_options);
  return g_test_run ();
}
