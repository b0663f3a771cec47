/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Lowering to the MIR and its printed form.
 *
 * basic.mir and basic.transformed are the Stan compiler's own output for
 * basic.stan (stanc --debug-mir-pretty and --debug-transformed-mir-pretty,
 * Stan 2.36); they are compared with white space squashed, since stanc
 * folds lines at 80 columns and we never do, and without stanc's
 * rev_log_prob block (a copy of log_prob we do not keep). The other .mir
 * files spell out, in stanc's printed form, what Ast_to_Mir makes of each
 * construct (mother_functions.stan is the functions of stanc's own
 * mother.stan test model, whose lowering test/integration/good/code-gen/
 * mir.expected records).
 */
#define G_LOG_DOMAIN "tilde-test"

#include <string.h>

#include "mir-test-util.h"
#include "mir/mir-lower.h"
#include "mir/mir-print.h"
#include "mir/mir-terms.h"
#include "mir/mir-transform.h"
#include "mir/passes/pipeline.h"

static char *
read_fixture (const char *name)
{
  g_autofree char *path = mir_test_path ("models", name);
  char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
}

static MirProgram *
lower_fixture (const char *name)
{
  g_autofree char *path = mir_test_path ("models", name);
  MirProgram *p = mir_test_lower_file (path, NULL);
  g_assert_nonnull (p);
  return p;
}

static void
compare_with_stanc (const char *model, const char *expected_file, gboolean transformed)
{
  g_autoptr (MirProgram) p = lower_fixture (model);
  if (transformed)
    {
      MirProgram *t = mir_transform_program (p);
      mir_program_free (p);
      p = t;
    }
  g_autofree char *got = mir_print_program (p, MIR_PRINT_DEFAULT, NULL);
  g_autofree char *expected = read_fixture (expected_file);
  g_autofree char *got_squashed = mir_test_squash (got);
  g_autofree char *expected_squashed = mir_test_squash (expected);
  mir_test_assert_text (expected_file, got_squashed, expected_squashed);
}

static void
test_stanc_basic_mir (void)
{
  compare_with_stanc ("basic.stan", "basic.mir", FALSE);
}

static void
test_stanc_basic_transformed (void)
{
  compare_with_stanc ("basic.stan", "basic.transformed", TRUE);
}

static void
compare_exact (gconstpointer data)
{
  const char *base = data;
  g_autofree char *model = g_strconcat (base, ".stan", NULL);
  g_autofree char *expected_file = g_strconcat (base, ".mir", NULL);
  g_autoptr (MirProgram) p = lower_fixture (model);
  g_autofree char *got = mir_print_program (p, MIR_PRINT_DEFAULT, NULL);
  g_autofree char *expected = read_fixture (expected_file);
  mir_test_assert_text (expected_file, got, expected);
}

/* Operators are library calls by stanc's names, && and || stay nodes. */
static void
test_operator_nodes (void)
{
  g_autoptr (MirProgram) p = mir_test_lower ("ops.stan",
    "transformed data {\n"
    "  int i = 1;\n"
    "  int j = i + 1 > 0 && !i || -i < 2;\n"
    "}\n", NULL);
  g_assert_nonnull (p);
  GPtrArray *td = p->parts[MIR_PART_PREPARE_DATA];
  MirStmt *assign = g_ptr_array_index (td, 3);
  g_assert_cmpint (assign->kind, ==, MIR_STMT_ASSIGN);
  MirExpr *or = assign->u.assign.rhs;
  g_assert_cmpint (or->kind, ==, MIR_EXPR_OR);
  MirExpr *and = or->u.logical.lhs;
  g_assert_cmpint (and->kind, ==, MIR_EXPR_AND);
  MirExpr *greater = and->u.logical.lhs;
  g_assert_cmpint (greater->kind, ==, MIR_EXPR_CALL);
  g_assert_cmpint (greater->u.call.fun.kind, ==, MIR_FUN_STANLIB);
  g_assert_cmpstr (greater->u.call.fun.name, ==, "Greater__");
  MirExpr *plus = g_ptr_array_index (greater->u.call.args, 0);
  g_assert_cmpstr (plus->u.call.fun.name, ==, "Plus__");
  MirExpr *not = and->u.logical.rhs;
  g_assert_cmpstr (not->u.call.fun.name, ==, "PNot__");
  MirExpr *less = or->u.logical.rhs;
  g_assert_cmpstr (less->u.call.fun.name, ==, "Less__");
  g_assert_cmpstr (((MirExpr *) g_ptr_array_index (less->u.call.args, 0))->u.call.fun.name,
                   ==, "PMinus__");
}

/* Suffixes of user and library functions, and the kind of each call. */
static void
test_call_kinds (void)
{
  g_autoptr (MirProgram) p = mir_test_lower ("calls.stan",
    "functions {\n"
    "  real f_lpdf(real y, real mu) { return -square(y - mu); }\n"
    "  real g_rng(real mu) { return normal_rng(mu, 1); }\n"
    "  void h_lp(real x) { target += x; }\n"
    "}\n"
    "parameters { real mu; }\n"
    "model {\n"
    "  target += f_lupdf(mu | 0);\n"
    "  target += f_lpdf(mu | 0);\n"
    "  h_lp(mu);\n"
    "  mu ~ f(1);\n"
    "}\n", NULL);
  g_assert_nonnull (p);
  MirFunDef *f = g_ptr_array_index (p->functions, 0);
  MirFunDef *g = g_ptr_array_index (p->functions, 1);
  MirFunDef *h = g_ptr_array_index (p->functions, 2);
  g_assert_cmpint (f->suffix, ==, MIR_SUFFIX_LPDF);
  g_assert_cmpint (g->suffix, ==, MIR_SUFFIX_RNG);
  g_assert_cmpint (h->suffix, ==, MIR_SUFFIX_TARGET);
  g_assert_true (h->return_type == tilde_type_void ());

  GPtrArray *log_prob = p->parts[MIR_PART_LOG_PROB];
  MirStmt *model = g_ptr_array_index (log_prob, log_prob->len - 1);
  GPtrArray *stmts = model->u.block.stmts;
  MirExpr *lupdf = ((MirStmt *) g_ptr_array_index (stmts, 0))->u.increment.expr;
  MirExpr *lpdf = ((MirStmt *) g_ptr_array_index (stmts, 1))->u.increment.expr;
  MirStmt *lp = g_ptr_array_index (stmts, 2);
  MirExpr *tilde = ((MirStmt *) g_ptr_array_index (stmts, 3))->u.increment.expr;
  g_assert_cmpint (lupdf->u.call.fun.kind, ==, MIR_FUN_USER);
  g_assert_true (lupdf->u.call.fun.propto);
  g_assert_false (lpdf->u.call.fun.propto);
  g_assert_cmpint (lp->kind, ==, MIR_STMT_NR_CALL);
  g_assert_cmpint (lp->u.call.fun.suffix, ==, MIR_SUFFIX_TARGET);
  g_assert_cmpstr (tilde->u.call.fun.name, ==, "f_lupdf");
  g_assert_cmpint (tilde->u.call.fun.kind, ==, MIR_FUN_USER);
  g_autofree char *printed = mir_print_expr (tilde);
  g_assert_cmpstr (printed, ==, "f_lupdf(mu, promote(1, real, data))");
}

/* Prior and likelihood terms of the eight schools model: the variate of
 * `y ~` is data, the others are parameters. */
static void
test_eight_schools_roles (void)
{
  g_autoptr (MirProgram) p = mir_test_lower ("eight_schools.stan",
    "data {\n"
    "  int<lower=0> J;\n"
    "  array[J] real y;\n"
    "  array[J] real<lower=0> sigma;\n"
    "}\n"
    "parameters {\n"
    "  real mu;\n"
    "  real<lower=0> tau;\n"
    "  array[J] real theta;\n"
    "}\n"
    "model {\n"
    "  mu ~ normal(0, 5);\n"
    "  tau ~ cauchy(0, 5);\n"
    "  theta ~ normal(mu, tau);\n"
    "  y ~ normal(theta, sigma);\n"
    "  target += normal_lpdf(y | theta, sigma);\n"
    "  target += -0.5 * square(mu);\n"
    "}\n", NULL);
  g_assert_nonnull (p);
  GPtrArray *log_prob = p->parts[MIR_PART_LOG_PROB];
  MirStmt *model = g_ptr_array_index (log_prob, log_prob->len - 1);
  static const struct { gboolean tilde; MirTermRole role; } expected[] = {
    { TRUE, MIR_TERM_PRIOR }, { TRUE, MIR_TERM_PRIOR }, { TRUE, MIR_TERM_PRIOR },
    { TRUE, MIR_TERM_LIKELIHOOD }, { FALSE, MIR_TERM_LIKELIHOOD }, { FALSE, MIR_TERM_PRIOR },
  };
  g_assert_cmpuint (model->u.block.stmts->len, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      MirStmt *s = g_ptr_array_index (model->u.block.stmts, i);
      g_assert_cmpint (s->kind, ==, MIR_STMT_TARGET_PLUS);
      g_assert_cmpint (s->u.increment.from_tilde, ==, expected[i].tilde);
      g_assert_cmpint (s->u.increment.role, ==, expected[i].role);
    }
  GArray *spans = NULL;
  g_autofree char *text = mir_print_program (p, MIR_PRINT_TERM_ROLES, &spans);
  g_assert_nonnull (strstr (text, "target += normal_lupdf(y, theta, sigma); // ~ likelihood\n"));
  /* the viewer's map: that line comes from `y ~ normal(theta, sigma);`, line 15 */
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_assert_cmpuint (spans->len, ==, g_strv_length (lines) - 1);
  gboolean found = FALSE;
  for (guint i = 0; i < spans->len; i++)
    if (strstr (lines[i], "normal_lupdf(y, theta, sigma)"))
      {
        const TildeSpan *span = &g_array_index (spans, TildeSpan, i);
        g_assert_cmpint (span->begin_line, ==, 15);
        g_assert_cmpint (span->begin_column, ==, 2);
        g_assert_cmpstr (span->file->name, ==, "eight_schools.stan");
        found = TRUE;
      }
  g_assert_true (found);
  g_assert_null (g_array_index (spans, TildeSpan, 0).file);   /* "input_vars {" */
  g_array_unref (spans);
  g_assert_nonnull (strstr (text, "target += cauchy_lupdf(tau, promote(0, real, data), "
                                  "promote(5, real, data)); // ~ prior\n"));
}

/* Truncation terms are `~` terms too, with the role of their variate. */
static void
test_truncation_roles (void)
{
  g_autoptr (MirProgram) p = lower_fixture ("truncation.stan");
  GPtrArray *log_prob = p->parts[MIR_PART_LOG_PROB];
  MirStmt *model = g_ptr_array_index (log_prob, log_prob->len - 1);
  MirStmt *guard = g_ptr_array_index (model->u.block.stmts, 1);
  g_assert_cmpint (guard->kind, ==, MIR_STMT_IF);
  MirStmt *inf = guard->u.if_stmt.then_stmt;
  MirStmt *ccdf = guard->u.if_stmt.else_stmt;
  g_assert_true (inf->u.increment.from_tilde && ccdf->u.increment.from_tilde);
  g_assert_cmpint (inf->u.increment.role, ==, MIR_TERM_LIKELIHOOD);
  g_assert_cmpint (ccdf->u.increment.role, ==, MIR_TERM_LIKELIHOOD);
}


/* The roles of the Stan reference manual's kinds of terms, by the rules of
 * mir-terms.h: a local computed from data is data; `target +=` of a
 * mixture is likelihood when a density inside has a data variate, of no
 * density prior; in a function a term depends on arguments, and through
 * a call on what the function's value is computed from. */
static const char *roles_model =
  "functions {\n"
  "  real twice(real a, real b) { return 2 * a; }\n"
  "  void obs_lp(vector v, real m) {\n"
  "    v ~ normal(m, 1);\n"
  "    target += -square(m);\n"
  "  }\n"
  "}\n"
  "data { int N; vector[N] y; }\n"
  "parameters { real mu; }\n"
  "model {\n"
  "  vector[N] z = y * 3;\n"
  "  real d = twice(y[1], mu);\n"
  "  real p = twice(mu, y[1]);\n"
  "  z ~ normal(mu, 1);\n"
  "  d ~ normal(mu, 1);\n"
  "  p ~ normal(0, 1);\n"
  "  target += log_mix(0.3, normal_lpdf(y[1] | mu, 1), normal_lpdf(y[1] | 0, 1));\n"
  "  target += log_mix(0.3, normal_lpdf(mu | 0, 1), normal_lpdf(mu | 1, 1));\n"
  "  target += -0.5 * mu^2;\n"
  "  obs_lp(y, mu);\n"
  "}\n";

static void
collect_terms (MirStmt *s, gpointer data)
{
  if (s->kind == MIR_STMT_TARGET_PLUS)
    g_ptr_array_add (data, s);
}

/* The roles of log_prob's terms, in order: "P" prior, "L" likelihood. */
static char *
log_prob_roles (MirProgram *p)
{
  g_autoptr (GPtrArray) terms = g_ptr_array_new ();
  GString *out = g_string_new (NULL);
  GPtrArray *log_prob = p->parts[MIR_PART_LOG_PROB];
  for (guint i = 0; i < log_prob->len; i++)
    mir_stmt_walk (g_ptr_array_index (log_prob, i), collect_terms, terms);
  for (guint i = 0; i < terms->len; i++)
    {
      MirTermRole role;
      g_assert_true (mir_stmt_term_role (g_ptr_array_index (terms, i), &role, NULL));
      g_assert_cmpint (role, !=, MIR_TERM_BY_ARGUMENTS);
      g_string_append_c (out, role == MIR_TERM_PRIOR ? 'P' : 'L');
    }
  return g_string_free (out, FALSE);
}

static void
test_term_roles (void)
{
  g_autoptr (MirProgram) p = mir_test_lower ("roles.stan", roles_model, NULL);
  g_autofree char *roles = log_prob_roles (p);
  g_assert_cmpstr (roles, ==, "LLPLPP");
  /* obs_lp's terms: the first by its argument v, the second prior */
  const MirFunDef *obs = g_ptr_array_index (p->functions, 1);
  g_autoptr (GPtrArray) terms = g_ptr_array_new ();
  mir_stmt_walk (obs->body, collect_terms, terms);
  g_assert_cmpuint (terms->len, ==, 2);
  MirTermRole role;
  guint64 args;
  g_assert_true (mir_stmt_term_role (g_ptr_array_index (terms, 0), &role, &args));
  g_assert_cmpint (role, ==, MIR_TERM_BY_ARGUMENTS);
  g_assert_cmpuint (args, ==, 1);
  g_assert_true (mir_stmt_term_role (g_ptr_array_index (terms, 1), &role, &args));
  g_assert_cmpint (role, ==, MIR_TERM_PRIOR);
  g_autofree char *text = mir_print_program (p, MIR_PRINT_TERM_ROLES, NULL);
  g_assert_nonnull (strstr (text, "target += normal_lupdf(v, m, promote(1, real, data)); "
                                  "// ~ by arguments v\n"));
  /* not a term */
  g_assert_false (mir_stmt_term_role (g_ptr_array_index (p->parts[MIR_PART_LOG_PROB], 0), NULL,
                                      NULL));
  /* through the passes: inlining puts obs_lp's terms in log_prob, judged by
   * the call (y is data); every other term keeps its role */
  g_autoptr (MirProgram) t = mir_transform_program (p);
  g_autoptr (MirProgram) o1 = mir_pipeline_run (t, MIR_OPT_O1, NULL);
  g_autoptr (MirProgram) ox = mir_pipeline_run (t, MIR_OPT_EXPERIMENTAL, NULL);
  g_autofree char *roles_t = log_prob_roles (t);
  g_autofree char *roles_o1 = log_prob_roles (o1);
  g_autofree char *roles_ox = log_prob_roles (ox);
  g_assert_cmpstr (roles_t, ==, "LLPLPP");
  g_assert_cmpstr (roles_o1, ==, "LLPLPPLP");
  g_assert_cmpstr (roles_ox, ==, "LLPLPPLP");
}

static void
test_annotations (void)
{
  g_autoptr (MirProgram) p = mir_test_lower ("annotations.stan",
    "functions {\n"
    "  @extern real external_helper(real x);\n"
    "  @silent @inline real twice(real x) { return 2 * x; }\n"
    "}\n"
    "data { @gpu vector[10] y; }\n"
    "parameters { real mu; }\n"
    "model { @silent real local = twice(mu); y ~ normal(local, 1); }\n", NULL);
  g_assert_nonnull (p);
  g_assert_cmpuint (p->functions->len, ==, 2);
  MirFunDef *ext = g_ptr_array_index (p->functions, 0);
  MirFunDef *twice = g_ptr_array_index (p->functions, 1);
  g_assert_null (ext->body);
  g_assert_true (mir_annotations_has (&ext->annotations, "extern"));
  g_assert_true (mir_annotations_has (&twice->annotations, "silent"));
  g_assert_true (mir_annotations_has (&twice->annotations, "inline"));
  MirInputVar *y = g_ptr_array_index (p->input_vars, 0);
  g_assert_true (mir_annotations_has (&y->annotations, "gpu"));
  MirStmt *decl_y = g_ptr_array_index (p->parts[MIR_PART_PREPARE_DATA], 0);
  g_assert_cmpint (decl_y->kind, ==, MIR_STMT_DECL);
  g_assert_true (mir_annotations_has (&decl_y->u.decl.annotations, "gpu"));
  g_autofree char *text = mir_print_program (p, MIR_PRINT_ANNOTATIONS, NULL);
  g_assert_nonnull (strstr (text, "  @extern extern real external_helper(real x);\n"));
  g_assert_nonnull (strstr (text, "  @gpu data vector[10] y; }\n"));
  g_assert_nonnull (strstr (text, "    @silent real local;\n"));
}

/* Constrained parameters: unconstrained shapes of output_vars, size checks
 * in prepare_data, shape checks for container bounds. */
static void
test_constrained_shapes (void)
{
  g_autoptr (MirProgram) p = mir_test_lower ("shapes.stan",
    "data { int K; vector[K] lb; }\n"
    "parameters {\n"
    "  simplex[K] s;\n"
    "  cholesky_factor_corr[K] L;\n"
    "  cov_matrix[K] S;\n"
    "  cholesky_factor_cov[K + 1, K] C;\n"
    "  vector<lower=lb>[K] v;\n"
    "}\n", NULL);
  g_assert_nonnull (p);
  g_autofree char *text = mir_print_program (p, MIR_PRINT_DEFAULT, NULL);
  static const char *const lines[] = {
    "  parameters vector[K] s; //vector[(K - 1)]\n",
    "  parameters matrix[K, K] L; //vector[((K * (K - 1)) / 2)]\n",
    "  parameters matrix[K, K] S; //vector[(K + ((K * (K - 1)) / 2))]\n",
    "  parameters matrix[C_1dim__, K] C; "
    "//vector[((((K * (K - 1)) / 2) + K) + ((C_1dim__ - K) * K))]\n",
    "  FnValidateSizeSimplex__(\"s\", \"K\", K);\n",
    "  data int C_1dim__;\n",
    "  C_1dim__ = (K + 1);\n",
    "  FnValidateSize__(\"C\", \"K + 1\", C_1dim__);\n",
    "  check_greater_or_equal(\"cholesky_factor_cov C\", "
    "\"num rows (must be greater or equal to num cols)\", C_1dim__, K);\n",
    "  check_matching_dims(\"constraint\", \"v\", v, \"lower\", lb);\n",
  };
  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    if (!strstr (text, lines[i]))
      {
        g_test_message ("missing: %s\n%s", lines[i], text);
        g_test_fail ();
      }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/mir/lower/stanc-basic", test_stanc_basic_mir);
  g_test_add_func ("/mir/transform/stanc-basic", test_stanc_basic_transformed);
  g_test_add_data_func ("/mir/lower/mother-functions", "mother_functions", compare_exact);
  g_test_add_data_func ("/mir/lower/expressions", "expressions", compare_exact);
  g_test_add_data_func ("/mir/lower/statements", "statements", compare_exact);
  g_test_add_data_func ("/mir/lower/truncation", "truncation", compare_exact);
  g_test_add_func ("/mir/lower/operator-nodes", test_operator_nodes);
  g_test_add_func ("/mir/lower/call-kinds", test_call_kinds);
  g_test_add_func ("/mir/lower/eight-schools-roles", test_eight_schools_roles);
  g_test_add_func ("/mir/lower/truncation-roles", test_truncation_roles);
  g_test_add_func ("/mir/lower/term-roles", test_term_roles);
  g_test_add_func ("/mir/lower/annotations", test_annotations);
  g_test_add_func ("/mir/lower/constrained-shapes", test_constrained_shapes);
  return g_test_run ();
}
