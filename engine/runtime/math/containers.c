/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Functions that build, reorder or cut containers: sorting and ranks,
 * append_array, rows, columns and blocks, to_array_2d, dims, the
 * linspaced, one-hot, zeros and ones families, uniform_simplex, quantile
 * and symmetrize_from_lower_tri. Autodiff values are rearranged by
 * gathering their variable ids, which records nothing on the tape.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/runtime-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static gboolean
is_int_array (const TildeValue *v)
{
  return v->kind == TILDE_VALUE_ARRAY && v->elem == TILDE_VALUE_INT;
}

static TildeValue
int_array (RtCtx *cx, gint32 n)
{
  TildeValue r = { .kind = TILDE_VALUE_ARRAY, .elem = TILDE_VALUE_INT, .rows = n, .cols = 1 };
  r.u.iv = tilde_arena_alloc (cx->arena, sizeof (int) * (gsize) MAX (n, 1));
  return r;
}

/* A flat value of kind rows x cols whose element k is element map[k] of
 * the flat value src (data copied, variables gathered). */
static TildeValue
gather (RtCtx *cx, const TildeValue *src, TildeValueKind kind, gint32 rows, gint32 cols,
        const gint32 *map)
{
  gint32 n = rows * cols;
  if (is_int_array (src) && kind == TILDE_VALUE_ARRAY)
    {
      TildeValue r = int_array (cx, n);
      for (gint32 k = 0; k < n; k++)
        r.u.iv[k] = src->u.iv[map[k]];
      return r;
    }
  TildeValue r = { .kind = (guint8) kind, .rows = rows, .cols = cols };
  if (kind == TILDE_VALUE_ARRAY)
    r.elem = TILDE_VALUE_REAL;
  if (src->ad)
    {
      r.ad = 1;
      r.idx = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (n, 1));
      for (gint32 k = 0; k < n; k++)
        r.idx[k] = tilde_value_var (src, map[k]);
      return r;
    }
  const double *x = rt_values (cx, src);
  r.u.d = rt_alloc_d (cx, (gsize) n);
  for (gint32 k = 0; k < n; k++)
    r.u.d[k] = x[map[k]];
  return r;
}

static gint32 *
index_map (RtCtx *cx, gint32 n)
{
  return tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (n, 1));
}

static void
check_index (RtCtx *cx, const char *what, int i, int lo, int hi)
{
  if (i < lo || i > hi)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: %s is %d, but must be in the interval [%d, %d]",
              cx->fn_name, what, i, lo, hi);
}

/* ---- sorting ---- */

typedef struct {
  const double *x;
  gboolean desc;
} SortCtx;

static int
cmp_index (const void *a, const void *b, void *data)
{
  const SortCtx *s = data;
  gint32 i = *(const gint32 *) a, j = *(const gint32 *) b;
  double x = s->x[i], y = s->x[j];
  int c = x < y ? -1 : x > y ? 1 : 0;
  if (s->desc)
    c = -c;
  /* stable: equal values keep their order */
  return c ? c : (i < j ? -1 : i > j);
}

/* the permutation that sorts v (0-based) */
static gint32 *
sort_order (RtCtx *cx, const TildeValue *v, gboolean desc, gint32 *n)
{
  *n = tilde_value_flat_size (v);
  const double *x = rt_values (cx, v);
  for (gint32 i = 0; i < *n; i++)
    if (isnan (x[i]))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: container argument[%d] is nan, but must be "
                "not nan!", cx->fn_name, i + 1);
  gint32 *order = index_map (cx, *n);
  for (gint32 i = 0; i < *n; i++)
    order[i] = i;
  SortCtx s = { x, desc };
  g_qsort_with_data (order, *n, sizeof (gint32), cmp_index, &s);
  return order;
}

static void
sort_values (RtCtx *cx, const TildeValue *v, gboolean desc, TildeValue *out)
{
  gint32 n;
  gint32 *order = sort_order (cx, v, desc, &n);
  *out = gather (cx, v, (TildeValueKind) v->kind, v->rows, v->cols, order);
}

static void
sort_indices (RtCtx *cx, const TildeValue *v, gboolean desc, TildeValue *out)
{
  gint32 n;
  gint32 *order = sort_order (cx, v, desc, &n);
  TildeValue r = int_array (cx, n);
  for (gint32 i = 0; i < n; i++)
    r.u.iv[i] = order[i] + 1;
  *out = r;
}

static void k_sort_asc (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { sort_values (cx, &a[0], FALSE, out); }
static void k_sort_desc (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { sort_values (cx, &a[0], TRUE, out); }
static void k_sort_indices_asc (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { sort_indices (cx, &a[0], FALSE, out); }
static void k_sort_indices_desc (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { sort_indices (cx, &a[0], TRUE, out); }

static void
k_rank (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  gint32 n = tilde_value_flat_size (&a[0]);
  int s = rt_int (cx, &a[1]);
  check_index (cx, "index", s, 1, n);
  const double *x = rt_values (cx, &a[0]);
  int count = 0;
  for (gint32 i = 0; i < n; i++)
    if (x[i] < x[s - 1])
      count++;
  *out = tilde_value_int (count);
}

static void
k_quantile (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  gint32 n;
  gint32 *order = sort_order (cx, &a[0], FALSE, &n);
  if (n == 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: container argument has size 0, but must have a "
              "non-zero size", cx->fn_name);
  const double *x = rt_values (cx, &a[0]);
  gint32 np = tilde_value_kind_is_scalar ((TildeValueKind) a[1].kind) ? 1 : tilde_value_flat_size (&a[1]);
  const double *p = rt_values (cx, &a[1]);
  TildeValue r = rt_new_data (cx, TILDE_VALUE_ARRAY, np, 1);
  for (gint32 k = 0; k < np; k++)
    {
      if (!(p[k] >= 0 && p[k] <= 1))
        rt_domain_error (cx, "p", p[k], "in the interval [0, 1]");
      /* Hyndman and Fan's type 7, R's default */
      double h = (n - 1) * p[k], lo = floor (h);
      gint32 i = (gint32) lo;
      double v = x[order[i]];
      if (i + 1 < n)
        v += (h - lo) * (x[order[i + 1]] - x[order[i]]);
      r.u.d[k] = v;
    }
  *out = tilde_value_kind_is_scalar ((TildeValueKind) a[1].kind) ? tilde_value_real (r.u.d[0]) : r;
}

/* ---- arrays ---- */

static void
k_append_array (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  const TildeValue *x = &a[0], *y = &a[1];
  gint32 n = x->rows + y->rows;
  if (!tilde_value_is_flat (x) || !tilde_value_is_flat (y))
    {
      /* arrays of containers: the elements, in order */
      TildeValue r = *(x->rows ? x : y);
      r.rows = n;
      r.ad = 0;
      r.idx = NULL;
      r.u.elems = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * (gsize) MAX (n, 1));
      for (gint32 i = 0; i < x->rows; i++)
        r.u.elems[i] = x->u.elems[i];
      for (gint32 i = 0; i < y->rows; i++)
        r.u.elems[x->rows + i] = y->u.elems[i];
      *out = r;
      return;
    }
  if (is_int_array (x) && is_int_array (y))
    {
      TildeValue r = int_array (cx, n);
      memcpy (r.u.iv, x->u.iv, sizeof (int) * (gsize) x->rows);
      memcpy (r.u.iv + x->rows, y->u.iv, sizeof (int) * (gsize) y->rows);
      *out = r;
      return;
    }
  TildeValue r = { .kind = TILDE_VALUE_ARRAY, .elem = TILDE_VALUE_REAL, .rows = n, .cols = 1 };
  if (x->ad || y->ad)
    {
      r.ad = 1;
      r.idx = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (n, 1));
      for (int side = 0; side < 2; side++)
        {
          const TildeValue *v = side ? y : x;
          const double *vx = rt_values (cx, v);
          for (gint32 i = 0; i < v->rows; i++)
            r.idx[(side ? x->rows : 0) + i] = v->ad ? tilde_value_var (v, i)
              : ad_constant (cx->tape, vx[i]);
        }
    }
  else
    {
      r.u.d = rt_alloc_d (cx, (gsize) n);
      memcpy (r.u.d, rt_values (cx, x), sizeof (double) * (gsize) x->rows);
      memcpy (r.u.d + x->rows, rt_values (cx, y), sizeof (double) * (gsize) y->rows);
    }
  *out = r;
}

static void
k_to_array_2d (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  const TildeValue *m = &a[0];
  gint32 R = m->rows, C = m->cols;
  TildeValue r = { .kind = TILDE_VALUE_ARRAY, .elem = TILDE_VALUE_ARRAY, .rows = R, .cols = 1 };
  r.u.elems = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * (gsize) MAX (R, 1));
  for (gint32 i = 0; i < R; i++)
    {
      gint32 *map = index_map (cx, C);
      for (gint32 j = 0; j < C; j++)
        map[j] = i + j * R;
      r.u.elems[i] = gather (cx, m, TILDE_VALUE_ARRAY, C, 1, map);
    }
  *out = r;
}

static void
dims_into (const TildeValue *v, GArray *d)
{
  if (tilde_value_kind_is_scalar ((TildeValueKind) v->kind) || v->kind == TILDE_VALUE_TUPLE)
    return;
  if (tilde_value_kind_is_eigen ((TildeValueKind) v->kind))
    {
      int r = v->rows, c = v->cols;
      g_array_append_val (d, r);
      g_array_append_val (d, c);
      return;
    }
  int n = v->rows;
  g_array_append_val (d, n);
  if (tilde_value_is_flat (v) || n == 0)
    return;
  dims_into (&v->u.elems[0], d);
}

static void
k_dims (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  GArray *g = g_array_sized_new (FALSE, FALSE, sizeof (int), 10);
  dims_into (&a[0], g);
  TildeValue r = int_array (cx, (gint32) g->len);
  memcpy (r.u.iv, g->data, sizeof (int) * g->len);
  g_array_free (g, TRUE);
  *out = r;
}

/* ---- rows, columns and blocks ---- */

static void
block (RtCtx *cx, const TildeValue *m, int i, int j, int nr, int nc, TildeValueKind kind,
       TildeValue *out)
{
  check_index (cx, "row index", i, 1, m->rows);
  check_index (cx, "column index", j, 1, m->cols);
  if (nr < 0 || nc < 0 || i - 1 + nr > m->rows || j - 1 + nc > m->cols)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: a %d x %d block from (%d, %d) does not fit in a "
              "%d x %d matrix", cx->fn_name, nr, nc, i, j, m->rows, m->cols);
  gint32 *map = index_map (cx, nr * nc);
  for (int c = 0; c < nc; c++)
    for (int r = 0; r < nr; r++)
      map[r + c * nr] = (i - 1 + r) + (j - 1 + c) * m->rows;
  *out = gather (cx, m, kind, nr, nc, map);
}

static void
k_col (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  block (cx, &a[0], 1, rt_int (cx, &a[1]), a[0].rows, 1, TILDE_VALUE_VECTOR, out);
}

static void
k_row (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  block (cx, &a[0], rt_int (cx, &a[1]), 1, 1, a[0].cols, TILDE_VALUE_ROW_VECTOR, out);
}

static void
k_block (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  block (cx, &a[0], rt_int (cx, &a[1]), rt_int (cx, &a[2]), rt_int (cx, &a[3]), rt_int (cx, &a[4]),
         TILDE_VALUE_MATRIX, out);
}

static void
k_sub_col (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  block (cx, &a[0], rt_int (cx, &a[1]), rt_int (cx, &a[2]), rt_int (cx, &a[3]), 1,
         TILDE_VALUE_VECTOR, out);
}

static void
k_sub_row (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  block (cx, &a[0], rt_int (cx, &a[1]), rt_int (cx, &a[2]), 1, rt_int (cx, &a[3]),
         TILDE_VALUE_ROW_VECTOR, out);
}

static void
k_symmetrize_from_lower_tri (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  const TildeValue *m = &a[0];
  if (m->rows != m->cols)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: Expecting a square matrix; rows of m (%d) and "
              "columns of m (%d) must match in size", cx->fn_name, m->rows, m->cols);
  gint32 n = m->rows;
  gint32 *map = index_map (cx, n * n);
  for (gint32 j = 0; j < n; j++)
    for (gint32 i = 0; i < n; i++)
      map[i + j * n] = i >= j ? i + j * n : j + i * n;
  *out = gather (cx, m, TILDE_VALUE_MATRIX, n, n, map);
}

/* ---- sequences and constants ---- */

static int
size_arg (RtCtx *cx, const TildeValue *v)
{
  int n = rt_int (cx, v);
  if (n < 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: size is %d, but must be nonnegative!",
              cx->fn_name, n);
  return n;
}

static void
linspaced (RtCtx *cx, const TildeValue *a, TildeValueKind kind, TildeValue *out)
{
  int K = size_arg (cx, &a[0]);
  double lo = rt_scalar (cx, &a[1]), hi = rt_scalar (cx, &a[2]);
  if (!isfinite (lo))
    rt_domain_error (cx, "low", lo, "finite");
  if (!isfinite (hi))
    rt_domain_error (cx, "high", hi, "finite");
  if (!(hi >= lo))
    {
      char must[64];
      g_snprintf (must, sizeof must, "greater than or equal to %g", lo);
      rt_domain_error (cx, "high", hi, must);
    }
  TildeValue r = rt_new_data (cx, kind, kind == TILDE_VALUE_ROW_VECTOR ? 1 : K,
                              kind == TILDE_VALUE_ROW_VECTOR ? K : 1);
  for (int i = 0; i < K; i++)
    r.u.d[i] = K == 1 ? hi : lo + (hi - lo) * i / (K - 1);
  *out = r;
}

static void k_linspaced_array (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { linspaced (cx, a, TILDE_VALUE_ARRAY, out); }
static void k_linspaced_row_vector (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { linspaced (cx, a, TILDE_VALUE_ROW_VECTOR, out); }

static void
k_linspaced_int_array (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  int K = size_arg (cx, &a[0]), lo = rt_int (cx, &a[1]), hi = rt_int (cx, &a[2]);
  if (hi < lo)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: high is %d, but must be greater than or equal "
              "to %d!", cx->fn_name, hi, lo);
  TildeValue r = int_array (cx, K);
  /* evenly spaced integers: a step of (high - low) / (K - 1), rounded
   * down, when it is at least one (as Eigen's integer LinSpaced) */
  if (K == 1)
    r.u.iv[0] = hi;
  else if (K > 1)
    {
      int range = hi - lo;
      if (range + 1 >= K)
        {
          int step = range / (K - 1);
          for (int i = 0; i < K; i++)
            r.u.iv[i] = lo + i * step;
        }
      else
        {
          /* more values than integers: as many integers from low as
           * divide K, each repeated equally often */
          int n = range + 1;
          while (K % n)
            n--;
          for (int i = 0; i < K; i++)
            r.u.iv[i] = lo + i / (K / n);
        }
    }
  *out = r;
}

static void
one_hot (RtCtx *cx, const TildeValue *a, TildeValueKind kind, gboolean integer, TildeValue *out)
{
  int n = rt_int (cx, &a[0]), k = rt_int (cx, &a[1]);
  if (n < 1)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: size is %d, but must be positive!",
              cx->fn_name, n);
  check_index (cx, "k", k, 1, n);
  if (integer)
    {
      TildeValue r = int_array (cx, n);
      for (int i = 0; i < n; i++)
        r.u.iv[i] = i == k - 1;
      *out = r;
      return;
    }
  TildeValue r = rt_new_data (cx, kind, kind == TILDE_VALUE_ROW_VECTOR ? 1 : n,
                              kind == TILDE_VALUE_ROW_VECTOR ? n : 1);
  for (int i = 0; i < n; i++)
    r.u.d[i] = i == k - 1;
  *out = r;
}

static void k_one_hot_int_array (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { one_hot (cx, a, TILDE_VALUE_ARRAY, TRUE, out); }
static void k_one_hot_array (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { one_hot (cx, a, TILDE_VALUE_ARRAY, FALSE, out); }
static void k_one_hot_vector (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { one_hot (cx, a, TILDE_VALUE_VECTOR, FALSE, out); }
static void k_one_hot_row_vector (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { one_hot (cx, a, TILDE_VALUE_ROW_VECTOR, FALSE, out); }

static void
constant_array (RtCtx *cx, const TildeValue *a, double c, gboolean integer, TildeValue *out)
{
  int n = size_arg (cx, &a[0]);
  if (integer)
    {
      TildeValue r = int_array (cx, n);
      for (int i = 0; i < n; i++)
        r.u.iv[i] = (int) c;
      *out = r;
      return;
    }
  TildeValue r = rt_new_data (cx, TILDE_VALUE_ARRAY, n, 1);
  for (int i = 0; i < n; i++)
    r.u.d[i] = c;
  *out = r;
}

static void k_zeros_int_array (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { constant_array (cx, a, 0, TRUE, out); }
static void k_zeros_array (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { constant_array (cx, a, 0, FALSE, out); }
static void k_ones_int_array (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { constant_array (cx, a, 1, TRUE, out); }
static void k_ones_array (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { constant_array (cx, a, 1, FALSE, out); }

static void
k_uniform_simplex (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  int n = rt_int (cx, &a[0]);
  if (n < 1)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: size is %d, but must be positive!",
              cx->fn_name, n);
  TildeValue r = rt_new_data (cx, TILDE_VALUE_VECTOR, n, 1);
  for (int i = 0; i < n; i++)
    r.u.d[i] = 1.0 / n;
  *out = r;
}

#define E1(name) { #name, k_##name, 1, 1 }
#define E2(name) { #name, k_##name, 2, 2 }
#define E3(name) { #name, k_##name, 3, 3 }

const RtBuiltin rt_builtins_containers[] = {
  E1 (sort_asc), E1 (sort_desc), E1 (sort_indices_asc), E1 (sort_indices_desc), E2 (rank),
  E2 (quantile), E2 (append_array), E1 (to_array_2d), E1 (dims),
  E2 (col), E2 (row), { "block", k_block, 5, 5 }, { "sub_col", k_sub_col, 4, 4 },
  { "sub_row", k_sub_row, 4, 4 }, E1 (symmetrize_from_lower_tri),
  E3 (linspaced_array), E3 (linspaced_row_vector), E3 (linspaced_int_array),
  E2 (one_hot_int_array), E2 (one_hot_array), E2 (one_hot_vector), E2 (one_hot_row_vector),
  E1 (zeros_int_array), E1 (zeros_array), E1 (ones_int_array), E1 (ones_array),
  E1 (uniform_simplex),
  { NULL, NULL, 0, 0 },
};
