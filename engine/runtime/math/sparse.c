/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Compressed sparse row matrices as Stan writes them: w the non-zero
 * values row by row, v their column indices and u the index in w of each
 * row's first value (with u[m + 1] = size (w) + 1), all 1-based.
 * Extraction keeps the entries that are not zero, as Eigen's sparse view
 * of a dense matrix does; the product with a vector has its own node.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/runtime-private.h"

#include <string.h>

/* The positions (column-major) of the non-zero entries of a, row by row. */
static gint32 *
nonzeros (RtCtx *cx, const TildeValue *a, gint32 *count)
{
  const double *x = rt_values (cx, a);
  gint32 R = a->rows, C = a->cols, n = 0;
  gint32 *pos = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (R * C, 1));
  for (gint32 i = 0; i < R; i++)
    for (gint32 j = 0; j < C; j++)
      if (x[i + j * R] != 0)
        pos[n++] = i + j * R;
  *count = n;
  return pos;
}

static TildeValue
int_array (RtCtx *cx, gint32 n)
{
  TildeValue v = { .kind = TILDE_VALUE_ARRAY, .elem = TILDE_VALUE_INT, .rows = n, .cols = 1 };
  v.u.iv = tilde_arena_alloc (cx->arena, sizeof (int) * (gsize) MAX (n, 1));
  return v;
}

static TildeValue
extract_w (RtCtx *cx, const TildeValue *a)
{
  gint32 n;
  gint32 *pos = nonzeros (cx, a, &n);
  if (a->ad)
    {
      TildeValue w = { .kind = TILDE_VALUE_VECTOR, .ad = 1, .rows = n, .cols = 1 };
      w.idx = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (n, 1));
      for (gint32 k = 0; k < n; k++)
        w.idx[k] = tilde_value_var (a, pos[k]);
      return w;
    }
  TildeValue w = rt_new_data (cx, TILDE_VALUE_VECTOR, n, 1);
  for (gint32 k = 0; k < n; k++)
    w.u.d[k] = a->u.d[pos[k]];
  return w;
}

static TildeValue
extract_v (RtCtx *cx, const TildeValue *a)
{
  gint32 n;
  gint32 *pos = nonzeros (cx, a, &n);
  TildeValue v = int_array (cx, n);
  for (gint32 k = 0; k < n; k++)
    v.u.iv[k] = pos[k] / a->rows + 1;
  return v;
}

static TildeValue
extract_u (RtCtx *cx, const TildeValue *a)
{
  const double *x = rt_values (cx, a);
  gint32 R = a->rows, C = a->cols;
  TildeValue u = int_array (cx, R + 1);
  int k = 1;
  for (gint32 i = 0; i < R; i++)
    {
      u.u.iv[i] = k;
      for (gint32 j = 0; j < C; j++)
        k += x[i + j * R] != 0;
    }
  u.u.iv[R] = k;
  return u;
}

static void k_csr_extract_w (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { *out = extract_w (cx, &a[0]); }
static void k_csr_extract_v (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { *out = extract_v (cx, &a[0]); }
static void k_csr_extract_u (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { *out = extract_u (cx, &a[0]); }

static void
k_csr_extract (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  TildeValue r = { .kind = TILDE_VALUE_TUPLE, .rows = 3, .cols = 1 };
  r.u.elems = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * 3);
  r.u.elems[0] = extract_w (cx, &a[0]);
  r.u.elems[1] = extract_v (cx, &a[0]);
  r.u.elems[2] = extract_u (cx, &a[0]);
  *out = r;
}

/* Stan's checks of (m, n, w, v, u) against each other. */
static void
check_csr (RtCtx *cx, int m, int n, const TildeValue *w, const TildeValue *v, const TildeValue *u)
{
  if (m <= 0)
    rt_domain_error (cx, "m", m, "positive");
  if (n <= 0)
    rt_domain_error (cx, "n", n, "positive");
  if (u->rows != m + 1)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: m (%d) and u (%d) must match in size",
              cx->fn_name, m, u->rows - 1);
  gint32 nw = tilde_value_flat_size (w);
  if (nw != v->rows)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: w (%d) and v (%d) must match in size",
              cx->fn_name, nw, v->rows);
  if (u->u.iv[m] - 1 != v->rows)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: u/z (%d) and v (%d) must match in size",
              cx->fn_name, u->u.iv[m] - 1, v->rows);
  for (int i = 0; i < m; i++)
    if (u->u.iv[i] < 1 || u->u.iv[i] > u->u.iv[i + 1])
      rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: u[%d] is %d, but must be between 1 and u[%d] "
                "= %d", cx->fn_name, i + 1, u->u.iv[i], i + 2, u->u.iv[i + 1]);
  for (gint32 k = 0; k < v->rows; k++)
    if (v->u.iv[k] < 1 || v->u.iv[k] > n)
      rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: v[] is %d, but must be in the interval [1, %d]",
                cx->fn_name, v->u.iv[k], n);
}

static void
k_csr_to_dense_matrix (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  int m = rt_int (cx, &a[0]), n = rt_int (cx, &a[1]);
  const TildeValue *w = &a[2], *v = &a[3], *u = &a[4];
  check_csr (cx, m, n, w, v, u);
  if (!w->ad)
    {
      TildeValue r = rt_new_data (cx, TILDE_VALUE_MATRIX, m, n);
      memset (r.u.d, 0, sizeof (double) * (gsize) (m * n));
      const double *x = rt_values (cx, w);
      for (int i = 0; i < m; i++)
        for (int k = u->u.iv[i] - 1; k < u->u.iv[i + 1] - 1; k++)
          r.u.d[i + (v->u.iv[k] - 1) * m] = x[k];
      *out = r;
      return;
    }
  TildeValue r = { .kind = TILDE_VALUE_MATRIX, .ad = 1, .rows = m, .cols = n };
  r.idx = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) (m * n));
  TildeValue zero = tilde_value_real (0);
  gint32 z = rt_promote_ad (cx, &zero).start;
  for (int i = 0; i < m * n; i++)
    r.idx[i] = z;
  for (int i = 0; i < m; i++)
    for (int k = u->u.iv[i] - 1; k < u->u.iv[i + 1] - 1; k++)
      r.idx[i + (v->u.iv[k] - 1) * m] = tilde_value_var (w, k);
  *out = r;
}

typedef struct {
  int m;
  gint32 out;
  const int *v, *u;
  const double *w, *b;      /* values */
  gboolean w_ad, b_ad;
  gint32 w_start, b_start;
  const gint32 *w_idx, *b_idx;
} CsrTimes;

static void
csr_times_backward (AdTape *t, const void *p)
{
  const CsrTimes *c = p;
  for (int i = 0; i < c->m; i++)
    {
      double g = t->adj[c->out + i];
      if (g == 0)
        continue;
      for (int k = c->u[i] - 1; k < c->u[i + 1] - 1; k++)
        {
          int j = c->v[k] - 1;
          if (c->w_ad)
            t->adj[c->w_idx ? c->w_idx[k] : c->w_start + k] += g * c->b[j];
          if (c->b_ad)
            t->adj[c->b_idx ? c->b_idx[j] : c->b_start + j] += g * c->w[k];
        }
    }
}

static void
k_csr_matrix_times_vector (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  int m = rt_int (cx, &a[0]), n = rt_int (cx, &a[1]);
  const TildeValue *w = &a[2], *v = &a[3], *u = &a[4], *b = &a[5];
  check_csr (cx, m, n, w, v, u);
  if (tilde_value_flat_size (b) != n)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: n (%d) and b (%d) must match in size",
              cx->fn_name, n, tilde_value_flat_size (b));
  const double *wx = rt_stable_values (cx, w), *bx = rt_stable_values (cx, b);
  gboolean ad = w->ad || b->ad;
  TildeValue r = ad ? rt_new_ad (cx, TILDE_VALUE_VECTOR, m, 1)
    : rt_new_data (cx, TILDE_VALUE_VECTOR, m, 1);
  double *y = ad ? cx->tape->val + r.start : r.u.d;
  for (int i = 0; i < m; i++)
    {
      double s = 0;
      for (int k = u->u.iv[i] - 1; k < u->u.iv[i + 1] - 1; k++)
        s += wx[k] * bx[v->u.iv[k] - 1];
      y[i] = s;
    }
  if (ad)
    {
      CsrTimes *c = tilde_arena_alloc (cx->tape->arena, sizeof *c);
      c->m = m;
      c->out = r.start;
      c->v = tilde_arena_memdup (cx->tape->arena, v->u.iv, sizeof (int) * (gsize) MAX (v->rows, 1));
      c->u = tilde_arena_memdup (cx->tape->arena, u->u.iv, sizeof (int) * (gsize) (m + 1));
      c->w = wx;
      c->b = bx;
      c->w_ad = w->ad;
      c->b_ad = b->ad;
      c->w_start = w->start;
      c->b_start = b->start;
      c->w_idx = w->idx;
      c->b_idx = b->idx;
      ad_push (cx->tape, csr_times_backward, c);
    }
  *out = r;
}

const RtBuiltin rt_builtins_sparse[] = {
  { "csr_extract_w", k_csr_extract_w, 1, 1 },
  { "csr_extract_v", k_csr_extract_v, 1, 1 },
  { "csr_extract_u", k_csr_extract_u, 1, 1 },
  { "csr_extract", k_csr_extract, 1, 1 },
  { "csr_to_dense_matrix", k_csr_to_dense_matrix, 5, 5 },
  { "csr_matrix_times_vector", k_csr_matrix_times_vector, 6, 6 },
  { NULL, NULL, 0, 0 },
};
