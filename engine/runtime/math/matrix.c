/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Dense linear algebra beyond linalg.c's products and Cholesky: solves
 * (general, symmetric positive-definite and triangular, from the left and
 * the right), inverses, determinants, traces, quadratic forms, matrix
 * powers and symmetric eigendecompositions, each with its reverse-mode
 * rule, on LAPACKE and OpenBLAS.
 *
 * Matrix arguments get the derivative of the formula in every entry (so a
 * symmetric matrix built from parameters gets its gradient through both
 * triangles), except the triangular solves, which read one triangle.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/math/linalg.h"
#include "runtime/math/special.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

static double *
tape_copy (RtCtx *cx, const double *x, gsize n)
{
  return tilde_arena_memdup (cx->tape->arena, x, sizeof (double) * MAX (n, 1));
}

static double *
tape_alloc (RtCtx *cx, gsize n)
{
  return tilde_arena_alloc (cx->tape->arena, sizeof (double) * MAX (n, 1));
}

static void
add_adj (AdTape *t, gint32 start, const gint32 *idx, const double *g, gint32 n)
{
  double *adj = t->adj;
  if (idx)
    for (gint32 i = 0; i < n; i++)
      adj[idx[i]] += g[i];
  else
    for (gint32 i = 0; i < n; i++)
      adj[start + i] += g[i];
}

static void
check_square (RtCtx *cx, const char *what, const TildeValue *a)
{
  if (a->kind != TILDE_VALUE_MATRIX || a->rows != a->cols)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: Expecting a square matrix; rows of %s (%d) and "
              "columns of %s (%d) must match in size", cx->fn_name, what, a->rows, what, a->cols);
}

static void
check_symmetric (RtCtx *cx, const char *what, const double *m, int n)
{
  for (int j = 0; j < n; j++)
    for (int i = j + 1; i < n; i++)
      if (!(fabs (m[j + i * n] - m[i + j * n]) <= 1e-8))
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: %s is not symmetric. %s[%d,%d] = %g, but "
                  "%s[%d,%d] = %g", cx->fn_name, what, what, j + 1, i + 1, m[j + i * n], what,
                  i + 1, j + 1, m[i + j * n]);
}

/* The result of a kernel: data, or fresh variables whose values the kernel
 * writes through *x. */
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
      *x = kind == TILDE_VALUE_REAL ? &r.u.r : r.u.d;
    }
  return r;
}

/* ---- factorisations ---- */

typedef enum { FACT_LU, FACT_CHOLESKY, FACT_LOWER } FactKind;

typedef struct {
  FactKind kind;
  int n;
  double *f;      /* LU factors, Cholesky factor or the triangle itself */
  int *piv;       /* LU */
} Fact;

static Fact
factorise (RtCtx *cx, const TildeValue *A, FactKind kind)
{
  Fact f = { kind, A->rows, NULL, NULL };
  int n = A->rows;
  const double *a = rt_values (cx, A);
  f.f = tape_copy (cx, a, (gsize) (n * n));
  for (int i = 0; i < n * n; i++)
    if (!isfinite (f.f[i]))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: A[%d] is %g, but must be finite!", cx->fn_name,
                i + 1, f.f[i]);
  if (kind == FACT_LU)
    {
      f.piv = tilde_arena_alloc (cx->tape->arena, sizeof (int) * (gsize) MAX (n, 1));
      if (n > 0 && LAPACKE_dgetrf (LAPACK_COL_MAJOR, n, n, f.f, n, f.piv) != 0)
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: the matrix is singular", cx->fn_name);
    }
  else if (kind == FACT_CHOLESKY)
    {
      check_symmetric (cx, "A", a, n);
      if (n > 0 && LAPACKE_dpotrf (LAPACK_COL_MAJOR, 'L', n, f.f, n) != 0)
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: A is not positive definite.", cx->fn_name);
    }
  else
    {
      for (int j = 0; j < n; j++)
        for (int i = 0; i < j; i++)
          f.f[i + j * n] = 0;
    }
  return f;
}

/* Solves op(A) X = B in place (B n x m, column-major); op = A^T when trans. */
static void
fact_solve (const Fact *f, gboolean trans, double *B, int m)
{
  int n = f->n;
  if (n == 0 || m == 0)
    return;
  switch (f->kind)
    {
    case FACT_LU:
      LAPACKE_dgetrs (LAPACK_COL_MAJOR, trans ? 'T' : 'N', n, m, f->f, n, f->piv, B, n);
      break;
    case FACT_CHOLESKY:
      LAPACKE_dpotrs (LAPACK_COL_MAJOR, 'L', n, m, f->f, n, B, n);
      break;
    case FACT_LOWER:
      cblas_dtrsm (CblasColMajor, CblasLeft, CblasLower, trans ? CblasTrans : CblasNoTrans,
                   CblasNonUnit, n, m, 1.0, f->f, n, B, n);
      break;
    }
}

static void
transpose_into (const double *a, int rows, int cols, double *t)
{
  for (int j = 0; j < cols; j++)
    for (int i = 0; i < rows; i++)
      t[j + i * cols] = a[i + j * rows];
}

/* ---- solves ---- */

typedef struct {
  Fact f;
  gboolean right;          /* X = B A^-1 rather than A^-1 B */
  int rows, cols;          /* of X and B */
  const double *x;         /* the solution's values */
  gint32 out;
  gboolean a_ad, b_ad;
  gint32 a_start, b_start;
  const gint32 *a_idx, *b_idx;
  double *s1, *s2;         /* scratch: rows cols each, n n */
} Solve;

static void
solve_backward (AdTape *t, const void *p)
{
  const Solve *s = p;
  int n = s->f.n, R = s->rows, C = s->cols;
  const double *xbar = t->adj + s->out;
  double *bbar = s->s1;
  if (!s->right)
    {
      /* X = A^-1 B: Bbar = A^-T Xbar, Abar = -Bbar X' */
      memcpy (bbar, xbar, sizeof (double) * (gsize) (R * C));
      fact_solve (&s->f, TRUE, bbar, C);
    }
  else
    {
      /* X = B A^-1: Bbar = Xbar A^-T, i.e. A Bbar' = Xbar'; Abar = -X' Bbar */
      double *tmp = s->s2;
      transpose_into (xbar, R, C, tmp);
      fact_solve (&s->f, FALSE, tmp, R);
      transpose_into (tmp, C, R, bbar);
    }
  if (s->b_ad)
    add_adj (t, s->b_start, s->b_idx, bbar, R * C);
  if (s->a_ad)
    {
      double *abar = s->s2;
      if (!s->right)
        cblas_dgemm (CblasColMajor, CblasNoTrans, CblasTrans, n, n, C, -1.0, bbar, n, s->x, n, 0.0,
                     abar, n);
      else
        cblas_dgemm (CblasColMajor, CblasTrans, CblasNoTrans, n, n, R, -1.0, s->x, R, bbar, R, 0.0,
                     abar, n);
      if (s->f.kind == FACT_LOWER)
        for (int j = 0; j < n; j++)
          for (int i = 0; i < j; i++)
            abar[i + j * n] = 0;
      add_adj (t, s->a_start, s->a_idx, abar, n * n);
    }
}

/* A^-1 B (right: B A^-1) for B a vector, row vector or matrix */
static void
solve (RtCtx *cx, const TildeValue *A, const TildeValue *B, gboolean right, FactKind kind,
       TildeValue *out)
{
  check_square (cx, "A", A);
  int n = A->rows, R = B->rows, C = B->cols;   /* vectors are n x 1, row vectors 1 x n */
  rt_check_size (cx, right ? "columns of b and rows of A" : "rows of b and columns of A",
                 right ? C : R, n);
  Fact f = factorise (cx, A, kind);
  gboolean ad = A->ad || B->ad;
  double *x;
  TildeValue r = result (cx, (TildeValueKind) B->kind, B->rows, B->cols, ad, &x);
  const double *bv = rt_values (cx, B);
  if (!right)
    {
      memcpy (x, bv, sizeof (double) * (gsize) (R * C));
      fact_solve (&f, FALSE, x, C);
    }
  else
    {
      /* X A = B, i.e. A' X' = B' */
      double *tmp = rt_alloc_d (cx, (gsize) (R * C));
      transpose_into (bv, R, C, tmp);
      fact_solve (&f, TRUE, tmp, R);
      transpose_into (tmp, C, R, x);
    }
  if (ad)
    {
      Solve *s = tilde_arena_alloc (cx->tape->arena, sizeof *s);
      s->f = f;
      s->right = right;
      s->rows = R;
      s->cols = C;
      s->x = x;
      s->out = r.start;
      s->a_ad = A->ad;
      s->b_ad = B->ad;
      s->a_start = A->start;
      s->a_idx = A->idx;
      s->b_start = B->start;
      s->b_idx = B->idx;
      s->s1 = tape_alloc (cx, (gsize) (R * C));
      s->s2 = tape_alloc (cx, (gsize) MAX (R * C, n * n));
      ad_push (cx->tape, solve_backward, s);
    }
  *out = r;
}

static void k_mdivide_right (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { solve (cx, &a[1], &a[0], TRUE, FACT_LU, out); }
static void k_mdivide_left_spd (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { solve (cx, &a[0], &a[1], FALSE, FACT_CHOLESKY, out); }
static void k_mdivide_right_spd (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { solve (cx, &a[1], &a[0], TRUE, FACT_CHOLESKY, out); }
static void k_mdivide_right_tri_low (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { solve (cx, &a[1], &a[0], TRUE, FACT_LOWER, out); }

void
rt_mdivide_left (RtCtx *cx, const TildeValue *a, const TildeValue *b, TildeValue *out)
{
  solve (cx, a, b, FALSE, FACT_LU, out);
}

void
rt_mdivide_right (RtCtx *cx, const TildeValue *b, const TildeValue *a, TildeValue *out)
{
  solve (cx, a, b, TRUE, FACT_LU, out);
}

/* ---- inverses ---- */

typedef struct {
  int n;
  const double *x;     /* the inverse's values */
  gint32 out, a_start;
  const gint32 *a_idx;
  double *s1, *s2;
} Inverse;

static void
inverse_backward (AdTape *t, const void *p)
{
  const Inverse *v = p;
  int n = v->n;
  /* Abar = -X' Xbar X' */
  cblas_dgemm (CblasColMajor, CblasTrans, CblasNoTrans, n, n, n, 1.0, v->x, n, t->adj + v->out, n,
               0.0, v->s1, n);
  cblas_dgemm (CblasColMajor, CblasNoTrans, CblasTrans, n, n, n, -1.0, v->s1, n, v->x, n, 0.0,
               v->s2, n);
  add_adj (t, v->a_start, v->a_idx, v->s2, n * n);
}

static void
inverse (RtCtx *cx, const TildeValue *A, FactKind kind, TildeValue *out)
{
  check_square (cx, "m", A);
  int n = A->rows;
  Fact f = factorise (cx, A, kind);
  double *x;
  TildeValue r = result (cx, TILDE_VALUE_MATRIX, n, n, A->ad, &x);
  memcpy (x, f.f, sizeof (double) * (gsize) (n * n));
  if (n > 0)
    {
      if (kind == FACT_LU)
        LAPACKE_dgetri (LAPACK_COL_MAJOR, n, x, n, f.piv);
      else
        {
          LAPACKE_dpotri (LAPACK_COL_MAJOR, 'L', n, x, n);
          for (int j = 0; j < n; j++)
            for (int i = 0; i < j; i++)
              x[i + j * n] = x[j + i * n];
        }
    }
  if (A->ad)
    {
      Inverse *v = tilde_arena_alloc (cx->tape->arena, sizeof *v);
      v->n = n;
      v->x = x;
      v->out = r.start;
      v->a_start = A->start;
      v->a_idx = A->idx;
      v->s1 = tape_alloc (cx, (gsize) (n * n));
      v->s2 = tape_alloc (cx, (gsize) (n * n));
      ad_push (cx->tape, inverse_backward, v);
    }
  *out = r;
}

static void k_inverse (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { inverse (cx, &a[0], FACT_LU, out); }
static void k_inverse_spd (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { inverse (cx, &a[0], FACT_CHOLESKY, out); }

static void
k_chol2inv (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  /* (L L')^-1 through the products' and the inverse's own rules */
  const RtBuiltin *m = rt_builtin_lookup ("multiply_lower_tri_self_transpose", 1);
  TildeValue S;
  check_square (cx, "L", &a[0]);
  m->fn (cx, 1, a, &S);
  inverse (cx, &S, FACT_CHOLESKY, out);
}

/* ---- determinants and traces ---- */

/* log |det A| (and its sign) with d/dA = A^-T, from an LU factorisation */
static double
log_abs_det (RtCtx *cx, const TildeValue *A, FactKind kind, double *sign, double **grad)
{
  check_square (cx, "m", A);
  int n = A->rows;
  Fact f = factorise (cx, A, kind);
  double ld = 0, sg = 1;
  for (int i = 0; i < n; i++)
    {
      double d = f.f[i + i * n];
      if (kind == FACT_LU)
        {
          if (f.piv[i] != i + 1)
            sg = -sg;
          if (d < 0)
            sg = -sg;
          ld += log (fabs (d));
        }
      else
        ld += 2 * log (d);
    }
  *sign = sg;
  if (grad && A->ad)
    {
      /* A^-T */
      double *inv = rt_alloc_d (cx, (gsize) (n * n));
      memcpy (inv, f.f, sizeof (double) * (gsize) (n * n));
      if (n > 0)
        {
          if (kind == FACT_LU)
            LAPACKE_dgetri (LAPACK_COL_MAJOR, n, inv, n, f.piv);
          else
            {
              LAPACKE_dpotri (LAPACK_COL_MAJOR, 'L', n, inv, n);
              for (int j = 0; j < n; j++)
                for (int i = 0; i < j; i++)
                  inv[i + j * n] = inv[j + i * n];
            }
        }
      double *g = rt_alloc_d (cx, (gsize) (n * n));
      transpose_into (inv, n, n, g);
      *grad = g;
    }
  return ld;
}

static void
k_log_determinant (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  double sign, *g = NULL;
  double ld = log_abs_det (cx, &a[0], FACT_LU, &sign, &g);
  AdOperand op = rt_operand (&a[0], g);
  *out = rt_reduce (cx, ld, a[0].ad ? 1 : 0, &op);
}

static void
k_log_determinant_spd (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  double sign, *g = NULL;
  double ld = log_abs_det (cx, &a[0], FACT_CHOLESKY, &sign, &g);
  AdOperand op = rt_operand (&a[0], g);
  *out = rt_reduce (cx, ld, a[0].ad ? 1 : 0, &op);
}

static void
k_determinant (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  double sign, *g = NULL;
  int n = a[0].rows;
  check_square (cx, "m", &a[0]);
  if (n > 0)
    {
      /* a singular matrix has determinant 0 (and no inverse for the gradient) */
      double *lu = tilde_arena_memdup (cx->arena, rt_values (cx, &a[0]), sizeof (double) * (gsize) (n * n));
      int *piv = tilde_arena_alloc (cx->arena, sizeof (int) * (gsize) n);
      if (LAPACKE_dgetrf (LAPACK_COL_MAJOR, n, n, lu, n, piv) > 0)
        {
          *out = tilde_value_real (0);
          if (a[0].ad)
            rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: the matrix is singular", cx->fn_name);
          return;
        }
    }
  double ld = log_abs_det (cx, &a[0], FACT_LU, &sign, &g);
  double det = sign * exp (ld);
  if (g)
    for (int i = 0; i < n * n; i++)
      g[i] *= det;
  AdOperand op = rt_operand (&a[0], g);
  *out = rt_reduce (cx, det, a[0].ad ? 1 : 0, &op);
}

static void
k_trace (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  const TildeValue *m = &a[0];
  int n = MIN (m->rows, m->cols);
  const double *x = rt_values (cx, m);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i + i * m->rows];
  if (!m->ad)
    {
      *out = tilde_value_real (s);
      return;
    }
  double *g = tilde_arena_alloc0 (cx->arena, sizeof (double) * (gsize) MAX (m->rows * m->cols, 1));
  for (int i = 0; i < n; i++)
    g[i + i * m->rows] = 1;
  AdOperand op = rt_operand (m, g);
  *out = rt_reduce (cx, s, 1, &op);
}

/* sum_ij X_ij Y_ij with both as operands (the trace of X' Y) */
static void
frobenius (RtCtx *cx, const TildeValue *X, const TildeValue *Y, TildeValue *out)
{
  gint32 n = tilde_value_flat_size (X);
  rt_check_size (cx, "the matrices", n, tilde_value_flat_size (Y));
  const double *x = rt_stable_values (cx, X), *y = rt_stable_values (cx, Y);
  double s = n > 0 ? cblas_ddot (n, x, 1, y, 1) : 0;
  AdOperand ops[2];
  guint n_ops = 0;
  if (X->ad)
    ops[n_ops++] = rt_operand (X, y);
  if (Y->ad)
    ops[n_ops++] = rt_operand (Y, x);
  *out = rt_reduce (cx, s, n_ops, ops);
}

/* ---- quadratic forms ---- */

/* B' A B (a real for a vector B) */
static void
quad_form (RtCtx *cx, const TildeValue *A, const TildeValue *B, TildeValue *out)
{
  check_square (cx, "A", A);
  rt_check_size (cx, "columns of A and rows of B", A->cols, B->rows);
  TildeValue AB, Bt;
  rt_matmul (cx, A, B, &AB);
  rt_transpose (cx, B, &Bt);
  rt_matmul (cx, &Bt, &AB, out);
}

static void
k_quad_form (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  quad_form (cx, &a[0], &a[1], out);
}

static void
k_quad_form_sym (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  check_square (cx, "A", &a[0]);
  check_symmetric (cx, "A", rt_values (cx, &a[0]), a[0].rows);
  TildeValue q;
  quad_form (cx, &a[0], &a[1], &q);
  if (tilde_value_kind_is_scalar ((TildeValueKind) q.kind))
    {
      *out = q;
      return;
    }
  /* exactly symmetric: (Q + Q') / 2 */
  TildeValue qt, sum;
  rt_transpose (cx, &q, &qt);
  rt_add (cx, &q, &qt, &sum);
  /* In the evaluation's arena: the product may keep a pointer to the value of
   * its data scalar argument until the reverse sweep. */
  TildeValue *args = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * 2);
  const RtBuiltin *times = rt_builtin_lookup ("Times__", 2);
  args[0] = sum;
  args[1] = tilde_value_real (0.5);
  times->fn (cx, 2, args, out);
}

/* diag (v) m diag (v) */
static void
k_quad_form_diag (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  const TildeValue *m = &a[0], *v = &a[1];
  check_square (cx, "m", m);
  int n = m->rows, nn = n * n;
  rt_check_size (cx, "rows of m and size of v", tilde_value_flat_size (v), n);
  const double *mv = rt_values (cx, m), *vv = rt_values (cx, v);
  gboolean ad = m->ad || v->ad;
  double *x;
  TildeValue r = result (cx, TILDE_VALUE_MATRIX, n, n, ad, &x);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++)
      x[i + j * n] = vv[i] * mv[i + j * n] * vv[j];
  if (ad)
    {
      AdOperand ops[3];
      guint n_ops = 0;
      if (m->ad)
        {
          double *p = rt_alloc_d (cx, (gsize) nn);
          for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
              p[i + j * n] = vv[i] * vv[j];
          ops[n_ops++] = rt_operand (m, p);
        }
      if (v->ad)
        {
          /* out_ij depends on v_i (m_ij v_j) and on v_j (v_i m_ij) */
          gint32 *ii = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (nn, 1));
          gint32 *jj = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (nn, 1));
          double *pi = rt_alloc_d (cx, (gsize) nn), *pj = rt_alloc_d (cx, (gsize) nn);
          for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
              {
                int e = i + j * n;
                ii[e] = tilde_value_var (v, i);
                jj[e] = tilde_value_var (v, j);
                pi[e] = mv[e] * vv[j];
                pj[e] = vv[i] * mv[e];
              }
          ops[n_ops++] = (AdOperand) { .idx = ii, .n = nn, .partial = pi };
          ops[n_ops++] = (AdOperand) { .idx = jj, .n = nn, .partial = pj };
        }
      ad_elementwise (cx->tape, r.start, nn, n_ops, ops);
    }
  *out = r;
}

static void
k_trace_quad_form (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  /* trace (B' A B) = sum (A B) .* B */
  check_square (cx, "A", &a[0]);
  TildeValue AB;
  rt_matmul (cx, &a[0], &a[1], &AB);
  frobenius (cx, &AB, &a[1], out);
}

static void
k_trace_gen_quad_form (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  /* trace (D B' A B) = sum (B' A B)' .* D */
  check_square (cx, "D", &a[0]);
  TildeValue Q, Qt;
  quad_form (cx, &a[1], &a[2], &Q);
  rt_transpose (cx, &Q, &Qt);
  frobenius (cx, &Qt, &a[0], out);
}

static void
k_matrix_power (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  check_square (cx, "M", &a[0]);
  int n = rt_int (cx, &a[1]), K = a[0].rows;
  if (n < 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: n is %d, but must be nonnegative!", cx->fn_name, n);
  const double *x = rt_values (cx, &a[0]);
  for (int i = 0; i < K * K; i++)
    if (!isfinite (x[i]))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: M is not finite", cx->fn_name);
  /* by squaring, through the product's own rule */
  TildeValue result_v = rt_new_data (cx, TILDE_VALUE_MATRIX, K, K);
  memset (result_v.u.d, 0, sizeof (double) * (gsize) (K * K));
  for (int i = 0; i < K; i++)
    result_v.u.d[i + i * K] = 1;
  TildeValue base = a[0];
  gboolean first = TRUE;
  while (n > 0)
    {
      if (n & 1)
        {
          if (first)
            result_v = base;
          else
            rt_matmul (cx, &result_v, &base, &result_v);
          first = FALSE;
        }
      n >>= 1;
      if (n > 0)
        rt_matmul (cx, &base, &base, &base);
    }
  *out = result_v;
}

/* ---- symmetric eigendecomposition ---- */

typedef struct {
  int n;
  const double *V, *lambda;
  gint32 out_vals, out_vecs;   /* -1 when not an output */
  gint32 a_start;
  const gint32 *a_idx;
  double *s1, *s2;
} Eigen;

static void
eigen_backward (AdTape *t, const void *p)
{
  const Eigen *e = p;
  int n = e->n;
  /* Abar = V (diag (lambda bar) + F .* (V' Vbar)) V', F_ij = 1 / (lambda_j - lambda_i) */
  double *M = e->s1, *T = e->s2;
  memset (M, 0, sizeof (double) * (gsize) (n * n));
  if (e->out_vecs >= 0)
    {
      cblas_dgemm (CblasColMajor, CblasTrans, CblasNoTrans, n, n, n, 1.0, e->V, n,
                   t->adj + e->out_vecs, n, 0.0, M, n);
      for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
          {
            double d = e->lambda[j] - e->lambda[i];
            M[i + j * n] = i == j || d == 0 ? 0 : M[i + j * n] / d;
          }
    }
  if (e->out_vals >= 0)
    for (int i = 0; i < n; i++)
      M[i + i * n] += t->adj[e->out_vals + i];
  cblas_dgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, e->V, n, M, n, 0.0, T, n);
  cblas_dgemm (CblasColMajor, CblasNoTrans, CblasTrans, n, n, n, 1.0, T, n, e->V, n, 0.0, M, n);
  add_adj (t, e->a_start, e->a_idx, M, n * n);
}

static void
eigen_sym (RtCtx *cx, const TildeValue *A, gboolean vals, gboolean vecs, TildeValue *values,
           TildeValue *vectors)
{
  check_square (cx, "m", A);
  int n = A->rows;
  const double *a = rt_values (cx, A);
  check_symmetric (cx, "m", a, n);
  double *V = tape_copy (cx, a, (gsize) (n * n)), *w = tape_alloc (cx, (gsize) n);
  for (int i = 0; i < n * n; i++)
    if (isnan (V[i]))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: m is nan", cx->fn_name);
  if (n > 0 && LAPACKE_dsyevd (LAPACK_COL_MAJOR, 'V', 'L', n, V, n, w) != 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: the eigendecomposition failed", cx->fn_name);
  double *xv = NULL, *xe = NULL;
  TildeValue rv = { 0 }, re = { 0 };
  if (vals)
    {
      rv = result (cx, TILDE_VALUE_VECTOR, n, 1, A->ad, &xv);
      memcpy (xv, w, sizeof (double) * (gsize) n);
    }
  if (vecs)
    {
      re = result (cx, TILDE_VALUE_MATRIX, n, n, A->ad, &xe);
      memcpy (xe, V, sizeof (double) * (gsize) (n * n));
    }
  if (A->ad)
    {
      Eigen *e = tilde_arena_alloc (cx->tape->arena, sizeof *e);
      e->n = n;
      e->V = V;
      e->lambda = w;
      e->out_vals = vals ? rv.start : -1;
      e->out_vecs = vecs ? re.start : -1;
      e->a_start = A->start;
      e->a_idx = A->idx;
      e->s1 = tape_alloc (cx, (gsize) (n * n));
      e->s2 = tape_alloc (cx, (gsize) (n * n));
      ad_push (cx->tape, eigen_backward, e);
    }
  if (values)
    *values = rv;
  if (vectors)
    *vectors = re;
}

static void k_eigenvalues_sym (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { eigen_sym (cx, &a[0], TRUE, FALSE, out, NULL); }
static void k_eigenvectors_sym (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { eigen_sym (cx, &a[0], FALSE, TRUE, NULL, out); }

static void
k_eigendecompose_sym (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  TildeValue r = { .kind = TILDE_VALUE_TUPLE, .rows = 2, .cols = 1 };
  r.u.elems = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * 2);
  /* Stan's order: (eigenvectors, eigenvalues) */
  eigen_sym (cx, &a[0], TRUE, TRUE, &r.u.elems[1], &r.u.elems[0]);
  *out = r;
}

const RtBuiltin rt_builtins_matrix[] = {
  /* mdivide_left is the operator \ of arith.c, through rt_mdivide_left */
  { "mdivide_right", k_mdivide_right, 2, 2 },
  { "mdivide_left_spd", k_mdivide_left_spd, 2, 2 },
  { "mdivide_right_spd", k_mdivide_right_spd, 2, 2 },
  { "mdivide_right_tri_low", k_mdivide_right_tri_low, 2, 2 },
  { "inverse", k_inverse, 1, 1 },
  { "inverse_spd", k_inverse_spd, 1, 1 },
  { "chol2inv", k_chol2inv, 1, 1 },
  { "log_determinant", k_log_determinant, 1, 1 },
  { "log_determinant_spd", k_log_determinant_spd, 1, 1 },
  { "determinant", k_determinant, 1, 1 },
  { "trace", k_trace, 1, 1 },
  { "quad_form", k_quad_form, 2, 2 },
  { "quad_form_sym", k_quad_form_sym, 2, 2 },
  { "quad_form_diag", k_quad_form_diag, 2, 2 },
  { "trace_quad_form", k_trace_quad_form, 2, 2 },
  { "trace_gen_quad_form", k_trace_gen_quad_form, 3, 3 },
  { "matrix_power", k_matrix_power, 2, 2 },
  { "eigenvalues_sym", k_eigenvalues_sym, 1, 1 },
  { "eigenvectors_sym", k_eigenvectors_sym, 1, 1 },
  { "eigendecompose_sym", k_eigendecompose_sym, 1, 1 },
  { NULL, NULL, 0, 0 },
};
