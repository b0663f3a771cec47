/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Mass functions beyond the common ones of dist.c: neg_binomial,
 * beta_binomial, hypergeometric, categorical, categorical_logit,
 * multinomial, multinomial_logit, ordered_logistic, ordered_probit,
 * discrete_range, dirichlet_multinomial, beta_neg_binomial and the GLM
 * forms of ordered_logistic and categorical_logit.
 * Checks, wording and the terms kept under propto follow Stan's.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/dist/dist-private.h"
#include "runtime/math/special.h"
#include "runtime/math/linalg.h"

#include <math.h>
#include <string.h>

static void
k_neg_binomial (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[3];
  dist_arg (cx, &a[0], &v[0], "Failures variable");
  dist_arg (cx, &a[1], &v[1], "Shape parameter");
  dist_arg (cx, &a[2], &v[2], "Inverse scale parameter");
  gint32 N = dist_size (cx, a, 3);
  dist_check_nonnegative (cx, &a[0]);
  dist_check_positive_finite (cx, &a[1]);
  dist_check_positive_finite (cx, &a[2]);
  if (dist_dropped (cx, a, 3, out))
    return;
  gboolean k_al = dist_keep (cx, a, 2);
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double n = AT (&a[0], i), al = AT (&a[1], i), b = AT (&a[2], i);
      double l1ib = log1p (1 / b), l1b = log1p (b);
      if (k_al && n != 0)
        logp += tilde_lchoose_count (n, al);
      logp -= al * l1ib + n * l1b;
      if (a[1].p)
        dist_grad (&a[1], i, tilde_digamma (al + n) - tilde_digamma (al) - l1ib);
      dist_grad (&a[2], i, al / b - al / (1 + b) - n / (b + 1));
    }
  dist_finish (cx, a, 3, logp, out);
}

static void
k_beta_binomial (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[4];
  dist_arg (cx, &a[0], &v[0], "Successes variable");
  dist_arg (cx, &a[1], &v[1], "Population size parameter");
  dist_arg (cx, &a[2], &v[2], "First prior sample size parameter");
  dist_arg (cx, &a[3], &v[3], "Second prior sample size parameter");
  gint32 N = dist_size (cx, a, 4);
  dist_check_nonnegative (cx, &a[1]);
  dist_check_positive_finite (cx, &a[2]);
  dist_check_positive_finite (cx, &a[3]);
  if (dist_dropped (cx, a, 4, out))
    return;
  for (gint32 i = 0; i < N; i++)
    if (AT (&a[0], i) < 0 || AT (&a[0], i) > AT (&a[1], i))
      {
        *out = tilde_value_real (-INFINITY);
        return;
      }
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double n = AT (&a[0], i), Nn = AT (&a[1], i), al = AT (&a[2], i), b = AT (&a[3], i);
      if (!cx->drop)
        logp += tilde_lchoose (Nn, n);
      logp += tilde_lbeta (n + al, Nn - n + b) - tilde_lbeta (al, b);
      if (a[2].p || a[3].p)
        {
          double dd = tilde_digamma (al + b) - tilde_digamma (Nn + al + b);
          if (a[2].p)
            dist_grad (&a[2], i, tilde_digamma (n + al) + dd - tilde_digamma (al));
          if (a[3].p)
            dist_grad (&a[3], i, tilde_digamma (Nn - n + b) + dd - tilde_digamma (b));
        }
    }
  dist_finish (cx, a, 4, logp, out);
}

static void
k_hypergeometric (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  int n = rt_int (cx, &v[0]), N = rt_int (cx, &v[1]), A = rt_int (cx, &v[2]), B = rt_int (cx, &v[3]);
  const char *fn = dist_name (cx);
  if (!(n >= 0 && n <= A))
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Successes variable is %d, but must be in the "
              "interval [0, %d]!", fn, n, A);
  if (!(N >= n))
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Draws parameter is %d, but must be greater "
              "than or equal to %d!", fn, N, n);
  if (!(N - n >= 0 && N - n <= B))
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Draws parameter minus successes variable is "
              "%d, but must be in the interval [0, %d]!", fn, N - n, B);
  if (!(N >= 0 && N <= A + B))
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Draws parameter is %d, but must be in the "
              "interval [0, %d]!", fn, N, A + B);
  if (cx->drop)
    {
      *out = tilde_value_real (0);
      return;
    }
  *out = tilde_value_real (tilde_lchoose (A, n) + tilde_lchoose (B, N - n)
                           - tilde_lchoose (A + B, N));
}

/* ---- categories ---- */

/* The outcomes of a categorical or ordinal mass function: an int or an
 * array of ints. */
static const int *
outcomes (RtCtx *cx, const TildeValue *v, gint32 *n)
{
  if (v->kind == TILDE_VALUE_INT)
    {
      *n = 1;
      return &v->u.i;
    }
  if (v->kind == TILDE_VALUE_ARRAY && v->elem == TILDE_VALUE_INT)
    {
      *n = v->rows;
      return v->u.iv;
    }
  rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "%s: the outcomes must be ints", dist_name (cx));
}

static void
check_category (RtCtx *cx, const char *what, const int *y, gint32 n, int lo, int hi, gboolean vec)
{
  for (gint32 i = 0; i < n; i++)
    if (y[i] < lo || y[i] > hi)
      {
        if (vec)
          rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: %s[%d] is %d, but must be in the interval "
                    "[%d, %d]!", dist_name (cx), what, i + 1, y[i], lo, hi);
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: %s is %d, but must be in the interval "
                  "[%d, %d]!", dist_name (cx), what, y[i], lo, hi);
      }
}

static void
check_finite_vector (RtCtx *cx, const char *what, const double *x, gint32 n)
{
  for (gint32 i = 0; i < n; i++)
    if (!isfinite (x[i]))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: %s[%d] is %g, but must be finite!",
                dist_name (cx), what, i + 1, x[i]);
}

static void
k_categorical (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  gint32 n;
  const int *y = outcomes (cx, &v[0], &n);
  const TildeValue *th = &v[1];
  gint32 K = tilde_value_flat_size (th);
  if ((cx->drop && !th->ad) || n == 0)
    {
      *out = tilde_value_real (0);
      return;
    }
  const double *x = rt_values (cx, th);
  check_category (cx, "Number of categories", y, n, 1, K, v[0].kind != TILDE_VALUE_INT);
  dist_check_simplex (cx, "Probabilities parameter", x, K);
  double logp = 0;
  double *p = th->ad ? tilde_arena_alloc0 (cx->arena, sizeof (double) * (gsize) K) : NULL;
  for (gint32 i = 0; i < n; i++)
    {
      logp += log (x[y[i] - 1]);
      if (p)
        p[y[i] - 1] += 1 / x[y[i] - 1];
    }
  AdOperand op = rt_operand (th, p);
  *out = rt_reduce (cx, logp, th->ad ? 1 : 0, &op);
}

static void
k_categorical_logit (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  gint32 n;
  const int *y = outcomes (cx, &v[0], &n);
  const TildeValue *be = &v[1];
  gint32 K = tilde_value_flat_size (be);
  if ((cx->drop && !be->ad) || n == 0)
    {
      *out = tilde_value_real (0);
      return;
    }
  const double *x = rt_values (cx, be);
  check_category (cx, "categorical outcome out of support", y, n, 1, K,
                  v[0].kind != TILDE_VALUE_INT);
  check_finite_vector (cx, "log odds parameter", x, K);
  double m = -INFINITY, s = 0;
  for (gint32 k = 0; k < K; k++)
    m = fmax (m, x[k]);
  for (gint32 k = 0; k < K; k++)
    s += exp (x[k] - m);
  double lse = m + log (s), logp = 0;
  double *p = be->ad ? tilde_arena_alloc0 (cx->arena, sizeof (double) * (gsize) K) : NULL;
  for (gint32 i = 0; i < n; i++)
    {
      logp += x[y[i] - 1] - lse;
      if (p)
        p[y[i] - 1] += 1;
    }
  if (p)
    for (gint32 k = 0; k < K; k++)
      p[k] -= n * exp (x[k] - lse);
  AdOperand op = rt_operand (be, p);
  *out = rt_reduce (cx, logp, be->ad ? 1 : 0, &op);
}

static void
multinomial (RtCtx *cx, const TildeValue *v, gboolean logit, TildeValue *out)
{
  gint32 n;
  const int *y = outcomes (cx, &v[0], &n);
  const TildeValue *th = &v[1];
  gint32 K = tilde_value_flat_size (th);
  const double *x = rt_values (cx, th);
  for (gint32 i = 0; i < n; i++)
    if (y[i] < 0)
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Number of trials variable[%d] is %d, but "
                "must be nonnegative!", dist_name (cx), i + 1, y[i]);
  if (logit)
    check_finite_vector (cx, "log-probabilities parameter", x, K);
  else
    dist_check_simplex (cx, "Probabilities parameter", x, K);
  if (n != K)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: Size of number of trials variable (%d) and "
              "rows of %s parameter (%d) must match in size", dist_name (cx), n,
              logit ? "log-probabilities" : "probabilities", K);
  double logp = 0;
  if (!cx->drop)
    {
      double total = 0;
      for (gint32 i = 0; i < n; i++)
        {
          total += y[i];
          logp -= lgamma (y[i] + 1.0);
        }
      logp += lgamma (total + 1);
    }
  if (cx->drop && !th->ad)
    {
      *out = tilde_value_real (logp);
      return;
    }
  double lse = 0, total = 0;
  if (logit)
    {
      double m = -INFINITY, s = 0;
      for (gint32 k = 0; k < K; k++)
        m = fmax (m, x[k]);
      for (gint32 k = 0; k < K; k++)
        s += exp (x[k] - m);
      lse = m + log (s);
    }
  double *p = th->ad ? tilde_arena_alloc0 (cx->arena, sizeof (double) * (gsize) K) : NULL;
  for (gint32 k = 0; k < K; k++)
    {
      total += y[k];
      if (y[k] == 0)
        continue;
      logp += y[k] * (logit ? x[k] - lse : log (x[k]));
      if (p)
        p[k] += logit ? y[k] : y[k] / x[k];
    }
  if (p && logit)
    for (gint32 k = 0; k < K; k++)
      p[k] -= total * exp (x[k] - lse);
  AdOperand op = rt_operand (th, p);
  *out = rt_reduce (cx, logp, th->ad ? 1 : 0, &op);
}

static void
k_multinomial (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  multinomial (cx, v, FALSE, out);
}

static void
k_multinomial_logit (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  multinomial (cx, v, TRUE, out);
}

/* ---- ordinal regression ----
 * y in 1..K with K - 1 increasing cut points c: the probability of y is
 * F (lambda - c[y - 1]) - F (lambda - c[y]), with c[0] = -inf, c[K] = +inf
 * and F the logistic or the standard normal distribution function. */

typedef struct {
  double logp;
  double d_hi, d_lo;   /* d logp / d (lambda - c[y - 1]) and / d (lambda - c[y]) */
} OrdinalTerm;

/* log (F (u) - F (w)) for u > w */
static OrdinalTerm
ordinal_logistic (double u, double w)
{
  OrdinalTerm t = { 0 };
  if (u == INFINITY)
    {
      t.logp = tilde_log1m_inv_logit (w);
      t.d_lo = -tilde_inv_logit (w);
      return t;
    }
  if (w == -INFINITY)
    {
      t.logp = tilde_log_inv_logit (u);
      t.d_hi = tilde_inv_logit (-u);
      return t;
    }
  double d = w - u, e = exp (d);
  t.logp = tilde_log_inv_logit (u) + tilde_log1m_exp (d) + tilde_log1m_inv_logit (w);
  t.d_hi = tilde_inv_logit (-u) + e / -expm1 (d);
  t.d_lo = -e / -expm1 (d) - tilde_inv_logit (w);
  return t;
}

static OrdinalTerm
ordinal_probit (double u, double w)
{
  OrdinalTerm t = { 0 };
  /* Phi (u) - Phi (w) = Phi (-w) - Phi (-u): work in the tail that keeps
   * its digits */
  gboolean flip = w > 0;
  double hi = flip ? -w : u, lo = flip ? -u : w;
  double lhi = tilde_std_normal_lcdf (hi);
  double lp = lo == -INFINITY ? lhi : tilde_log_diff_exp (lhi, tilde_std_normal_lcdf (lo));
  t.logp = lp;
  double du = u == INFINITY ? 0 : exp (tilde_std_normal_log_density (u) - lp);
  double dw = w == -INFINITY ? 0 : exp (tilde_std_normal_log_density (w) - lp);
  t.d_hi = du;
  t.d_lo = -dw;
  return t;
}

static void
ordinal (RtCtx *cx, const TildeValue *v, gboolean probit, TildeValue *out)
{
  const char *saved = cx->fn_name;
  cx->fn_name = probit ? "ordered_probit" : "ordered_logistic";
  gint32 n;
  const int *y = outcomes (cx, &v[0], &n);
  const TildeValue *lam = &v[1];
  gint32 nl = tilde_value_flat_size (lam);
  const double *lx = rt_values (cx, lam);
  gint32 nc;
  const TildeValue *cs;
  dist_vectors (&v[2], &nc, &cs);
  gboolean yvec = v[0].kind != TILDE_VALUE_INT;
  gboolean lvec = !tilde_value_kind_is_scalar ((TildeValueKind) lam->kind);
  if (yvec && lvec)
    rt_check_size (cx, "Integers and Locations", n, nl);
  gint32 N = MAX (n, nl);
  if (nc > 1)
    rt_check_size (cx, "Length of location variables and Number of cutpoint vectors", N, nc);
  for (gint32 i = 0; i < nl; i++)
    if (!isfinite (lx[i]))
      {
        if (lvec)
          rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Location parameter[%d] is %g, but must "
                    "be finite!", cx->fn_name, i + 1, lx[i]);
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Location parameter is %g, but must be "
                  "finite!", cx->fn_name, lx[i]);
      }
  if (nc == 0 || N == 0)
    {
      cx->fn_name = saved;
      *out = tilde_value_real (0);
      return;
    }
  int K = tilde_value_flat_size (&cs[0]) + 1;
  check_category (cx, "Random variable", y, n, 1, K, yvec);
  const double **cx_vals = tilde_arena_alloc (cx->arena, sizeof (double *) * (gsize) nc);
  gboolean c_ad = FALSE;
  for (gint32 j = 0; j < nc; j++)
    {
      rt_check_size (cx, "One cutpoint set and First cutpoint set",
                     tilde_value_flat_size (&cs[j]), K - 1);
      cx_vals[j] = rt_values (cx, &cs[j]);
      dist_check_ordered (cx, "Cut-points", cx_vals[j], K - 1);
      if (K > 1)
        {
          if (!isfinite (cx_vals[j][K - 2]))
            rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: %s is %g, but must be finite!",
                      cx->fn_name, K > 2 ? "Final cut-point" : "First cut-point",
                      cx_vals[j][K - 2]);
          if (!isfinite (cx_vals[j][0]))
            rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: First cut-point is %g, but must be "
                      "finite!", cx->fn_name, cx_vals[j][0]);
        }
      c_ad |= cs[j].ad;
    }
  cx->fn_name = saved;
  if (cx->drop && !lam->ad && !c_ad)
    {
      *out = tilde_value_real (0);
      return;
    }
  double *pl = lam->ad ? tilde_arena_alloc0 (cx->arena, sizeof (double) * (gsize) nl) : NULL;
  double **pc = tilde_arena_alloc0 (cx->arena, sizeof (double *) * (gsize) nc);
  for (gint32 j = 0; j < nc; j++)
    if (cs[j].ad)
      pc[j] = tilde_arena_alloc0 (cx->arena, sizeof (double) * (gsize) MAX (K - 1, 1));
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      int yi = y[n == 1 ? 0 : i], j = nc == 1 ? 0 : i;
      double l = lx[nl == 1 ? 0 : i];
      const double *c = cx_vals[j];
      double u = yi == 1 ? INFINITY : l - c[yi - 2];
      double w = yi == K ? -INFINITY : l - c[yi - 1];
      OrdinalTerm t = probit ? ordinal_probit (u, w) : ordinal_logistic (u, w);
      logp += t.logp;
      if (pl)
        pl[nl == 1 ? 0 : i] += t.d_hi + t.d_lo;
      if (pc[j])
        {
          if (yi > 1)
            pc[j][yi - 2] -= t.d_hi;
          if (yi < K)
            pc[j][yi - 1] -= t.d_lo;
        }
    }
  AdOperand *ops = tilde_arena_alloc (cx->arena, sizeof (AdOperand) * (gsize) (nc + 1));
  guint n_ops = 0;
  if (pl)
    ops[n_ops++] = rt_operand (lam, pl);
  for (gint32 j = 0; j < nc; j++)
    if (pc[j])
      ops[n_ops++] = rt_operand (&cs[j], pc[j]);
  *out = rt_reduce (cx, logp, n_ops, ops);
}

static void
k_ordered_logistic (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  ordinal (cx, v, FALSE, out);
}

static void
k_ordered_probit (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  ordinal (cx, v, TRUE, out);
}

static void
k_beta_neg_binomial (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[4];
  dist_arg (cx, &a[0], &v[0], "Failures variable");
  dist_arg (cx, &a[1], &v[1], "Number of successes parameter");
  dist_arg (cx, &a[2], &v[2], "Prior success parameter");
  dist_arg (cx, &a[3], &v[3], "Prior failure parameter");
  gint32 N = dist_size (cx, a, 4);
  dist_check_nonnegative (cx, &a[0]);
  dist_check_positive_finite (cx, &a[1]);
  dist_check_positive_finite (cx, &a[2]);
  dist_check_positive_finite (cx, &a[3]);
  if (dist_dropped (cx, a, 4, out))
    return;
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double n = AT (&a[0], i), r = AT (&a[1], i), al = AT (&a[2], i), b = AT (&a[3], i);
      if (!cx->drop)
        logp -= lgamma (n + 1);
      logp += tilde_lbeta (n + r, al + b) + lgamma (n + b) - tilde_lbeta (r, al) - lgamma (b);
      if (a[1].p || a[2].p || a[3].p)
        {
          double dall = tilde_digamma (n + r + al + b), dra = tilde_digamma (r + al);
          double dab = tilde_digamma (al + b);
          dist_grad (&a[1], i, tilde_digamma (n + r) - dall - tilde_digamma (r) + dra);
          dist_grad (&a[2], i, -dall - tilde_digamma (al) + dra + dab);
          dist_grad (&a[3], i, dab - dall + tilde_digamma (n + b) - tilde_digamma (b));
        }
    }
  dist_finish (cx, a, 4, logp, out);
}

/* ordered_logistic_glm (y | x, beta, c): ordered_logistic (y | x beta, c) */
static void
k_ordered_logistic_glm (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  TildeValue args[3];
  args[0] = v[0];
  rt_matmul (cx, &v[1], &v[2], &args[1]);
  args[2] = v[3];
  ordinal (cx, args, FALSE, out);
}

/* categorical_logit_glm (y | x, alpha, beta): row n's categories have log
 * odds x[n] beta + alpha; one reduction over the product's entries and
 * alpha */
static void
k_categorical_logit_glm (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  gint32 n;
  const int *y = outcomes (cx, &v[0], &n);
  const TildeValue *x = &v[1], *al = &v[2], *be = &v[3];
  int N = x->kind == TILDE_VALUE_ROW_VECTOR ? 1 : x->rows, K = tilde_value_flat_size (al);
  rt_check_size (cx, "columns of beta and size of alpha", be->cols, K);
  rt_check_size (cx, "columns of x and rows of beta", x->cols, be->rows);
  gboolean yvec = v[0].kind != TILDE_VALUE_INT;
  if (yvec && N > 1)
    rt_check_size (cx, "size of y and rows of x", n, N);
  int R = yvec ? n : N;     /* a row vector x serves every y */
  check_category (cx, "categorical outcome out of support", y, n, 1, K, yvec);
  if (cx->drop && !rt_is_ad (x) && !al->ad && !be->ad)
    {
      *out = tilde_value_real (0);
      return;
    }
  TildeValue E;
  rt_matmul (cx, x, be, &E);     /* N x K (a row vector when N = 1) */
  const double *e = rt_values (cx, &E), *a = rt_values (cx, al);
  double *pe = E.ad ? tilde_arena_alloc0 (cx->arena, sizeof (double) * (gsize) MAX (N * K, 1)) : NULL;
  double *pa = al->ad ? tilde_arena_alloc0 (cx->arena, sizeof (double) * (gsize) K) : NULL;
  double logp = 0;
  for (int r = 0; r < R; r++)
    {
      int row = N == 1 ? 0 : r, yi = y[n == 1 ? 0 : r];
      double m = -INFINITY, s = 0;
      for (int k = 0; k < K; k++)
        m = fmax (m, e[row + k * N] + a[k]);
      for (int k = 0; k < K; k++)
        s += exp (e[row + k * N] + a[k] - m);
      double lse = m + log (s);
      if (!isfinite (lse))
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Matrix of independent variables is inf, "
                  "but must be finite!", dist_name (cx));
      logp += e[row + (yi - 1) * N] + a[yi - 1] - lse;
      for (int k = 0; k < K; k++)
        {
          double g = (k == yi - 1) - exp (e[row + k * N] + a[k] - lse);
          if (pe)
            pe[row + k * N] += g;
          if (pa)
            pa[k] += g;
        }
    }
  AdOperand ops[2];
  guint n_ops = 0;
  if (pe)
    ops[n_ops++] = rt_operand (&E, pe);
  if (pa)
    ops[n_ops++] = rt_operand (al, pa);
  *out = rt_reduce (cx, logp, n_ops, ops);
}

static void
k_discrete_range (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[3];
  dist_arg (cx, &a[0], &v[0], "Random variable");
  dist_arg (cx, &a[1], &v[1], "Lower bound parameter");
  dist_arg (cx, &a[2], &v[2], "Upper bound parameter");
  gint32 N = dist_size (cx, a, 3);
  dist_check_greater_or_equal (cx, &a[2], &a[1], N);
  if (cx->drop || N == 0)
    {
      *out = tilde_value_real (0);
      return;
    }
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (&a[0], i), lo = AT (&a[1], i), hi = AT (&a[2], i);
      if (y < lo || y > hi)
        {
          *out = tilde_value_real (-INFINITY);
          return;
        }
      logp -= log (hi - lo + 1);
    }
  *out = tilde_value_real (logp);
}

static void
k_dirichlet_multinomial (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  gint32 n;
  const int *y = outcomes (cx, &v[0], &n);
  const TildeValue *al = &v[1];
  gint32 K = tilde_value_flat_size (al);
  if (n != K)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: Size of number of trials variable (%d) and rows "
              "of prior size parameter (%d) must match in size", dist_name (cx), n, K);
  for (gint32 i = 0; i < n; i++)
    if (y[i] < 0)
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Number of trials variable[%d] is %d, but "
                "must be nonnegative!", dist_name (cx), i + 1, y[i]);
  DArg a;
  dist_arg (cx, &a, al, "Prior size parameter");
  dist_check_positive_finite (cx, &a);
  double total = 0, asum = 0;
  for (gint32 k = 0; k < K; k++)
    {
      total += y[k];
      asum += a.x[k];
    }
  if ((cx->drop && !al->ad) || total == 0)
    {
      *out = tilde_value_real (0);
      return;
    }
  double logp = tilde_lbeta (asum, total);
  if (!cx->drop)
    logp += log (total);
  double dsum = a.p ? tilde_digamma (asum) - tilde_digamma (asum + total) : 0;
  for (gint32 k = 0; k < K; k++)
    {
      if (y[k] > 0)
        {
          logp -= tilde_lbeta (a.x[k], y[k]);
          if (!cx->drop)
            logp -= log (y[k]);
          if (a.p)
            a.p[k] += tilde_digamma (a.x[k] + y[k]) - tilde_digamma (a.x[k]);
        }
      if (a.p)
        a.p[k] += dsum;
    }
  dist_finish (cx, &a, 1, logp, out);
}

#define MASS(base, fn, n) \
  { base "_lpmf", fn, n, n }, { base "_lupmf", fn, n, n }

const RtBuiltin rt_builtins_dist_discrete[] = {
  MASS ("neg_binomial", k_neg_binomial, 3),
  MASS ("beta_binomial", k_beta_binomial, 4),
  MASS ("hypergeometric", k_hypergeometric, 4),
  MASS ("categorical", k_categorical, 2),
  MASS ("categorical_logit", k_categorical_logit, 2),
  MASS ("multinomial", k_multinomial, 2),
  MASS ("multinomial_logit", k_multinomial_logit, 2),
  MASS ("ordered_logistic", k_ordered_logistic, 3),
  MASS ("ordered_probit", k_ordered_probit, 3),
  MASS ("discrete_range", k_discrete_range, 3),
  MASS ("beta_neg_binomial", k_beta_neg_binomial, 4),
  MASS ("ordered_logistic_glm", k_ordered_logistic_glm, 4),
  MASS ("categorical_logit_glm", k_categorical_logit_glm, 4),
  MASS ("dirichlet_multinomial", k_dirichlet_multinomial, 2),
  { NULL, NULL, 0, 0 },
};
