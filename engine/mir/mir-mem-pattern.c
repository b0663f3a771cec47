/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/mir-mem-pattern.h"

#include <stdarg.h>
#include <string.h>

#include "mir/mir-print.h"

/* ---- which library functions take SoA matrices ----
 *
 * From the Stan compiler's signature table (stan_math_signatures), where
 * every signature is marked SoA or AoS. Most functions are one or the
 * other for all their real signatures; the rules below cover the ones whose
 * signatures differ. Complex signatures are AoS except for the few listed. */

typedef enum {
  SOA_ALL,            /* every real signature */
  SOA_ARRAY_ARG,      /* only with an array first argument (mean) */
  SOA_EIGEN_ARG,      /* only with a vector, row vector or matrix first argument */
  SOA_VECTOR_ARG,     /* only with a vector or row vector first argument */
  SOA_MATRIX_ARGS,    /* only (matrix, matrix) */
  SOA_ONE_ARG,        /* only the one-argument form */
  SOA_FIVE_ARGS,      /* only the five-argument form (wiener) */
  SOA_INT_FIRST,      /* only with an int first argument */
} SoaRule;

typedef struct {
  const char *name;
  SoaRule     rule;
} SoaEntry;

static const SoaEntry soa_functions[] = {
  /* distribution families (every suffix), by family name */
  { "beta_binomial", SOA_ALL }, { "beta_neg_binomial", SOA_ALL }, { "beta", SOA_ALL },
  { "beta_proportion", SOA_ALL }, { "bernoulli", SOA_ALL }, { "bernoulli_logit", SOA_ALL },
  { "bernoulli_logit_glm", SOA_ALL }, { "binomial", SOA_ALL }, { "binomial_logit", SOA_ALL },
  { "binomial_logit_glm", SOA_ALL }, { "categorical_logit_glm", SOA_ALL },
  { "cauchy", SOA_ALL }, { "chi_square", SOA_ALL }, { "dirichlet", SOA_ALL },
  { "discrete_range", SOA_ALL }, { "double_exponential", SOA_ALL },
  { "exp_mod_normal", SOA_ALL }, { "exponential", SOA_ALL }, { "frechet", SOA_ALL },
  { "gamma", SOA_ALL }, { "gumbel", SOA_ALL }, { "hypergeometric", SOA_ALL },
  { "inv_chi_square", SOA_ALL }, { "inv_gamma", SOA_ALL },
  { "inv_wishart_cholesky", SOA_ALL }, { "inv_wishart", SOA_ALL }, { "logistic", SOA_ALL },
  { "loglogistic", SOA_ALL }, { "lognormal", SOA_ALL },
  { "multi_student_t_cholesky", SOA_ALL }, { "neg_binomial", SOA_ALL },
  { "neg_binomial_2", SOA_ALL }, { "neg_binomial_2_log", SOA_ALL },
  { "neg_binomial_2_log_glm", SOA_ALL }, { "normal", SOA_ALL }, { "normal_id_glm", SOA_ALL },
  { "ordered_logistic", SOA_ALL }, { "ordered_logistic_glm", SOA_ALL },
  { "ordered_probit", SOA_INT_FIRST }, { "pareto", SOA_ALL }, { "pareto_type_2", SOA_ALL },
  { "poisson", SOA_ALL }, { "poisson_log", SOA_ALL }, { "poisson_log_glm", SOA_ALL },
  { "rayleigh", SOA_ALL }, { "scaled_inv_chi_square", SOA_ALL }, { "skew_normal", SOA_ALL },
  { "skew_double_exponential", SOA_ALL }, { "student_t", SOA_ALL },
  { "std_normal", SOA_ALL }, { "uniform", SOA_ALL }, { "von_mises", SOA_ALL },
  { "weibull", SOA_ALL }, { "wiener", SOA_FIVE_ARGS }, { "wishart_cholesky", SOA_ALL },
  { "wishart", SOA_ALL },
  /* element-wise functions */
  { "abs", SOA_ALL }, { "acos", SOA_ALL }, { "acosh", SOA_ALL }, { "asin", SOA_ALL },
  { "asinh", SOA_ALL }, { "atan", SOA_ALL }, { "atanh", SOA_ALL }, { "cbrt", SOA_ALL },
  { "ceil", SOA_ALL }, { "cos", SOA_ALL }, { "cosh", SOA_ALL }, { "digamma", SOA_ALL },
  { "erf", SOA_ALL }, { "erfc", SOA_ALL }, { "exp", SOA_ALL }, { "exp2", SOA_ALL },
  { "expm1", SOA_ALL }, { "floor", SOA_ALL }, { "inv", SOA_ALL }, { "inv_cloglog", SOA_ALL },
  { "inv_erfc", SOA_ALL }, { "inv_logit", SOA_ALL }, { "inv_Phi", SOA_ALL },
  { "inv_sqrt", SOA_ALL }, { "inv_square", SOA_ALL }, { "lambert_w0", SOA_ALL },
  { "lambert_wm1", SOA_ALL }, { "lgamma", SOA_ALL }, { "log", SOA_ALL }, { "log10", SOA_ALL },
  { "log1m", SOA_ALL }, { "log1m_exp", SOA_ALL }, { "log1m_inv_logit", SOA_ALL },
  { "log1p", SOA_ALL }, { "log1p_exp", SOA_ALL }, { "log2", SOA_ALL },
  { "log_inv_logit", SOA_ALL }, { "logit", SOA_ALL }, { "minus", SOA_ALL }, { "Phi", SOA_ALL },
  { "Phi_approx", SOA_ALL }, { "round", SOA_ALL }, { "sin", SOA_ALL }, { "sinh", SOA_ALL },
  { "sqrt", SOA_ALL }, { "square", SOA_ALL }, { "std_normal_qf", SOA_ALL },
  { "std_normal_log_qf", SOA_ALL }, { "step", SOA_ALL }, { "tan", SOA_ALL },
  { "tanh", SOA_ALL }, { "tgamma", SOA_ALL }, { "trunc", SOA_ALL }, { "trigamma", SOA_ALL },
  /* everything else */
  { "add", SOA_ALL }, { "bessel_first_kind", SOA_ALL }, { "bessel_second_kind", SOA_ALL },
  { "block", SOA_ALL }, { "cholesky_decompose", SOA_ALL }, { "cols", SOA_ALL },
  { "columns_dot_product", SOA_MATRIX_ARGS }, { "cumulative_sum", SOA_VECTOR_ARG },
  { "csr_matrix_times_vector", SOA_ALL }, { "determinant", SOA_ALL },
  { "diag_post_multiply", SOA_ALL }, { "diag_pre_multiply", SOA_ALL },
  { "diagonal", SOA_ALL }, { "dims", SOA_ALL }, { "distance", SOA_ALL },
  { "divide", SOA_ALL }, { "dot_product", SOA_ALL }, { "dot_self", SOA_ALL },
  { "elt_divide", SOA_ALL }, { "elt_multiply", SOA_ALL }, { "falling_factorial", SOA_ALL },
  { "fma", SOA_ALL }, { "generalized_inverse", SOA_ALL }, { "head", SOA_ALL },
  { "identity_matrix", SOA_ALL }, { "inc_beta", SOA_ALL }, { "int_step", SOA_ALL },
  { "inv_inc_beta", SOA_ALL }, { "inverse", SOA_ALL }, { "is_inf", SOA_ALL },
  { "is_nan", SOA_ALL }, { "linspaced_int_array", SOA_ALL }, { "linspaced_array", SOA_ALL },
  { "linspaced_row_vector", SOA_ALL }, { "linspaced_vector", SOA_ALL },
  { "lmultiply", SOA_ALL }, { "log_determinant", SOA_ALL },
  { "log_determinant_spd", SOA_ALL }, { "log_softmax", SOA_ALL },
  { "log_sum_exp", SOA_ONE_ARG }, { "logical_and", SOA_ALL }, { "logical_or", SOA_ALL },
  { "logical_negation", SOA_ALL }, { "logical_eq", SOA_ALL }, { "logical_neq", SOA_ALL },
  { "logical_lt", SOA_ALL }, { "logical_lte", SOA_ALL }, { "logical_gt", SOA_ALL },
  { "logical_gte", SOA_ALL }, { "matrix_power", SOA_ALL }, { "mdivide_left", SOA_ALL },
  { "mdivide_left_spd", SOA_ALL }, { "mean", SOA_ARRAY_ARG }, { "multiply", SOA_ALL },
  { "multiply_lower_tri_self_transpose", SOA_ALL }, { "norm1", SOA_ALL },
  { "norm2", SOA_ALL }, { "num_elements", SOA_ALL }, { "one_hot_int_array", SOA_ALL },
  { "one_hot_array", SOA_ALL }, { "one_hot_row_vector", SOA_ALL },
  { "one_hot_vector", SOA_ALL }, { "ones_int_array", SOA_ALL }, { "ones_array", SOA_ALL },
  { "ones_row_vector", SOA_ALL }, { "ones_vector", SOA_ALL }, { "plus", SOA_ALL },
  { "quad_form", SOA_ALL }, { "quantile", SOA_ALL }, { "rep_array", SOA_ALL },
  { "rep_matrix", SOA_ALL }, { "rep_row_vector", SOA_ALL }, { "rep_vector", SOA_ALL },
  { "reverse", SOA_ALL }, { "row", SOA_ALL }, { "rows", SOA_ALL },
  { "rows_dot_product", SOA_MATRIX_ARGS }, { "rows_dot_self", SOA_ALL }, { "sd", SOA_ALL },
  { "segment", SOA_ALL }, { "singular_values", SOA_ALL }, { "size", SOA_ALL },
  { "softmax", SOA_ALL }, { "squared_distance", SOA_ALL }, { "sub_col", SOA_ALL },
  { "sub_row", SOA_ALL }, { "subtract", SOA_ALL }, { "sum", SOA_ALL }, { "svd_U", SOA_ALL },
  { "svd_V", SOA_ALL }, { "tail", SOA_ALL }, { "tcrossprod", SOA_ALL },
  { "to_vector", SOA_EIGEN_ARG }, { "trace", SOA_ALL }, { "trace_gen_quad_form", SOA_ALL },
  { "trace_quad_form", SOA_ALL }, { "transpose", SOA_ALL }, { "uniform_simplex", SOA_ALL },
  { "variance", SOA_ALL }, { "zeros_int_array", SOA_ALL }, { "zeros_array", SOA_ALL },
  { "zeros_row_vector", SOA_ALL }, { "zeros_vector", SOA_ALL },
};

/* Complex signatures marked SoA in the table. */
static const char *const soa_complex_functions[] = {
  "add", "subtract", "elt_multiply", "elt_divide", "multiply", "transpose", "sum", "reverse",
  "cols", "rows", "num_elements", "size", "dims", "diagonal", "svd_U", "svd_V", "minus",
  "logical_eq", "logical_neq",
};

/* The constraint transforms' constrain and jacobian functions are SoA,
 * their unconstrain functions AoS. */
static const char *const transform_families[] = {
  "corr_matrix", "cov_matrix", "cholesky_factor_corr", "cholesky_factor_cov",
  "lower_bound", "lower_upper_bound", "upper_bound", "offset_multiplier", "ordered",
  "positive_ordered", "simplex", "unit_vector", "stochastic_column", "stochastic_row",
  "sum_to_zero",
};

static const char *
operator_math_name (const char *name)
{
  static const char *const table[][2] = {
    { "Plus__", "add" }, { "PPlus__", "plus" }, { "Minus__", "subtract" },
    { "PMinus__", "minus" }, { "Times__", "multiply" }, { "Divide__", "divide" },
    { "IntDivide__", "divide" }, { "Modulo__", "modulus" }, { "LDivide__", "mdivide_left" },
    { "EltTimes__", "elt_multiply" }, { "EltDivide__", "elt_divide" }, { "Pow__", "pow" },
    { "EltPow__", "pow" }, { "Or__", "logical_or" }, { "And__", "logical_and" },
    { "Equals__", "logical_eq" }, { "NEquals__", "logical_neq" }, { "Less__", "logical_lt" },
    { "Leq__", "logical_lte" }, { "Greater__", "logical_gt" }, { "Geq__", "logical_gte" },
    { "PNot__", "logical_negation" }, { "Transpose__", "transpose" },
  };
  gsize len = strlen (name);

  /* operator functions are named Xxx__ */
  if (len < 3 || name[len - 1] != '_' || name[len - 2] != '_')
    return name;
  for (guint i = 0; i < G_N_ELEMENTS (table); i++)
    if (strcmp (table[i][0], name) == 0)
      return table[i][1];
  return name;
}

/* foo_lupdf, foo_lpdf, foo_lcdf, ... -> foo */
static char *
family_of (const char *name)
{
  static const char *const suffixes[] = {
    "_lupdf", "_lupmf", "_lpdf", "_lpmf", "_lccdf", "_lcdf", "_cdf", "_rng",
  };
  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    if (g_str_has_suffix (name, suffixes[i]))
      return g_strndup (name, strlen (name) - strlen (suffixes[i]));
  return NULL;
}

static gboolean
any_complex (const TildeType *const *args, guint n)
{
  for (guint i = 0; i < n; i++)
    if (args[i] && tilde_type_is_complex_type (args[i]))
      return TRUE;
  return FALSE;
}

static gboolean
rule_allows (SoaRule rule, const TildeType *const *args, guint n)
{
  TildeTypeKind first = n > 0 && args[0] ? tilde_type_kind (args[0]) : TILDE_TYPE_VOID;
  switch (rule)
    {
    case SOA_ALL: return TRUE;
    case SOA_ARRAY_ARG: return first == TILDE_TYPE_ARRAY;
    case SOA_EIGEN_ARG:
      return first == TILDE_TYPE_VECTOR || first == TILDE_TYPE_ROW_VECTOR
        || first == TILDE_TYPE_MATRIX;
    case SOA_VECTOR_ARG: return first == TILDE_TYPE_VECTOR || first == TILDE_TYPE_ROW_VECTOR;
    case SOA_MATRIX_ARGS:
      return n == 2 && first == TILDE_TYPE_MATRIX && tilde_type_kind (args[1]) == TILDE_TYPE_MATRIX;
    case SOA_ONE_ARG: return n == 1;
    case SOA_FIVE_ARGS: return n == 5;
    case SOA_INT_FIRST: return first == TILDE_TYPE_INT;
    }
  return FALSE;
}

/* The entry of each name in soa_functions (+ 1), built once: the
 * table is looked up for every call of a program. */
static GHashTable *
soa_index (void)
{
  static GHashTable *index;
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      index = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = 0; i < G_N_ELEMENTS (soa_functions); i++)
        if (!g_hash_table_contains (index, soa_functions[i].name))
          g_hash_table_insert (index, (gpointer) soa_functions[i].name, GUINT_TO_POINTER (i + 1));
      g_once_init_leave (&done, 1);
    }
  return index;
}

static gboolean
is_transform_function (const char *name)
{
  if (!g_str_has_suffix (name, "_constrain") && !g_str_has_suffix (name, "_jacobian"))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (transform_families); i++)
    {
      gsize len = strlen (transform_families[i]);
      if (strncmp (name, transform_families[i], len) == 0
          && (strcmp (name + len, "_constrain") == 0 || strcmp (name + len, "_jacobian") == 0))
        return TRUE;
    }
  return FALSE;
}

gboolean
mir_mem_pattern_supports_soa (const char *name, const TildeType *const *args, guint n_args)
{
  name = operator_math_name (name);
  g_autofree char *family = family_of (name);
  const char *key = family ? family : name;
  guint entry;

  if (is_transform_function (name))
    return TRUE;
  if (any_complex (args, n_args))
    {
      gboolean ok = FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (soa_complex_functions); i++)
        ok |= strcmp (soa_complex_functions[i], name) == 0;
      if (!ok)
        return FALSE;
    }
  entry = GPOINTER_TO_UINT (g_hash_table_lookup (soa_index (), key));
  if (entry)
    return rule_allows (soa_functions[entry - 1].rule, args, n_args);
  return FALSE;
}

/* ---- the analysis ---- */

typedef struct {
  GHashTable *aos;   /* name -> reason (interned) */
  gboolean    changed;
} Ctx;

static const char *reason_with (const char *format, ...) G_GNUC_PRINTF (1, 2);

static const char *
reason_with (const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *text = g_strdup_vprintf (format, ap);
  va_end (ap);
  return g_intern_string (text);
}

static void
demote (Ctx *c, const char *name, const char *reason)
{
  if (!g_hash_table_contains (c->aos, name))
    {
      g_hash_table_insert (c->aos, (gpointer) name, (gpointer) reason);
      c->changed = TRUE;
    }
}

static void
demote_all (Ctx *c, GHashTable *names, const char *reason)
{
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, names);
  while (g_hash_table_iter_next (&it, &key, NULL))
    demote (c, key, reason);
}

static gboolean
contains_eigen (const TildeType *t)
{
  if (!t)
    return FALSE;
  if (tilde_type_is_eigen (t))
    return TRUE;
  if (tilde_type_kind (t) == TILDE_TYPE_ARRAY)
    return contains_eigen (tilde_type_array_base (t));
  if (tilde_type_kind (t) == TILDE_TYPE_TUPLE)
    for (guint i = 0; i < tilde_type_n_members (t); i++)
      if (contains_eigen (tilde_type_member (t, i)))
        return TRUE;
  return FALSE;
}

/* stanc's matrix_set filtered to autodiff variables: the variables holding
 * autodiff matrices that `e` passes on as a whole. */
static void
eigen_names_into (const MirExpr *e, GHashTable *out)
{
  if (!contains_eigen (e->type))
    return;
  switch (e->kind)
    {
    case MIR_EXPR_VAR:
      if (e->ad_level == TILDE_AD_AUTODIFF)
        g_hash_table_add (out, (gpointer) e->u.var.name);
      break;
    case MIR_EXPR_LIT:
      break;
    case MIR_EXPR_CALL:
      for (guint i = 0; i < e->u.call.args->len; i++)
        eigen_names_into (g_ptr_array_index (e->u.call.args, i), out);
      break;
    case MIR_EXPR_TERNARY:
      eigen_names_into (e->u.ternary.if_true, out);
      eigen_names_into (e->u.ternary.if_false, out);
      break;
    case MIR_EXPR_INDEXED:
      eigen_names_into (e->u.indexed.base, out);
      break;
    case MIR_EXPR_PROMOTION:
      eigen_names_into (e->u.promotion.expr, out);
      break;
    case MIR_EXPR_TUPLE_PROJ:
      eigen_names_into (e->u.proj.base, out);
      break;
    case MIR_EXPR_AND:
    case MIR_EXPR_OR:
      eigen_names_into (e->u.logical.lhs, out);
      eigen_names_into (e->u.logical.rhs, out);
      break;
    case MIR_N_EXPR_KINDS:
      break;
    }
}

static GHashTable *
eigen_names (const MirExpr *e)
{
  GHashTable *set = g_hash_table_new (NULL, NULL);
  eigen_names_into (e, set);
  return set;
}

static gboolean
all_aos (Ctx *c, GHashTable *names)
{
  if (g_hash_table_size (names) == 0 || g_hash_table_size (c->aos) == 0)
    return FALSE;
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, names);
  while (g_hash_table_iter_next (&it, &key, NULL))
    if (!g_hash_table_contains (c->aos, key))
      return FALSE;
  return TRUE;
}

/* stanc's is_uni_eigen_loop_indexing: single cells of a vector, or of a
 * matrix by two single indices, reached inside a loop. */
static gboolean
single_cell_in_loop (gboolean in_loop, const TildeType *type, const GPtrArray *indices, guint at)
{
  if (!in_loop || !type)
    return FALSE;
  guint singles = 0;
  for (guint i = at; i < indices->len; i++)
    singles += ((MirIndex *) g_ptr_array_index (indices, i))->kind == MIR_INDEX_SINGLE;
  switch (tilde_type_kind (type))
    {
    case TILDE_TYPE_VECTOR:
    case TILDE_TYPE_ROW_VECTOR:
      return singles > 0;
    case TILDE_TYPE_MATRIX:
      return singles > 1;
    case TILDE_TYPE_ARRAY:
      return at < indices->len
        && single_cell_in_loop (in_loop, tilde_type_element (type), indices, at + 1);
    default:
      return FALSE;
    }
}

static void initial_expr (Ctx *c, gboolean in_loop, const MirExpr *e);

static void
initial_indices (Ctx *c, gboolean in_loop, const GPtrArray *indices)
{
  for (guint i = 0; i < indices->len; i++)
    {
      const MirIndex *idx = g_ptr_array_index (indices, i);
      if (idx->e)
        initial_expr (c, in_loop, idx->e);
      if (idx->upper)
        initial_expr (c, in_loop, idx->upper);
    }
}

static gboolean
call_supports_soa (const MirFun *f, const GPtrArray *args)
{
  const TildeType **types = g_newa (const TildeType *, MAX (args->len, 1));
  for (guint i = 0; i < args->len; i++)
    types[i] = ((const MirExpr *) g_ptr_array_index (args, i))->type;
  return mir_mem_pattern_supports_soa (f->name, types, args->len);
}

static void
demote_args (Ctx *c, const GPtrArray *args, const char *reason)
{
  for (guint i = 0; i < args->len; i++)
    {
      GHashTable *names = eigen_names (g_ptr_array_index (args, i));
      demote_all (c, names, reason);
      g_hash_table_unref (names);
    }
}

/* stanc's query_initial_demotable_funs */
static void
initial_call (Ctx *c, gboolean in_loop, const MirFun *f, const GPtrArray *args)
{
  switch (f->kind)
    {
    case MIR_FUN_STANLIB:
      if (strcmp (f->name, "check_matching_dims") == 0)
        return;
      for (guint i = 0; i < args->len; i++)
        initial_expr (c, in_loop, g_ptr_array_index (args, i));
      if (!call_supports_soa (f, args))
        demote_args (c, args, reason_with ("used by %s, which has no SoA signature", f->name));
      return;
    case MIR_FUN_USER:
      for (guint i = 0; i < args->len; i++)
        initial_expr (c, in_loop, g_ptr_array_index (args, i));
      demote_args (c, args, reason_with ("passed to the user-defined function %s", f->name));
      return;
    case MIR_FUN_COMPILER:
      if (f->internal == MIR_FN_MAKE_ARRAY || f->internal == MIR_FN_MAKE_ROW_VEC
          || f->internal == MIR_FN_MAKE_TUPLE)
        {
          for (guint i = 0; i < args->len; i++)
            initial_expr (c, in_loop, g_ptr_array_index (args, i));
          demote_args (c, args, "part of an array, row-vector or tuple expression");
        }
      return;
    }
}

/* stanc's query_initial_demotable_expr */
static void
initial_expr (Ctx *c, gboolean in_loop, const MirExpr *e)
{
  switch (e->kind)
    {
    case MIR_EXPR_CALL:
      initial_call (c, in_loop, &e->u.call.fun, e->u.call.args);
      return;
    case MIR_EXPR_INDEXED:
      initial_indices (c, in_loop, e->u.indexed.indices);
      if (single_cell_in_loop (in_loop, e->u.indexed.base->type, e->u.indexed.indices, 0))
        {
          GHashTable *names = eigen_names (e->u.indexed.base);
          demote_all (c, names, "indexed down to single cells inside a loop");
          g_hash_table_unref (names);
        }
      else
        initial_expr (c, in_loop, e->u.indexed.base);
      return;
    case MIR_EXPR_VAR:
    case MIR_EXPR_LIT:
      return;
    case MIR_EXPR_PROMOTION:
      initial_expr (c, in_loop, e->u.promotion.expr);
      return;
    case MIR_EXPR_TUPLE_PROJ:
      initial_expr (c, in_loop, e->u.proj.base);
      return;
    case MIR_EXPR_TERNARY:
      {
        initial_expr (c, in_loop, e->u.ternary.cond);
        GHashTable *t = eigen_names (e->u.ternary.if_true);
        GHashTable *f = eigen_names (e->u.ternary.if_false);
        demote_all (c, t, "a branch of a ?: expression");
        demote_all (c, f, "a branch of a ?: expression");
        g_hash_table_unref (t);
        g_hash_table_unref (f);
        return;
      }
    case MIR_EXPR_AND:
    case MIR_EXPR_OR:
      initial_expr (c, in_loop, e->u.logical.lhs);
      initial_expr (c, in_loop, e->u.logical.rhs);
      return;
    case MIR_N_EXPR_KINDS:
      return;
    }
}

/* stanc's extract_nonderived_admatrix_types, reduced to the question
 * contains_at_least_one_ad_matrix_or_all_data asks of it. */
typedef struct {
  guint    n;
  gboolean ad_matrix;   /* some autodiff vector, row vector or matrix */
  gboolean all_data;
} Leaves;

static void
leaf (Leaves *l, TildeAdLevel ad, const TildeType *type)
{
  l->n++;
  if (ad == TILDE_AD_AUTODIFF && type && tilde_type_is_eigen (type))
    l->ad_matrix = TRUE;
  if (ad != TILDE_AD_DATA)
    l->all_data = FALSE;
}

static void nonderived_leaves (const MirExpr *e, Leaves *l);

static void
nonderived_call (const MirExpr *e, Leaves *l)
{
  const MirFun *f = &e->u.call.fun;
  const GPtrArray *args = e->u.call.args;
  switch (f->kind)
    {
    case MIR_FUN_STANLIB:
      if (strcmp (f->name, "check_matching_dims") == 0)
        return;
      if (strcmp (f->name, "rep_vector") == 0)
        { leaf (l, TILDE_AD_AUTODIFF, tilde_type_vector ()); return; }
      if (strcmp (f->name, "rep_row_vector") == 0)
        { leaf (l, TILDE_AD_AUTODIFF, tilde_type_row_vector ()); return; }
      if (strcmp (f->name, "rep_matrix") == 0 && args->len == 3
          && ((const MirExpr *) g_ptr_array_index (args, 0))->type == tilde_type_real ())
        { leaf (l, TILDE_AD_AUTODIFF, tilde_type_matrix ()); return; }
      for (guint i = 0; i < args->len; i++)
        nonderived_leaves (g_ptr_array_index (args, i), l);
      return;
    case MIR_FUN_COMPILER:
      if (f->internal == MIR_FN_MAKE_ARRAY || f->internal == MIR_FN_MAKE_ROW_VEC)
        {
          leaf (l, TILDE_AD_AUTODIFF, tilde_type_real ());
          leaf (l, TILDE_AD_DATA, tilde_type_array (tilde_type_real ()));
        }
      return;
    case MIR_FUN_USER:
      return;
    }
}

static void
nonderived_leaves (const MirExpr *e, Leaves *l)
{
  if (e->ad_level != TILDE_AD_AUTODIFF || !contains_eigen (e->type))
    { leaf (l, e->ad_level, e->type); return; }
  switch (e->kind)
    {
    case MIR_EXPR_CALL: nonderived_call (e, l); return;
    case MIR_EXPR_INDEXED: nonderived_leaves (e->u.indexed.base, l); return;
    case MIR_EXPR_PROMOTION: nonderived_leaves (e->u.promotion.expr, l); return;
    case MIR_EXPR_TUPLE_PROJ: nonderived_leaves (e->u.proj.base, l); return;
    case MIR_EXPR_VAR: case MIR_EXPR_LIT: leaf (l, e->ad_level, e->type); return;
    case MIR_EXPR_TERNARY:
      nonderived_leaves (e->u.ternary.if_true, l);
      nonderived_leaves (e->u.ternary.if_false, l);
      return;
    case MIR_EXPR_AND: case MIR_EXPR_OR:
      nonderived_leaves (e->u.logical.lhs, l);
      nonderived_leaves (e->u.logical.rhs, l);
      return;
    case MIR_N_EXPR_KINDS:
      return;
    }
}

/* An autodiff matrix built only from data and autodiff scalars comes back
 * from Stan Math as AoS. */
static gboolean
rhs_not_promotable (const MirExpr *rhs)
{
  if (rhs->ad_level != TILDE_AD_AUTODIFF || !contains_eigen (rhs->type))
    return FALSE;
  Leaves l = { 0, FALSE, TRUE };
  nonderived_leaves (rhs, &l);
  return !(l.n == 0 || l.ad_matrix || l.all_data);
}

static void
initial_assign (Ctx *c, gboolean in_loop, const MirStmt *s)
{
  const MirLvalue *lhs = s->u.assign.lhs;
  const MirExpr *rhs = s->u.assign.rhs;
  const char *name = mir_lvalue_variable (lhs);
  const MirLvalue *base = lhs;

  initial_indices (c, in_loop, lhs->indices);
  if (single_cell_in_loop (in_loop, lhs->type, lhs->indices, 0))
    demote (c, name, "assigned single cells inside a loop");
  initial_expr (c, in_loop, rhs);
  GHashTable *rhs_names = eigen_names (rhs);
  if (base->proj_of)
    {
      demote_all (c, rhs_names, "assigned to a tuple member");
      demote (c, name, "assigned through a tuple projection");
    }
  if (contains_eigen (rhs->type))
    {
      const char *why = NULL;
      gboolean literal = rhs->kind == MIR_EXPR_CALL && rhs->u.call.fun.kind == MIR_FUN_COMPILER
        && (rhs->u.call.fun.internal == MIR_FN_MAKE_ARRAY
            || rhs->u.call.fun.internal == MIR_FN_MAKE_ROW_VEC);
      if (literal)
        why = "assigned an array or row-vector expression";
      else if (rhs_not_promotable (rhs))
        why = "assigned a matrix built from data and autodiff scalars only";
      else if (rhs->kind == MIR_EXPR_CALL && rhs->u.call.fun.kind == MIR_FUN_USER)
        why = reason_with ("assigned the result of the user-defined function %s",
                           rhs->u.call.fun.name);
      else if (rhs->kind == MIR_EXPR_CALL && rhs->u.call.fun.kind == MIR_FUN_STANLIB
               && !call_supports_soa (&rhs->u.call.fun, rhs->u.call.args))
        why = reason_with ("assigned the result of %s, which has no SoA signature",
                           rhs->u.call.fun.name);
      else if (all_aos (c, rhs_names))
        why = "assigned from AoS variables only";
      if (why)
        {
          demote_all (c, rhs_names, reason_with ("assigned to %s, which is AoS", name));
          demote (c, name, why);
        }
    }
  g_hash_table_unref (rhs_names);
}

static gboolean
is_literal_one (const MirExpr *e)
{
  return e->kind == MIR_EXPR_LIT && e->u.lit.kind == MIR_LIT_INT && strcmp (e->u.lit.text, "1") == 0;
}

static gboolean
sized_is_complex (const MirSizedType *t)
{
  switch (t->kind)
    {
    case MIR_SIZED_COMPLEX: case MIR_SIZED_COMPLEX_VECTOR: case MIR_SIZED_COMPLEX_ROW_VECTOR:
    case MIR_SIZED_COMPLEX_MATRIX:
      return TRUE;
    case MIR_SIZED_ARRAY:
      return sized_is_complex (t->elem);
    default:
      return FALSE;
    }
}

static void initial_stmt (Ctx *c, gboolean in_loop, const MirStmt *s);

static void
initial_list (Ctx *c, gboolean in_loop, const GPtrArray *stmts)
{
  for (guint i = 0; i < stmts->len; i++)
    initial_stmt (c, in_loop, g_ptr_array_index (stmts, i));
}

/* stanc's query_initial_demotable_stmt */
static void
initial_stmt (Ctx *c, gboolean in_loop, const MirStmt *s)
{
  switch (s->kind)
    {
    case MIR_STMT_ASSIGN:
      initial_assign (c, in_loop, s);
      return;
    case MIR_STMT_NR_CALL:
      initial_call (c, in_loop, &s->u.call.fun, s->u.call.args);
      return;
    case MIR_STMT_IF:
      initial_expr (c, in_loop, s->u.if_stmt.cond);
      initial_stmt (c, in_loop, s->u.if_stmt.then_stmt);
      if (s->u.if_stmt.else_stmt)
        initial_stmt (c, in_loop, s->u.if_stmt.else_stmt);
      return;
    case MIR_STMT_RETURN:
      if (s->u.ret.expr)
        initial_expr (c, in_loop, s->u.ret.expr);
      return;
    case MIR_STMT_SLIST:
    case MIR_STMT_BLOCK:
      initial_list (c, in_loop, s->u.block.stmts);
      return;
    case MIR_STMT_PROFILE:
      initial_list (c, in_loop, s->u.profile.stmts);
      return;
    case MIR_STMT_TARGET_PLUS:
    case MIR_STMT_JACOBIAN_PLUS:
      initial_expr (c, in_loop, s->u.increment.expr);
      return;
    case MIR_STMT_FOR:
      /* a loop from 1 to 1 (left by inlining) is no loop */
      if (is_literal_one (s->u.for_stmt.lower) && is_literal_one (s->u.for_stmt.upper))
        {
          initial_stmt (c, in_loop, s->u.for_stmt.body);
          return;
        }
      initial_expr (c, in_loop, s->u.for_stmt.lower);
      initial_expr (c, in_loop, s->u.for_stmt.upper);
      initial_stmt (c, TRUE, s->u.for_stmt.body);
      return;
    case MIR_STMT_WHILE:
      initial_expr (c, in_loop, s->u.while_stmt.cond);
      initial_stmt (c, TRUE, s->u.while_stmt.body);
      return;
    case MIR_STMT_DECL:
      if (s->u.decl.sized && sized_is_complex (s->u.decl.sized))
        demote (c, s->u.decl.name, "complex type");
      if (s->u.decl.init_kind == MIR_DECL_ASSIGN && s->u.decl.init)
        initial_expr (c, in_loop, s->u.decl.init);
      return;
    case MIR_STMT_SKIP:
    case MIR_STMT_BREAK:
    case MIR_STMT_CONTINUE:
    case MIR_N_STMT_KINDS:
      return;
    }
}

/* stanc's query_demotable_stmt: AoS spreads along assignments. */
static void
spread (Ctx *c, const char *name, const MirExpr *rhs)
{
  GHashTable *names = eigen_names (rhs);
  if (g_hash_table_contains (c->aos, name))
    demote_all (c, names, reason_with ("assigned to %s, which is AoS", name));
  else if (all_aos (c, names))
    demote (c, name, "assigned from AoS variables only");
  g_hash_table_unref (names);
}

static void
spread_stmt (MirStmt *s, gpointer data)
{
  Ctx *c = data;
  if (s->kind == MIR_STMT_ASSIGN)
    spread (c, mir_lvalue_variable (s->u.assign.lhs), s->u.assign.rhs);
  else if (s->kind == MIR_STMT_DECL && s->u.decl.init_kind == MIR_DECL_ASSIGN && s->u.decl.init)
    spread (c, s->u.decl.name, s->u.decl.init);
}

static gboolean
has_mem_pattern (const MirSizedType *t)
{
  switch (t->kind)
    {
    case MIR_SIZED_VECTOR: case MIR_SIZED_ROW_VECTOR: case MIR_SIZED_MATRIX:
      return TRUE;
    case MIR_SIZED_ARRAY:
      return has_mem_pattern (t->elem);
    default:
      return FALSE;
    }
}

typedef struct {
  Ctx    *c;
  GArray *entries;
} Collect;

static void
collect_decl (MirStmt *s, gpointer data)
{
  Collect *k = data;
  if (s->kind != MIR_STMT_DECL || !s->u.decl.sized || !has_mem_pattern (s->u.decl.sized))
    return;
  MirMemPatternEntry e = { s->u.decl.name, s->u.decl.sized, MIR_MEM_SOA, NULL, s->span };
  const char *reason = g_hash_table_lookup (k->c->aos, s->u.decl.name);
  if (reason)
    {
      e.pattern = MIR_MEM_AOS;
      e.reason = reason;
    }
  g_array_append_val (k->entries, e);
}

GArray *
mir_mem_patterns_analyze (const MirProgram *program)
{
  GPtrArray *log_prob = program->parts[MIR_PART_LOG_PROB];
  Ctx c = { g_hash_table_new (NULL, NULL), FALSE };
  initial_list (&c, FALSE, log_prob);
  do
    {
      c.changed = FALSE;
      for (guint i = 0; i < log_prob->len; i++)
        mir_stmt_walk (g_ptr_array_index (log_prob, i), spread_stmt, &c);
    }
  while (c.changed);

  Collect k = { &c, g_array_new (FALSE, TRUE, sizeof (MirMemPatternEntry)) };
  for (guint i = 0; i < log_prob->len; i++)
    mir_stmt_walk (g_ptr_array_index (log_prob, i), collect_decl, &k);
  g_hash_table_unref (c.aos);
  return k.entries;
}

static char *
report (const MirProgram *program, gboolean reasons)
{
  GArray *entries = mir_mem_patterns_analyze (program);
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < entries->len; i++)
    {
      const MirMemPatternEntry *e = &g_array_index (entries, MirMemPatternEntry, i);
      g_autofree char *type = mir_print_sized_type (e->type);
      g_string_append_printf (out, "%s %s: %s", type, e->name,
                              e->pattern == MIR_MEM_SOA ? "SoA" : "AoS");
      if (reasons && e->reason)
        g_string_append_printf (out, "  // %s", e->reason);
      g_string_append_c (out, '\n');
    }
  g_array_unref (entries);
  return g_string_free (out, FALSE);
}

char *
mir_mem_patterns_report (const MirProgram *program)
{
  return report (program, FALSE);
}

char *
mir_mem_patterns_explain (const MirProgram *program)
{
  return report (program, TRUE);
}
