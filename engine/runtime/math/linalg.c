/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Matrix kernels with their reverse-mode rules, on OpenBLAS and LAPACKE:
 * products, triangular solves, the Cholesky factorisation, and the
 * structured products models use (diag_pre_multiply, add_diag,
 * multiply_lower_tri_self_transpose).
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/math/linalg.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

gint32 *
rt_ids (RtCtx *cx, const TildeValue *v)
{
  gint32 n = tilde_value_flat_size (v);
  if (v->idx)
    return v->idx;
  gint32 *ids = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (n, 1));
  for (gint32 i = 0; i < n; i++)
    ids[i] = v->start + i;
  return ids;
}

/* rows and columns of an eigen value taken as a matrix */
static void
dims (const TildeValue *v, int *r, int *c)
{
  *r = v->rows;
  *c = v->cols;
}

static void
add_to_ids (AdTape *t, gint32 start, const gint32 *idx, const double *g, gint32 n)
{
  double *adj = t->adj;
  if (idx)
    for (gint32 i = 0; i < n; i++)
      adj[idx[i]] += g[i];
  else
    for (gint32 i = 0; i < n; i++)
      adj[start + i] += g[i];
}

/* ---- products ---- */

typedef struct {
  int m, k, n;
  gint32 out;
  const double *av, *bv;             /* values */
  gint32 a_start, b_start;
  const gint32 *a_idx, *b_idx;
  gboolean a_ad, b_ad;
  double *scratch;                   /* max (m k, k n) */
} MatMul;

static void
matmul_backward (AdTape *t, const void *p)
{
  const MatMul *mm = p;
  const double *g = t->adj + mm->out;   /* m x n */
  /* no rows or no columns: no adjoint to add (and BLAS would return without
   * writing the scratch) */
  if (mm->m == 0 || mm->k == 0)
    return;
  /* BLAS wants leading dimensions of at least 1 */
  int ldm = MAX (1, mm->m), ldk = MAX (1, mm->k);
  if (mm->a_ad)
    {
      /* adjA += G B^T */
      cblas_dgemm (CblasColMajor, CblasNoTrans, CblasTrans, mm->m, mm->k, mm->n, 1.0,
                   g, ldm, mm->bv, ldk, 0.0, mm->scratch, ldm);
      add_to_ids (t, mm->a_start, mm->a_idx, mm->scratch, mm->m * mm->k);
    }
  if (mm->b_ad)
    {
      /* adjB += A^T G */
      if (mm->n == 1)
        cblas_dgemv (CblasColMajor, CblasTrans, mm->m, mm->k, 1.0, mm->av, ldm, g, 1, 0.0,
                     mm->scratch, 1);
      else
        cblas_dgemm (CblasColMajor, CblasTrans, CblasNoTrans, mm->k, mm->n, mm->m, 1.0,
                     mm->av, ldm, g, ldm, 0.0, mm->scratch, ldk);
      add_to_ids (t, mm->b_start, mm->b_idx, mm->scratch, mm->k * mm->n);
    }
}

void
rt_matmul (RtCtx *cx, const TildeValue *a, const TildeValue *b, TildeValue *out)
{
  int m, k, k2, n;
  dims (a, &m, &k);
  dims (b, &k2, &n);
  rt_check_size (cx, "multiply", k, k2);
  gboolean ad = a->ad || b->ad;
  const double *av = ad ? rt_stable_values (cx, a) : rt_values (cx, a);
  const double *bv = ad ? rt_stable_values (cx, b) : rt_values (cx, b);
  TildeValueKind kind = n == 1 && b->kind == TILDE_VALUE_VECTOR ? TILDE_VALUE_VECTOR
    : m == 1 && a->kind == TILDE_VALUE_ROW_VECTOR ? TILDE_VALUE_ROW_VECTOR : TILDE_VALUE_MATRIX;
  gboolean scalar = a->kind == TILDE_VALUE_ROW_VECTOR && b->kind == TILDE_VALUE_VECTOR;
  if (scalar)
    kind = TILDE_VALUE_REAL;
  TildeValue r;
  double *rv;
  if (a->ad || b->ad)
    {
      r = scalar ? rt_ad_scalar (ad_new_vars (cx->tape, 1))
        : rt_new_ad (cx, kind, m, n);
      if (r.start < 0)
        rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "the autodiff tape is full");
      rv = cx->tape->val + r.start;
    }
  else
    {
      r = scalar ? tilde_value_real (0) : rt_new_data (cx, kind, m, n);
      rv = scalar ? &r.u.r : r.u.d;
    }
  if (m > 0 && n > 0)
    {
      if (k == 0)
        memset (rv, 0, sizeof (double) * (gsize) m * (gsize) n);
      else if (n == 1)
        cblas_dgemv (CblasColMajor, CblasNoTrans, m, k, 1.0, av, m, bv, 1, 0.0, rv, 1);
      else
        cblas_dgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, av, m, bv, k,
                     0.0, rv, m);
    }
  if (a->ad || b->ad)
    {
      MatMul *mm = tilde_arena_alloc (cx->tape->arena, sizeof *mm);
      mm->m = m; mm->k = k; mm->n = n;
      mm->out = r.start;
      mm->av = av; mm->bv = bv;
      mm->a_ad = a->ad; mm->b_ad = b->ad;
      mm->a_start = a->start; mm->a_idx = a->idx;
      mm->b_start = b->start; mm->b_idx = b->idx;
      gsize s = (gsize) MAX (a->ad ? m * k : 0, b->ad ? k * n : 0);
      mm->scratch = tilde_arena_alloc (cx->tape->arena, sizeof (double) * MAX (s, 1));
      ad_push (cx->tape, matmul_backward, mm);
    }
  *out = r;
}

void
rt_transpose (RtCtx *cx, const TildeValue *a, TildeValue *out)
{
  TildeValue r = *a;
  r.rows = a->cols;
  r.cols = a->rows;
  if (a->kind == TILDE_VALUE_VECTOR)
    r.kind = TILDE_VALUE_ROW_VECTOR;
  else if (a->kind == TILDE_VALUE_ROW_VECTOR)
    r.kind = TILDE_VALUE_VECTOR;
  else
    {
      int m = a->rows, n = a->cols;
      if (a->ad)
        {
          r.idx = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (m * n, 1));
          for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++)
              r.idx[j + i * n] = tilde_value_var (a, i + j * m);
        }
      else
        {
          r.u.d = rt_alloc_d (cx, (gsize) (m * n));
          for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++)
              r.u.d[j + i * n] = a->u.d[i + j * m];
        }
    }
  *out = r;
}

/* ---- triangular solves and Cholesky ---- */

typedef struct {
  int n, m;               /* L n x n, b n x m */
  const double *L, *x;    /* values: L and the solution */
  gint32 out;
  gint32 l_start, b_start;
  const gint32 *l_idx, *b_idx;
  gboolean l_ad, b_ad;
  double *scratch;        /* n m + n n */
} TriSolve;

static void
trisolve_backward (AdTape *t, const void *p)
{
  const TriSolve *s = p;
  int n = s->n, m = s->m;
  double *bbar = s->scratch;
  memcpy (bbar, t->adj + s->out, sizeof (double) * (gsize) (n * m));
  /* bbar = L^-T xbar */
  cblas_dtrsm (CblasColMajor, CblasLeft, CblasLower, CblasTrans, CblasNonUnit, n, m, 1.0,
               s->L, n, bbar, n);
  if (s->b_ad)
    add_to_ids (t, s->b_start, s->b_idx, bbar, n * m);
  if (s->l_ad)
    {
      /* Lbar = -bbar x^T, lower triangle */
      double *lbar = s->scratch + n * m;
      memset (lbar, 0, sizeof (double) * (gsize) (n * n));
      cblas_dgemm (CblasColMajor, CblasNoTrans, CblasTrans, n, n, m, -1.0, bbar, n, s->x, n,
                   0.0, lbar, n);
      for (int j = 0; j < n; j++)
        for (int i = 0; i < j; i++)
          lbar[i + j * n] = 0;
      add_to_ids (t, s->l_start, s->l_idx, lbar, n * n);
    }
}

static void
check_square (RtCtx *cx, const TildeValue *a)
{
  if (a->rows != a->cols)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: Expecting a square matrix; rows of %s (%d) "
              "and columns of %s (%d) must match in size", cx->fn_name, "m", a->rows, "m", a->cols);
}

static void
tri_low_solve (RtCtx *cx, const TildeValue *L, const TildeValue *b, TildeValue *out)
{
  check_square (cx, L);
  int n = L->rows;
  int m = b->kind == TILDE_VALUE_VECTOR ? 1 : b->cols;
  rt_check_size (cx, "mdivide_left_tri_low", n, b->rows);
  const double *lv = rt_values (cx, L);
  const double *bv = rt_values (cx, b);
  double *lcopy = rt_alloc_d (cx, (gsize) (n * n));
  memcpy (lcopy, lv, sizeof (double) * (gsize) (n * n));
  for (int j = 0; j < n; j++)
    for (int i = 0; i < j; i++)
      lcopy[i + j * n] = 0;
  gboolean ad = L->ad || b->ad;
  TildeValue r = ad ? rt_new_ad (cx, (TildeValueKind) b->kind, b->rows, b->cols)
    : rt_new_data (cx, (TildeValueKind) b->kind, b->rows, b->cols);
  double *x = ad ? cx->tape->val + r.start : r.u.d;
  memcpy (x, bv, sizeof (double) * (gsize) (n * m));
  if (n > 0)
    cblas_dtrsm (CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, n, m, 1.0,
                 lcopy, n, x, n);
  if (ad)
    {
      TriSolve *s = tilde_arena_alloc (cx->tape->arena, sizeof *s);
      s->n = n; s->m = m;
      s->L = lcopy; s->x = x; s->out = r.start;
      s->l_ad = L->ad; s->b_ad = b->ad;
      s->l_start = L->start; s->l_idx = L->idx;
      s->b_start = b->start; s->b_idx = b->idx;
      s->scratch = rt_alloc_d (cx, (gsize) (n * m + n * n));
      ad_push (cx->tape, trisolve_backward, s);
    }
  *out = r;
}

static void
k_mdivide_left_tri_low (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  tri_low_solve (cx, &a[0], &a[1], out);
}

typedef struct {
  int n;
  const double *L;
  gint32 out;
  gint32 a_start;
  const gint32 *a_idx;
  double *scratch;   /* 2 n n */
} Chol;

static void
chol_backward (AdTape *t, const void *p)
{
  const Chol *c = p;
  int n = c->n;
  const double *L = c->L;
  double *M = c->scratch, *G = c->scratch + n * n;
  const double *Lbar = t->adj + c->out;
  /* M = Phi (L^T Lbar): lower triangle, diagonal halved */
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++)
      {
        double s = 0;
        if (i >= j)
          for (int k = i; k < n; k++)
            s += L[k + i * n] * Lbar[k + j * n];
        M[i + j * n] = i > j ? s : i == j ? 0.5 * s : 0;
      }
  /* G = L^-T M L^-1 */
  cblas_dtrsm (CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, n, n, 1.0,
               L, n, M, n);
  cblas_dtrsm (CblasColMajor, CblasLeft, CblasLower, CblasTrans, CblasNonUnit, n, n, 1.0,
               L, n, M, n);
  /* the factorisation reads the lower triangle only */
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++)
      G[i + j * n] = i > j ? M[i + j * n] + M[j + i * n] : i == j ? M[i + i * n] : 0;
  add_to_ids (t, c->a_start, c->a_idx, G, n * n);
}

static void
k_cholesky_decompose (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  check_square (cx, &a[0]);
  int n = a[0].rows;
  const double *av = rt_values (cx, &a[0]);
  for (int j = 0; j < n; j++)
    for (int i = j + 1; i < n; i++)
      {
        double x = av[i + j * n], y = av[j + i * n];
        if (!(fabs (x - y) <= 1e-8 * MAX (fabs (x), fabs (y))) && !(x == y))
          rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN,
                    "cholesky_decompose: Matrix m is not symmetric. m[%d,%d] = %g, but "
                    "m[%d,%d] = %g", i + 1, j + 1, x, j + 1, i + 1, y);
      }
  TildeValue r = a[0].ad ? rt_new_ad (cx, TILDE_VALUE_MATRIX, n, n)
    : rt_new_data (cx, TILDE_VALUE_MATRIX, n, n);
  double *L = a[0].ad ? cx->tape->val + r.start : r.u.d;
  memcpy (L, av, sizeof (double) * (gsize) (n * n));
  /* the _work form skips LAPACKE's scan for NaN: the symmetry check above
   * and the scan of the factor below find them */
  if (n > 0 && LAPACKE_dpotrf_work (LAPACK_COL_MAJOR, 'L', n, L, n) != 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "cholesky_decompose: Matrix m is not positive definite");
  for (int j = 0; j < n; j++)
    for (int i = 0; i < j; i++)
      L[i + j * n] = 0;
  for (int i = 0; i < n * n; i++)
    if (isnan (L[i]))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "cholesky_decompose: Matrix m is not positive definite");
  if (a[0].ad)
    {
      Chol *c = tilde_arena_alloc (cx->tape->arena, sizeof *c);
      c->n = n;
      c->L = L;
      c->out = r.start;
      c->a_start = a[0].start;
      c->a_idx = a[0].idx;
      c->scratch = rt_alloc_d (cx, (gsize) (2 * n * n));
      ad_push (cx->tape, chol_backward, c);
    }
  *out = r;
}

/* ---- structured products ---- */

/* out(i, j) = v(i) m(i, j) (pre) or m(i, j) v(j) (post) */
static void
diag_multiply (RtCtx *cx, const TildeValue *v, const TildeValue *m, gboolean pre, TildeValue *out)
{
  int r = m->rows, c = m->cols;
  rt_check_size (cx, pre ? "diag_pre_multiply" : "diag_post_multiply",
                 tilde_value_flat_size (v), pre ? r : c);
  gboolean ad = v->ad || m->ad;
  const double *vv = rt_values (cx, v), *mv = ad ? rt_stable_values (cx, m) : rt_values (cx, m);
  TildeValue res = ad ? rt_new_ad (cx, TILDE_VALUE_MATRIX, r, c)
    : rt_new_data (cx, TILDE_VALUE_MATRIX, r, c);
  double *o = ad ? cx->tape->val + res.start : res.u.d;
  for (int j = 0; j < c; j++)
    for (int i = 0; i < r; i++)
      o[i + j * r] = vv[pre ? i : j] * mv[i + j * r];
  if (ad)
    {
      AdOperand ops[2];
      guint n_ops = 0;
      int n = r * c;
      if (v->ad)
        {
          gint32 *ids = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (n, 1));
          for (int j = 0; j < c; j++)
            for (int i = 0; i < r; i++)
              ids[i + j * r] = tilde_value_var (v, pre ? i : j);
          ops[n_ops++] = (AdOperand) { .idx = ids, .n = n, .partial = mv };
        }
      if (m->ad)
        {
          double *p = rt_alloc_d (cx, (gsize) n);
          for (int j = 0; j < c; j++)
            for (int i = 0; i < r; i++)
              p[i + j * r] = vv[pre ? i : j];
          ops[n_ops++] = rt_operand (m, p);
        }
      ad_elementwise (cx->tape, res.start, n, n_ops, ops);
    }
  *out = res;
}

static void
k_diag_pre_multiply (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  diag_multiply (cx, &a[0], &a[1], TRUE, out);
}

static void
k_diag_post_multiply (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  diag_multiply (cx, &a[1], &a[0], FALSE, out);
}

static void
k_add_diag (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  const TildeValue *m = &a[0], *d = &a[1];
  int r = m->rows, c = m->cols, n = r * c;
  int nd = MIN (r, c);
  gboolean dscalar = tilde_value_kind_is_scalar ((TildeValueKind) d->kind);
  if (!dscalar)
    rt_check_size (cx, "add_diag", tilde_value_flat_size (d), nd);
  const double *mv = rt_values (cx, m), *dv = rt_values (cx, d);
  gboolean ad = m->ad || d->ad;
  TildeValue res = ad ? rt_new_ad (cx, TILDE_VALUE_MATRIX, r, c)
    : rt_new_data (cx, TILDE_VALUE_MATRIX, r, c);
  double *o = ad ? cx->tape->val + res.start : res.u.d;
  memcpy (o, mv, sizeof (double) * (gsize) n);
  for (int i = 0; i < nd; i++)
    o[i + i * r] += dv[dscalar ? 0 : i];
  if (ad)
    {
      /* the diagonal depends on d, everything on m with partial 1 */
      if (m->ad)
        {
          double *ones = rt_alloc_d (cx, (gsize) n);
          for (int i = 0; i < n; i++)
            ones[i] = 1;
          AdOperand op = rt_operand (m, ones);
          ad_elementwise (cx->tape, res.start, n, 1, &op);
        }
      if (d->ad)
        {
          double *ones = rt_alloc_d (cx, (gsize) nd);
          gint32 *out_ids = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (nd, 1));
          for (int i = 0; i < nd; i++)
            {
              ones[i] = 1;
              out_ids[i] = res.start + i + i * r;
            }
          /* adj(d_i) += adj(out_ii): an elementwise node read backwards */
          for (int i = 0; i < nd; i++)
            {
              AdOperand op = { .start = tilde_value_var (d, dscalar ? 0 : i), .n = 1,
                               .partial = &ones[i] };
              ad_elementwise (cx->tape, out_ids[i], 1, 1, &op);
            }
        }
    }
  *out = res;
}

static void
k_multiply_lower_tri_self_transpose (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  int r = a[0].rows, c = a[0].cols;
  TildeValue L = a[0];
  if (L.ad)
    {
      gint32 zero = ad_constant (cx->tape, 0.0);
      L.idx = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (r * c, 1));
      for (int j = 0; j < c; j++)
        for (int i = 0; i < r; i++)
          L.idx[i + j * r] = i >= j ? tilde_value_var (&a[0], i + j * r) : zero;
    }
  else
    {
      L.u.d = rt_alloc_d (cx, (gsize) (r * c));
      for (int j = 0; j < c; j++)
        for (int i = 0; i < r; i++)
          L.u.d[i + j * r] = i >= j ? a[0].u.d[i + j * r] : 0;
    }
  TildeValue Lt;
  rt_transpose (cx, &L, &Lt);
  rt_matmul (cx, &L, &Lt, out);
}

static void
k_tcrossprod (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  TildeValue t;
  rt_transpose (cx, &a[0], &t);
  rt_matmul (cx, &a[0], &t, out);
}

static void
k_crossprod (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  TildeValue t;
  rt_transpose (cx, &a[0], &t);
  rt_matmul (cx, &t, &a[0], out);
}

/* ---- dot products ---- */

static void
k_dot_product (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  gint32 n = tilde_value_flat_size (&a[0]);
  rt_check_size (cx, "dot_product", n, tilde_value_flat_size (&a[1]));
  const double *x = rt_stable_values (cx, &a[0]), *y = rt_stable_values (cx, &a[1]);
  double s = n > 0 ? cblas_ddot (n, x, 1, y, 1) : 0;
  AdOperand ops[2];
  guint n_ops = 0;
  if (a[0].ad)
    ops[n_ops++] = rt_operand (&a[0], y);
  if (a[1].ad)
    ops[n_ops++] = rt_operand (&a[1], x);
  *out = rt_reduce (cx, s, n_ops, ops);
}

static void
k_dot_self (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  gint32 n = tilde_value_flat_size (&a[0]);
  const double *x = rt_values (cx, &a[0]);
  double s = 0;
  for (gint32 i = 0; i < n; i++)
    s += x[i] * x[i];
  if (!a[0].ad)
    {
      *out = tilde_value_real (s);
      return;
    }
  double *p = rt_alloc_d (cx, (gsize) n);
  for (gint32 i = 0; i < n; i++)
    p[i] = 2 * x[i];
  AdOperand op = rt_operand (&a[0], p);
  *out = rt_reduce (cx, s, 1, &op);
}

/* columns_dot_product (a, b): row vector of column dot products;
 * rows_dot_product: vector of row dot products */
static void
rowcol_dot (RtCtx *cx, const TildeValue *a, const TildeValue *b, gboolean columns, TildeValue *out)
{
  int r = a->rows, c = a->cols;
  rt_check_size (cx, "dot product rows", r, b->rows);
  rt_check_size (cx, "dot product columns", c, b->cols);
  const double *x = rt_values (cx, a), *y = rt_values (cx, b);
  int n_out = columns ? c : r;
  TildeValueKind kind = columns ? TILDE_VALUE_ROW_VECTOR : TILDE_VALUE_VECTOR;
  gboolean ad = a->ad || b->ad;
  TildeValue res = rt_new_data (cx, kind, columns ? 1 : r, columns ? c : 1);
  double *o = res.u.d;
  for (int k = 0; k < n_out; k++)
    o[k] = 0;
  for (int j = 0; j < c; j++)
    for (int i = 0; i < r; i++)
      o[columns ? j : i] += x[i + j * r] * y[i + j * r];
  if (ad)
    {
      /* one reduction per output over its row or column */
      res.ad = 1;
      res.idx = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (n_out, 1));
      for (int k = 0; k < n_out; k++)
        {
          AdOperand ops[2];
          guint n_ops = 0;
          int len = columns ? r : c;
          gint32 *ia = NULL, *ib = NULL;
          double *pa = rt_alloc_d (cx, (gsize) len), *pb = rt_alloc_d (cx, (gsize) len);
          if (a->ad)
            ia = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (len, 1));
          if (b->ad)
            ib = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (len, 1));
          for (int l = 0; l < len; l++)
            {
              int e = columns ? l + k * r : k + l * r;
              pa[l] = y[e];
              pb[l] = x[e];
              if (ia)
                ia[l] = tilde_value_var (a, e);
              if (ib)
                ib[l] = tilde_value_var (b, e);
            }
          if (ia)
            ops[n_ops++] = (AdOperand) { .idx = ia, .n = len, .partial = pa };
          if (ib)
            ops[n_ops++] = (AdOperand) { .idx = ib, .n = len, .partial = pb };
          res.idx[k] = rt_reduce (cx, o[k], n_ops, ops).start;
        }
    }
  *out = res;
}

static void
k_columns_dot_product (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  rowcol_dot (cx, &a[0], &a[1], TRUE, out);
}

static void
k_rows_dot_product (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  rowcol_dot (cx, &a[0], &a[1], FALSE, out);
}

static void
k_columns_dot_self (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  rowcol_dot (cx, &a[0], &a[0], TRUE, out);
}

static void
k_rows_dot_self (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  rowcol_dot (cx, &a[0], &a[0], FALSE, out);
}

static void
k_diag_matrix (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  int n = tilde_value_flat_size (&a[0]);
  if (a[0].ad)
    {
      gint32 zero = ad_constant (cx->tape, 0.0);
      TildeValue r = { .kind = TILDE_VALUE_MATRIX, .ad = 1, .rows = n, .cols = n };
      r.idx = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (n * n, 1));
      for (int i = 0; i < n * n; i++)
        r.idx[i] = zero;
      for (int i = 0; i < n; i++)
        r.idx[i + i * n] = tilde_value_var (&a[0], i);
      *out = r;
      return;
    }
  TildeValue r = rt_new_data (cx, TILDE_VALUE_MATRIX, n, n);
  memset (r.u.d, 0, sizeof (double) * (gsize) (n * n));
  for (int i = 0; i < n; i++)
    r.u.d[i + i * n] = a[0].u.d[i];
  *out = r;
}

static void
k_diagonal (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  int n = MIN (a[0].rows, a[0].cols), r = a[0].rows;
  if (a[0].ad)
    {
      TildeValue v = { .kind = TILDE_VALUE_VECTOR, .ad = 1, .rows = n, .cols = 1 };
      v.idx = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (n, 1));
      for (int i = 0; i < n; i++)
        v.idx[i] = tilde_value_var (&a[0], i + i * r);
      *out = v;
      return;
    }
  TildeValue v = rt_new_data (cx, TILDE_VALUE_VECTOR, n, 1);
  for (int i = 0; i < n; i++)
    v.u.d[i] = a[0].u.d[i + i * r];
  *out = v;
}

const RtBuiltin rt_builtins_linalg[] = {
  { "cholesky_decompose", k_cholesky_decompose, 1, 1 },
  { "mdivide_left_tri_low", k_mdivide_left_tri_low, 2, 2 },
  { "diag_pre_multiply", k_diag_pre_multiply, 2, 2 },
  { "diag_post_multiply", k_diag_post_multiply, 2, 2 },
  { "add_diag", k_add_diag, 2, 2 },
  { "multiply_lower_tri_self_transpose", k_multiply_lower_tri_self_transpose, 1, 1 },
  { "tcrossprod", k_tcrossprod, 1, 1 },
  { "crossprod", k_crossprod, 1, 1 },
  { "dot_product", k_dot_product, 2, 2 },
  { "dot_self", k_dot_self, 1, 1 },
  { "columns_dot_product", k_columns_dot_product, 2, 2 },
  { "rows_dot_product", k_rows_dot_product, 2, 2 },
  { "columns_dot_self", k_columns_dot_self, 1, 1 },
  { "rows_dot_self", k_rows_dot_self, 1, 1 },
  { "diag_matrix", k_diag_matrix, 1, 1 },
  { "diagonal", k_diagonal, 1, 1 },
  { NULL, NULL, 0, 0 },
};
