/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-test"

#include <glib.h>
#include <string.h>

#include "semantics/types.h"
#include "semantics/library/library.h"

static const TildeType *
T (const char *text)
{
  const TildeType *t = tilde_type_from_string (text);

  if (t == NULL)
    g_error ("cannot parse type '%s'", text);
  return t;
}

/* Arguments written as "data int", "vector", ...; returns the count. */
static guint
make_args (TildeArgType *out, const char *const *texts)
{
  guint n = 0;

  for (; texts[n]; n++)
    {
      const char *t = texts[n];
      out[n].ad = TILDE_AD_AUTODIFF;
      if (g_str_has_prefix (t, "data "))
        {
          out[n].ad = TILDE_AD_DATA;
          t += 5;
        }
      out[n].type = T (t);
    }
  return n;
}

#define ARGS(...) ((const char *const[]) { __VA_ARGS__, NULL })

static const TildeType *
resolve (const char *name, const char *const *arg_texts)
{
  TildeArgType args[16];
  guint n = make_args (args, arg_texts);
  TildeMatch m;
  g_autofree char *message = NULL;

  if (tilde_library_resolve (name, args, n, &m, &message) != TILDE_MATCH_UNIQUE)
    g_error ("%s did not resolve:\n%s", name, message ? message : "(no message)");
  return m.return_type;
}

static char *
mismatch (const char *name, const char *const *arg_texts)
{
  TildeArgType args[16];
  guint n = make_args (args, arg_texts);
  char *message = NULL;

  g_assert_cmpint (tilde_library_resolve (name, args, n, NULL, &message), ==, TILDE_MATCH_NONE);
  g_assert_nonnull (message);
  return message;
}

/* ------------------------------------------------------------ coverage */

/* Functions from every chapter of the Stan Functions Reference. */
static const char *const well_known[] = {
  /* integer and real basics */
  "abs", "int_step", "min", "max", "size", "to_int", "choose", "pi", "e", "sqrt2",
  "log2", "log10", "not_a_number", "positive_infinity", "negative_infinity",
  "machine_precision", "step", "is_inf", "is_nan", "fdim", "fmin", "fmax", "fmod",
  "floor", "ceil", "round", "trunc", "sqrt", "cbrt", "square", "exp", "exp2", "log",
  "pow", "inv", "inv_sqrt", "inv_square", "hypot", "cos", "sin", "tan", "acos", "asin",
  "atan", "atan2", "cosh", "sinh", "tanh", "acosh", "asinh", "atanh", "logit",
  "inv_logit", "inv_cloglog", "erf", "erfc", "inv_erfc", "Phi", "inv_Phi", "Phi_approx",
  "binary_log_loss", "owens_t", "beta", "inc_beta", "inv_inc_beta", "lbeta", "tgamma",
  "lgamma", "digamma", "trigamma", "lmgamma", "gamma_p", "gamma_q", "bessel_first_kind",
  "bessel_second_kind", "modified_bessel_first_kind", "log_modified_bessel_first_kind",
  "modified_bessel_second_kind", "falling_factorial", "lchoose", "log_falling_factorial",
  "rising_factorial", "log_rising_factorial", "expm1", "fma", "lmultiply", "log1p",
  "log1m", "log1p_exp", "log1m_exp", "log_diff_exp", "log_mix", "log_sum_exp",
  "log_inv_logit", "log_inv_logit_diff", "log1m_inv_logit", "lambert_w0", "lambert_wm1",
  "hypergeometric_pFq", "hypergeometric_2F1", "hypergeometric_3F2", "std_normal_qf",
  "std_normal_log_qf", "ldexp",
  /* complex */
  "to_complex", "get_real", "get_imag", "arg", "norm", "conj", "proj", "polar",
  /* arrays */
  "sum", "prod", "mean", "variance", "sd", "norm1", "norm2", "dims", "num_elements",
  "rep_array", "append_array", "sort_asc", "sort_desc", "sort_indices_asc",
  "sort_indices_desc", "rank", "reverse", "linspaced_array", "linspaced_int_array",
  "one_hot_int_array", "one_hot_array", "zeros_int_array", "zeros_array",
  "ones_int_array", "ones_array", "to_array_1d", "to_array_2d", "quantile",
  "cumulative_sum", "dot_product", "distance", "squared_distance",
  /* matrices */
  "rows", "cols", "add_diag", "columns_dot_product", "rows_dot_product", "dot_self",
  "columns_dot_self", "rows_dot_self", "tcrossprod", "crossprod", "quad_form",
  "quad_form_diag", "quad_form_sym", "trace_quad_form", "trace_gen_quad_form",
  "multiply_lower_tri_self_transpose", "diag_pre_multiply", "diag_post_multiply",
  "log_softmax", "softmax", "rep_vector", "rep_row_vector", "rep_matrix",
  "symmetrize_from_lower_tri", "linspaced_vector", "linspaced_row_vector",
  "one_hot_vector", "one_hot_row_vector", "zeros_vector", "zeros_row_vector",
  "ones_vector", "ones_row_vector", "uniform_simplex", "col", "row", "block", "sub_col",
  "sub_row", "head", "tail", "segment", "append_col", "append_row",
  "mdivide_left_tri_low", "mdivide_right_tri_low", "mdivide_left_spd",
  "mdivide_right_spd", "matrix_exp", "matrix_exp_multiply", "scale_matrix_exp_multiply",
  "matrix_power", "trace", "determinant", "log_determinant", "log_determinant_spd",
  "inverse", "inverse_spd", "chol2inv", "generalized_inverse", "eigenvalues_sym",
  "eigenvectors_sym", "eigendecompose_sym", "eigenvalues", "eigenvectors",
  "eigendecompose", "qr_Q", "qr_R", "qr_thin_Q", "qr_thin_R", "qr", "qr_thin",
  "cholesky_decompose", "singular_values", "svd_U", "svd_V", "svd",
  "complex_schur_decompose", "complex_schur_decompose_t", "complex_schur_decompose_u",
  "diag_matrix", "diagonal", "identity_matrix", "to_matrix", "to_vector",
  "to_row_vector", "fft", "inv_fft", "fft2", "inv_fft2", "gp_exp_quad_cov",
  "gp_dot_prod_cov", "gp_exponential_cov", "gp_matern32_cov", "gp_matern52_cov",
  "gp_periodic_cov",
  /* sparse */
  "csr_extract_w", "csr_extract_v", "csr_extract_u", "csr_extract",
  "csr_to_dense_matrix", "csr_matrix_times_vector",
  /* higher-order */
  "algebra_solver", "algebra_solver_newton", "solve_newton", "solve_powell",
  "solve_newton_tol", "solve_powell_tol", "ode_rk45", "ode_rk45_tol", "ode_bdf",
  "ode_bdf_tol", "ode_adams", "ode_adams_tol", "ode_ckrk", "ode_ckrk_tol",
  "ode_adjoint_tol_ctl", "dae", "dae_tol", "integrate_1d", "integrate_ode_rk45",
  "integrate_ode_bdf", "integrate_ode_adams", "reduce_sum", "reduce_sum_static",
  "map_rect",
  /* hidden Markov models */
  "hmm_marginal", "hmm_latent_rng", "hmm_hidden_state_prob",
  /* operators as stanc names them */
  "add", "subtract", "multiply", "divide", "elt_multiply", "elt_divide", "modulus",
  "minus", "plus", "transpose", "logical_negation", "logical_and", "logical_or",
  "logical_eq", "logical_neq", "logical_lt", "logical_lte", "logical_gt",
  "logical_gte", "mdivide_left", "mdivide_right",
  /* constraint transforms */
  "lower_bound_constrain", "upper_bound_unconstrain", "lower_upper_bound_jacobian",
  "offset_multiplier_constrain", "simplex_constrain", "sum_to_zero_constrain",
  "cholesky_factor_corr_constrain", "cov_matrix_unconstrain",
  /* distribution functions */
  "normal_lpdf", "normal_lupdf", "poisson_lupmf", "categorical_rng", "dirichlet_rng",
  "multi_normal_rng", "wishart_rng", "lkj_corr_cholesky_rng", "ordered_logistic_rng",
};

static void
test_coverage (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (well_known); i++)
    {
      guint n = 0;
      const char *name = well_known[i];

      if (!tilde_library_has_function (name))
        g_error ("missing built-in function %s", name);
      if (tilde_library_variadic (name) == NULL)
        {
          g_assert_nonnull (tilde_library_signatures (name, &n));
          if (n == 0)
            g_error ("%s has no signature", name);
        }
    }
  g_assert_false (tilde_library_has_function ("normal"));
  g_assert_false (tilde_library_has_function ("no_such_function"));
  g_assert_null (tilde_library_signatures ("no_such_function", NULL));
}

/* Every family of the Functions Reference with exactly its suffixes. */
static void
test_distribution_families (void)
{
  enum {
    PDF = TILDE_DIST_LPDF, PMF = TILDE_DIST_LPMF, RNG = TILDE_DIST_RNG,
    CDFS = TILDE_DIST_CDF | TILDE_DIST_LCDF | TILDE_DIST_LCCDF,
    FULL_PDF = PDF | CDFS | RNG, FULL_PMF = PMF | CDFS | RNG,
  };
  static const struct { const char *family; guint suffixes; } families[] = {
    /* discrete */
    { "bernoulli", FULL_PMF }, { "bernoulli_logit", PMF | RNG },
    { "bernoulli_logit_glm", PMF | RNG }, { "binomial", FULL_PMF },
    { "binomial_logit", PMF }, { "binomial_logit_glm", PMF },
    { "beta_binomial", FULL_PMF }, { "beta_neg_binomial", FULL_PMF },
    { "hypergeometric", PMF | RNG }, { "categorical", PMF | RNG },
    { "categorical_logit", PMF | RNG }, { "categorical_logit_glm", PMF },
    { "discrete_range", FULL_PMF }, { "ordered_logistic", PMF | RNG },
    { "ordered_logistic_glm", PMF }, { "ordered_probit", PMF | RNG },
    { "neg_binomial", FULL_PMF }, { "neg_binomial_2", FULL_PMF },
    { "neg_binomial_2_log", PMF | RNG }, { "neg_binomial_2_log_glm", PMF },
    { "poisson", FULL_PMF }, { "poisson_log", PMF | RNG }, { "poisson_log_glm", PMF },
    { "multinomial", PMF | RNG }, { "multinomial_logit", PMF | RNG },
    { "dirichlet_multinomial", PMF | RNG },
    /* continuous */
    { "normal", FULL_PDF }, { "std_normal", FULL_PDF }, { "normal_id_glm", PDF },
    { "exp_mod_normal", FULL_PDF }, { "skew_normal", FULL_PDF },
    { "student_t", FULL_PDF }, { "cauchy", FULL_PDF }, { "double_exponential", FULL_PDF },
    { "logistic", FULL_PDF }, { "gumbel", FULL_PDF }, { "skew_double_exponential", FULL_PDF },
    { "lognormal", FULL_PDF }, { "chi_square", FULL_PDF }, { "inv_chi_square", FULL_PDF },
    { "scaled_inv_chi_square", FULL_PDF }, { "exponential", FULL_PDF },
    { "gamma", FULL_PDF }, { "inv_gamma", FULL_PDF }, { "weibull", FULL_PDF },
    { "frechet", FULL_PDF }, { "rayleigh", FULL_PDF }, { "pareto", FULL_PDF },
    { "pareto_type_2", FULL_PDF }, { "loglogistic", PDF | TILDE_DIST_CDF | RNG },
    { "wiener", PDF }, { "beta", FULL_PDF },
    { "beta_proportion", PDF | TILDE_DIST_LCDF | TILDE_DIST_LCCDF | RNG },
    { "von_mises", FULL_PDF }, { "uniform", FULL_PDF },
    /* multivariate */
    { "multi_normal", PDF | RNG }, { "multi_normal_prec", PDF },
    { "multi_normal_cholesky", PDF | RNG }, { "multi_gp", PDF },
    { "multi_gp_cholesky", PDF }, { "multi_student_t", PDF | RNG },
    { "multi_student_t_cholesky", PDF | RNG }, { "gaussian_dlm_obs", PDF },
    { "dirichlet", PDF | RNG }, { "lkj_corr", PDF | RNG },
    { "lkj_corr_cholesky", PDF | RNG }, { "lkj_cov", PDF }, { "wishart", PDF | RNG },
    { "wishart_cholesky", PDF | RNG }, { "inv_wishart", PDF | RNG },
    { "inv_wishart_cholesky", PDF | RNG },
  };

  for (guint i = 0; i < G_N_ELEMENTS (families); i++)
    {
      guint got = tilde_library_distribution_suffixes (families[i].family);

      if (got != families[i].suffixes)
        g_error ("%s has suffixes 0x%x, expected 0x%x", families[i].family, got,
                 families[i].suffixes);
      g_assert_true (tilde_library_is_distribution (families[i].family));
    }
  g_assert_false (tilde_library_is_distribution ("hmm_latent"));
  g_assert_false (tilde_library_is_distribution ("exp"));
  g_assert_cmpuint (tilde_library_distribution_suffixes ("foo"), ==, 0);
}

static void
test_names (void)
{
  guint n = tilde_library_n_names ();

  g_assert_cmpuint (n, >, 500);
  for (guint i = 1; i < n; i++)
    g_assert_cmpint (strcmp (tilde_library_name (i - 1), tilde_library_name (i)), <, 0);
  for (guint i = 0; i < n; i++)
    g_assert_true (tilde_library_has_function (tilde_library_name (i)));
}

/* ---------------------------------------------------------- resolution */

static void
test_resolution (void)
{
  /* pow on two ints returns real in current Stan */
  g_assert_true (resolve ("pow", ARGS ("int", "int")) == tilde_type_real ());
  g_assert_true (resolve ("normal_lpdf", ARGS ("vector", "real", "real")) == tilde_type_real ());
  g_assert_true (resolve ("normal_lupdf", ARGS ("vector", "int", "array[] real")) == tilde_type_real ());
  g_assert_true (resolve ("add", ARGS ("int", "real")) == tilde_type_real ());
  g_assert_true (resolve ("add", ARGS ("int", "int")) == tilde_type_int ());
  g_assert_true (resolve ("add", ARGS ("complex", "int")) == tilde_type_complex ());
  g_assert_true (resolve ("multiply", ARGS ("matrix", "vector")) == tilde_type_vector ());
  g_assert_true (resolve ("multiply", ARGS ("row_vector", "vector")) == tilde_type_real ());
  g_assert_true (resolve ("rep_array", ARGS ("int", "int")) == T ("array[] int"));
  g_assert_true (resolve ("rep_array", ARGS ("real", "int", "int")) == T ("array[,] real"));
  g_assert_true (resolve ("rep_array", ARGS ("vector", "int")) == T ("array[] vector"));
  g_assert_true (resolve ("exp", ARGS ("array[,] int")) == T ("array[,] real"));
  g_assert_true (resolve ("abs", ARGS ("int")) == tilde_type_int ());
  g_assert_true (resolve ("abs", ARGS ("complex_vector")) == tilde_type_vector ());
  g_assert_true (resolve ("normal_rng", ARGS ("real", "real")) == tilde_type_real ());
  g_assert_true (resolve ("normal_rng", ARGS ("vector", "int")) == T ("array[] real"));
  g_assert_true (resolve ("poisson_rng", ARGS ("real")) == tilde_type_int ());
  g_assert_true (resolve ("bernoulli_logit_rng", ARGS ("vector")) == T ("array[] int"));
  g_assert_true (resolve ("std_normal_rng", ((const char *const[]) { NULL })) == tilde_type_real ());
  g_assert_true (resolve ("hmm_latent_rng", ARGS ("matrix", "matrix", "vector")) == T ("array[] int"));
  g_assert_true (resolve ("to_complex", ARGS ("int", "int")) == tilde_type_complex ());
  g_assert_true (resolve ("eigendecompose_sym", ARGS ("matrix")) == T ("tuple(matrix, vector)"));
  g_assert_true (resolve ("csr_extract", ARGS ("matrix")) == T ("tuple(vector, array[] int, array[] int)"));
  g_assert_true (resolve ("dims", ARGS ("array[,] complex_matrix")) == T ("array[] int"));
  g_assert_true (resolve ("bessel_first_kind", ARGS ("array[] int", "vector")) == tilde_type_vector ());
  g_assert_true (resolve ("log_mix", ARGS ("vector", "array[] row_vector")) == tilde_type_real ());
  g_assert_true (resolve ("fma", ARGS ("real", "row_vector", "real")) == tilde_type_row_vector ());
  g_assert_true (resolve ("categorical_logit_glm_lpmf",
                          ARGS ("int", "row_vector", "vector", "matrix")) == tilde_type_real ());
}

static void
test_user_defined (void)
{
  const TildeType *cands[3] = {
    T ("(int, real) => real"), T ("(real, int) => real"), T ("(real, real) => vector"),
  };
  TildeArgType args[2] = { { TILDE_AD_AUTODIFF, tilde_type_int () },
                          { TILDE_AD_DATA, tilde_type_real () } };
  TildeMatch m;

  /* least upcasts: (int, real) needs none */
  g_assert_cmpint (tilde_overload_resolve (cands, 3, args, 2, &m), ==, TILDE_MATCH_UNIQUE);
  g_assert_cmpuint (m.index, ==, 0);
  g_assert_cmpuint (m.cost, ==, 0);
  g_assert_true (m.function == cands[0]);
  /* the same count for a bare parameter list; data parameters need data */
  g_assert_cmpint (tilde_overload_arguments_cost (tilde_type_arg (cands[2], 0), 2, args, 2), ==, 1);
  g_assert_cmpint (tilde_overload_arguments_cost (tilde_type_arg (T ("(data int, data real) => real"), 0),
                                                  2, args, 2), ==, -1);
  g_assert_cmpint (tilde_overload_arguments_cost (tilde_type_arg (cands[2], 0), 2, args, 1), ==, -1);
  /* (real, real) alone: one upcast */
  g_assert_cmpint (tilde_overload_resolve (cands + 2, 1, args, 2, &m), ==, TILDE_MATCH_UNIQUE);
  g_assert_cmpuint (m.cost, ==, 1);
  g_assert_true (m.return_type == tilde_type_vector ());
}

static void
test_ambiguity (void)
{
  const TildeType *cands[2] = { T ("(int, real) => real"), T ("(real, int) => real") };
  TildeArgType args[2] = { { TILDE_AD_AUTODIFF, tilde_type_int () },
                          { TILDE_AD_AUTODIFF, tilde_type_int () } };
  g_autofree char *text = NULL;

  g_assert_cmpint (tilde_overload_resolve (cands, 2, args, 2, NULL), ==, TILDE_MATCH_AMBIGUOUS);
  text = tilde_overload_ambiguity_message ("foo", cands, 2, args, 2);
  g_assert_cmpstr (text, ==,
    "No unique minimum promotion found for function 'foo'.\n"
    "Overloaded functions must not have multiple equally valid promotion paths.\n"
    "For args (int, int), this function has several:\n"
    "(int, real) => real\n"
    "(real, int) => real\n"
    "Consider defining a new signature for the exact types needed or\n"
    "re-thinking existing definitions.");
}

static void
test_data_only (void)
{
  g_autofree char *lin = NULL, *q = NULL, *i1d = NULL;

  g_assert_true (resolve ("linspaced_vector", ARGS ("data int", "data real", "data int"))
                 == tilde_type_vector ());
  lin = mismatch ("linspaced_vector", ARGS ("data int", "real", "data real"));
  g_assert_nonnull (strstr (lin, "The second argument must be data-only."));
  q = mismatch ("quantile", ARGS ("vector", "data real"));
  g_assert_nonnull (strstr (q, "The first argument must be data-only."));
  /* integrate_1d's relative tolerance */
  g_assert_true (resolve ("integrate_1d",
                          ARGS ("(real, real, array[] real, data array[] real, data array[] int) => real",
                                "real", "real", "array[] real", "data array[] real",
                                "data array[] int", "data real")) == tilde_type_real ());
  i1d = mismatch ("integrate_1d",
                  ARGS ("(real, real, array[] real, data array[] real, data array[] int) => real",
                        "real", "real", "array[] real", "data array[] real",
                        "data array[] int", "real"));
  g_assert_nonnull (strstr (i1d, "The 7th argument must be data-only."));
}

/* The variadic solvers: (f, fixed arguments..., arguments for f...) */
static void
test_variadic (void)
{
  const char *rhs = "(real, vector, real, array[] int) => vector";
  g_autofree char *tol = NULL, *suffix = NULL, *leading = NULL, *missing = NULL;
  const TildeVariadic *v = tilde_library_variadic ("ode_rk45_tol");

  g_assert_nonnull (v);
  g_assert_cmpuint (tilde_variadic_n_control (v), ==, 6);
  g_assert_cmpint (tilde_variadic_control (v, 3)->ad, ==, TILDE_AD_DATA);
  g_assert_true (tilde_variadic_callback_return (v) == tilde_type_vector ());
  g_assert_true (resolve ("ode_rk45", ARGS (rhs, "vector", "real", "array[] real",
                                            "real", "array[] int")) == T ("array[] vector"));
  g_assert_true (resolve ("ode_rk45_tol", ARGS (rhs, "vector", "real", "array[] real",
                                                "data real", "data real", "data int",
                                                "real", "array[] int")) == T ("array[] vector"));
  /* tolerances must be data */
  tol = mismatch ("ode_rk45_tol", ARGS (rhs, "vector", "real", "array[] real",
                                        "real", "data real", "data int", "real", "array[] int"));
  g_assert_nonnull (strstr (tol, "The 5th argument must be data-only."));
  missing = mismatch ("ode_rk45", ((const char *const[]) { NULL }));
  g_assert_nonnull (strstr (missing, "Expected 3 arguments but found 0 arguments."));
  g_clear_pointer (&missing, g_free);
  /* the forwarded arguments follow the function's own parameters */
  leading = mismatch ("ode_bdf", ARGS (rhs, "vector", "real", "array[] real", "vector",
                                       "array[] int"));
  g_assert_nonnull (strstr (leading, "The 5th argument must be real but got vector"));
  g_assert_true (resolve ("solve_newton", ARGS ("(vector) => vector", "vector"))
                 == tilde_type_vector ());
  {
    TildeArgType args[2];
    char *message = NULL;

    args[0].ad = TILDE_AD_AUTODIFF;
    args[0].type = tilde_type_function_with_kind (T ("(vector) => vector"), TILDE_FUN_RNG);
    args[1].ad = TILDE_AD_AUTODIFF;
    args[1].type = tilde_type_vector ();
    g_assert_cmpint (tilde_library_resolve ("solve_newton", args, 2, NULL, &message), ==,
                     TILDE_MATCH_NONE);
    suffix = message;
    g_assert_nonnull (strstr (suffix, "The first argument must be a pure function but got "
                              "an rng function. These function types are not compatible."));
  }
  missing = mismatch ("dae", ARGS ("real", "vector"));
  g_assert_nonnull (strstr (missing, "The first argument must be"));
  /* reduce_sum slices what its function takes first */
  g_assert_true (resolve ("reduce_sum",
                          ARGS ("(array[] vector, int, int, real) => real", "array[] vector",
                                "int", "real")) == tilde_type_real ());
  g_assert_true (resolve ("reduce_sum",
                          ARGS ("(array[] real, int, int) => real", "array[] int", "int"))
                 == tilde_type_real ());
}

static void
test_operators (void)
{
  TildeArgType a[2];
  TildeMatch m;

  a[0] = (TildeArgType) { TILDE_AD_AUTODIFF, tilde_type_int () };
  a[1] = (TildeArgType) { TILDE_AD_AUTODIFF, tilde_type_int () };
  g_assert_cmpint (tilde_library_resolve_operator (TILDE_OPERATOR_DIVIDE, a, 2, &m, NULL), ==, TILDE_MATCH_UNIQUE);
  g_assert_true (m.return_type == tilde_type_int ());
  g_assert_cmpint (tilde_library_resolve_operator (TILDE_OPERATOR_INT_DIVIDE, a, 2, &m, NULL), ==, TILDE_MATCH_UNIQUE);
  g_assert_cmpint (tilde_library_resolve_operator (TILDE_OPERATOR_POW, a, 2, &m, NULL), ==, TILDE_MATCH_UNIQUE);
  g_assert_true (m.return_type == tilde_type_real ());
  a[0].type = tilde_type_matrix ();
  a[1].type = tilde_type_matrix ();
  g_assert_cmpint (tilde_library_resolve_operator (TILDE_OPERATOR_DIVIDE, a, 2, &m, NULL), ==, TILDE_MATCH_UNIQUE);
  g_assert_true (m.return_type == tilde_type_matrix ());
  a[1].type = tilde_type_vector ();
  g_assert_cmpint (tilde_library_resolve_operator (TILDE_OPERATOR_LEFT_DIVIDE, a, 2, &m, NULL), ==, TILDE_MATCH_UNIQUE);
  g_assert_true (m.return_type == tilde_type_vector ());
  a[0].type = T ("array[] int");
  g_assert_cmpint (tilde_library_resolve_operator (TILDE_OPERATOR_MINUS, a, 1, &m, NULL), ==, TILDE_MATCH_UNIQUE);
  g_assert_true (m.return_type == T ("array[] int"));
  a[0].type = tilde_type_vector ();
  g_assert_cmpint (tilde_library_resolve_operator (TILDE_OPERATOR_TRANSPOSE, a, 1, &m, NULL), ==, TILDE_MATCH_UNIQUE);
  g_assert_true (m.return_type == tilde_type_row_vector ());
  a[0].type = tilde_type_real ();
  a[1].type = tilde_type_int ();
  g_assert_cmpint (tilde_library_resolve_operator (TILDE_OPERATOR_LESS, a, 2, &m, NULL), ==, TILDE_MATCH_UNIQUE);
  g_assert_true (m.return_type == tilde_type_int ());
  g_assert_cmpstr (tilde_operator_symbol (TILDE_OPERATOR_ELT_DIVIDE), ==, "./");
  g_assert_cmpuint (tilde_operator_arity (TILDE_OPERATOR_NOT), ==, 1);
  g_assert_cmpstr (tilde_operator_functions (TILDE_OPERATOR_DIVIDE)[0], ==, "mdivide_right");
  g_assert_cmpstr (tilde_operator_functions (TILDE_OPERATOR_DIVIDE)[1], ==, "divide");
  g_assert_null (tilde_operator_functions (TILDE_OPERATOR_DIVIDE)[2]);
}

/* -------------------------------------------------- stanc's error texts
 * Expected outputs of the Stan compiler's own test suite
 * (test/integration/bad/stanc.expected). */

static void
test_message_data_only_udf (void)
{
  const TildeType *cands[1] = { T ("(data real) => real") };
  TildeArgType args[1] = { { TILDE_AD_AUTODIFF, tilde_type_real () } };
  g_autofree char *text = tilde_overload_mismatch_message ("my_fun3", cands, 1, args, 1);

  g_assert_cmpstr (text, ==,
    "Ill-typed arguments supplied to function 'my_fun3':\n"
    "(real)\n"
    "Available signatures:\n"
    "(data real) => real\n"
    "  The first argument must be data-only. (Local variables are assumed to\n"
    "  depend on parameters; same goes for function inputs unless they are marked\n"
    "  with the keyword 'data'.)");
}

static void
test_message_to_int (void)
{
  g_autofree char *text = mismatch ("to_int", ARGS ("array[] real"));

  g_assert_cmpstr (text, ==,
    "Ill-typed arguments supplied to function 'to_int':\n"
    "(array[] real)\n"
    "Available signatures:\n"
    "(data array[] real) => array[] int\n"
    "  The first argument must be data-only. (Local variables are assumed to\n"
    "  depend on parameters; same goes for function inputs unless they are marked\n"
    "  with the keyword 'data'.)\n"
    "(data array[] int) => array[] int\n"
    "  The first argument must be array[] int but got array[] real\n"
    "(data real) => int\n"
    "  The first argument must be real but got array[] real\n"
    "(data array[,] real) => array[,] int\n"
    "  The first argument must be array[,] real but got array[] real\n"
    "(data array[,,] real) => array[,,] int\n"
    "  The first argument must be array[,,] real but got array[] real\n"
    "(Additional signatures omitted)");
}

static void
test_message_distribution (void)
{
  g_autofree char *text = mismatch ("bernoulli_logit_lpmf", ARGS ("vector", "vector"));

  g_assert_cmpstr (text, ==,
    "Ill-typed arguments supplied to function 'bernoulli_logit_lpmf':\n"
    "(vector, vector)\n"
    "Available signatures:\n"
    "(array[] int, row_vector) => real\n"
    "  The first argument must be array[] int but got vector\n"
    "(array[] int, vector) => real\n"
    "  The first argument must be array[] int but got vector\n"
    "(array[] int, array[] real) => real\n"
    "  The first argument must be array[] int but got vector\n"
    "(array[] int, real) => real\n"
    "  The first argument must be array[] int but got vector\n"
    "(int, row_vector) => real\n"
    "  The first argument must be int but got vector\n"
    "(Additional signatures omitted)");
}

static void
test_message_udf_second_argument (void)
{
  const TildeType *cands[1] = {
    tilde_type_function_with_kind (T ("(real, int, real) => real"), TILDE_FUN_LPDF),
  };
  TildeArgType args[3];
  g_autofree char *text = NULL;

  make_args (args, ARGS ("real", "real", "int"));
  text = tilde_overload_mismatch_message ("foo", cands, 1, args, 3);
  g_assert_cmpstr (text, ==,
    "Ill-typed arguments supplied to function 'foo':\n"
    "(real, real, int)\n"
    "Available signatures:\n"
    "(real, int, real) => real\n"
    "  The second argument must be int but got real");
}

static void
test_message_higher_order (void)
{
  g_autofree char *text = mismatch ("integrate_ode_rk45",
    ARGS ("(real, array[] real, array[] real, array[] real, array[] int) => array[] real",
          "array[] real", "real", "data array[] real", "array[] real", "array[] real",
          "data array[] int"));

  g_assert_cmpstr (text, ==,
    "Ill-typed arguments supplied to function 'integrate_ode_rk45':\n"
    "(<F1>, array[] real, real, array[] real, array[] real, array[] real,\n"
    " array[] int)\n"
    "where F1 = (real, array[] real, array[] real, array[] real, array[] int) => array[] real\n"
    "Available signatures:\n"
    "(<F2>, array[] real, real, array[] real, array[] real, data array[] real,\n"
    " data array[] int) => array[,] real\n"
    "where F2 = (real, array[] real, array[] real, data array[] real,\n"
    "            data array[] int) => array[] real\n"
    "  The 6th argument must be data-only. (Local variables are assumed to depend\n"
    "  on parameters; same goes for function inputs unless they are marked with\n"
    "  the keyword 'data'.)\n"
    "(<F2>, array[] real, real, array[] real, array[] real, data array[] real,\n"
    " data array[] int, data real, data real, data real) => array[,] real\n"
    "  Expected 10 arguments but found 7 arguments.");
}

static char *
operator_mismatch (TildeOperator op, const char *const *arg_texts)
{
  TildeArgType args[2];
  guint n = make_args (args, arg_texts);
  char *message = NULL;

  g_assert_cmpint (tilde_library_resolve_operator (op, args, n, NULL, &message), ==,
                   TILDE_MATCH_NONE);
  return message;
}

static void
test_message_operators (void)
{
  g_autofree char *minus = operator_mismatch (TILDE_OPERATOR_SUBTRACT, ARGS ("vector", "matrix"));
  g_autofree char *times = operator_mismatch (TILDE_OPERATOR_MULTIPLY, ARGS ("array[] int", "matrix"));
  g_autofree char *div = operator_mismatch (TILDE_OPERATOR_DIVIDE, ARGS ("array[] int", "matrix"));
  g_autofree char *intdiv = operator_mismatch (TILDE_OPERATOR_INT_DIVIDE, ARGS ("real", "int"));
  g_autofree char *ldiv = operator_mismatch (TILDE_OPERATOR_LEFT_DIVIDE, ARGS ("array[] int", "matrix"));
  g_autofree char *not = operator_mismatch (TILDE_OPERATOR_NOT, ARGS ("array[] int"));
  g_autofree char *tr = operator_mismatch (TILDE_OPERATOR_TRANSPOSE, ARGS ("array[] int"));

  g_assert_cmpstr (minus, ==,
    "Ill-typed arguments supplied to infix operator -. Available signatures: \n"
    "(int, int) => int\n(real, real) => real\n(real, vector) => vector\n"
    "(vector, real) => vector\n(vector, vector) => vector\n(complex, complex) => complex\n"
    "(real, row_vector) => row_vector\n(row_vector, real) => row_vector\n"
    "(row_vector, row_vector) => row_vector\n(real, matrix) => matrix\n"
    "(matrix, real) => matrix\n(matrix, matrix) => matrix\n"
    "(complex, complex_vector) => complex_vector\n(complex_vector, complex) => complex_vector\n"
    "(complex_vector, complex_vector) => complex_vector\n"
    "(complex, complex_row_vector) => complex_row_vector\n"
    "(complex_row_vector, complex) => complex_row_vector\n"
    "(complex_row_vector, complex_row_vector) => complex_row_vector\n"
    "(complex, complex_matrix) => complex_matrix\n(complex_matrix, complex) => complex_matrix\n"
    "(complex_matrix, complex_matrix) => complex_matrix\n"
    "Instead supplied arguments of incompatible type: vector, matrix.");
  g_assert_cmpstr (times, ==,
    "Ill-typed arguments supplied to infix operator *. Available signatures: \n"
    "(int, int) => int\n(real, real) => real\n(row_vector, vector) => real\n"
    "(real, vector) => vector\n(vector, real) => vector\n(matrix, vector) => vector\n"
    "(complex, complex) => complex\n(complex_row_vector, complex_vector) => complex\n"
    "(real, row_vector) => row_vector\n(row_vector, real) => row_vector\n"
    "(row_vector, matrix) => row_vector\n(real, matrix) => matrix\n"
    "(vector, row_vector) => matrix\n(matrix, real) => matrix\n(matrix, matrix) => matrix\n"
    "(complex, complex_vector) => complex_vector\n(complex_vector, complex) => complex_vector\n"
    "(complex_matrix, complex_vector) => complex_vector\n"
    "(complex, complex_row_vector) => complex_row_vector\n"
    "(complex_row_vector, complex) => complex_row_vector\n"
    "(complex_row_vector, complex_matrix) => complex_row_vector\n"
    "(complex, complex_matrix) => complex_matrix\n"
    "(complex_vector, complex_row_vector) => complex_matrix\n"
    "(complex_matrix, complex) => complex_matrix\n"
    "(complex_matrix, complex_matrix) => complex_matrix\n"
    "Instead supplied arguments of incompatible type: array[] int, matrix.");
  g_assert_cmpstr (div, ==,
    "Ill-typed arguments supplied to infix operator /. Available signatures: \n"
    "(row_vector, matrix) => row_vector\n(matrix, matrix) => matrix\n"
    "(complex_row_vector, complex_matrix) => complex_row_vector\n"
    "(complex_matrix, complex_matrix) => complex_matrix\n\n"
    "(int, int) => int\n(real, real) => real\n(real, vector) => vector\n"
    "(vector, real) => vector\n(complex, complex) => complex\n"
    "(real, row_vector) => row_vector\n(row_vector, real) => row_vector\n"
    "(real, matrix) => matrix\n(matrix, real) => matrix\n"
    "(complex, complex_vector) => complex_vector\n(complex_vector, complex) => complex_vector\n"
    "(complex, complex_row_vector) => complex_row_vector\n"
    "(complex_row_vector, complex) => complex_row_vector\n"
    "(complex, complex_matrix) => complex_matrix\n(complex_matrix, complex) => complex_matrix\n"
    "Instead supplied arguments of incompatible type: array[] int, matrix.");
  g_assert_cmpstr (intdiv, ==,
    "Ill-typed arguments supplied to infix operator %/%. Available signatures: \n"
    "(int, int) => int\n"
    "Instead supplied arguments of incompatible type: real, int.");
  g_assert_cmpstr (ldiv, ==,
    "Ill-typed arguments supplied to infix operator \\. Available signatures: \n"
    "(matrix, vector) => vector\n(matrix, matrix) => matrix\n"
    "Instead supplied arguments of incompatible type: array[] int, matrix.");
  g_assert_cmpstr (not, ==,
    "Ill-typed arguments supplied to prefix operator !. Available signatures: \n"
    "(int) => int\n(real) => int\n"
    "Instead supplied argument of incompatible type: array[] int.");
  g_assert_cmpstr (tr, ==,
    "Ill-typed arguments supplied to postfix operator '. Available signatures: \n"
    "(row_vector) => vector\n(vector) => row_vector\n(matrix) => matrix\n"
    "(complex_row_vector) => complex_vector\n(complex_vector) => complex_row_vector\n"
    "(complex_matrix) => complex_matrix\n"
    "Instead supplied argument of incompatible type: array[] int.");
}

static void
test_message_argument_count (void)
{
  g_autofree char *text = mismatch ("normal_lpdf", ARGS ("real", "real", "vector", "int"));

  g_assert_true (g_str_has_prefix (text,
    "Ill-typed arguments supplied to function 'normal_lpdf':\n"
    "(real, real, vector, int)\n"
    "Available signatures:\n"));
  g_assert_nonnull (strstr (text, "  Expected 3 arguments but found 4 arguments."));
  g_assert_true (g_str_has_suffix (text, "(Additional signatures omitted)"));
}

static void
test_format_signatures (void)
{
  g_autofree char *sigs = tilde_library_format_signatures ("mdivide_left");
  g_autofree char *rng = tilde_library_format_signatures ("discrete_range_rng");

  g_assert_cmpstr (sigs, ==, "(matrix, vector) => vector\n(matrix, matrix) => matrix");
  g_assert_cmpstr (rng, ==,
    "(int, int) => int\n(int, array[] int) => array[] int\n"
    "(array[] int, int) => array[] int\n(array[] int, array[] int) => array[] int");
  g_assert_null (tilde_library_format_signatures ("ode_rk45"));
}

/* ------------------------------------------------------- deprecations */

static void
test_deprecations (void)
{
  const char *repl = NULL;
  int major = 0, minor = 0;
  gboolean removed = TRUE;
  g_autofree char *ode = NULL, *mlog = NULL, *dist = NULL, *cdf = NULL;

  g_assert_true (tilde_library_deprecation ("integrate_ode_rk45", &repl, &major, &minor, &removed));
  g_assert_cmpstr (repl, ==, "ode_rk45");
  g_assert_cmpint (major, ==, 3);
  g_assert_false (removed);
  ode = tilde_library_deprecation_message ("integrate_ode_bdf");
  g_assert_cmpstr (ode, ==,
    "integrate_ode_bdf is deprecated and will be removed in Stan 3.0. Use ode_bdf instead. \n"
    "The new interface is slightly different, see: "
    "https://mc-stan.org/users/documentation/case-studies/convert_odes.html");
  g_assert_true (tilde_library_deprecation ("multiply_log", &repl, &major, &minor, &removed));
  g_assert_cmpstr (repl, ==, "lmultiply");
  g_assert_true (removed);
  mlog = tilde_library_deprecation_message ("multiply_log");
  g_assert_cmpstr (mlog, ==,
    "multiply_log was removed in Stan 2.33. Use lmultiply instead. This can be "
    "automatically changed using the canonicalize flag for stanc");
  g_assert_true (tilde_library_deprecation ("normal_log", &repl, NULL, NULL, &removed));
  g_assert_cmpstr (repl, ==, "normal_lpdf");
  g_assert_true (tilde_library_deprecation ("poisson_log_log", &repl, NULL, NULL, NULL));
  g_assert_cmpstr (repl, ==, "poisson_log_lpmf");
  g_assert_true (tilde_library_deprecation ("weibull_ccdf_log", &repl, NULL, NULL, NULL));
  g_assert_cmpstr (repl, ==, "weibull_lccdf");
  g_assert_true (tilde_library_deprecation ("normal_cdf_log", &repl, NULL, NULL, NULL));
  g_assert_cmpstr (repl, ==, "normal_lcdf");
  /* families whose names end in _log are not old spellings */
  g_assert_false (tilde_library_deprecation ("poisson_log", NULL, NULL, NULL, NULL));
  g_assert_false (tilde_library_deprecation ("neg_binomial_2_log", NULL, NULL, NULL, NULL));
  g_assert_false (tilde_library_deprecation ("exp_log", NULL, NULL, NULL, NULL));
  g_assert_false (tilde_library_deprecation ("normal_lpdf", NULL, NULL, NULL, NULL));
  g_assert_null (tilde_library_deprecation_message ("normal"));
  dist = tilde_library_deprecation_message ("lkj_cov");
  g_assert_true (g_str_has_prefix (dist, "lkj_cov is deprecated and will be removed in Stan 3.0."));
  cdf = tilde_library_deprecation_message ("get_lp");
  g_assert_true (g_str_has_prefix (cdf, "The get_lp() function was removed in Stan 2.33.0."));
}

static void
test_suggestions (void)
{
  g_assert_cmpstr (tilde_library_suggest ("to_vetor"), ==, "to_vector");
  g_assert_cmpstr (tilde_library_suggest ("normal_lpfd"), ==, "normal_lpdf");
  g_assert_cmpstr (tilde_library_suggest ("cholesky_decompse"), ==, "cholesky_decompose");
  g_assert_null (tilde_library_suggest ("xyzzy"));
  g_assert_null (tilde_library_suggest ("exp")); /* exact names need no suggestion */
  g_assert_cmpuint (tilde_edit_distance ("kitten", "sitting"), ==, 3);
  g_assert_cmpuint (tilde_edit_distance ("", "abc"), ==, 3);
  g_assert_cmpuint (tilde_edit_distance ("abc", "abc"), ==, 0);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/semantics/library/coverage", test_coverage);
  g_test_add_func ("/engine/semantics/library/distribution-families", test_distribution_families);
  g_test_add_func ("/engine/semantics/library/names", test_names);
  g_test_add_func ("/engine/semantics/library/resolution", test_resolution);
  g_test_add_func ("/engine/semantics/library/user-defined", test_user_defined);
  g_test_add_func ("/engine/semantics/library/ambiguity", test_ambiguity);
  g_test_add_func ("/engine/semantics/library/data-only", test_data_only);
  g_test_add_func ("/engine/semantics/library/variadic", test_variadic);
  g_test_add_func ("/engine/semantics/library/operators", test_operators);
  g_test_add_func ("/engine/semantics/library/message-data-only-udf", test_message_data_only_udf);
  g_test_add_func ("/engine/semantics/library/message-to-int", test_message_to_int);
  g_test_add_func ("/engine/semantics/library/message-distribution", test_message_distribution);
  g_test_add_func ("/engine/semantics/library/message-udf-second-argument", test_message_udf_second_argument);
  g_test_add_func ("/engine/semantics/library/message-higher-order", test_message_higher_order);
  g_test_add_func ("/engine/semantics/library/message-operators", test_message_operators);
  g_test_add_func ("/engine/semantics/library/message-argument-count", test_message_argument_count);
  g_test_add_func ("/engine/semantics/library/format-signatures", test_format_signatures);
  g_test_add_func ("/engine/semantics/library/deprecations", test_deprecations);
  g_test_add_func ("/engine/semantics/library/suggestions", test_suggestions);
  return g_test_run ();
}
