/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/passes/passes.h"
#include "mir/passes/passes-private.h"

#include <string.h>

#include "mir/dataflow/const-eval.h"

/* The rewrites are stanc's (Partial_evaluator.eval_expr), each kept only
 * when the new call resolves to a signature returning exactly the type of
 * the old expression, and when it reorders or merges nothing with an
 * effect. Two of stanc's are left out because they change values:
 * categorical(inv_logit(a)) is not categorical_logit(a) (that one is
 * softmax), and x * log(y) is NaN where lmultiply(x, y) is 0. */

typedef struct {
  PassEffects fx;
  gboolean    changed;
} Eval;

/* ---- matching ---- */

static guint
n_args (const MirExpr *e)
{
  return e->u.call.args->len;
}

static MirExpr *
arg (const MirExpr *e, guint i)
{
  return g_ptr_array_index (e->u.call.args, i);
}

/* A call of library function (or operator function) `name` with `n`
 * arguments; n < 0 for any number. */
static gboolean
is_call (const MirExpr *e, const char *name, int n)
{
  return e->kind == MIR_EXPR_CALL && e->u.call.fun.kind == MIR_FUN_STANLIB
         && strcmp (e->u.call.fun.name, name) == 0 && (n < 0 || n_args (e) == (guint) n);
}

static gboolean
is_product (const MirExpr *e)
{
  return is_call (e, "Times__", 2) || is_call (e, "multiply", 2);
}

static gboolean
is_transpose (const MirExpr *e)
{
  return is_call (e, "Transpose__", 1) || is_call (e, "transpose", 1);
}

static gboolean
is_pow (const MirExpr *e)
{
  return is_call (e, "pow", 2) || is_call (e, "Pow__", 2);
}

static gboolean
is_matrix (const MirExpr *e)
{
  return e->type == tilde_type_matrix ();
}

/* A call of a density or mass function of `family`, normalised or not;
 * *suffix receives the suffix it is written with ("_lupmf"). */
static gboolean
is_density (const MirExpr *e, const char *family, int n, const char **suffix)
{
  static const char *const suffixes[] = { "_lpdf", "_lupdf", "_lpmf", "_lupmf" };
  size_t len = strlen (family);
  const char *name;

  if (e->kind != MIR_EXPR_CALL || e->u.call.fun.kind != MIR_FUN_STANLIB
      || (n >= 0 && n_args (e) != (guint) n))
    return FALSE;
  name = e->u.call.fun.name;
  if (strncmp (name, family, len) != 0)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    if (strcmp (name + len, suffixes[i]) == 0)
      {
        *suffix = suffixes[i];
        return TRUE;
      }
  return FALSE;
}

/* ---- building ---- */

static MirSuffix
suffix_of (const char *name, gboolean *propto)
{
  *propto = FALSE;
  switch (tilde_fun_kind_from_name (name))
    {
    case TILDE_FUN_RNG: return MIR_SUFFIX_RNG;
    case TILDE_FUN_LP: return MIR_SUFFIX_TARGET;
    case TILDE_FUN_JACOBIAN: return MIR_SUFFIX_JACOBIAN;
    case TILDE_FUN_LUPDF:
      *propto = TRUE;
      /* fall through */
    case TILDE_FUN_LPDF:
      return g_str_has_suffix (name, "mf") ? MIR_SUFFIX_LPMF : MIR_SUFFIX_LPDF;
    case TILDE_FUN_PLAIN:
    default:
      return MIR_SUFFIX_PLAIN;
    }
}

/* The call `name`(parts...) in place of `e`, or NULL when it does not fit:
 * no signature returns e's type, or more than one part has an effect (so
 * that moving parts around cannot reorder effects). The parts are copied. */
static MirExpr *
make_call (Eval *ev, const MirExpr *e, const char *name, guint n, MirExpr *const *parts)
{
  GPtrArray *args = mir_expr_list_new ();
  const TildeType *signature = NULL, *type;
  guint effects = 0;
  gboolean propto = FALSE;
  MirFun fun;

  for (guint i = 0; i < n; i++)
    {
      effects += pass_expr_has_effects (parts[i], &ev->fx) ? 1 : 0;
      g_ptr_array_add (args, mir_expr_copy (parts[i]));
    }
  type = pass_call_type (name, args, &signature);
  if (effects > 1 || !type || type != e->type)
    {
      g_ptr_array_unref (args);
      return NULL;
    }
  for (guint i = 0; i < n; i++)
    args->pdata[i] = pass_promote (args->pdata[i], tilde_type_arg (signature, i)->type);
  fun = mir_fun_stanlib (name, suffix_of (name, &propto), propto);
  fun.mem = e->u.call.fun.mem;
  return mir_expr_call (&e->span, type, e->ad_level, fun, args);
}

#define MAKE(name, ...) \
  make_call (ev, e, name, G_N_ELEMENTS (((MirExpr *[]) { __VA_ARGS__ })), \
             (MirExpr *[]) { __VA_ARGS__ })

/* `name` with the suffix of the density it replaces */
static char *
with_suffix (const char *family, const char *suffix)
{
  return g_strconcat (family, suffix, NULL);
}

/* ---- the rewrites ---- */

/* alpha + x * beta, x * beta + alpha and x * beta with x a matrix: the
 * linear predictor of a GLM. *alpha is NULL for the last. */
static gboolean
linear_predictor (const MirExpr *e, MirExpr **x, MirExpr **alpha, MirExpr **beta)
{
  const MirExpr *product = NULL;

  *alpha = NULL;
  if (is_call (e, "Plus__", 2) && is_product (arg (e, 1)))
    {
      *alpha = arg (e, 0);
      product = arg (e, 1);
    }
  else if (is_call (e, "Plus__", 2) && is_product (arg (e, 0)))
    {
      *alpha = arg (e, 1);
      product = arg (e, 0);
    }
  else if (is_product (e))
    product = e;
  if (!product || !is_matrix (arg (product, 0)))
    return FALSE;
  *x = arg (product, 0);
  *beta = arg (product, 1);
  return TRUE;
}

static MirExpr *
glm (Eval *ev, const MirExpr *e, const char *family, const char *suffix, MirExpr *y,
     const MirExpr *predictor, MirExpr *extra)
{
  MirExpr *x, *alpha, *beta;
  g_autofree char *name = with_suffix (family, suffix);
  MirExpr *zero = NULL, *r;

  if (!linear_predictor (predictor, &x, &alpha, &beta))
    return NULL;
  if (!alpha)
    alpha = zero = pass_int_lit (&predictor->span, 0);
  r = extra ? MAKE (name, y, x, alpha, beta, extra) : MAKE (name, y, x, alpha, beta);
  mir_expr_free (zero);
  /* Stan's neg_binomial_2_log_glm drops other constants under propto than
   * the density it replaces: the call says what it stands for */
  if (r && r->kind == MIR_EXPR_CALL)
    r->u.call.fun.rewritten = TRUE;
  return r;
}

static MirExpr *
rewrite_densities (Eval *ev, const MirExpr *e)
{
  const char *sfx;
  MirExpr *r = NULL, *p;
  g_autofree char *name = NULL;

  if (is_density (e, "bernoulli", 2, &sfx) && is_call (arg (e, 1), "inv_logit", 1))
    {
      p = arg (arg (e, 1), 0);
      if ((r = glm (ev, e, "bernoulli_logit_glm", sfx, arg (e, 0), p, NULL)))
        return r;
      name = with_suffix ("bernoulli_logit", sfx);
      return MAKE (name, arg (e, 0), p);
    }
  if (is_density (e, "bernoulli_logit", 2, &sfx))
    return glm (ev, e, "bernoulli_logit_glm", sfx, arg (e, 0), arg (e, 1), NULL);
  if (is_call (e, "bernoulli_rng", 1) && is_call (arg (e, 0), "inv_logit", 1))
    return MAKE ("bernoulli_logit_rng", arg (arg (e, 0), 0));
  if (is_density (e, "binomial", 3, &sfx) && is_call (arg (e, 2), "inv_logit", 1))
    {
      name = with_suffix ("binomial_logit", sfx);
      return MAKE (name, arg (e, 0), arg (e, 1), arg (arg (e, 2), 0));
    }
  if (is_density (e, "multi_normal", 3, &sfx) && is_call (arg (e, 2), "inverse", 1))
    {
      name = with_suffix ("multi_normal_prec", sfx);
      return MAKE (name, arg (e, 0), arg (e, 1), arg (arg (e, 2), 0));
    }
  if (is_density (e, "neg_binomial_2", 3, &sfx) && is_call (arg (e, 1), "exp", 1))
    {
      p = arg (arg (e, 1), 0);
      if ((r = glm (ev, e, "neg_binomial_2_log_glm", sfx, arg (e, 0), p, arg (e, 2))))
        return r;
      name = with_suffix ("neg_binomial_2_log", sfx);
      return MAKE (name, arg (e, 0), p, arg (e, 2));
    }
  if (is_density (e, "neg_binomial_2_log", 3, &sfx))
    return glm (ev, e, "neg_binomial_2_log_glm", sfx, arg (e, 0), arg (e, 1), arg (e, 2));
  if (is_call (e, "neg_binomial_2_rng", 2) && is_call (arg (e, 0), "exp", 1))
    return MAKE ("neg_binomial_2_log_rng", arg (arg (e, 0), 0), arg (e, 1));
  if (is_density (e, "normal", 3, &sfx))
    return glm (ev, e, "normal_id_glm", sfx, arg (e, 0), arg (e, 1), arg (e, 2));
  if (is_density (e, "poisson", 2, &sfx) && is_call (arg (e, 1), "exp", 1))
    {
      p = arg (arg (e, 1), 0);
      if ((r = glm (ev, e, "poisson_log_glm", sfx, arg (e, 0), p, NULL)))
        return r;
      name = with_suffix ("poisson_log", sfx);
      return MAKE (name, arg (e, 0), p);
    }
  if (is_density (e, "poisson_log", 2, &sfx))
    return glm (ev, e, "poisson_log_glm", sfx, arg (e, 0), arg (e, 1), NULL);
  if (is_call (e, "poisson_rng", 1) && is_call (arg (e, 0), "exp", 1))
    return MAKE ("poisson_log_rng", arg (arg (e, 0), 0));
  return NULL;
}

/* f(x, x) -> g(x): x is then evaluated once, so it must have no effect.
 * Real x only: of complex values the products square (x^2) where the
 * self forms sum |x|^2, and arrays have no self form. */
static MirExpr *
self_product (Eval *ev, const MirExpr *e, const char *from, const char *to)
{
  if (is_call (e, from, 2) && mir_expr_equal (arg (e, 0), arg (e, 1))
      && !tilde_type_is_complex_type (arg (e, 0)->type)
      && pass_expr_is_movable (arg (e, 0), &ev->fx))
    return MAKE (to, arg (e, 0));
  return NULL;
}

static MirExpr *
rewrite_log (Eval *ev, const MirExpr *e)
{
  const MirExpr *a;

  if (!is_call (e, "log", 1))
    return NULL;
  a = arg (e, 0);
  if (is_call (a, "Minus__", 2) && pass_is_number (arg (a, 0), 1))
    {
      const MirExpr *x = arg (a, 1);
      if (is_call (x, "exp", 1))
        return MAKE ("log1m_exp", arg (x, 0));
      if (is_call (x, "inv_logit", 1))
        return MAKE ("log1m_inv_logit", arg (x, 0));
      return MAKE ("log1m", arg (a, 1));
    }
  if (is_call (a, "Plus__", 2) && pass_is_number (arg (a, 0), 1))
    {
      const MirExpr *x = arg (a, 1);
      if (is_call (x, "exp", 1))
        return MAKE ("log1p_exp", arg (x, 0));
      return MAKE ("log1p", arg (a, 1));
    }
  if ((is_call (a, "fabs", 1) || is_call (a, "abs", 1)) && is_call (arg (a, 0), "determinant", 1))
    return MAKE ("log_determinant", arg (arg (a, 0), 0));
  if (is_call (a, "Minus__", 2) && is_call (arg (a, 0), "exp", 1) && is_call (arg (a, 1), "exp", 1))
    return MAKE ("log_diff_exp", arg (arg (a, 0), 0), arg (arg (a, 1), 0));
  if (is_call (a, "falling_factorial", 2))
    return MAKE ("log_falling_factorial", arg (a, 0), arg (a, 1));
  if (is_call (a, "rising_factorial", 2))
    return MAKE ("log_rising_factorial", arg (a, 0), arg (a, 1));
  if (is_call (a, "inv_logit", 1))
    return MAKE ("log_inv_logit", arg (a, 0));
  if (is_call (a, "softmax", 1))
    return MAKE ("log_softmax", arg (a, 0));
  if (is_call (a, "sum", 1) && is_call (arg (a, 0), "exp", 1))
    return MAKE ("log_sum_exp", arg (arg (a, 0), 0));
  if (is_call (a, "Plus__", 2) && is_call (arg (a, 0), "exp", 1) && is_call (arg (a, 1), "exp", 1))
    return MAKE ("log_sum_exp", arg (arg (a, 0), 0), arg (arg (a, 1), 0));
  return NULL;
}

static MirExpr *
rewrite_pow (Eval *ev, const MirExpr *e)
{
  const MirExpr *x, *y, *d;

  if (!is_pow (e))
    return NULL;
  x = arg (e, 0);
  y = arg (e, 1);
  if (pass_is_number (x, 2))
    return MAKE ("exp2", arg (e, 1));
  if (y->kind == MIR_EXPR_LIT && y->u.lit.kind == MIR_LIT_INT && pass_is_number (y, 2))
    return MAKE ("square", arg (e, 0));
  if (y->kind == MIR_EXPR_LIT && y->u.lit.kind == MIR_LIT_REAL && pass_is_number (y, 0.5))
    return MAKE ("sqrt", arg (e, 0));
  /* 1 / 2 is 0 when both are ints: only a real division is a half */
  d = y;
  if (is_call (d, "Divide__", 2) && tilde_type_is_real (d->type)
      && pass_is_number (arg (d, 0), 1) && pass_is_number (arg (d, 1), 2))
    return MAKE ("sqrt", arg (e, 0));
  return NULL;
}

/* x * y + z and z + x * y (not a matrix product of two matrices or
 * vectors), x .* y + z and z + x .* y -> fma(x, y, z) */
static MirExpr *
rewrite_fma (Eval *ev, const MirExpr *e)
{
  for (guint side = 0; side < 2 && is_call (e, "Plus__", 2); side++)
    {
      const MirExpr *m = arg (e, side), *z = arg (e, 1 - side);
      gboolean product = is_product (m)
                         && !(tilde_type_is_eigen (arg (m, 0)->type)
                              && tilde_type_is_eigen (arg (m, 1)->type));
      gboolean elementwise = is_call (m, "EltTimes__", 2) || is_call (m, "elt_multiply", 2);

      if (product || elementwise)
        {
          MirExpr *r = MAKE ("fma", arg (m, 0), arg (m, 1), (MirExpr *) z);
          if (r)
            return r;
        }
    }
  return NULL;
}

static MirExpr *
rewrite_minus (Eval *ev, const MirExpr *e)
{
  const MirExpr *x;

  if (!is_call (e, "Minus__", 2))
    return NULL;
  x = arg (e, 1);
  if (pass_is_number (arg (e, 0), 1))
    {
      if (is_call (x, "erf", 1))
        return MAKE ("erfc", arg (x, 0));
      if (is_call (x, "erfc", 1))
        return MAKE ("erf", arg (x, 0));
      if (is_call (x, "gamma_p", 2))
        return MAKE ("gamma_q", arg (x, 0), arg (x, 1));
      if (is_call (x, "gamma_q", 2))
        return MAKE ("gamma_p", arg (x, 0), arg (x, 1));
    }
  if (is_call (arg (e, 0), "exp", 1) && pass_is_number (x, 1))
    return MAKE ("expm1", arg (arg (e, 0), 0));
  return NULL;
}

static gboolean
same_movable (Eval *ev, const MirExpr *a, const MirExpr *b)
{
  return mir_expr_equal (a, b) && pass_expr_is_movable (b, &ev->fx);
}

static MirExpr *
rewrite_times (Eval *ev, const MirExpr *e)
{
  const MirExpr *l, *r;

  if (!is_product (e))
    return NULL;
  l = arg (e, 0);
  r = arg (e, 1);
  if (is_call (l, "matrix_exp", 1))
    {
      const MirExpr *in = arg (l, 0);
      if (is_product (in) && tilde_type_is_scalar (arg (in, 0)->type))
        return MAKE ("scale_matrix_exp_multiply", arg (in, 0), arg (in, 1), (MirExpr *) r);
      if (is_product (in) && tilde_type_is_scalar (arg (in, 1)->type))
        return MAKE ("scale_matrix_exp_multiply", arg (in, 1), arg (in, 0), (MirExpr *) r);
      return MAKE ("matrix_exp_multiply", arg (l, 0), (MirExpr *) r);
    }
  if (is_call (l, "diag_matrix", 1) && is_call (r, "diag_post_multiply", 2)
      && same_movable (ev, arg (l, 0), arg (r, 1)))
    return MAKE ("quad_form_diag", arg (r, 0), arg (l, 0));
  if (is_call (l, "diag_pre_multiply", 2) && is_call (r, "diag_matrix", 1)
      && same_movable (ev, arg (l, 0), arg (r, 0)))
    return MAKE ("quad_form_diag", arg (l, 1), arg (l, 0));
  if (is_transpose (l) && is_product (r) && same_movable (ev, arg (l, 0), arg (r, 1)))
    return MAKE ("quad_form", arg (r, 0), arg (l, 0));
  if (is_product (l) && is_transpose (arg (l, 0)) && same_movable (ev, arg (arg (l, 0), 0), r))
    return MAKE ("quad_form", arg (l, 1), arg (arg (l, 0), 0));
  if (is_call (r, "diag_matrix", 1))
    return MAKE ("diag_post_multiply", (MirExpr *) l, arg (r, 0));
  if (is_call (l, "diag_matrix", 1))
    return MAKE ("diag_pre_multiply", arg (l, 0), (MirExpr *) r);
  return NULL;
}

static MirExpr *
rewrite_other (Eval *ev, const MirExpr *e)
{
  MirExpr *r;

  if ((r = self_product (ev, e, "columns_dot_product", "columns_dot_self"))
      || (r = self_product (ev, e, "dot_product", "dot_self"))
      || (r = self_product (ev, e, "rows_dot_product", "rows_dot_self")))
    return r;
  if (is_call (e, "inv", 1) && is_call (arg (e, 0), "sqrt", 1))
    return MAKE ("inv_sqrt", arg (arg (e, 0), 0));
  if (is_call (e, "inv", 1) && is_call (arg (e, 0), "square", 1))
    return MAKE ("inv_square", arg (arg (e, 0), 0));
  if (is_call (e, "square", 1) && is_call (arg (e, 0), "sd", 1))
    return MAKE ("variance", arg (arg (e, 0), 0));
  if (is_call (e, "sqrt", 1) && pass_is_number (arg (e, 0), 2))
    return make_call (ev, e, "sqrt2", 0, NULL);
  if (is_call (e, "sum", 1) && is_call (arg (e, 0), "square", 1)
      && is_call (arg (arg (e, 0), 0), "Minus__", 2))
    {
      const MirExpr *d = arg (arg (e, 0), 0);
      return MAKE ("squared_distance", arg (d, 0), arg (d, 1));
    }
  if (is_call (e, "sum", 1) && is_call (arg (e, 0), "diagonal", 1))
    return MAKE ("trace", arg (arg (e, 0), 0));
  if (is_call (e, "trace", 1) && is_call (arg (e, 0), "quad_form", 2))
    return MAKE ("trace_quad_form", arg (arg (e, 0), 0), arg (arg (e, 0), 1));
  /* trace(d * b' * a * c) with c = b */
  if (is_call (e, "trace", 1) && is_product (arg (e, 0)))
    {
      const MirExpr *p3 = arg (e, 0), *p2 = arg (p3, 0), *p1;
      if (is_product (p2) && is_product ((p1 = arg (p2, 0))) && is_transpose (arg (p1, 1))
          && same_movable (ev, arg (arg (p1, 1), 0), arg (p3, 1)))
        return MAKE ("trace_gen_quad_form", arg (p1, 0), arg (p2, 1), arg (p3, 1));
    }
  return NULL;
}

static MirExpr *
rewrite_call (Eval *ev, const MirExpr *e)
{
  MirExpr *r;

  if (e->kind != MIR_EXPR_CALL || e->u.call.fun.kind != MIR_FUN_STANLIB)
    return NULL;
  if ((r = rewrite_densities (ev, e)) || (r = rewrite_log (ev, e)) || (r = rewrite_pow (ev, e))
      || (r = rewrite_minus (ev, e)) || (r = rewrite_fma (ev, e)) || (r = rewrite_times (ev, e))
      || (r = rewrite_other (ev, e)))
    return r;
  return NULL;
}

/* ---- folding ---- */

static MirConstValue
not_constant (const char *name, gpointer data)
{
  return mir_const_nac ();
}

static gboolean
foldable (const MirExpr *e)
{
  if (!e->type || !tilde_type_is_scalar (e->type))
    return FALSE;
  switch (e->kind)
    {
    case MIR_EXPR_CALL:
      return e->u.call.fun.kind == MIR_FUN_STANLIB && mir_operator_symbol (e->u.call.fun.name);
    case MIR_EXPR_AND:
    case MIR_EXPR_OR:
    case MIR_EXPR_TERNARY:
      return TRUE;
    default:
      return FALSE;
    }
}

/* The value of a constant int or real operation as a literal of its type;
 * const-eval never evaluates an arm that does not run, and gives no value
 * for a division by zero or an overflow, which stay to fail at run time. */
static MirExpr *
fold (const MirExpr *e)
{
  MirConstValue v;

  if (!foldable (e))
    return NULL;
  v = mir_const_eval (e, not_constant, NULL);
  if (v.kind == MIR_CONST_INT && tilde_type_is_int (e->type))
    return pass_int_lit (&e->span, v.i);
  if (v.kind == MIR_CONST_INT && tilde_type_is_real (e->type))
    return pass_real_lit (&e->span, (double) v.i);
  if (v.kind == MIR_CONST_REAL && tilde_type_is_real (e->type))
    return pass_real_lit (&e->span, v.r);
  return NULL;
}

/* c ? a : b with c constant; a && b with a false; a || b with a true.
 * The arm that does not run is dropped, never evaluated. */
static MirExpr *
simplify_condition (const MirExpr *e)
{
  double c;
  const MirExpr *arm;

  switch (e->kind)
    {
    case MIR_EXPR_TERNARY:
      if (!pass_lit_value (e->u.ternary.cond, &c))
        return NULL;
      arm = c != 0 ? e->u.ternary.if_true : e->u.ternary.if_false;
      return pass_promote (mir_expr_copy (arm), e->type);
    case MIR_EXPR_AND:
      if (pass_lit_value (e->u.logical.lhs, &c) && c == 0)
        return pass_int_lit (&e->span, 0);
      return NULL;
    case MIR_EXPR_OR:
      if (pass_lit_value (e->u.logical.lhs, &c) && c != 0)
        return pass_int_lit (&e->span, 1);
      return NULL;
    default:
      return NULL;
    }
}

/* a[i, :, :] -> a[i]: trailing [:] change nothing */
static MirExpr *
drop_trailing_alls (MirExpr *e)
{
  GPtrArray *indices;
  guint n;

  if (e->kind != MIR_EXPR_INDEXED)
    return NULL;
  indices = e->u.indexed.indices;
  n = indices->len;
  while (n > 0 && ((MirIndex *) g_ptr_array_index (indices, n - 1))->kind == MIR_INDEX_ALL)
    n--;
  if (n == indices->len)
    return NULL;
  if (n > 0)
    {
      g_ptr_array_set_size (indices, n);
      return e;
    }
  MirExpr *base = e->u.indexed.base;
  e->u.indexed.base = NULL;
  base->span = e->span;
  return base;
}

static MirExpr *
eval_expr (MirExpr *e, gpointer data)
{
  Eval *ev = data;

  for (guint round = 0; round < 8; round++)
    {
      MirExpr *r = simplify_condition (e);
      if (!r)
        r = fold (e);
      if (!r)
        r = rewrite_call (ev, e);
      if (!r)
        r = drop_trailing_alls (e);
      if (!r)
        break;
      if (r != e)
        mir_expr_free (e);
      e = r;
      ev->changed = TRUE;
    }
  return e;
}

gboolean
mir_pass_partial_evaluation (MirProgram *program)
{
  Eval ev = { { NULL }, FALSE };

  pass_effects_init (&ev.fx, program);
  for (guint i = 0; i < program->functions->len; i++)
    {
      MirFunDef *f = g_ptr_array_index (program->functions, i);
      if (f->body)
        mir_stmt_map_exprs (f->body, eval_expr, &ev);
    }
  for (int part = 0; part < MIR_N_PARTS; part++)
    for (guint i = 0; i < program->parts[part]->len; i++)
      mir_stmt_map_exprs (g_ptr_array_index (program->parts[part], i), eval_expr, &ev);
  pass_effects_clear (&ev.fx);
  return ev.changed;
}
