/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Decompositions beyond the symmetric ones of matrix.c, each with its
 * reverse-mode rule where Stan has one:
 *
 * - QR (qr_thin_Q, qr_thin_R, qr_Q, qr_R, qr, qr_thin) from LAPACK's
 *   Householder factorisation, signs flipped so that R's diagonal is not
 *   negative, as Stan does; the derivative is the QR rule for a full-rank
 *   A (wide matrices through their leading square block). The full Q of a
 *   matrix with more rows than columns has columns that depend on the
 *   Householder vectors themselves; it is computed but not differentiated.
 * - SVD (singular_values, svd_U, svd_V, svd) from LAPACK's divide and
 *   conquer, thin as Stan's; the derivative is Townsend's (distinct
 *   singular values).
 * - matrix_exp by GSL's scaling and squaring; its derivative is the
 *   Frechet derivative at A', read off the exponential of the block matrix
 *   [A' G; 0 A']. matrix_exp_multiply and scale_matrix_exp_multiply are
 *   compositions, and so is generalized_inverse for variables.
 * - eigenvalues, eigenvectors and eigendecompose of a general matrix: a
 *   real one's as Stan computes them (real-schur.c), a complex one's from
 *   LAPACK's zgeev; complex_schur_decompose from zgees. The eigenvalues
 *   have the derivative of simple eigenvalues, d lambda_k = (V^-1 dA V)_kk.
 *   Eigenvectors and Schur vectors are each defined only up to a complex
 *   factor, so theirs are refused for parameters.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/runtime-private.h"
#include "runtime/math/expm.h"
#include "runtime/math/real-schur.h"

#include <cblas.h>
#include <complex.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

static double *
tape_copy (RtCtx *cx, const double *x, gsize n)
{
  return tilde_arena_memdup (cx->tape->arena, x, sizeof (double) * MAX (n, 1));
}

static void
add_adj (AdTape *t, gint32 start, const gint32 *idx, const double *g, gint32 n)
{
  for (gint32 i = 0; i < n; i++)
    t->adj[idx ? idx[i] : start + i] += g[i];
}

static TildeValue
result (RtCtx *cx, TildeValueKind kind, gint32 rows, gint32 cols, gboolean ad, double **x)
{
  TildeValue r;
  if (ad)
    {
      r = rt_new_ad (cx, kind, rows, cols);
      *x = cx->tape->val + r.start;
    }
  else
    {
      r = rt_new_data (cx, kind, rows, cols);
      *x = r.u.d;
    }
  return r;
}

static const double *
finite_values (RtCtx *cx, const TildeValue *A)
{
  if (A->kind != TILDE_VALUE_MATRIX)
    rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "%s: a matrix was expected", cx->fn_name);
  const double *a = rt_values (cx, A);
  for (gint32 i = 0; i < A->rows * A->cols; i++)
    if (!isfinite (a[i]))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: m[%d] is %g, but must be finite!",
                cx->fn_name, i + 1, a[i]);
  return a;
}

static TildeValue
tuple_of (RtCtx *cx, int n, const TildeValue *members)
{
  TildeValue r = { .kind = TILDE_VALUE_TUPLE, .rows = n, .cols = 1 };
  r.u.elems = tilde_arena_memdup (cx->arena, members, sizeof (TildeValue) * (gsize) n);
  return r;
}

/* ---- QR ---- */

typedef struct {
  int m, n, k;
  const double *a, *q, *r;    /* A, thin Q (m x k), thin R (k x n) */
  gint32 a_start;
  const gint32 *a_idx;
  gint32 q_out, r_out;        /* -1 when that factor is not an output */
  int q_rows, r_rows;         /* the outputs' rows (full forms are taller) */
} Qr;

/* Abar of a square or tall A = QR (k = n) from Qbar and Rbar; ab m x n. */
static void
qr_tall_backward (int m, int n, const double *q, const double *r, const double *qbar,
                  const double *rbar, double *ab)
{
  /* M = R Rbar' - Qbar' Q, then B = Qbar + Q copyltu (M), Abar = B R^-T */
  double *M = g_new (double, (gsize) n * n);
  cblas_dgemm (CblasColMajor, CblasNoTrans, CblasTrans, n, n, n, 1.0, r, n, rbar, n, 0.0, M, n);
  cblas_dgemm (CblasColMajor, CblasTrans, CblasNoTrans, n, n, m, -1.0, qbar, m, q, m, 1.0, M, n);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < j; i++)
      M[i + j * n] = M[j + i * n];
  memcpy (ab, qbar, sizeof (double) * (gsize) m * n);
  cblas_dgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, n, 1.0, q, m, M, n, 1.0, ab, m);
  cblas_dtrsm (CblasColMajor, CblasRight, CblasUpper, CblasTrans, CblasNonUnit, m, n, 1.0, r, n,
               ab, m);
  g_free (M);
}

static void
qr_backward (AdTape *t, const void *p)
{
  const Qr *s = p;
  int m = s->m, n = s->n, k = s->k;
  double *qbar = g_new0 (double, (gsize) m * k);
  double *rbar = g_new0 (double, (gsize) k * n);
  double *ab = g_new0 (double, (gsize) m * n);
  if (s->q_out >= 0)
    for (int j = 0; j < k; j++)
      for (int i = 0; i < m; i++)
        qbar[i + j * m] = t->adj[s->q_out + i + j * s->q_rows];
  if (s->r_out >= 0)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < k; i++)
        rbar[i + j * k] = t->adj[s->r_out + i + j * s->r_rows];
  if (m >= n)
    qr_tall_backward (m, n, s->q, s->r, qbar, rbar, ab);
  else
    {
      /* A = [X Y], R = [U V]: Ybar = Q Vbar, X's Qbar gains Y Vbar' */
      int w = n - m;
      const double *y = s->a + (gsize) m * m, *vbar = rbar + (gsize) m * m;
      cblas_dgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, m, w, m, 1.0, s->q, m, vbar, m, 0.0,
                   ab + (gsize) m * m, m);
      cblas_dgemm (CblasColMajor, CblasNoTrans, CblasTrans, m, m, w, 1.0, y, m, vbar, m, 1.0,
                   qbar, m);
      qr_tall_backward (m, m, s->q, s->r, qbar, rbar, ab);
    }
  add_adj (t, s->a_start, s->a_idx, ab, m * n);
  g_free (qbar);
  g_free (rbar);
  g_free (ab);
}

/* Q (m x k, or m x m when full) and R (k x n, or m x n when full). */
static void
qr (RtCtx *cx, const TildeValue *A, gboolean full, TildeValue *Q, TildeValue *R)
{
  int m = A->rows, n = A->cols, k = MIN (m, n);
  const double *a = finite_values (cx, A);
  if (m == 0 || n == 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: m has size 0, but must have a non-zero size",
              cx->fn_name);
  int qc = full ? m : k, rr = full ? m : k;
  if (A->ad && Q && full && m > n)
    rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "%s: the derivative of the full Q of a matrix with "
              "more rows than columns is not supported (qr_thin_Q has one)", cx->fn_name);
  double *f = g_memdup2 (a, sizeof (double) * (gsize) m * n);
  double *tau = g_new (double, (gsize) k);
  LAPACKE_dgeqrf (LAPACK_COL_MAJOR, m, n, f, m, tau);
  double *r = tilde_arena_alloc (cx->tape->arena, sizeof (double) * (gsize) k * n);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < k; i++)
      r[i + j * k] = i <= j ? f[i + j * m] : 0;
  double *q = g_new0 (double, (gsize) m * qc);
  for (int j = 0; j < k; j++)
    memcpy (q + (gsize) j * m, f + (gsize) j * m, sizeof (double) * (gsize) m);
  LAPACKE_dorgqr (LAPACK_COL_MAJOR, m, qc, k, q, m, tau);
  for (int i = 0; i < k; i++)
    if (r[i + i * k] < 0)
      {
        for (int j = 0; j < n; j++)
          r[i + j * k] = -r[i + j * k];
        for (int p = 0; p < m; p++)
          q[p + i * m] = -q[p + i * m];
      }
  double *x;
  Qr *s = A->ad ? tilde_arena_alloc (cx->tape->arena, sizeof (Qr)) : NULL;
  if (s)
    {
      *s = (Qr) { .m = m, .n = n, .k = k, .a = tape_copy (cx, a, (gsize) m * n),
                  .q = tape_copy (cx, q, (gsize) m * k), .r = r, .a_start = A->start,
                  .a_idx = A->idx, .q_out = -1, .r_out = -1, .q_rows = m, .r_rows = rr };
    }
  if (Q)
    {
      *Q = result (cx, TILDE_VALUE_MATRIX, m, qc, A->ad, &x);
      memcpy (x, q, sizeof (double) * (gsize) m * qc);
      if (s)
        s->q_out = Q->start;
    }
  if (R)
    {
      *R = result (cx, TILDE_VALUE_MATRIX, rr, n, A->ad, &x);
      for (int j = 0; j < n; j++)
        for (int i = 0; i < rr; i++)
          x[i + j * rr] = i < k ? r[i + j * k] : 0;
      if (s)
        s->r_out = R->start;
    }
  if (s)
    ad_push (cx->tape, qr_backward, s);
  g_free (f);
  g_free (tau);
  g_free (q);
}

static void k_qr_thin_Q (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { qr (cx, &a[0], FALSE, out, NULL); }
static void k_qr_thin_R (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { qr (cx, &a[0], FALSE, NULL, out); }
static void k_qr_Q (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { qr (cx, &a[0], TRUE, out, NULL); }
static void k_qr_R (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { qr (cx, &a[0], TRUE, NULL, out); }

static void
qr_tuple (RtCtx *cx, const TildeValue *A, gboolean full, TildeValue *out)
{
  TildeValue m[2];
  qr (cx, A, full, &m[0], &m[1]);
  *out = tuple_of (cx, 2, m);
}

static void k_qr (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { qr_tuple (cx, &a[0], TRUE, out); }
static void k_qr_thin (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { qr_tuple (cx, &a[0], FALSE, out); }

/* ---- SVD ---- */

typedef struct {
  int m, n, k;
  const double *u, *s, *v;    /* U m x k, s k, V n x k */
  gint32 a_start;
  const gint32 *a_idx;
  gint32 u_out, s_out, v_out; /* -1 when not an output */
} Svd;

static void
svd_backward (AdTape *t, const void *p)
{
  const Svd *d = p;
  int m = d->m, n = d->n, k = d->k;
  const double *U = d->u, *s = d->s, *V = d->v;
  double *ub = g_new0 (double, (gsize) m * k), *vb = g_new0 (double, (gsize) n * k);
  double *sb = g_new0 (double, (gsize) k);
  if (d->u_out >= 0)
    memcpy (ub, t->adj + d->u_out, sizeof (double) * (gsize) m * k);
  if (d->v_out >= 0)
    memcpy (vb, t->adj + d->v_out, sizeof (double) * (gsize) n * k);
  if (d->s_out >= 0)
    memcpy (sb, t->adj + d->s_out, sizeof (double) * (gsize) k);
  /* inner = (F o (U'Ub - Ub'U)) S + diag (sb) + S (F o (V'Vb - Vb'V)) */
  double *utu = g_new (double, (gsize) k * k), *vtv = g_new (double, (gsize) k * k);
  cblas_dgemm (CblasColMajor, CblasTrans, CblasNoTrans, k, k, m, 1.0, U, m, ub, m, 0.0, utu, k);
  cblas_dgemm (CblasColMajor, CblasTrans, CblasNoTrans, k, k, n, 1.0, V, n, vb, n, 0.0, vtv, k);
  double *inner = g_new0 (double, (gsize) k * k);
  for (int j = 0; j < k; j++)
    for (int i = 0; i < k; i++)
      {
        if (i == j)
          {
            inner[i + j * k] = sb[i];
            continue;
          }
        /* only U's and V's adjoints divide by the gaps, which are zero
         * between equal singular values: the values alone need none */
        double F = 1.0 / (s[j] * s[j] - s[i] * s[i]);
        double J = d->u_out >= 0 ? F * (utu[i + j * k] - utu[j + i * k]) : 0;
        double K = d->v_out >= 0 ? F * (vtv[i + j * k] - vtv[j + i * k]) : 0;
        inner[i + j * k] = J * s[j] + s[i] * K;
      }
  /* Abar = U inner V' + (I - U U') Ub S^-1 V' + U S^-1 Vb' (I - V V') */
  double *left = g_new (double, (gsize) m * k);    /* U inner + (I - UU') Ub S^-1 */
  cblas_dgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, m, k, k, 1.0, U, m, inner, k, 0.0, left,
               m);
  double *ubs = g_new (double, (gsize) m * k);
  for (int j = 0; j < k; j++)
    for (int i = 0; i < m; i++)
      ubs[i + j * m] = ub[i + j * m] / s[j];
  double *tmp = g_new (double, (gsize) k * k);
  cblas_dgemm (CblasColMajor, CblasTrans, CblasNoTrans, k, k, m, 1.0, U, m, ubs, m, 0.0, tmp, k);
  cblas_dgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, m, k, k, -1.0, U, m, tmp, k, 1.0, ubs, m);
  for (gsize i = 0; i < (gsize) m * k; i++)
    left[i] += ubs[i];
  double *ab = g_new (double, (gsize) m * n);
  cblas_dgemm (CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0, left, m, V, n, 0.0, ab, m);
  /* + U S^-1 (Vb' - Vb' V V') = U S^-1 ((I - V V') Vb)' */
  double *vbs = g_new (double, (gsize) n * k);
  for (int j = 0; j < k; j++)
    for (int i = 0; i < n; i++)
      vbs[i + j * n] = vb[i + j * n] / s[j];
  cblas_dgemm (CblasColMajor, CblasTrans, CblasNoTrans, k, k, n, 1.0, V, n, vbs, n, 0.0, tmp, k);
  cblas_dgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, n, k, k, -1.0, V, n, tmp, k, 1.0, vbs, n);
  cblas_dgemm (CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0, U, m, vbs, n, 1.0, ab, m);
  add_adj (t, d->a_start, d->a_idx, ab, m * n);
  g_free (ub);
  g_free (vb);
  g_free (sb);
  g_free (utu);
  g_free (vtv);
  g_free (inner);
  g_free (left);
  g_free (ubs);
  g_free (tmp);
  g_free (ab);
  g_free (vbs);
}

static void
svd (RtCtx *cx, const TildeValue *A, TildeValue *U, TildeValue *S, TildeValue *V)
{
  int m = A->rows, n = A->cols, k = MIN (m, n);
  const double *a = finite_values (cx, A);
  if (m == 0 || n == 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: m has size 0, but must have a non-zero size",
              cx->fn_name);
  double *f = g_memdup2 (a, sizeof (double) * (gsize) m * n);
  double *s = tape_copy (cx, a, (gsize) k), *u = tape_copy (cx, a, (gsize) m * k);
  double *vt = g_new (double, (gsize) k * n), *v = tape_copy (cx, a, (gsize) n * k);
  int info = LAPACKE_dgesdd (LAPACK_COL_MAJOR, 'S', m, n, f, m, s, u, m, vt, k);
  g_free (f);
  if (info != 0)
    {
      g_free (vt);
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: the singular value decomposition failed",
                cx->fn_name);
    }
  for (int j = 0; j < k; j++)
    for (int i = 0; i < n; i++)
      v[i + j * n] = vt[j + i * k];
  g_free (vt);
  Svd *d = A->ad ? tilde_arena_alloc (cx->tape->arena, sizeof (Svd)) : NULL;
  if (d)
    *d = (Svd) { .m = m, .n = n, .k = k, .u = u, .s = s, .v = v, .a_start = A->start,
                 .a_idx = A->idx, .u_out = -1, .s_out = -1, .v_out = -1 };
  double *x;
  if (U)
    {
      *U = result (cx, TILDE_VALUE_MATRIX, m, k, A->ad, &x);
      memcpy (x, u, sizeof (double) * (gsize) m * k);
      if (d)
        d->u_out = U->start;
    }
  if (S)
    {
      *S = result (cx, TILDE_VALUE_VECTOR, k, 1, A->ad, &x);
      memcpy (x, s, sizeof (double) * (gsize) k);
      if (d)
        d->s_out = S->start;
    }
  if (V)
    {
      *V = result (cx, TILDE_VALUE_MATRIX, n, k, A->ad, &x);
      memcpy (x, v, sizeof (double) * (gsize) n * k);
      if (d)
        d->v_out = V->start;
    }
  if (d)
    ad_push (cx->tape, svd_backward, d);
}

static void k_singular_values (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { svd (cx, &a[0], NULL, out, NULL); }
static void k_svd_U (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { svd (cx, &a[0], out, NULL, NULL); }
static void k_svd_V (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { svd (cx, &a[0], NULL, NULL, out); }

static void
k_svd (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  TildeValue m[3];
  svd (cx, &a[0], &m[0], &m[1], &m[2]);
  *out = tuple_of (cx, 3, m);
}

/* ---- the matrix exponential ---- */

typedef struct {
  int n;
  const double *a;
  gint32 out, a_start;
  const gint32 *a_idx;
} Expm;

static void
expm_backward (AdTape *t, const void *p)
{
  const Expm *x = p;
  int n = x->n, n2 = 2 * n;
  /* Abar = L (A', Gbar): the upper right block of exp ([A' G; 0 A']) */
  double *c = g_new0 (double, (gsize) n2 * n2), *e = g_new (double, (gsize) n2 * n2);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++)
      {
        c[i + j * n2] = x->a[j + i * n];
        c[(n + i) + (n + j) * n2] = x->a[j + i * n];
        c[i + (n + j) * n2] = t->adj[x->out + i + j * n];
      }
  rt_expm (c, n2, e);
  double *ab = g_new (double, (gsize) n * n);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++)
      ab[i + j * n] = e[i + (n + j) * n2];
  add_adj (t, x->a_start, x->a_idx, ab, n * n);
  g_free (c);
  g_free (e);
  g_free (ab);
}

static void
matrix_exp (RtCtx *cx, const TildeValue *A, TildeValue *out)
{
  const double *a = finite_values (cx, A);
  int n = A->rows;
  if (A->rows != A->cols)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: Expecting a square matrix; rows of A (%d) and "
              "columns of A (%d) must match in size", cx->fn_name, A->rows, A->cols);
  double *x;
  TildeValue r = result (cx, TILDE_VALUE_MATRIX, n, n, A->ad, &x);
  if (n > 0 && !rt_expm (a, n, x))
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: the matrix exponential failed", cx->fn_name);
  if (A->ad)
    {
      Expm *e = tilde_arena_alloc (cx->tape->arena, sizeof *e);
      *e = (Expm) { .n = n, .a = tape_copy (cx, a, (gsize) n * n), .out = r.start,
                    .a_start = A->start, .a_idx = A->idx };
      ad_push (cx->tape, expm_backward, e);
    }
  *out = r;
}

static void k_matrix_exp (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { matrix_exp (cx, &a[0], out); }

static void
call (RtCtx *cx, const char *name, int n, const TildeValue *args, TildeValue *out)
{
  const char *saved = cx->fn_name;
  rt_builtin_lookup (name, n)->fn (cx, n, args, out);
  cx->fn_name = saved;
}

static void
k_matrix_exp_multiply (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  TildeValue p[2];
  if (a[1].rows != a[0].cols)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: Columns of A (%d) and Rows of B (%d) must match "
              "in size", cx->fn_name, a[0].cols, a[1].rows);
  matrix_exp (cx, &a[0], &p[0]);
  p[1] = a[1];
  call (cx, "multiply", 2, p, out);
}

static void
k_scale_matrix_exp_multiply (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  TildeValue p[2], tA;
  if (a[2].rows != a[1].cols)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: Columns of A (%d) and Rows of B (%d) must match "
              "in size", cx->fn_name, a[1].cols, a[2].rows);
  p[0] = a[0];
  p[1] = a[1];
  call (cx, "multiply", 2, p, &tA);
  matrix_exp (cx, &tA, &p[0]);
  p[1] = a[2];
  call (cx, "multiply", 2, p, out);
}

/* ---- the generalized inverse ---- */

/* The Moore-Penrose inverse from the SVD (data). */
static void
pseudo_inverse (RtCtx *cx, const TildeValue *A, TildeValue *out)
{
  int m = A->rows, n = A->cols, k = MIN (m, n);
  const double *a = finite_values (cx, A);
  double *f = g_memdup2 (a, sizeof (double) * (gsize) m * n);
  double *s = g_new (double, (gsize) k), *u = g_new (double, (gsize) m * k);
  double *vt = g_new (double, (gsize) k * n);
  int info = LAPACKE_dgesdd (LAPACK_COL_MAJOR, 'S', m, n, f, m, s, u, m, vt, k);
  TildeValue r = rt_new_data (cx, TILDE_VALUE_MATRIX, n, m);
  memset (r.u.d, 0, sizeof (double) * (gsize) n * m);
  if (info == 0)
    {
      double cut = k > 0 ? s[0] * DBL_EPSILON * MAX (m, n) : 0;
      for (int q = 0; q < k; q++)
        if (s[q] > cut)
          for (int j = 0; j < m; j++)
            for (int i = 0; i < n; i++)
              r.u.d[i + j * n] += vt[q + i * k] * u[j + q * m] / s[q];
    }
  g_free (f);
  g_free (s);
  g_free (u);
  g_free (vt);
  if (info != 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: the singular value decomposition failed",
              cx->fn_name);
  *out = r;
}

static void
k_generalized_inverse (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  const TildeValue *A = &a[0];
  if (A->rows == 0 || A->cols == 0)
    {
      *out = rt_new_data (cx, TILDE_VALUE_MATRIX, A->cols, A->rows);
      return;
    }
  if (!A->ad)
    {
      pseudo_inverse (cx, A, out);
      return;
    }
  /* full rank: A^-1, A' (A A')^-1 or (A' A)^-1 A', each by the library's
   * own rules */
  finite_values (cx, A);
  if (A->rows == A->cols)
    {
      call (cx, "inverse", 1, A, out);
      return;
    }
  TildeValue At, p[2], S, Si;
  call (cx, "transpose", 1, A, &At);
  gboolean wide = A->rows < A->cols;
  p[0] = wide ? *A : At;
  p[1] = wide ? At : *A;
  call (cx, "multiply", 2, p, &S);
  call (cx, "inverse", 1, &S, &Si);
  p[0] = wide ? At : Si;
  p[1] = wide ? Si : At;
  call (cx, "multiply", 2, p, out);
}

/* ---- eigendecomposition of a general matrix ---- */

static void
need_data (RtCtx *cx, const TildeValue *A, const char *what)
{
  if (A->ad)
    rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "%s: %s of a matrix of parameters have no "
              "derivatives here (each is defined only up to a complex factor)", cx->fn_name, what);
}

static void
need_square (RtCtx *cx, const TildeValue *A)
{
  if (A->rows != A->cols)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: Expecting a square matrix; rows of m (%d) and "
              "columns of m (%d) must match in size", cx->fn_name, A->rows, A->cols);
  if (A->rows == 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: m has size 0, but must have a non-zero size",
              cx->fn_name);
}

/* A's entries as complex numbers, column-major, from data or the tape. */
static double complex *
complex_entries (RtCtx *cx, const TildeValue *A)
{
  gsize nn = (gsize) A->rows * (gsize) A->cols;
  double complex *z = (double complex *) rt_alloc_d (cx, 2 * MAX (nn, 1));
  if (A->kind != TILDE_VALUE_COMPLEX_MATRIX)
    {
      const double *a = finite_values (cx, A);
      for (gsize i = 0; i < nn; i++)
        z[i] = a[i];
      return z;
    }
  for (gsize i = 0; i < nn; i++)
    {
      double re = A->ad ? cx->tape->val[tilde_value_var (A, 2 * (gint32) i)] : A->u.d[2 * i];
      double im = A->ad ? cx->tape->val[tilde_value_var (A, 2 * (gint32) i + 1)] : A->u.d[2 * i + 1];
      if (!isfinite (re) || !isfinite (im))
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: m[%d] is (%g,%g), but must be finite!",
                  cx->fn_name, (int) i + 1, re, im);
      z[i] = CMPLX (re, im);
    }
  return z;
}

/* The eigenvalues (n) and eigenvectors (n x n, or NULL), complex
 * interleaved; A is square. A real matrix's are Stan's: its order, and
 * its eigenvectors (real-schur.h). A complex matrix's are zgeev's in
 * Stan's order for them, by magnitude; so are a real one's should that
 * iteration not converge. */
static void
eigen_general (RtCtx *cx, const TildeValue *A, double *values, double *vectors)
{
  int n = A->rows;
  if (A->kind != TILDE_VALUE_COMPLEX_MATRIX)
    {
      const double *a = finite_values (cx, A);
      double *re = rt_alloc_d (cx, (gsize) n), *im = rt_alloc_d (cx, (gsize) n);
      if (rt_real_eigen (a, n, re, im, (double complex *) vectors))
        {
          for (int k = 0; values && k < n; k++)
            {
              values[2 * k] = re[k];
              values[2 * k + 1] = im[k];
            }
          return;
        }
    }
  double complex *z = complex_entries (cx, A);
  double complex *w = (double complex *) rt_alloc_d (cx, 2 * (gsize) n);
  double complex *vr = vectors ? (double complex *) vectors
                               : (double complex *) rt_alloc_d (cx, 2 * (gsize) n * n);
  int info = LAPACKE_zgeev (LAPACK_COL_MAJOR, 'N', vectors ? 'V' : 'N', n,
                            (lapack_complex_double *) z, n, (lapack_complex_double *) w, NULL, n,
                            (lapack_complex_double *) vr, n);
  if (info != 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: the eigendecomposition failed", cx->fn_name);
  /* Stan's (Eigen's complex solver's) order: by magnitude, each place
   * taking the first smallest of those left, swapped in */
  for (int i = 0; i < n; i++)
    {
      int k = i;
      for (int j = i + 1; j < n; j++)
        if (cabs (w[j]) < cabs (w[k]))
          k = j;
      if (k == i)
        continue;
      double complex t = w[i];
      w[i] = w[k];
      w[k] = t;
      for (int r = 0; vectors && r < n; r++)
        {
          t = vr[r + (gsize) i * n];
          vr[r + (gsize) i * n] = vr[r + (gsize) k * n];
          vr[r + (gsize) k * n] = t;
        }
    }
  if (values)
    memcpy (values, w, sizeof (double complex) * (gsize) n);
}

static TildeValue
complex_data (RtCtx *cx, TildeValueKind kind, gint32 rows, gint32 cols)
{
  TildeValue v = { .kind = (guint8) kind, .rows = rows, .cols = cols };
  v.u.d = rt_alloc_d (cx, 2 * (gsize) rows * (gsize) cols);
  return v;
}

typedef struct {
  gint32 n;
  gboolean complex_in;
  const gint32 *in;               /* A's ids: n*n, or 2*n*n interleaved for a complex A */
  gint32 out;                     /* the eigenvalues' 2n ids, interleaved */
  const double complex *v, *w;    /* the eigenvectors V and W = V^-1 */
  double complex *vg, *c;         /* the backward pass's scratch, n x n each */
} EigenvaluesAd;

/* With g_k the adjoint of lambda_k as a complex number, the adjoint of A
 * is C with C_ij = sum_k conj(g_k) W_ki V_jk, that is (V diag(conj g) W)^T;
 * a real A takes its real part, a complex A conj(C) on its (re, im). */
static void
eigenvalues_backward (AdTape *t, const void *p)
{
  const EigenvaluesAd *e = p;
  gint32 n = e->n;
  double complex *vg = e->vg, *c = e->c;
  const double complex one = 1, zero = 0;

  for (gint32 k = 0; k < n; k++)
    {
      double complex g = CMPLX (t->adj[e->out + 2 * k], t->adj[e->out + 2 * k + 1]);
      for (gint32 j = 0; j < n; j++)
        vg[j + (gsize) k * n] = e->v[j + (gsize) k * n] * conj (g);
    }
  /* c = (V diag(conj g)) W, read transposed below */
  cblas_zgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, &one, vg, n, e->w, n, &zero,
               c, n);
  for (gint32 j = 0; j < n; j++)
    for (gint32 i = 0; i < n; i++)
      {
        double complex cij = c[j + (gsize) i * n];
        gsize at = (gsize) i + (gsize) j * n;
        if (e->complex_in)
          {
            t->adj[e->in[2 * at]] += creal (cij);
            t->adj[e->in[2 * at + 1]] -= cimag (cij);
          }
        else
          t->adj[e->in[at]] += creal (cij);
      }
}

static void
k_eigenvalues (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  const TildeValue *A = &a[0];
  need_square (cx, A);
  gint32 n = A->rows;
  if (!A->ad)
    {
      *out = complex_data (cx, TILDE_VALUE_COMPLEX_VECTOR, n, 1);
      eigen_general (cx, A, out->u.d, NULL);
      return;
    }
  gsize nn = (gsize) n * n;
  gboolean complex_in = A->kind == TILDE_VALUE_COMPLEX_MATRIX;
  double complex *v = tilde_arena_alloc (cx->tape->arena, sizeof (double complex) * nn);
  double complex *w = tilde_arena_alloc (cx->tape->arena, sizeof (double complex) * nn);
  double *values = rt_alloc_d (cx, 2 * (gsize) n);
  eigen_general (cx, A, values, (double *) v);
  memcpy (w, v, sizeof (double complex) * nn);
  /* A defective matrix's eigenvectors come out parallel to rounding: V is
   * singular to working precision, and so is no basis to differentiate in */
  lapack_int *piv = tilde_arena_alloc (cx->arena, sizeof (lapack_int) * (gsize) n);
  double norm = LAPACKE_zlange (LAPACK_COL_MAJOR, '1', n, n, (lapack_complex_double *) w, n);
  double rcond = 0;
  int info = LAPACKE_zgetrf (LAPACK_COL_MAJOR, n, n, (lapack_complex_double *) w, n, piv);
  if (info == 0)
    info = LAPACKE_zgecon (LAPACK_COL_MAJOR, '1', n, (lapack_complex_double *) w, n, norm, &rcond);
  if (info == 0 && rcond > n * DBL_EPSILON)
    info = LAPACKE_zgetri (LAPACK_COL_MAJOR, n, (lapack_complex_double *) w, n, piv);
  else
    info = 1;
  if (info != 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: m is defective (its eigenvectors are linearly "
              "dependent), so its eigenvalues have no derivative", cx->fn_name);

  TildeValue r = { .kind = TILDE_VALUE_COMPLEX_VECTOR, .rows = n, .cols = 1, .ad = 1 };
  r.start = ad_new_vars (cx->tape, 2 * n);
  if (r.start < 0)
    rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "the autodiff tape is full");
  memcpy (cx->tape->val + r.start, values, sizeof (double) * 2 * (gsize) n);
  gsize n_in = complex_in ? 2 * nn : nn;
  gint32 *in = tilde_arena_alloc (cx->tape->arena, sizeof (gint32) * n_in);
  for (gsize i = 0; i < n_in; i++)
    in[i] = tilde_value_var (A, (gint32) i);
  EigenvaluesAd *e = tilde_arena_alloc (cx->tape->arena, sizeof *e);
  *e = (EigenvaluesAd) { .n = n, .complex_in = complex_in, .in = in, .out = r.start, .v = v,
                         .w = w,
                         .vg = tilde_arena_alloc (cx->tape->arena, sizeof (double complex) * nn),
                         .c = tilde_arena_alloc (cx->tape->arena, sizeof (double complex) * nn) };
  ad_push (cx->tape, eigenvalues_backward, e);
  *out = r;
}

static void
k_eigenvectors (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  need_square (cx, &a[0]);
  need_data (cx, &a[0], "the eigenvectors");
  *out = complex_data (cx, TILDE_VALUE_COMPLEX_MATRIX, a[0].rows, a[0].rows);
  eigen_general (cx, &a[0], NULL, out->u.d);
}

static void
k_eigendecompose (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  need_square (cx, &a[0]);
  need_data (cx, &a[0], "the eigenvectors");
  TildeValue m[2];
  m[0] = complex_data (cx, TILDE_VALUE_COMPLEX_MATRIX, a[0].rows, a[0].rows);
  m[1] = complex_data (cx, TILDE_VALUE_COMPLEX_VECTOR, a[0].rows, 1);
  eigen_general (cx, &a[0], m[1].u.d, m[0].u.d);
  /* Stan's order: (eigenvectors, eigenvalues) */
  *out = tuple_of (cx, 2, m);
}

/* A = U T U* with U unitary and T upper triangular (data). */
static void
schur (RtCtx *cx, const TildeValue *A, double *u, double *t)
{
  int n = A->rows;
  need_square (cx, A);
  need_data (cx, A, "the Schur vectors and triangle");
  double complex *z = complex_entries (cx, A);
  double complex *w = (double complex *) rt_alloc_d (cx, 2 * (gsize) n);
  double complex *vs = (double complex *) rt_alloc_d (cx, 2 * (gsize) n * n);
  lapack_int sdim = 0;
  int info = LAPACKE_zgees (LAPACK_COL_MAJOR, 'V', 'N', NULL, n, (lapack_complex_double *) z, n,
                            &sdim, (lapack_complex_double *) w, (lapack_complex_double *) vs, n);
  if (info != 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: the Schur decomposition failed", cx->fn_name);
  if (t)
    memcpy (t, z, sizeof (double complex) * (gsize) n * n);
  if (u)
    memcpy (u, vs, sizeof (double complex) * (gsize) n * n);
}

static void
k_complex_schur_decompose_u (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  *out = complex_data (cx, TILDE_VALUE_COMPLEX_MATRIX, a[0].rows, a[0].rows);
  schur (cx, &a[0], out->u.d, NULL);
}

static void
k_complex_schur_decompose_t (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  *out = complex_data (cx, TILDE_VALUE_COMPLEX_MATRIX, a[0].rows, a[0].rows);
  schur (cx, &a[0], NULL, out->u.d);
}

static void
k_complex_schur_decompose (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  TildeValue m[2];
  m[0] = complex_data (cx, TILDE_VALUE_COMPLEX_MATRIX, a[0].rows, a[0].rows);
  m[1] = complex_data (cx, TILDE_VALUE_COMPLEX_MATRIX, a[0].rows, a[0].rows);
  schur (cx, &a[0], m[0].u.d, m[1].u.d);
  *out = tuple_of (cx, 2, m);
}

const RtBuiltin rt_builtins_decomp[] = {
  { "qr_thin_Q", k_qr_thin_Q, 1, 1 },
  { "qr_thin_R", k_qr_thin_R, 1, 1 },
  { "qr_Q", k_qr_Q, 1, 1 },
  { "qr_R", k_qr_R, 1, 1 },
  { "qr", k_qr, 1, 1 },
  { "qr_thin", k_qr_thin, 1, 1 },
  { "singular_values", k_singular_values, 1, 1 },
  { "svd_U", k_svd_U, 1, 1 },
  { "svd_V", k_svd_V, 1, 1 },
  { "svd", k_svd, 1, 1 },
  { "matrix_exp", k_matrix_exp, 1, 1 },
  { "matrix_exp_multiply", k_matrix_exp_multiply, 2, 2 },
  { "scale_matrix_exp_multiply", k_scale_matrix_exp_multiply, 3, 3 },
  { "generalized_inverse", k_generalized_inverse, 1, 1 },
  { "eigenvalues", k_eigenvalues, 1, 1 },
  { "eigenvectors", k_eigenvectors, 1, 1 },
  { "eigendecompose", k_eigendecompose, 1, 1 },
  { "complex_schur_decompose", k_complex_schur_decompose, 1, 1 },
  { "complex_schur_decompose_t", k_complex_schur_decompose_t, 1, 1 },
  { "complex_schur_decompose_u", k_complex_schur_decompose_u, 1, 1 },
  { NULL, NULL, 0, 0 },
};
