/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Multivariate densities: multi_normal and its Cholesky and precision
 * forms, multi_student_t (and its Cholesky form), dirichlet, lkj_corr and
 * lkj_corr_cholesky, wishart and inv_wishart (and their Cholesky forms),
 * multi_gp and multi_gp_cholesky.
 *
 * Variates and locations may be one vector or arrays of them; residuals
 * are gathered into one K x N matrix so that a whole vectorised statement
 * costs two triangular solves with N right-hand sides. Matrix arguments
 * get the derivative of the density's formula in every entry (log
 * determinants and inverses, as Stan's LDLT-based kernels give), so a
 * symmetric matrix built from parameters gets its gradient through both
 * triangles.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/dist/dist-private.h"
#include "runtime/math/special.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

/* ---- locations and residuals ---- */

typedef struct {
  gint32 N, K;                 /* observations, dimension */
  gint32 ny, nmu;              /* 1: one vector shared by every observation */
  const TildeValue *ys, *mus;
  double *R;                   /* K x N: y_n - mu_n */
  gboolean y_ad, mu_ad;
} MvLoc;

/* Reads y and mu (vectors, row vectors or arrays of them), checks sizes,
 * NaN variates and infinite locations as Stan does; FALSE when there is
 * nothing to add (no observations). */
static gboolean
mv_loc (RtCtx *cx, const TildeValue *y, const TildeValue *mu, int K, MvLoc *m)
{
  dist_vectors (y, &m->ny, &m->ys);
  dist_vectors (mu, &m->nmu, &m->mus);
  if (m->ny == 0 || m->nmu == 0)
    return FALSE;
  if (m->ny > 1 && m->nmu > 1 && m->ny != m->nmu)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: size of y (%d) and size of mu (%d) must match "
              "in size", dist_name (cx), m->ny, m->nmu);
  m->N = MAX (m->ny, m->nmu);
  m->K = K;
  for (gint32 n = 0; n < m->ny; n++)
    rt_check_size (cx, "Size of random variable and rows of covariance parameter",
                   tilde_value_flat_size (&m->ys[n]), K);
  for (gint32 n = 0; n < m->nmu; n++)
    rt_check_size (cx, "Size of random variable and size of location parameter",
                   tilde_value_flat_size (&m->mus[n]), K);
  m->y_ad = rt_is_ad (y);
  m->mu_ad = rt_is_ad (mu);
  m->R = rt_alloc_d (cx, (gsize) K * (gsize) m->N);
  for (gint32 n = 0; n < m->N; n++)
    {
      const double *yx = rt_values (cx, &m->ys[m->ny == 1 ? 0 : n]);
      const double *mx = rt_values (cx, &m->mus[m->nmu == 1 ? 0 : n]);
      for (int k = 0; k < K; k++)
        {
          if (!isfinite (mx[k]))
            rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Location parameter[%d] is %g, but must "
                      "be finite!", dist_name (cx), k + 1, mx[k]);
          if (isnan (yx[k]))
            rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Random variable[%d] is %g, but must be "
                      "not nan!", dist_name (cx), k + 1, yx[k]);
          m->R[k + n * K] = yx[k] - mx[k];
        }
    }
  return K > 0;
}

/* Operands for y and mu given G = d logp / d r_n (K x N). */
static void
mv_loc_operands (RtCtx *cx, const MvLoc *m, const double *G, AdOperand *ops, guint *n_ops)
{
  int K = m->K;
  for (int side = 0; side < 2; side++)
    {
      gboolean is_y = side == 0;
      if (!(is_y ? m->y_ad : m->mu_ad))
        continue;
      gint32 count = is_y ? m->ny : m->nmu;
      const TildeValue *elems = is_y ? m->ys : m->mus;
      double sign = is_y ? 1 : -1;
      if (count == 1)
        {
          double *p = tilde_arena_alloc0 (cx->arena, sizeof (double) * (gsize) K);
          for (gint32 n = 0; n < m->N; n++)
            for (int k = 0; k < K; k++)
              p[k] += sign * G[k + n * K];
          ops[(*n_ops)++] = rt_operand (&elems[0], p);
          continue;
        }
      for (gint32 n = 0; n < count; n++)
        if (elems[n].ad)
          {
            double *p = rt_alloc_d (cx, (gsize) K);
            for (int k = 0; k < K; k++)
              p[k] = sign * G[k + n * K];
            ops[(*n_ops)++] = rt_operand (&elems[n], p);
          }
    }
}

static AdOperand *
mv_ops (RtCtx *cx, const MvLoc *m, int extra)
{
  return tilde_arena_alloc (cx->arena, sizeof (AdOperand) * (gsize) (m->ny + m->nmu + extra));
}

static void
check_square_matrix (RtCtx *cx, const char *what, const TildeValue *m)
{
  if (m->kind != TILDE_VALUE_MATRIX)
    rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "%s: %s must be a matrix", dist_name (cx), what);
  dist_check_square (cx, what, m);
}

/* Z = L^-1 R and W = L^-T Z = (L L^T)^-1 R, both K x N, in fresh memory */
static void
solve_both (RtCtx *cx, const double *L, int K, const double *R, gint32 N, double **Z, double **W)
{
  gsize n = (gsize) K * (gsize) N;
  *Z = tilde_arena_memdup (cx->arena, R, sizeof (double) * MAX (n, 1));
  cblas_dtrsm (CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, K, N, 1.0,
               L, K, *Z, K);
  if (W)
    {
      *W = tilde_arena_memdup (cx->arena, *Z, sizeof (double) * MAX (n, 1));
      cblas_dtrsm (CblasColMajor, CblasLeft, CblasLower, CblasTrans, CblasNonUnit, K, N, 1.0,
                   L, K, *W, K);
    }
}

/* The Cholesky factor of a covariance matrix as Stan's cholesky_decompose
 * checks it. */
static double *
covariance_factor (RtCtx *cx, const double *S, int K, double *log_det)
{
  const char *saved = cx->fn_name;
  cx->fn_name = "cholesky_decompose";
  dist_check_symmetric (cx, "m", S, K);
  double *L = dist_cholesky (cx, "Matrix m", S, K, log_det);
  cx->fn_name = saved;
  return L;
}

/* ---- multi_normal family ---- */

typedef enum { MVN_COV, MVN_CHOLESKY, MVN_PREC } MvnForm;

static void
multi_normal (RtCtx *cx, const TildeValue *v, MvnForm form, TildeValue *out)
{
  const TildeValue *S = &v[2];
  check_square_matrix (cx, form == MVN_COV ? "Covariance matrix" : form == MVN_PREC
                       ? "Precision matrix" : "Cholesky factor", S);
  int K = S->rows;
  MvLoc m;
  if (!mv_loc (cx, &v[0], &v[1], K, &m))
    {
      *out = tilde_value_real (0);
      return;
    }
  const double *sv = rt_values (cx, S);
  double *L, log_det;
  if (form == MVN_COV)
    L = covariance_factor (cx, sv, K, &log_det);
  else if (form == MVN_PREC)
    {
      dist_check_symmetric (cx, "Precision matrix", sv, K);
      L = dist_cholesky (cx, "LDLT_Factor of precision parameter", sv, K, &log_det);
    }
  else
    {
      L = (double *) sv;
      log_det = 0;
      for (int k = 0; k < K; k++)
        log_det += 2 * log (sv[k + k * K]);
    }
  gboolean s_ad = S->ad;
  if (cx->drop && !m.y_ad && !m.mu_ad && !s_ad)
    {
      *out = tilde_value_real (0);
      return;
    }
  gint32 N = m.N;
  double logp = 0;
  if (!cx->drop)
    logp -= TILDE_LOG_SQRT_TWO_PI * K * N;
  if (!cx->drop || s_ad)
    logp += (form == MVN_PREC ? 0.5 : -0.5) * N * log_det;
  double *Z, *W;
  if (form == MVN_PREC)
    {
      /* r' Omega r = |L' r|^2 with Omega = L L' */
      gsize n = (gsize) K * (gsize) N;
      Z = tilde_arena_memdup (cx->arena, m.R, sizeof (double) * n);
      cblas_dtrmm (CblasColMajor, CblasLeft, CblasLower, CblasTrans, CblasNonUnit, K, N, 1.0,
                   L, K, Z, K);
      W = rt_alloc_d (cx, n);   /* Omega r */
      cblas_dsymm (CblasColMajor, CblasLeft, CblasLower, K, N, 1.0, sv, K, m.R, K, 0.0, W, K);
    }
  else
    solve_both (cx, L, K, m.R, N, &Z, &W);
  logp -= 0.5 * cblas_ddot (K * N, Z, 1, Z, 1);
  if (!m.y_ad && !m.mu_ad && !s_ad)
    {
      *out = tilde_value_real (logp);
      return;
    }
  AdOperand *ops = mv_ops (cx, &m, 1);
  guint n_ops = 0;
  /* d logp / d r_n = -Sigma^-1 r_n (or -Omega r_n) */
  double *G = rt_alloc_d (cx, (gsize) K * (gsize) N);
  for (gint32 i = 0; i < K * N; i++)
    G[i] = -W[i];
  mv_loc_operands (cx, &m, G, ops, &n_ops);
  if (s_ad)
    {
      double *P = rt_alloc_d (cx, (gsize) (K * K));
      if (form == MVN_CHOLESKY)
        {
          /* d/dL: W Z' on the lower triangle, -N / L_kk on the diagonal */
          memset (P, 0, sizeof (double) * (gsize) (K * K));
          cblas_dgemm (CblasColMajor, CblasNoTrans, CblasTrans, K, K, N, 1.0, W, K, Z, K, 0.0, P, K);
          for (int j = 0; j < K; j++)
            {
              for (int i = 0; i < j; i++)
                P[i + j * K] = 0;
              P[j + j * K] -= N / L[j + j * K];
            }
        }
      else if (form == MVN_COV)
        {
          /* 0.5 (Sigma^-1 (sum r r') Sigma^-1 - N Sigma^-1) = 0.5 (W W' - N Sigma^-1) */
          double *inv = dist_cholesky_inverse (cx, L, K);
          for (int i = 0; i < K * K; i++)
            P[i] = -0.5 * N * inv[i];
          cblas_dgemm (CblasColMajor, CblasNoTrans, CblasTrans, K, K, N, 0.5, W, K, W, K, 1.0, P, K);
        }
      else
        {
          /* 0.5 (N Omega^-1 - sum r r') */
          double *inv = dist_cholesky_inverse (cx, L, K);
          for (int i = 0; i < K * K; i++)
            P[i] = 0.5 * N * inv[i];
          cblas_dgemm (CblasColMajor, CblasNoTrans, CblasTrans, K, K, N, -0.5, m.R, K, m.R, K,
                       1.0, P, K);
        }
      ops[n_ops++] = rt_operand (S, P);
    }
  *out = rt_reduce (cx, logp, n_ops, ops);
}

static void
k_multi_normal (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  multi_normal (cx, v, MVN_COV, out);
}

static void
k_multi_normal_cholesky (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  multi_normal (cx, v, MVN_CHOLESKY, out);
}

static void
k_multi_normal_prec (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  multi_normal (cx, v, MVN_PREC, out);
}

/* ---- multi_student_t ---- */

static void
multi_student_t (RtCtx *cx, const TildeValue *v, gboolean cholesky, TildeValue *out)
{
  const char *saved = cx->fn_name;
  if (!cholesky)
    cx->fn_name = "multi_student_t";
  DArg nu_a;
  dist_arg (cx, &nu_a, &v[1], "Degrees of freedom parameter");
  dist_check_not_nan (cx, &nu_a);
  dist_check_positive (cx, &nu_a);
  double nu = nu_a.x[0];
  if (isinf (nu))
    {
      cx->fn_name = saved;
      TildeValue args[3] = { v[0], v[2], v[3] };
      multi_normal (cx, args, cholesky ? MVN_CHOLESKY : MVN_COV, out);
      return;
    }
  const TildeValue *S = &v[3];
  check_square_matrix (cx, "Scale parameter", S);
  int K = S->rows;
  MvLoc m;
  if (!mv_loc (cx, &v[0], &v[2], K, &m))
    {
      cx->fn_name = saved;
      *out = tilde_value_real (0);
      return;
    }
  const double *sv = rt_values (cx, S);
  double *L, log_det = 0;
  if (cholesky)
    {
      L = (double *) sv;
      for (int k = 0; k < K; k++)
        log_det += 2 * log (sv[k + k * K]);
    }
  else
    {
      dist_check_symmetric (cx, "Scale parameter", sv, K);
      L = dist_cholesky (cx, "LDLT_Factor of scale parameter", sv, K, &log_det);
    }
  cx->fn_name = saved;
  gboolean s_ad = S->ad, nu_ad = nu_a.ad;
  if (cx->drop && !m.y_ad && !m.mu_ad && !s_ad && !nu_ad)
    {
      *out = tilde_value_real (0);
      return;
    }
  gint32 N = m.N;
  double logp = 0, h = 0.5 * (nu + K);
  if (!cx->drop || nu_ad)
    logp += N * (lgamma (h) - lgamma (0.5 * nu) - 0.5 * K * log (nu));
  if (!cx->drop)
    logp -= 0.5 * K * TILDE_LOG_PI * N;
  if (!cx->drop || s_ad)
    logp -= 0.5 * N * log_det;
  double *Z, *W;
  solve_both (cx, L, K, m.R, N, &Z, &W);
  double *q = rt_alloc_d (cx, (gsize) N);
  double sum_l1p = 0, sum_dnu = 0;
  for (gint32 n = 0; n < N; n++)
    {
      q[n] = cblas_ddot (K, Z + n * K, 1, Z + n * K, 1);
      sum_l1p += log1p (q[n] / nu);
      sum_dnu += q[n] / (nu * (nu + q[n]));
    }
  logp -= h * sum_l1p;
  AdOperand *ops = mv_ops (cx, &m, 2);
  guint n_ops = 0;
  /* d logp / d r_n = -(nu + K) / (nu + q_n) Sigma^-1 r_n */
  double *G = rt_alloc_d (cx, (gsize) K * (gsize) N);
  for (gint32 n = 0; n < N; n++)
    for (int k = 0; k < K; k++)
      G[k + n * K] = -(nu + K) / (nu + q[n]) * W[k + n * K];
  if (m.y_ad || m.mu_ad)
    mv_loc_operands (cx, &m, G, ops, &n_ops);
  if (s_ad)
    {
      double *P = rt_alloc_d (cx, (gsize) (K * K));
      /* each observation contributes 0.5 (nu + K) / (nu + q_n) w_n w_n' */
      double *Ws = rt_alloc_d (cx, (gsize) K * (gsize) N);
      for (gint32 n = 0; n < N; n++)
        for (int k = 0; k < K; k++)
          Ws[k + n * K] = (nu + K) / (nu + q[n]) * W[k + n * K];
      if (cholesky)
        {
          /* as the Cholesky normal: the quadratic form's part is
           * W_s Z' on the lower triangle, -N / L_kk on the diagonal */
          cblas_dgemm (CblasColMajor, CblasNoTrans, CblasTrans, K, K, N, 1.0, Ws, K, Z, K, 0.0,
                       P, K);
          for (int j = 0; j < K; j++)
            {
              for (int i = 0; i < j; i++)
                P[i + j * K] = 0;
              P[j + j * K] -= N / L[j + j * K];
            }
        }
      else
        {
          double *inv = dist_cholesky_inverse (cx, L, K);
          for (int i = 0; i < K * K; i++)
            P[i] = -0.5 * N * inv[i];
          cblas_dgemm (CblasColMajor, CblasNoTrans, CblasTrans, K, K, N, 0.5, Ws, K, W, K, 1.0,
                       P, K);
        }
      ops[n_ops++] = rt_operand (S, P);
    }
  if (nu_ad)
    {
      double *p = rt_alloc_d (cx, 1);
      p[0] = N * (0.5 * (tilde_digamma (h) - tilde_digamma (0.5 * nu)) - 0.5 * K / nu)
        - 0.5 * sum_l1p + h * sum_dnu;
      ops[n_ops++] = rt_operand (nu_a.v, p);
    }
  *out = rt_reduce (cx, logp, n_ops, ops);
}

static void
k_multi_student_t (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  multi_student_t (cx, v, FALSE, out);
}

static void
k_multi_student_t_cholesky (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  multi_student_t (cx, v, TRUE, out);
}

/* ---- dirichlet ---- */

static void
k_dirichlet (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  gint32 nt, na;
  const TildeValue *ths, *als;
  dist_vectors (&v[0], &nt, &ths);
  dist_vectors (&v[1], &na, &als);
  if (nt > 1 && na > 1 && nt != na)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: size of probabilities (%d) and size of prior "
              "sample sizes (%d) must match in size", dist_name (cx), nt, na);
  gint32 T = nt == 0 || na == 0 ? 0 : MAX (nt, na);
  if (T == 0)
    {
      *out = tilde_value_real (0);
      return;
    }
  gint32 K = tilde_value_flat_size (&ths[0]);
  for (gint32 t = 0; t < T; t++)
    {
      const TildeValue *th = &ths[nt == 1 ? 0 : t], *al = &als[na == 1 ? 0 : t];
      rt_check_size (cx, "probabilities and prior sample sizes", tilde_value_flat_size (th), K);
      rt_check_size (cx, "probabilities and prior sample sizes", tilde_value_flat_size (al), K);
      DArg a;
      dist_arg (cx, &a, al, "prior sample sizes");
      dist_check_positive (cx, &a);
      dist_check_simplex (cx, "probabilities", rt_values (cx, th), K);
    }
  gboolean th_ad = rt_is_ad (&v[0]), al_ad = rt_is_ad (&v[1]);
  if (cx->drop && !th_ad && !al_ad)
    {
      *out = tilde_value_real (0);
      return;
    }
  gboolean k_al = !cx->drop || al_ad;
  double logp = 0;
  AdOperand *ops = tilde_arena_alloc (cx->arena, sizeof (AdOperand) * (gsize) (nt + na));
  guint n_ops = 0;
  double *pt_shared = th_ad && nt == 1 ? tilde_arena_alloc0 (cx->arena, sizeof (double) * (gsize) K) : NULL;
  double *pa_shared = al_ad && na == 1 ? tilde_arena_alloc0 (cx->arena, sizeof (double) * (gsize) K) : NULL;
  for (gint32 t = 0; t < T; t++)
    {
      const TildeValue *th = &ths[nt == 1 ? 0 : t], *al = &als[na == 1 ? 0 : t];
      const double *tx = rt_values (cx, th), *ax = rt_values (cx, al);
      double asum = 0;
      for (gint32 k = 0; k < K; k++)
        asum += ax[k];
      if (k_al)
        {
          logp += lgamma (asum);
          for (gint32 k = 0; k < K; k++)
            logp -= lgamma (ax[k]);
        }
      double *pt = pt_shared ? pt_shared : th->ad ? rt_alloc_d (cx, (gsize) K) : NULL;
      double *pa = pa_shared ? pa_shared : al->ad ? rt_alloc_d (cx, (gsize) K) : NULL;
      double dsum = pa ? tilde_digamma (asum) : 0;
      for (gint32 k = 0; k < K; k++)
        {
          double lt = log (tx[k]);
          logp += (ax[k] - 1) * lt;
          if (pt)
            pt[k] = (pt == pt_shared ? pt[k] : 0) + (ax[k] - 1) / tx[k];
          if (pa)
            pa[k] = (pa == pa_shared ? pa[k] : 0) + dsum - tilde_digamma (ax[k]) + lt;
        }
      if (pt && !pt_shared)
        ops[n_ops++] = rt_operand (th, pt);
      if (pa && !pa_shared)
        ops[n_ops++] = rt_operand (al, pa);
    }
  if (pt_shared)
    ops[n_ops++] = rt_operand (&ths[0], pt_shared);
  if (pa_shared)
    ops[n_ops++] = rt_operand (&als[0], pa_shared);
  *out = rt_reduce (cx, logp, n_ops, ops);
}

/* ---- LKJ ---- */

/* log of the normalising constant of LKJ (eta) over K x K correlation
 * matrices (Lewandowski, Kurowicka and Joe 2009, theorem 5), and its
 * derivative in eta. */
static double
lkj_constant (double eta, int K, double *deta)
{
  int Km1 = K - 1;
  double c = 0;
  if (eta == 1.0)
    {
      for (int k = 1; k <= Km1 / 2; k++)
        c -= lgamma (2.0 * k);
      if (K % 2 == 1)
        c -= 0.25 * (K * K - 1) * TILDE_LOG_PI - 0.25 * (Km1 * Km1) * TILDE_LOG_TWO
          - Km1 * lgamma (0.5 * (K + 1));
      else
        c -= 0.25 * K * (K - 2) * TILDE_LOG_PI + 0.25 * (3 * K * K - 4 * K) * TILDE_LOG_TWO
          + K * lgamma (0.5 * K) - Km1 * lgamma ((double) K);
    }
  else
    {
      c = Km1 * lgamma (eta + 0.5 * Km1);
      for (int k = 1; k <= Km1; k++)
        c -= 0.5 * k * TILDE_LOG_PI + lgamma (eta + 0.5 * (Km1 - k));
    }
  *deta = Km1 * tilde_digamma (eta + 0.5 * Km1);
  for (int k = 1; k <= Km1; k++)
    *deta -= tilde_digamma (eta + 0.5 * (Km1 - k));
  return c;
}

static void
k_lkj_corr_cholesky (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  const TildeValue *L = &v[0];
  check_square_matrix (cx, "Random variable", L);
  DArg e;
  dist_arg (cx, &e, &v[1], "Shape parameter");
  dist_check_positive (cx, &e);
  int K = L->rows;
  const double *lv = rt_values (cx, L);
  double eta = e.x[0];
  if (cx->drop && !L->ad && !e.ad)
    {
      *out = tilde_value_real (0);
      return;
    }
  double logp = 0, deta = 0;
  if (!cx->drop || e.ad)
    logp += lkj_constant (eta, K, &deta);
  if (K == 0)
    {
      *out = tilde_value_real (logp);
      return;
    }
  double *pl = L->ad ? tilde_arena_alloc0 (cx->arena, sizeof (double) * (gsize) (K * K)) : NULL;
  double sumlog = 0;
  for (int k = 1; k < K; k++)
    {
      double d = lv[k + k * K], ld = log (d);
      double c = (K - k - 1) + 2 * eta - 2;
      logp += c * ld;
      sumlog += ld;
      if (pl)
        pl[k + k * K] = c / d;
    }
  AdOperand ops[2];
  guint n_ops = 0;
  if (L->ad)
    ops[n_ops++] = rt_operand (L, pl);
  if (e.ad)
    {
      double *pe = rt_alloc_d (cx, 1);
      pe[0] = deta + 2 * sumlog;
      ops[n_ops++] = rt_operand (e.v, pe);
    }
  *out = rt_reduce (cx, logp, n_ops, ops);
}

static void
k_lkj_corr (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  const TildeValue *Y = &v[0];
  DArg e;
  dist_arg (cx, &e, &v[1], "Shape parameter");
  dist_check_positive (cx, &e);
  check_square_matrix (cx, "Correlation matrix", Y);
  int K = Y->rows;
  const double *yv = rt_values (cx, Y);
  for (int k = 0; k < K; k++)
    if (!(fabs (yv[k + k * K] - 1) <= 1e-8))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Correlation matrix is not a valid correlation "
                "matrix. Correlation matrix(%d,%d) is %g, but should be near 1.0",
                dist_name (cx), k + 1, k + 1, yv[k + k * K]);
  dist_check_symmetric (cx, "y", yv, K);
  double log_det = 0;
  double *L = K > 0 ? dist_cholesky (cx, "y", yv, K, &log_det) : NULL;
  double eta = e.x[0];
  if (K == 0 || (cx->drop && !Y->ad && !e.ad))
    {
      *out = tilde_value_real (0);
      return;
    }
  double logp = 0, deta = 0;
  if (!cx->drop || e.ad)
    logp += lkj_constant (eta, K, &deta);
  AdOperand ops[2];
  guint n_ops = 0;
  if (!(eta == 1.0 && !e.ad))
    {
      logp += (eta - 1) * log_det;
      if (Y->ad)
        {
          double *P = dist_cholesky_inverse (cx, L, K);
          for (int i = 0; i < K * K; i++)
            P[i] *= eta - 1;
          ops[n_ops++] = rt_operand (Y, P);
        }
    }
  if (e.ad)
    {
      double *pe = rt_alloc_d (cx, 1);
      pe[0] = deta + log_det;
      ops[n_ops++] = rt_operand (e.v, pe);
    }
  *out = rt_reduce (cx, logp, n_ops, ops);
}

/* ---- Wishart ---- */

/* log of the multivariate gamma function Gamma_K (x), and its derivative */
static double
lmgamma (int K, double x, double *dx)
{
  double r = 0.25 * K * (K - 1) * TILDE_LOG_PI;
  *dx = 0;
  for (int j = 1; j <= K; j++)
    {
      r += lgamma (x + 0.5 * (1 - j));
      *dx += tilde_digamma (x + 0.5 * (1 - j));
    }
  return r;
}

typedef struct {
  const TildeValue *W, *S;
  DArg nu;
  int K;
  const double *wv, *sv;
  double *LW, *LS;        /* Cholesky factors */
  double ldW, ldS;        /* log determinants */
} WishartArgs;

/* The arguments of a Wishart density (matrices, or their Cholesky factors
 * when `factors`), checked as Stan checks them. */
static void
wishart_args (RtCtx *cx, const TildeValue *v, gboolean factors, WishartArgs *w)
{
  w->W = &v[0];
  w->S = &v[2];
  dist_arg (cx, &w->nu, &v[1], "Degrees of freedom parameter");
  check_square_matrix (cx, "random variable", w->W);
  check_square_matrix (cx, "scale parameter", w->S);
  w->K = w->W->rows;
  if (w->S->rows != w->K)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: Rows of random variable (%d) and columns of "
              "scale parameter (%d) must match in size", dist_name (cx), w->K, w->S->rows);
  int K = w->K;
  if (!(w->nu.x[0] > K - 1))
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Degrees of freedom parameter is %g, but must "
              "be greater than %d!", dist_name (cx), w->nu.x[0], K - 1);
  w->wv = rt_values (cx, w->W);
  w->sv = rt_values (cx, w->S);
  if (factors)
    {
      w->LW = (double *) w->wv;
      w->LS = (double *) w->sv;
      w->ldW = w->ldS = 0;
      for (int k = 0; k < K; k++)
        {
          if (!(w->wv[k + k * K] > 0))
            rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Cholesky random variable is not a "
                      "valid Cholesky factor", dist_name (cx));
          if (!(w->sv[k + k * K] > 0))
            rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Cholesky scale matrix is not a valid "
                      "Cholesky factor", dist_name (cx));
          w->ldW += 2 * log (w->wv[k + k * K]);
          w->ldS += 2 * log (w->sv[k + k * K]);
        }
      return;
    }
  dist_check_symmetric (cx, "random variable", w->wv, K);
  dist_check_symmetric (cx, "scale parameter", w->sv, K);
  w->LW = dist_cholesky (cx, "LDLT_Factor of random variable", w->wv, K, &w->ldW);
  w->LS = dist_cholesky (cx, "LDLT_Factor of scale parameter", w->sv, K, &w->ldS);
}

static void
k_wishart (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  WishartArgs w;
  wishart_args (cx, v, FALSE, &w);
  int K = w.K;
  double nu = w.nu.x[0];
  gboolean W_ad = w.W->ad, nu_ad = w.nu.ad, S_ad = w.S->ad;
  if (cx->drop && !W_ad && !nu_ad && !S_ad)
    {
      *out = tilde_value_real (0);
      return;
    }
  double logp = 0, dlmg;
  double lmg = lmgamma (K, 0.5 * nu, &dlmg);
  if (!cx->drop || nu_ad)
    logp -= nu * K * 0.5 * TILDE_LOG_TWO + lmg;
  if (!cx->drop || nu_ad || S_ad)
    logp -= 0.5 * nu * w.ldS;
  double *Sinv = dist_cholesky_inverse (cx, w.LS, K);
  if (!cx->drop || S_ad || W_ad)
    logp -= 0.5 * cblas_ddot (K * K, Sinv, 1, w.wv, 1);   /* tr (S^-1 W), both symmetric */
  if ((!cx->drop || W_ad || nu_ad) && nu != K + 1)
    logp += 0.5 * (nu - K - 1) * w.ldW;
  AdOperand ops[3];
  guint n_ops = 0;
  if (W_ad)
    {
      double *P = dist_cholesky_inverse (cx, w.LW, K);
      for (int i = 0; i < K * K; i++)
        P[i] = 0.5 * (nu - K - 1) * P[i] - 0.5 * Sinv[i];
      ops[n_ops++] = rt_operand (w.W, P);
    }
  if (nu_ad)
    {
      double *p = rt_alloc_d (cx, 1);
      p[0] = -0.5 * K * TILDE_LOG_TWO - 0.5 * dlmg - 0.5 * w.ldS + 0.5 * w.ldW;
      ops[n_ops++] = rt_operand (w.nu.v, p);
    }
  if (S_ad)
    {
      /* -nu/2 S^-1 + 1/2 S^-1 W S^-1 */
      double *T = rt_alloc_d (cx, (gsize) (K * K)), *P = rt_alloc_d (cx, (gsize) (K * K));
      cblas_dgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, K, K, K, 1.0, Sinv, K, w.wv, K,
                   0.0, T, K);
      for (int i = 0; i < K * K; i++)
        P[i] = -0.5 * nu * Sinv[i];
      cblas_dgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, K, K, K, 0.5, T, K, Sinv, K, 1.0,
                   P, K);
      ops[n_ops++] = rt_operand (w.S, P);
    }
  *out = rt_reduce (cx, logp, n_ops, ops);
}

static void
k_inv_wishart (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  WishartArgs w;
  wishart_args (cx, v, FALSE, &w);
  int K = w.K;
  double nu = w.nu.x[0];
  gboolean W_ad = w.W->ad, nu_ad = w.nu.ad, S_ad = w.S->ad;
  if (cx->drop && !W_ad && !nu_ad && !S_ad)
    {
      *out = tilde_value_real (0);
      return;
    }
  double logp = 0, dlmg;
  double lmg = lmgamma (K, 0.5 * nu, &dlmg);
  if (!cx->drop || nu_ad)
    logp -= lmg;
  if (!cx->drop || nu_ad || S_ad)
    logp += 0.5 * nu * w.ldS - nu * K * 0.5 * TILDE_LOG_TWO;
  if (!cx->drop || W_ad || nu_ad || S_ad)
    logp -= 0.5 * (nu + K + 1) * w.ldW;
  double *Winv = dist_cholesky_inverse (cx, w.LW, K);
  if (!cx->drop || W_ad || S_ad)
    logp -= 0.5 * cblas_ddot (K * K, Winv, 1, w.sv, 1);   /* tr (W^-1 S) */
  AdOperand ops[3];
  guint n_ops = 0;
  if (W_ad)
    {
      /* -(nu + K + 1)/2 W^-1 + 1/2 W^-1 S W^-1 */
      double *T = rt_alloc_d (cx, (gsize) (K * K)), *P = rt_alloc_d (cx, (gsize) (K * K));
      cblas_dgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, K, K, K, 1.0, Winv, K, w.sv, K,
                   0.0, T, K);
      for (int i = 0; i < K * K; i++)
        P[i] = -0.5 * (nu + K + 1) * Winv[i];
      cblas_dgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, K, K, K, 0.5, T, K, Winv, K, 1.0,
                   P, K);
      ops[n_ops++] = rt_operand (w.W, P);
    }
  if (nu_ad)
    {
      double *p = rt_alloc_d (cx, 1);
      p[0] = -0.5 * dlmg + 0.5 * w.ldS - 0.5 * K * TILDE_LOG_TWO - 0.5 * w.ldW;
      ops[n_ops++] = rt_operand (w.nu.v, p);
    }
  if (S_ad)
    {
      double *P = dist_cholesky_inverse (cx, w.LS, K);
      for (int i = 0; i < K * K; i++)
        P[i] = 0.5 * nu * P[i] - 0.5 * Winv[i];
      ops[n_ops++] = rt_operand (w.S, P);
    }
  *out = rt_reduce (cx, logp, n_ops, ops);
}

/* ---- Wishart on Cholesky factors ---- */

static void
check_cholesky_factor (RtCtx *cx, const char *what, const double *L, int K)
{
  for (int j = 0; j < K; j++)
    {
      if (!(L[j + j * K] > 0))
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: %s is not a valid Cholesky factor (diagonal "
                  "element %d is %g)", dist_name (cx), what, j + 1, L[j + j * K]);
      for (int i = 0; i < j; i++)
        if (L[i + j * K] != 0)
          rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: %s is not lower triangular; %s[%d,%d]=%g",
                    dist_name (cx), what, what, i + 1, j + 1, L[i + j * K]);
    }
}

/* wishart_cholesky (L_Y | nu, L_S) and inv_wishart_cholesky: the density of
 * the Cholesky factor of a (inverse) Wishart draw. With M = A^-1 B for
 * lower-triangular A and B (A = L_S, B = L_Y for the Wishart, the other way
 * round for the inverse), the quadratic part is -|M|^2 / 2, whose
 * derivatives are -A^-T M in B and A^-T M M' in A. */
static void
wishart_cholesky (RtCtx *cx, const TildeValue *v, gboolean inverse, TildeValue *out)
{
  const TildeValue *LY = &v[0], *LS = &v[2];
  DArg nu_a;
  dist_arg (cx, &nu_a, &v[1], "Degrees of freedom parameter");
  int K = LY->rows;
  double nu = nu_a.x[0];
  if (!(nu > K - 1))
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Degrees of freedom parameter is %g, but must be "
              "greater than %d!", dist_name (cx), nu, K - 1);
  check_square_matrix (cx, "random variable", LY);
  check_square_matrix (cx, "scale parameter", LS);
  if (LS->rows != K)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: Rows of random variable (%d) and columns of "
              "scale parameter (%d) must match in size", dist_name (cx), K, LS->rows);
  const double *ly = rt_values (cx, LY), *lsv = rt_values (cx, LS);
  check_cholesky_factor (cx, "random variable", ly, K);
  check_cholesky_factor (cx, "scale parameter", lsv, K);
  gboolean y_ad = LY->ad, nu_ad = nu_a.ad, s_ad = LS->ad;
  if (cx->drop && !y_ad && !nu_ad && !s_ad)
    {
      *out = tilde_value_real (0);
      return;
    }
  double logp = 0, dlmg;
  double lmg = lmgamma (K, 0.5 * nu, &dlmg);
  if (!cx->drop || nu_ad)
    logp += K * TILDE_LOG_TWO * (1 - 0.5 * nu) - lmg;
  const double *A = inverse ? ly : lsv, *B = inverse ? lsv : ly;
  double *Mx = tilde_arena_memdup (cx->arena, B, sizeof (double) * (gsize) MAX (K * K, 1));
  if (K > 0)
    cblas_dtrsm (CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, K, K, 1.0, A, K,
                 Mx, K);
  double sly = 0, sls = 0;
  for (int i = 0; i < K; i++)
    {
      sly += log (ly[i + i * K]);
      sls += log (lsv[i + i * K]);
    }
  logp -= 0.5 * cblas_ddot (K * K, Mx, 1, Mx, 1);
  double diag_y = 0;
  for (int i = 0; i < K; i++)
    diag_y += (inverse ? -(nu + 1 + i) : nu - i - 1) * log (ly[i + i * K]);
  logp += diag_y + (inverse ? nu : -nu) * sls;
  AdOperand ops[3];
  guint n_ops = 0;
  /* G = A^-T M: the quadratic part's derivative in B is -G, in A it is G M' */
  double *G = NULL;
  if (y_ad || s_ad)
    {
      G = tilde_arena_memdup (cx->arena, Mx, sizeof (double) * (gsize) MAX (K * K, 1));
      if (K > 0)
        cblas_dtrsm (CblasColMajor, CblasLeft, CblasLower, CblasTrans, CblasNonUnit, K, K, 1.0, A,
                     K, G, K);
    }
  for (int side = 0; side < 2; side++)
    {
      gboolean is_y = side == 0;
      if (!(is_y ? y_ad : s_ad))
        continue;
      gboolean is_a = is_y == inverse;    /* L_Y is A for the inverse Wishart */
      double *P = rt_alloc_d (cx, (gsize) MAX (K * K, 1));
      if (is_a)
        cblas_dgemm (CblasColMajor, CblasNoTrans, CblasTrans, K, K, K, 1.0, G, K, Mx, K, 0.0, P, K);
      else
        for (int i = 0; i < K * K; i++)
          P[i] = -G[i];
      const double *L = is_y ? ly : lsv;
      for (int j = 0; j < K; j++)
        {
          for (int i = 0; i < j; i++)
            P[i + j * K] = 0;
          double c = is_y ? (inverse ? -(nu + 1 + j) : nu - j - 1) : (inverse ? nu : -nu);
          P[j + j * K] += c / L[j + j * K];
        }
      ops[n_ops++] = rt_operand (is_y ? LY : LS, P);
    }
  if (nu_ad)
    {
      double *p = rt_alloc_d (cx, 1);
      p[0] = -0.5 * K * TILDE_LOG_TWO - 0.5 * dlmg + (inverse ? -sly + sls : sly - sls);
      ops[n_ops++] = rt_operand (nu_a.v, p);
    }
  *out = rt_reduce (cx, logp, n_ops, ops);
}

static void
k_wishart_cholesky (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  wishart_cholesky (cx, v, FALSE, out);
}

static void
k_inv_wishart_cholesky (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  wishart_cholesky (cx, v, TRUE, out);
}

/* ---- multi_gp: the rows of y independent N (0, Sigma / w_i) ---- */

static void
multi_gp (RtCtx *cx, const TildeValue *v, gboolean cholesky, TildeValue *out)
{
  const TildeValue *Y = &v[0], *S = &v[1], *W = &v[2];
  int K = Y->rows, N = Y->cols;
  rt_check_size (cx, "Size of random variable (rows y) and Size of kernel scales (w)", K,
                 tilde_value_flat_size (W));
  check_square_matrix (cx, "Kernel matrix", S);
  rt_check_size (cx, "Size of random variable and rows of covariance parameter", N, S->rows);
  const double *yv = rt_values (cx, Y), *sv = rt_values (cx, S);
  for (int i = 0; i < K * N; i++)
    if (!isfinite (yv[i]))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Random variable[%d] is %g, but must be "
                "finite!", dist_name (cx), i + 1, yv[i]);
  double *L, log_det = 0;
  if (cholesky)
    {
      check_cholesky_factor (cx, "Cholesky decomposition of kernel matrix", sv, N);
      L = (double *) sv;
      for (int j = 0; j < N; j++)
        log_det += 2 * log (sv[j + j * N]);
    }
  else
    {
      dist_check_symmetric (cx, "Kernel matrix", sv, N);
      L = dist_cholesky (cx, "LDLT_Factor of Sigma", sv, N, &log_det);
    }
  DArg w;
  dist_arg (cx, &w, W, "Kernel scales");
  dist_check_positive_finite (cx, &w);
  if (K == 0 || (cx->drop && !Y->ad && !S->ad && !W->ad))
    {
      *out = tilde_value_real (0);
      return;
    }
  double logp = 0;
  if (!cx->drop)
    logp -= TILDE_LOG_SQRT_TWO_PI * K * N;
  if (!cx->drop || S->ad)
    logp -= 0.5 * K * log_det;
  if (!cx->drop || W->ad)
    for (int i = 0; i < K; i++)
      logp += 0.5 * N * log (w.x[i]);
  /* the rows as the columns of R = Y' (N x K) */
  double *R = rt_alloc_d (cx, (gsize) MAX (N * K, 1));
  for (int i = 0; i < K; i++)
    for (int j = 0; j < N; j++)
      R[j + i * N] = yv[i + j * K];
  double *Z, *U;
  solve_both (cx, L, N, R, K, &Z, &U);
  double *q = rt_alloc_d (cx, (gsize) K);
  for (int i = 0; i < K; i++)
    {
      q[i] = cblas_ddot (N, Z + i * N, 1, Z + i * N, 1);
      logp -= 0.5 * w.x[i] * q[i];
    }
  AdOperand ops[3];
  guint n_ops = 0;
  if (Y->ad)
    {
      double *P = rt_alloc_d (cx, (gsize) (K * N));
      for (int i = 0; i < K; i++)
        for (int j = 0; j < N; j++)
          P[i + j * K] = -w.x[i] * U[j + i * N];
      ops[n_ops++] = rt_operand (Y, P);
    }
  if (S->ad)
    {
      double *P = rt_alloc_d (cx, (gsize) (N * N));
      /* the weighted solutions, as the multivariate normal's */
      double *Uw = rt_alloc_d (cx, (gsize) (N * K));
      for (int i = 0; i < K; i++)
        for (int j = 0; j < N; j++)
          Uw[j + i * N] = w.x[i] * U[j + i * N];
      if (cholesky)
        {
          cblas_dgemm (CblasColMajor, CblasNoTrans, CblasTrans, N, N, K, 1.0, Uw, N, Z, N, 0.0, P, N);
          for (int j = 0; j < N; j++)
            {
              for (int i = 0; i < j; i++)
                P[i + j * N] = 0;
              P[j + j * N] -= K / L[j + j * N];
            }
        }
      else
        {
          double *inv = dist_cholesky_inverse (cx, L, N);
          for (int i = 0; i < N * N; i++)
            P[i] = -0.5 * K * inv[i];
          cblas_dgemm (CblasColMajor, CblasNoTrans, CblasTrans, N, N, K, 0.5, Uw, N, U, N, 1.0, P, N);
        }
      ops[n_ops++] = rt_operand (S, P);
    }
  if (W->ad)
    {
      double *P = rt_alloc_d (cx, (gsize) K);
      for (int i = 0; i < K; i++)
        P[i] = 0.5 * N / w.x[i] - 0.5 * q[i];
      ops[n_ops++] = rt_operand (W, P);
    }
  *out = rt_reduce (cx, logp, n_ops, ops);
}

static void
k_multi_gp (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  multi_gp (cx, v, FALSE, out);
}

static void
k_multi_gp_cholesky (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  multi_gp (cx, v, TRUE, out);
}

#define DIST(base, fn, n) \
  { base "_lpdf", fn, n, n }, { base "_lupdf", fn, n, n }

const RtBuiltin rt_builtins_dist_multivariate[] = {
  DIST ("multi_normal", k_multi_normal, 3),
  DIST ("multi_normal_cholesky", k_multi_normal_cholesky, 3),
  DIST ("multi_normal_prec", k_multi_normal_prec, 3),
  DIST ("multi_student_t", k_multi_student_t, 4),
  DIST ("multi_student_t_cholesky", k_multi_student_t_cholesky, 4),
  DIST ("dirichlet", k_dirichlet, 2),
  DIST ("lkj_corr", k_lkj_corr, 2),
  DIST ("lkj_corr_cholesky", k_lkj_corr_cholesky, 2),
  DIST ("wishart", k_wishart, 3),
  DIST ("inv_wishart", k_inv_wishart, 3),
  DIST ("wishart_cholesky", k_wishart_cholesky, 3),
  DIST ("inv_wishart_cholesky", k_inv_wishart_cholesky, 3),
  DIST ("multi_gp", k_multi_gp, 3),
  DIST ("multi_gp_cholesky", k_multi_gp_cholesky, 3),
  { NULL, NULL, 0, 0 },
};
