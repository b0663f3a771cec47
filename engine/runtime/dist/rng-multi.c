/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Pseudo-random draws whose arguments or results are containers:
 * categorical, multinomial, ordinal, dirichlet, multivariate normal and
 * Student t, LKJ, Wishart and inverse Wishart, and the GLM draws. Checks
 * and wording follow the densities'. (GSL's random distributions bring
 * GSL's CBLAS declarations, which clash with OpenBLAS's: the few products
 * here are plain loops.)
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/dist/dist-private.h"
#include "runtime/math/special.h"

#include <math.h>
#include <string.h>
#include <gsl/gsl_randist.h>

static void
need_rng (RtCtx *cx)
{
  if (!cx->rng)
    rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "%s: random numbers are only available in "
              "transformed data and generated quantities", cx->fn_name);
}

/* the index (1-based) of a draw from probabilities p[0 .. K) */
static int
draw_category (gsl_rng *r, const double *p, int K)
{
  double u = gsl_rng_uniform (r), acc = 0;
  for (int k = 0; k < K; k++)
    {
      acc += p[k];
      if (u < acc)
        return k + 1;
    }
  /* rounding left u above the last partial sum: the last category with mass */
  for (int k = K - 1; k >= 0; k--)
    if (p[k] > 0)
      return k + 1;
  return K;
}

static double *
softmax_of (RtCtx *cx, const double *x, int K)
{
  double *p = rt_alloc_d (cx, (gsize) K), m = -INFINITY, s = 0;
  for (int k = 0; k < K; k++)
    m = fmax (m, x[k]);
  for (int k = 0; k < K; k++)
    s += p[k] = exp (x[k] - m);
  for (int k = 0; k < K; k++)
    p[k] /= s;
  return p;
}

static void
check_finite_all (RtCtx *cx, const char *what, const double *x, int n)
{
  for (int i = 0; i < n; i++)
    if (!isfinite (x[i]))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: %s[%d] is %g, but must be finite!",
                cx->fn_name, what, i + 1, x[i]);
}

static void
k_categorical_rng (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  need_rng (cx);
  int K = tilde_value_flat_size (&a[0]);
  const double *p = rt_values (cx, &a[0]);
  dist_check_simplex (cx, "Probabilities parameter", p, K);
  *out = tilde_value_int (draw_category (cx->rng, p, K));
}

static void
k_categorical_logit_rng (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  need_rng (cx);
  int K = tilde_value_flat_size (&a[0]);
  const double *x = rt_values (cx, &a[0]);
  check_finite_all (cx, "Log odds parameter", x, K);
  *out = tilde_value_int (draw_category (cx->rng, softmax_of (cx, x, K), K));
}

static void
multinomial_draw (RtCtx *cx, const double *p, int K, int N, TildeValue *out)
{
  if (N < 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: number of trials variables is %d, but must be "
              "nonnegative!", cx->fn_name, N);
  TildeValue r = { .kind = TILDE_VALUE_ARRAY, .elem = TILDE_VALUE_INT, .rows = K, .cols = 1 };
  r.u.iv = tilde_arena_alloc (cx->arena, sizeof (int) * (gsize) MAX (K, 1));
  unsigned *n = tilde_arena_alloc (cx->arena, sizeof (unsigned) * (gsize) MAX (K, 1));
  gsl_ran_multinomial (cx->rng, (size_t) K, (unsigned) N, p, n);
  for (int k = 0; k < K; k++)
    r.u.iv[k] = (int) n[k];
  *out = r;
}

static void
k_multinomial_rng (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  need_rng (cx);
  int K = tilde_value_flat_size (&a[0]);
  const double *p = rt_values (cx, &a[0]);
  dist_check_simplex (cx, "Probabilities parameter", p, K);
  multinomial_draw (cx, p, K, rt_int (cx, &a[1]), out);
}

static void
k_multinomial_logit_rng (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  need_rng (cx);
  int K = tilde_value_flat_size (&a[0]);
  const double *x = rt_values (cx, &a[0]);
  check_finite_all (cx, "log-probabilities parameter", x, K);
  multinomial_draw (cx, softmax_of (cx, x, K), K, rt_int (cx, &a[1]), out);
}

static void
k_dirichlet_multinomial_rng (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  need_rng (cx);
  int K = tilde_value_flat_size (&a[0]);
  const double *al = rt_values (cx, &a[0]);
  for (int k = 0; k < K; k++)
    if (!(al[k] > 0) || isinf (al[k]))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: prior size parameter[%d] is %g, but must be "
                "positive finite!", cx->fn_name, k + 1, al[k]);
  /* multinomial counts of Dirichlet probabilities */
  double *th = rt_alloc_d (cx, (gsize) K);
  gsl_ran_dirichlet (cx->rng, (size_t) K, al, th);
  multinomial_draw (cx, th, K, rt_int (cx, &a[1]), out);
}

/* ordered_logistic_rng (eta, c) and ordered_probit_rng (eta, c): the
 * category of eta plus logistic (normal) noise among the cut points */
static void
ordinal_rng (RtCtx *cx, const TildeValue *a, gboolean probit, TildeValue *out)
{
  need_rng (cx);
  double eta = rt_scalar (cx, &a[0]);
  int K = tilde_value_flat_size (&a[1]) + 1;
  const double *c = rt_values (cx, &a[1]);
  if (!isfinite (eta))
    rt_domain_error (cx, "Location parameter", eta, "finite");
  dist_check_ordered (cx, "Cut-points", c, K - 1);
  check_finite_all (cx, "Cut-points", c, K - 1);
  double *p = rt_alloc_d (cx, (gsize) K);
  double prev = 1;   /* P (Y >= k) */
  for (int k = 0; k < K - 1; k++)
    {
      double above = probit ? tilde_Phi (eta - c[k]) : tilde_inv_logit (eta - c[k]);
      p[k] = prev - above;
      prev = above;
    }
  p[K - 1] = prev;
  *out = tilde_value_int (draw_category (cx->rng, p, K));
}

static void
k_ordered_logistic_rng (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  ordinal_rng (cx, a, FALSE, out);
}

static void
k_ordered_probit_rng (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  ordinal_rng (cx, a, TRUE, out);
}

static void
k_dirichlet_rng (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  need_rng (cx);
  int K = tilde_value_flat_size (&a[0]);
  const double *al = rt_values (cx, &a[0]);
  for (int k = 0; k < K; k++)
    if (!(al[k] > 0) || isinf (al[k]))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: prior sample sizes[%d] is %g, but must be "
                "positive finite!", cx->fn_name, k + 1, al[k]);
  TildeValue r = rt_new_data (cx, TILDE_VALUE_VECTOR, K, 1);
  /* gamma draws normalised in log space: tiny shapes underflow otherwise */
  double m = -INFINITY;
  for (int k = 0; k < K; k++)
    {
      /* log G (alpha) = log G (alpha + 1) + log U / alpha */
      double lg = log (gsl_ran_gamma (cx->rng, al[k] + 1, 1.0))
        + log (gsl_rng_uniform_pos (cx->rng)) / al[k];
      r.u.d[k] = lg;
      m = fmax (m, lg);
    }
  double s = 0;
  for (int k = 0; k < K; k++)
    s += r.u.d[k] = exp (r.u.d[k] - m);
  for (int k = 0; k < K; k++)
    r.u.d[k] /= s;
  *out = r;
}

/* ---- multivariate normal and t ---- */

static void
check_symmetric_pd (RtCtx *cx, const TildeValue *S, const char *what, double **L)
{
  if (S->rows != S->cols)
    dist_check_square (cx, what, S);
  const double *sv = rt_values (cx, S);
  dist_check_symmetric (cx, what, sv, S->rows);
  *L = dist_cholesky (cx, what, sv, S->rows, NULL);
}

/* mu (a vector, row vector or an array of them) plus L z for standard
 * normal z, scaled for Student t with nu degrees of freedom by
 * sqrt (nu / chi-square (nu)) (nu infinite: the normal) */
static void
mvn_draws (RtCtx *cx, const TildeValue *mu, const double *L, int K, double nu, TildeValue *out)
{
  gint32 n;
  const TildeValue *mus;
  dist_vectors (mu, &n, &mus);
  gboolean many = mu->kind == TILDE_VALUE_ARRAY;
  TildeValue r = { .kind = TILDE_VALUE_ARRAY, .elem = TILDE_VALUE_VECTOR, .rows = n, .cols = 1 };
  if (many)
    r.u.elems = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * (gsize) MAX (n, 1));
  for (gint32 i = 0; i < n; i++)
    {
      rt_check_size (cx, "Size of location parameter and rows of covariance parameter",
                     tilde_value_flat_size (&mus[i]), K);
      const double *m = rt_values (cx, &mus[i]);
      check_finite_all (cx, "Location parameter", m, K);
      TildeValue v = rt_new_data (cx, TILDE_VALUE_VECTOR, K, 1);
      double *z = rt_alloc_d (cx, (gsize) K);
      for (int k = 0; k < K; k++)
        z[k] = gsl_ran_gaussian_ziggurat (cx->rng, 1.0);
      double w = isinf (nu) ? 1 : sqrt (nu / gsl_ran_chisq (cx->rng, nu));
      for (int k = 0; k < K; k++)
        {
          double s = 0;
          for (int j = 0; j <= k; j++)
            s += L[k + j * K] * z[j];
          v.u.d[k] = m[k] + w * s;
        }
      if (many)
        r.u.elems[i] = v;
      else
        r = v;
    }
  *out = r;
}

static void
k_multi_normal_rng (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  need_rng (cx);
  double *L;
  check_symmetric_pd (cx, &a[1], "Covariance matrix", &L);
  mvn_draws (cx, &a[0], L, a[1].rows, INFINITY, out);
}

static void
k_multi_normal_cholesky_rng (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  need_rng (cx);
  mvn_draws (cx, &a[0], rt_values (cx, &a[1]), a[1].rows, INFINITY, out);
}

static double
check_nu (RtCtx *cx, const TildeValue *v)
{
  double nu = rt_scalar (cx, v);
  if (!(nu > 0))
    rt_domain_error (cx, "Degrees of freedom parameter", nu, "positive");
  return nu;
}

static void
k_multi_student_t_rng (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  need_rng (cx);
  double nu = check_nu (cx, &a[0]), *L;
  check_symmetric_pd (cx, &a[2], "Scale parameter", &L);
  mvn_draws (cx, &a[1], L, a[2].rows, nu, out);
}

static void
k_multi_student_t_cholesky_rng (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  need_rng (cx);
  double nu = check_nu (cx, &a[0]);
  mvn_draws (cx, &a[1], rt_values (cx, &a[2]), a[2].rows, nu, out);
}

/* ---- correlation and covariance matrices ---- */

/* The Cholesky factor of an LKJ (eta) correlation matrix: canonical
 * partial correlations, column by column, from symmetric beta draws on
 * (-1, 1) with shape eta + (K - 2 - i) / 2 for column i (the C-vine). */
static void
lkj_cholesky_draw (RtCtx *cx, int K, double eta, double *L)
{
  gsl_rng *r = cx->rng;
  memset (L, 0, sizeof (double) * (gsize) (K * K));
  if (K == 0)
    return;
  /* L[row, col] = z sqrt (1 - sum of the row's squares so far) */
  double *left = rt_alloc_d (cx, (gsize) K);
  for (int i = 0; i < K; i++)
    left[i] = 1;
  for (int c = 0; c < K; c++)
    {
      L[c + c * K] = sqrt (left[c]);
      double alpha = eta + 0.5 * (K - 2 - c);
      for (int row = c + 1; row < K; row++)
        {
          double z = 2 * gsl_ran_beta (r, alpha, alpha) - 1;
          L[row + c * K] = z * sqrt (left[row]);
          left[row] -= L[row + c * K] * L[row + c * K];
        }
    }
}

static void
lkj_args (RtCtx *cx, const TildeValue *a, int *K, double *eta)
{
  need_rng (cx);
  *K = rt_int (cx, &a[0]);
  *eta = rt_scalar (cx, &a[1]);
  if (*K < 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: K is %d, but must be nonnegative!",
              cx->fn_name, *K);
  if (!(*eta > 0))
    rt_domain_error (cx, "Shape parameter", *eta, "positive");
}

static void
k_lkj_corr_cholesky_rng (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  int K;
  double eta;
  lkj_args (cx, a, &K, &eta);
  TildeValue r = rt_new_data (cx, TILDE_VALUE_MATRIX, K, K);
  lkj_cholesky_draw (cx, K, eta, r.u.d);
  *out = r;
}

/* L L' for a lower-triangular L, into fresh memory */
static TildeValue
lower_self_product (RtCtx *cx, const double *L, int K)
{
  TildeValue r = rt_new_data (cx, TILDE_VALUE_MATRIX, K, K);
  for (int j = 0; j < K; j++)
    for (int i = j; i < K; i++)
      {
        double s = 0;
        for (int k = 0; k <= j; k++)
          s += L[i + k * K] * L[j + k * K];
        r.u.d[i + j * K] = r.u.d[j + i * K] = s;
      }
  return r;
}

static void
k_lkj_corr_rng (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  int K;
  double eta;
  lkj_args (cx, a, &K, &eta);
  double *L = rt_alloc_d (cx, (gsize) (K * K));
  lkj_cholesky_draw (cx, K, eta, L);
  *out = lower_self_product (cx, L, K);
  for (int k = 0; k < K; k++)
    out->u.d[k + k * K] = 1;
}

/* The Cholesky factor of a Wishart (nu, L L') draw (Bartlett): L A with A
 * lower triangular, A_ii^2 ~ chi-square (nu - i), A_ij ~ N (0, 1). */
static void
wishart_cholesky_draw (RtCtx *cx, const double *L, int K, double nu, double *out)
{
  gsl_rng *r = cx->rng;
  double *A = rt_alloc_d (cx, (gsize) (K * K));
  memset (A, 0, sizeof (double) * (gsize) (K * K));
  for (int j = 0; j < K; j++)
    {
      A[j + j * K] = sqrt (gsl_ran_chisq (r, nu - j));
      for (int i = j + 1; i < K; i++)
        A[i + j * K] = gsl_ran_gaussian_ziggurat (r, 1.0);
    }
  /* out = L A, both lower triangular */
  for (int j = 0; j < K; j++)
    for (int i = 0; i < K; i++)
      {
        double s = 0;
        for (int k = j; k <= i; k++)
          s += L[i + k * K] * A[k + j * K];
        out[i + j * K] = s;
      }
}

static double
wishart_nu (RtCtx *cx, const TildeValue *nu_v, int K)
{
  double nu = rt_scalar (cx, nu_v);
  if (!(nu > K - 1))
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Degrees of freedom parameter is %g, but must "
              "be greater than %d!", cx->fn_name, nu, K - 1);
  return nu;
}

static void
k_wishart_rng (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  need_rng (cx);
  int K = a[1].rows;
  double nu = wishart_nu (cx, &a[0], K), *L;
  check_symmetric_pd (cx, &a[1], "scale parameter", &L);
  double *F = rt_alloc_d (cx, (gsize) (K * K));
  wishart_cholesky_draw (cx, L, K, nu, F);
  *out = lower_self_product (cx, F, K);
}

static void
k_wishart_cholesky_rng (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  need_rng (cx);
  int K = a[1].rows;
  double nu = wishart_nu (cx, &a[0], K);
  TildeValue r = rt_new_data (cx, TILDE_VALUE_MATRIX, K, K);
  /* L A: lower triangular with a positive diagonal, a Cholesky factor */
  wishart_cholesky_draw (cx, rt_values (cx, &a[1]), K, nu, r.u.d);
  *out = r;
}

/* W^-1 for W ~ Wishart (nu, S^-1) */
static void
inv_wishart_draw (RtCtx *cx, const double *S, int K, double nu, TildeValue *out)
{
  /* the Cholesky factor of S^-1 */
  double *Ls = dist_cholesky (cx, "scale parameter", S, K, NULL);
  double *Sinv = dist_cholesky_inverse (cx, Ls, K);
  double *L = dist_cholesky (cx, "scale parameter", Sinv, K, NULL);
  double *F = rt_alloc_d (cx, (gsize) (K * K));
  wishart_cholesky_draw (cx, L, K, nu, F);
  /* (F F')^-1 */
  *out = rt_new_data (cx, TILDE_VALUE_MATRIX, K, K);
  double *inv = dist_cholesky_inverse (cx, F, K);
  memcpy (out->u.d, inv, sizeof (double) * (gsize) (K * K));
}

static void
k_inv_wishart_rng (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  need_rng (cx);
  int K = a[1].rows;
  double nu = wishart_nu (cx, &a[0], K), *L;
  check_symmetric_pd (cx, &a[1], "scale parameter", &L);
  inv_wishart_draw (cx, rt_values (cx, &a[1]), K, nu, out);
}

static void
k_inv_wishart_cholesky_rng (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  need_rng (cx);
  int K = a[1].rows;
  double nu = wishart_nu (cx, &a[0], K);
  TildeValue S = lower_self_product (cx, rt_values (cx, &a[1]), K), W;
  inv_wishart_draw (cx, S.u.d, K, nu, &W);
  TildeValue r = rt_new_data (cx, TILDE_VALUE_MATRIX, K, K);
  memcpy (r.u.d, dist_cholesky (cx, "random variable", W.u.d, K, NULL),
          sizeof (double) * (gsize) (K * K));
  *out = r;
}

/* ---- GLM ---- */

static void
k_bernoulli_logit_glm_rng (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  need_rng (cx);
  const TildeValue *x = &a[0];
  int N = x->kind == TILDE_VALUE_ROW_VECTOR ? 1 : x->rows, M = x->cols;
  rt_check_size (cx, "Columns of x and size of beta", M, tilde_value_flat_size (&a[2]));
  const double *xv = rt_values (cx, x), *al = rt_values (cx, &a[1]), *be = rt_values (cx, &a[2]);
  gboolean al_vec = !tilde_value_kind_is_scalar ((TildeValueKind) a[1].kind);
  if (al_vec)
    rt_check_size (cx, "Rows of x and size of alpha", N, tilde_value_flat_size (&a[1]));
  TildeValue r = { .kind = TILDE_VALUE_ARRAY, .elem = TILDE_VALUE_INT, .rows = N, .cols = 1 };
  r.u.iv = tilde_arena_alloc (cx->arena, sizeof (int) * (gsize) MAX (N, 1));
  for (int n = 0; n < N; n++)
    {
      double eta = al[al_vec ? n : 0];
      for (int m = 0; m < M; m++)
        eta += xv[n + m * N] * be[m];
      if (!isfinite (eta))
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Matrix of independent variables is "
                  "inf, but must be finite!", cx->fn_name);
      r.u.iv[n] = gsl_rng_uniform (cx->rng) < tilde_inv_logit (eta);
    }
  *out = r;
}

const RtBuiltin rt_builtins_rng_multi[] = {
  { "categorical_rng", k_categorical_rng, 1, 1 },
  { "categorical_logit_rng", k_categorical_logit_rng, 1, 1 },
  { "multinomial_rng", k_multinomial_rng, 2, 2 },
  { "multinomial_logit_rng", k_multinomial_logit_rng, 2, 2 },
  { "ordered_logistic_rng", k_ordered_logistic_rng, 2, 2 },
  { "ordered_probit_rng", k_ordered_probit_rng, 2, 2 },
  { "dirichlet_rng", k_dirichlet_rng, 1, 1 },
  { "dirichlet_multinomial_rng", k_dirichlet_multinomial_rng, 2, 2 },
  { "multi_normal_rng", k_multi_normal_rng, 2, 2 },
  { "multi_normal_cholesky_rng", k_multi_normal_cholesky_rng, 2, 2 },
  { "multi_student_t_rng", k_multi_student_t_rng, 3, 3 },
  { "multi_student_t_cholesky_rng", k_multi_student_t_cholesky_rng, 3, 3 },
  { "lkj_corr_rng", k_lkj_corr_rng, 2, 2 },
  { "lkj_corr_cholesky_rng", k_lkj_corr_cholesky_rng, 2, 2 },
  { "wishart_rng", k_wishart_rng, 2, 2 },
  { "wishart_cholesky_rng", k_wishart_cholesky_rng, 2, 2 },
  { "inv_wishart_rng", k_inv_wishart_rng, 2, 2 },
  { "inv_wishart_cholesky_rng", k_inv_wishart_cholesky_rng, 2, 2 },
  { "bernoulli_logit_glm_rng", k_bernoulli_logit_glm_rng, 3, 3 },
  { NULL, NULL, 0, 0 },
};
