/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Partial evaluation, rewrite by rewrite: stanc's list (its
 * Partial_evaluator), each applied to a small program and compared with the
 * expression stanc makes of it; the rewrites that would change a type, a
 * value or the number of draws, which must not happen; and constant
 * folding with Stan's int and real arithmetic, which must never fold what
 * would fail at run time.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <string.h>

#include "test-pass-util.h"
#include "mir/mir-print.h"
#include "mir/passes/passes.h"

static const char *const declarations =
  "data {\n"
  "  real x;\n"
  "  real y;\n"
  "  int n;\n"
  "  int k;\n"
  "  vector[3] v;\n"
  "  vector[3] w;\n"
  "  matrix[3, 3] A;\n"
  "  matrix[3, 3] B;\n"
  "  matrix[3, 3] D;\n"
  "  array[3] int ys;\n"
  "  vector[3] yv;\n"
  "  matrix[3, 2] X;\n"
  "  complex_matrix[3, 3] C;\n"
  "  array[3] complex zs;\n"
  "}\n";

typedef struct {
  const char *type;       /* of r */
  const char *expr;       /* r = expr in transformed data */
  const char *expected;   /* r's value after partial evaluation, as printed */
} Rewrite;

static const Rewrite rewrites[] = {
  /* stanc's rewrites */
  { "real", "log(1 - x)", "log1m(x)" },
  { "real", "log(1 - exp(x))", "log1m_exp(x)" },
  { "real", "log(1 - inv_logit(x))", "log1m_inv_logit(x)" },
  { "real", "log(1 + x)", "log1p(x)" },
  { "real", "log(1 + exp(x))", "log1p_exp(x)" },
  { "real", "log(abs(determinant(A)))", "log_determinant(A)" },
  { "real", "log(exp(x) - exp(y))", "log_diff_exp(x, y)" },
  { "real", "log(exp(x) + exp(y))", "log_sum_exp(x, y)" },
  { "real", "log(sum(exp(v)))", "log_sum_exp(v)" },
  { "real", "log(inv_logit(x))", "log_inv_logit(x)" },
  { "vector[3]", "log(softmax(v))", "log_softmax(v)" },
  { "real", "log(falling_factorial(x, n))", "log_falling_factorial(x, n)" },
  { "real", "log(rising_factorial(x, n))", "log_rising_factorial(x, n)" },
  { "real", "1 - erf(x)", "erfc(x)" },
  { "real", "1 - erfc(x)", "erf(x)" },
  { "real", "exp(x) - 1", "expm1(x)" },
  { "real", "1 - gamma_p(x, y)", "gamma_q(x, y)" },
  { "real", "1 - gamma_q(x, y)", "gamma_p(x, y)" },
  { "real", "x * y + 1.5", "fma(x, y, 1.5)" },
  { "real", "1.5 + x * y", "fma(x, y, 1.5)" },
  { "real", "pow(x, 2)", "square(x)" },
  { "real", "x ^ 2", "square(x)" },
  { "real", "pow(x, 0.5)", "sqrt(x)" },
  { "real", "pow(2, x)", "exp2(x)" },
  { "real", "pow(x, 1.0 / 2)", "sqrt(x)" },
  { "real", "inv(sqrt(x))", "inv_sqrt(x)" },
  { "real", "inv(square(x))", "inv_square(x)" },
  { "real", "square(sd(v))", "variance(v)" },
  { "real", "sqrt(2)", "sqrt2()" },
  { "real", "sum(square(v - w))", "squared_distance(v, w)" },
  { "real", "sum(diagonal(A))", "trace(A)" },
  { "real", "trace(quad_form(A, B))", "trace_quad_form(A, B)" },
  { "real", "trace(D * B' * A * B)", "trace_gen_quad_form(D, A, B)" },
  { "real", "dot_product(v, v)", "dot_self(v)" },
  { "row_vector[3]", "columns_dot_product(A, A)", "columns_dot_self(A)" },
  { "vector[3]", "rows_dot_product(A, A)", "rows_dot_self(A)" },
  { "matrix[3, 3]", "diag_matrix(v) * A", "diag_pre_multiply(v, A)" },
  { "matrix[3, 3]", "A * diag_matrix(v)", "diag_post_multiply(A, v)" },
  { "matrix[3, 3]", "diag_matrix(v) * diag_post_multiply(A, v)", "quad_form_diag(A, v)" },
  { "matrix[3, 3]", "B' * A * B", "quad_form(A, B)" },
  { "matrix[3, 3]", "matrix_exp(A) * B", "matrix_exp_multiply(A, B)" },
  { "matrix[3, 3]", "matrix_exp(x * A) * B", "scale_matrix_exp_multiply(x, A, B)" },
  { "real", "multi_normal_lpdf(v | w, inverse(A))", "multi_normal_prec_lpdf(v, w, A)" },
  { "real", "bernoulli_lpmf(ys | inv_logit(x))", "bernoulli_logit_lpmf(ys, x)" },
  { "real", "binomial_lpmf(ys | ys, inv_logit(x))", "binomial_logit_lpmf(ys, ys, x)" },
  { "real", "poisson_lpmf(ys | exp(x))", "poisson_log_lpmf(ys, x)" },
  { "real", "neg_binomial_2_lpmf(ys | exp(x), y)", "neg_binomial_2_log_lpmf(ys, x, y)" },
  { "real", "bernoulli_logit_lpmf(ys | X * w[1:2] + x)",
    "bernoulli_logit_glm_lpmf(ys, X, x, w[1:2])" },
  { "real", "poisson_log_lpmf(ys | x + X * w[1:2])", "poisson_log_glm_lpmf(ys, X, x, w[1:2])" },
  { "real", "normal_lpdf(yv | X * w[1:2], y)", "normal_id_glm_lpdf(yv, X, promote(0, real, data), w[1:2], y)" },
  { "real", "poisson_lpmf(ys | exp(X * w[1:2]))", "poisson_log_glm_lpmf(ys, X, promote(0, real, data), w[1:2])" },
  { "int", "bernoulli_rng(inv_logit(x))", "bernoulli_logit_rng(x)" },
  { "int", "poisson_rng(exp(x))", "poisson_log_rng(x)" },

  /* what must stay */
  { "int", "k + n * 2", "(k + (n * 2))" },                 /* fma is real */
  { "real", "pow(x, 1 / 2)", "pow(x, 0)" },                /* 1 / 2 is the int 0 */
  { "real", "x * log(y)", "(x * log(y))" },                /* lmultiply(0, 0) is 0 */
  { "int", "categorical_rng(inv_logit(v))", "categorical_rng(inv_logit(v))" },
  { "real", "categorical_lpmf(k | inv_logit(v))", "categorical_lpmf(k, inv_logit(v))" },
  { "real", "dot_product(dirichlet_rng(v), dirichlet_rng(v))",
    "dot_product(dirichlet_rng(v), dirichlet_rng(v))" },   /* two draws */
  { "real", "normal_rng(0, 1) * 2 + normal_rng(0, 1)",
    "((normal_rng(0, 1) * 2) + normal_rng(0, 1))" },       /* draws keep their order */
  { "matrix[3, 3]", "A * B + D", "((A * B) + D)" },        /* a matrix product */
  /* of complex values the products square where the self forms sum |x|^2 */
  { "complex_row_vector[3]", "columns_dot_product(C, C)", "columns_dot_product(C, C)" },
  { "complex_vector[3]", "rows_dot_product(C, C)", "rows_dot_product(C, C)" },
  { "complex", "dot_product(zs, zs)", "dot_product(zs, zs)" },   /* arrays: no dot_self */

  /* folding */
  { "int", "7 %/% 2", "3" },
  { "int", "-7 % 3", "-1" },
  { "int", "(1 + 2) * 3 - 4", "5" },
  { "int", "7 / 2", "3" },
  { "real", "7.0 / 2", "3.5" },
  { "real", "2 * 3.5", "7.0" },
  { "int", "1 < 2", "1" },
  { "int", "3 == 3.0", "1" },
  { "int", "!5", "0" },
  { "int", "1 %/% 0", "(1 %/% 0)" },                       /* fails at run time */
  { "int", "5 % 0", "(5 % 0)" },
  { "int", "2147483647 + 1", "(2147483647 + 1)" },          /* overflows */
  { "real", "1.0 / 0", "(1.0 / 0)" },                      /* no literal for inf */
  { "int", "0 && (1 %/% 0 > 1)", "0" },
  { "int", "1 || (1 %/% 0 > 1)", "1" },
  { "int", "n > 1 ? 1 : 1 %/% 0", "((n > 1) ? 1 : (1 %/% 0))" },
  { "int", "1 ? n : 1 %/% 0", "n" },
  { "real", "1 ? k : x", "promote(k, real, data)" },       /* the arm keeps the type of ?: */
  { "int", "0 ? 1 %/% 0 : n", "n" },
  { "vector[3]", "v[:]", "v" },
};

static void
test_rewrite (gconstpointer data)
{
  const Rewrite *rw = data;
  g_autofree char *program = g_strdup_printf ("%stransformed data {\n  %s r = %s;\n}\n",
                                              declarations, rw->type, rw->expr);
  g_autoptr (MirProgram) p = pass_test_program ("rewrite", program);
  g_autofree char *want = g_strdup_printf (" r = %s;", rw->expected);
  g_autofree char *text = NULL;

  mir_pass_partial_evaluation (p);
  text = mir_print_program (p, MIR_PRINT_DEFAULT, NULL);
  if (!strstr (text, want))
    {
      g_test_message ("%s\nexpected:\n%s", text, want);
      g_test_fail ();
    }
  pass_test_assert_nodes (rw->expr, p);
}

/* in the model block: the unnormalised densities keep their form */
static void
test_densities_keep_their_suffix (void)
{
  g_autofree char *program = g_strdup_printf ("%sparameters { vector[2] beta; real a; }\n"
                                              "model {\n"
                                              "  ys ~ bernoulli_logit(a + X * beta);\n"
                                              "  yv ~ normal(X * beta + a, 1);\n"
                                              "  ys ~ poisson(exp(a));\n"
                                              "}\n", declarations);
  g_autoptr (MirProgram) p = pass_test_program ("densities", program);
  g_autofree char *text = NULL;

  g_assert_true (mir_pass_partial_evaluation (p));
  text = mir_print_program (p, MIR_PRINT_DEFAULT, NULL);
  g_assert_nonnull (strstr (text, "target += bernoulli_logit_glm_lupmf(ys, X, a, beta);"));
  g_assert_nonnull (strstr (text, "target += normal_id_glm_lupdf(yv, X, a, beta, "
                                  "promote(1, real, data));"));
  g_assert_nonnull (strstr (text, "target += poisson_log_lupmf(ys, a);"));
  pass_test_assert_nodes ("densities", p);
}

/* running it again finds nothing more to do */
static void
test_fixed_point (void)
{
  g_autofree char *program = g_strdup_printf ("%stransformed data {\n"
                                              "  real r = log(1 - exp(x)) + (2 + 3) * x;\n"
                                              "}\n", declarations);
  g_autoptr (MirProgram) p = pass_test_program ("again", program);

  g_assert_true (mir_pass_partial_evaluation (p));
  g_assert_false (mir_pass_partial_evaluation (p));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (rewrites); i++)
    {
      g_autofree char *path = g_strdup_printf ("/mir/pass/rewrites/%u", i + 1);
      g_test_add_data_func (path, &rewrites[i], test_rewrite);
    }
  g_test_add_func ("/mir/pass/rewrites/densities", test_densities_keep_their_suffix);
  g_test_add_func ("/mir/pass/rewrites/fixed-point", test_fixed_point);
  return g_test_run ();
}
