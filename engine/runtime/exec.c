/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Running the closures: expressions, indexing, assignment with Stan's value
 * semantics, target increments, parameter reads and output writes.
 *
 * Assignment copies what it stores, except autodiff ranges: variables are
 * immutable once recorded, so a contiguous range can be shared, and writing
 * one element first gives the slot its own list of ids.
 */
#define _GNU_SOURCE           /* pthread_getattr_np */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/exec-private.h"
#include "runtime/math/linalg.h"
#include "runtime/math/complex.h"

#include <pthread.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CX (&ev->cx)

void
rt_eval (Ev *ev, const Ex *e, TildeValue *out)
{
  e->fn (ev, e, out);
}

/* ---- simple expressions ---- */

void
rt_ex_const (Ev *ev, const Ex *e, TildeValue *out)
{
  *out = e->k;
}

void
rt_ex_var (Ev *ev, const Ex *e, TildeValue *out)
{
  *out = ev->slots[e->slot];
  out->view = (guint8) e->op;
}

void
rt_ex_cached (Ev *ev, const Ex *e, TildeValue *out)
{
  if (e->ready)
    *out = e->k;
  else
    rt_eval (ev, e->kids[0], out);
}

void
rt_ex_flag_tp (Ev *ev, const Ex *e, TildeValue *out)
{
  *out = tilde_value_int (ev->emit_tp);
}

void
rt_ex_flag_gq (Ev *ev, const Ex *e, TildeValue *out)
{
  *out = tilde_value_int (ev->emit_gq);
}

#define MAX_STACK_ARGS 8

void
rt_ex_call (Ev *ev, const Ex *e, TildeValue *out)
{
  TildeValue stack[MAX_STACK_ARGS];
  TildeValue *args = e->n_kids <= MAX_STACK_ARGS ? stack
    : tilde_arena_alloc (CX->arena, sizeof (TildeValue) * (gsize) e->n_kids);
  for (int i = 0; i < e->n_kids; i++)
    rt_eval (ev, e->kids[i], &args[i]);
  CX->fn_name = e->name;
  CX->drop = e->drop && CX->propto;
  e->builtin->fn (CX, e->n_kids, args, out);
  CX->drop = FALSE;
}

static gboolean
truth (Ev *ev, const TildeValue *v)
{
  return v->kind == TILDE_VALUE_INT ? v->u.i != 0 : rt_scalar (CX, v) != 0;
}

void
rt_ex_ternary (Ev *ev, const Ex *e, TildeValue *out)
{
  TildeValue c;
  rt_eval (ev, e->kids[0], &c);
  rt_eval (ev, e->kids[truth (ev, &c) ? 1 : 2], out);
}

void
rt_ex_and (Ev *ev, const Ex *e, TildeValue *out)
{
  TildeValue v;
  rt_eval (ev, e->kids[0], &v);
  if (!truth (ev, &v))
    {
      *out = tilde_value_int (0);
      return;
    }
  rt_eval (ev, e->kids[1], &v);
  *out = tilde_value_int (truth (ev, &v));
}

void
rt_ex_or (Ev *ev, const Ex *e, TildeValue *out)
{
  TildeValue v;
  rt_eval (ev, e->kids[0], &v);
  if (truth (ev, &v))
    {
      *out = tilde_value_int (1);
      return;
    }
  rt_eval (ev, e->kids[1], &v);
  *out = tilde_value_int (truth (ev, &v));
}

void
rt_ex_proj (Ev *ev, const Ex *e, TildeValue *out)
{
  TildeValue t;
  rt_eval (ev, e->kids[0], &t);
  *out = t.u.elems[e->tuple_slot - 1];
}

void
rt_ex_length (Ev *ev, const Ex *e, TildeValue *out)
{
  TildeValue v;
  rt_eval (ev, e->kids[0], &v);
  *out = tilde_value_int (v.kind == TILDE_VALUE_ARRAY || v.kind == TILDE_VALUE_MATRIX
                          || v.kind == TILDE_VALUE_VECTOR ? v.rows
                          : v.kind == TILDE_VALUE_ROW_VECTOR ? v.cols : 1);
}

/* int -> real, real -> complex, through containers */
static TildeValue
promote (Ev *ev, const TildeValue *v, const TildeType *to)
{
  TildeTypeKind k = tilde_type_kind (to);
  if (k == TILDE_TYPE_REAL && v->kind == TILDE_VALUE_INT)
    return tilde_value_real (v->u.i);
  TildeTypeKind base = tilde_type_kind (tilde_type_array_base (to));
  if ((base == TILDE_TYPE_COMPLEX || base == TILDE_TYPE_COMPLEX_VECTOR
       || base == TILDE_TYPE_COMPLEX_ROW_VECTOR || base == TILDE_TYPE_COMPLEX_MATRIX)
      && !rt_is_complex (v))
    return rt_complex_promote (CX, v);
  if (k == TILDE_TYPE_ARRAY && v->kind == TILDE_VALUE_ARRAY)
    {
      const TildeType *elem = tilde_type_element (to);
      if (v->elem == TILDE_VALUE_INT && tilde_type_kind (elem) == TILDE_TYPE_REAL)
        {
          TildeValue r = *v;
          r.elem = TILDE_VALUE_REAL;
          r.u.d = (double *) rt_values (CX, v);
          return r;
        }
      if (!tilde_value_is_flat (v))
        {
          TildeValue r = *v;
          r.u.elems = tilde_arena_alloc (CX->arena, sizeof (TildeValue) * (gsize) MAX (v->rows, 1));
          for (gint32 i = 0; i < v->rows; i++)
            r.u.elems[i] = promote (ev, &v->u.elems[i], elem);
          if (v->rows > 0)
            r.elem = r.u.elems[0].kind;
          return r;
        }
    }
  return *v;
}

void
rt_ex_promote (Ev *ev, const Ex *e, TildeValue *out)
{
  TildeValue v;
  rt_eval (ev, e->kids[0], &v);
  *out = promote (ev, &v, e->type);
}

void
rt_ex_copy (Ev *ev, const Ex *e, TildeValue *out)
{
  TildeValue v;
  rt_eval (ev, e->kids[0], &v);
  *out = tilde_value_copy (CX->arena, &v);
}

/* ---- building arrays, row vectors and tuples ---- */

void
rt_ex_make_array (Ev *ev, const Ex *e, TildeValue *out)
{
  int n = e->n_kids;
  TildeValue *vals = tilde_arena_alloc (CX->arena, sizeof (TildeValue) * (gsize) MAX (n, 1));
  gboolean all_int = TRUE, scalars = TRUE, ad = FALSE;
  for (int i = 0; i < n; i++)
    {
      rt_eval (ev, e->kids[i], &vals[i]);
      all_int &= vals[i].kind == TILDE_VALUE_INT;
      scalars &= vals[i].kind == TILDE_VALUE_INT || vals[i].kind == TILDE_VALUE_REAL;
      ad |= vals[i].ad;
    }
  TildeValue r = { .kind = TILDE_VALUE_ARRAY, .rows = n, .cols = 1 };
  if (!scalars)
    {
      r.elem = n > 0 ? vals[0].kind : TILDE_VALUE_REAL;
      r.u.elems = vals;
    }
  else if (all_int && n > 0)
    {
      r.elem = TILDE_VALUE_INT;
      r.u.iv = tilde_arena_alloc (CX->arena, sizeof (int) * (gsize) n);
      for (int i = 0; i < n; i++)
        r.u.iv[i] = vals[i].u.i;
    }
  else
    {
      r.elem = TILDE_VALUE_REAL;
      if (ad)
        {
          r.ad = 1;
          r.idx = tilde_arena_alloc (CX->arena, sizeof (gint32) * (gsize) MAX (n, 1));
          for (int i = 0; i < n; i++)
            r.idx[i] = vals[i].ad ? vals[i].start : rt_promote_ad (CX, &vals[i]).start;
        }
      else
        {
          r.u.d = rt_alloc_d (CX, (gsize) n);
          for (int i = 0; i < n; i++)
            r.u.d[i] = rt_scalar (CX, &vals[i]);
        }
    }
  *out = r;
}

static TildeValue make_row_of (Ev *ev, const TildeValue *vals, int n);

void
rt_ex_make_row (Ev *ev, const Ex *e, TildeValue *out)
{
  int n = e->n_kids;
  TildeValue *vals = tilde_arena_alloc (CX->arena, sizeof (TildeValue) * (gsize) MAX (n, 1));
  for (int i = 0; i < n; i++)
    {
      rt_eval (ev, e->kids[i], &vals[i]);
      if (vals[i].kind == TILDE_VALUE_COMPLEX || vals[i].kind == TILDE_VALUE_COMPLEX_ROW_VECTOR)
        {
          /* the rest as complex too: each part a real row (or matrix) */
          TildeValue *re = tilde_arena_alloc (CX->arena, sizeof (TildeValue) * (gsize) n);
          TildeValue *im = tilde_arena_alloc (CX->arena, sizeof (TildeValue) * (gsize) n);
          for (int j = 0; j < n; j++)
            {
              if (j > i)
                rt_eval (ev, e->kids[j], &vals[j]);
              rt_complex_split (CX, &vals[j], &re[j], &im[j]);
            }
          TildeValue r = make_row_of (ev, re, n), m = make_row_of (ev, im, n);
          *out = rt_complex_join (CX, &r, &m);
          return;
        }
    }
  *out = make_row_of (ev, vals, n);
}

/* [v1, ..., vn] of real scalars (a row vector) or row vectors (a matrix). */
static TildeValue
make_row_of (Ev *ev, const TildeValue *vals, int n)
{
  gboolean ad = FALSE, rows = FALSE;
  for (int i = 0; i < n; i++)
    {
      ad |= vals[i].ad;
      rows |= vals[i].kind == TILDE_VALUE_ROW_VECTOR;
    }
  if (!rows)
    {
      TildeValue r = { .kind = TILDE_VALUE_ROW_VECTOR, .rows = 1, .cols = n, .ad = ad };
      if (ad)
        {
          r.idx = tilde_arena_alloc (CX->arena, sizeof (gint32) * (gsize) MAX (n, 1));
          for (int i = 0; i < n; i++)
            r.idx[i] = vals[i].ad ? vals[i].start : rt_promote_ad (CX, &vals[i]).start;
        }
      else
        {
          r.u.d = rt_alloc_d (CX, (gsize) n);
          for (int i = 0; i < n; i++)
            r.u.d[i] = rt_scalar (CX, &vals[i]);
        }
      return r;
    }
  /* rows of a matrix */
  gint32 C = n > 0 ? vals[0].cols : 0;
  TildeValue r = { .kind = TILDE_VALUE_MATRIX, .rows = n, .cols = C, .ad = ad };
  if (ad)
    r.idx = tilde_arena_alloc (CX->arena, sizeof (gint32) * (gsize) MAX (n * C, 1));
  else
    r.u.d = rt_alloc_d (CX, (gsize) (n * C));
  for (int i = 0; i < n; i++)
    {
      rt_check_size (CX, "matrix rows", vals[i].cols, C);
      TildeValue row = ad ? rt_promote_ad (CX, &vals[i]) : vals[i];
      for (gint32 j = 0; j < C; j++)
        {
          if (ad)
            r.idx[i + j * n] = tilde_value_var (&row, j);
          else
            r.u.d[i + j * n] = row.u.d[j];
        }
    }
  return r;
}

void
rt_ex_make_tuple (Ev *ev, const Ex *e, TildeValue *out)
{
  TildeValue r = { .kind = TILDE_VALUE_TUPLE, .rows = e->n_kids, .cols = 1 };
  r.u.elems = tilde_arena_alloc (CX->arena, sizeof (TildeValue) * (gsize) MAX (e->n_kids, 1));
  for (int i = 0; i < e->n_kids; i++)
    rt_eval (ev, e->kids[i], &r.u.elems[i]);
  *out = r;
}

/* ---- indexing ---- */

typedef struct {
  MirIndexKind kind;
  int          i;        /* SINGLE (1-based) */
  int          lo, hi;   /* UPFROM, BETWEEN (1-based, inclusive) */
  const int   *multi;
  int          n_multi;
} Ix;

static void
eval_indices (Ev *ev, Ex *const *kids, const MirIndexKind *kinds, int n, Ix *ix)
{
  for (int k = 0; k < n; k++)
    {
      TildeValue a, b;
      ix[k].kind = kinds[k];
      switch (kinds[k])
        {
        case MIR_INDEX_SINGLE:
          rt_eval (ev, kids[2 * k], &a);
          ix[k].i = rt_int (CX, &a);
          break;
        case MIR_INDEX_UPFROM:
          rt_eval (ev, kids[2 * k], &a);
          ix[k].lo = rt_int (CX, &a);
          break;
        case MIR_INDEX_BETWEEN:
          rt_eval (ev, kids[2 * k], &a);
          rt_eval (ev, kids[2 * k + 1], &b);
          ix[k].lo = rt_int (CX, &a);
          ix[k].hi = rt_int (CX, &b);
          break;
        case MIR_INDEX_MULTI:
          rt_eval (ev, kids[2 * k], &a);
          ix[k].multi = a.u.iv;
          ix[k].n_multi = a.rows;
          break;
        case MIR_INDEX_ALL:
          break;
        }
    }
}

static void
out_of_range (Ev *ev, int i, int len)
{
  rt_raise (CX, TILDE_MODEL_ERROR_INDEX, "index %d out of range; expecting index to be between "
            "1 and %d", i, len);
}

/* The 0-based position a single index selects in a dimension of length
 * len, checked as positions checks it, without the arena: element reads
 * and writes in loops (transformed data's, a million rows long) would
 * otherwise grow it by a few ints each. */
static inline int
single_position (Ev *ev, const Ix *ix, int len)
{
  if (ix->i < 1 || ix->i > len)
    out_of_range (ev, ix->i, len);
  return ix->i - 1;
}

/* The 0-based positions an index selects in a dimension of length len. */
static int *
positions (Ev *ev, const Ix *ix, int len, int *n)
{
  int *p;
  switch (ix->kind)
    {
    case MIR_INDEX_SINGLE:
      p = tilde_arena_alloc (CX->arena, sizeof (int));
      p[0] = single_position (ev, ix, len);
      *n = 1;
      return p;
    case MIR_INDEX_MULTI:
      p = tilde_arena_alloc (CX->arena, sizeof (int) * (gsize) MAX (ix->n_multi, 1));
      for (int k = 0; k < ix->n_multi; k++)
        {
          if (ix->multi[k] < 1 || ix->multi[k] > len)
            out_of_range (ev, ix->multi[k], len);
          p[k] = ix->multi[k] - 1;
        }
      *n = ix->n_multi;
      return p;
    default:
      {
        int lo = ix->kind == MIR_INDEX_ALL ? 1 : ix->lo;
        int hi = ix->kind == MIR_INDEX_BETWEEN ? ix->hi : len;
        int count = hi >= lo ? hi - lo + 1 : 0;
        if (count > 0 && (lo < 1 || lo > len))
          out_of_range (ev, lo, len);
        if (count > 0 && (hi < 1 || hi > len))
          out_of_range (ev, hi, len);
        p = tilde_arena_alloc (CX->arena, sizeof (int) * (gsize) MAX (count, 1));
        for (int k = 0; k < count; k++)
          p[k] = lo - 1 + k;
        *n = count;
        return p;
      }
    }
}

static TildeValue
scalar_at (const TildeValue *v, gint32 pos)
{
  if (v->ad)
    return rt_ad_scalar (tilde_value_var (v, pos));
  if (v->kind == TILDE_VALUE_ARRAY && v->elem == TILDE_VALUE_INT)
    return tilde_value_int (v->u.iv[pos]);
  if (v->kind == TILDE_VALUE_COMPLEX_VECTOR || v->kind == TILDE_VALUE_COMPLEX_ROW_VECTOR
      || v->kind == TILDE_VALUE_COMPLEX_MATRIX)
    {
      TildeValue z = { .kind = TILDE_VALUE_COMPLEX, .rows = 1, .cols = 1 };
      z.u.z[0] = v->u.d[2 * pos];
      z.u.z[1] = v->u.d[2 * pos + 1];
      return z;
    }
  return tilde_value_real (v->u.d[pos]);
}

/* Element pos of a vector or matrix, complex ones included. */
static TildeValue
element_at (Ev *ev, const TildeValue *v, gint32 pos)
{
  if (v->kind >= TILDE_VALUE_COMPLEX_VECTOR && v->kind <= TILDE_VALUE_COMPLEX_MATRIX)
    return rt_complex_element (CX, v, pos);
  return scalar_at (v, pos);
}

/* A flat value of `kind` holding the elements of v at `pos`. */
static TildeValue
gather (Ev *ev, const TildeValue *v, const gint32 *pos, gint32 n, TildeValueKind kind,
        gint32 rows, gint32 cols)
{
  if (v->kind >= TILDE_VALUE_COMPLEX_VECTOR && v->kind <= TILDE_VALUE_COMPLEX_MATRIX)
    return rt_complex_gather (CX, v, pos, n, kind, rows, cols);
  TildeValue r = { .kind = (guint8) kind, .elem = v->elem, .ad = v->ad, .rows = rows, .cols = cols };
  if (v->ad)
    {
      r.idx = tilde_arena_alloc (CX->arena, sizeof (gint32) * (gsize) MAX (n, 1));
      for (gint32 k = 0; k < n; k++)
        r.idx[k] = tilde_value_var (v, pos[k]);
    }
  else if (v->kind == TILDE_VALUE_ARRAY && v->elem == TILDE_VALUE_INT)
    {
      r.u.iv = tilde_arena_alloc (CX->arena, sizeof (int) * (gsize) MAX (n, 1));
      for (gint32 k = 0; k < n; k++)
        r.u.iv[k] = v->u.iv[pos[k]];
    }
  else
    {
      gboolean cplx = v->kind >= TILDE_VALUE_COMPLEX_VECTOR && v->kind <= TILDE_VALUE_COMPLEX_MATRIX;
      r.u.d = rt_alloc_d (CX, (gsize) n * (cplx ? 2 : 1));
      for (gint32 k = 0; k < n; k++)
        {
          if (cplx)
            {
              r.u.d[2 * k] = v->u.d[2 * pos[k]];
              r.u.d[2 * k + 1] = v->u.d[2 * pos[k] + 1];
            }
          else
            r.u.d[k] = v->u.d[pos[k]];
        }
    }
  return r;
}

static TildeValueKind
scalar_kind_of_row (TildeValueKind k, gboolean column)
{
  gboolean cplx = k >= TILDE_VALUE_COMPLEX_VECTOR;
  if (column)
    return cplx ? TILDE_VALUE_COMPLEX_VECTOR : TILDE_VALUE_VECTOR;
  return cplx ? TILDE_VALUE_COMPLEX_ROW_VECTOR : TILDE_VALUE_ROW_VECTOR;
}

static TildeValue
index_value (Ev *ev, const TildeValue *v, const Ix *ix, int n)
{
  if (n == 0)
    return *v;
  if (v->kind == TILDE_VALUE_ARRAY)
    {
      if (ix[0].kind == MIR_INDEX_SINGLE)
        {
          gint32 p = single_position (ev, &ix[0], v->rows);
          if (tilde_value_is_flat (v))
            return scalar_at (v, p);
          return index_value (ev, &v->u.elems[p], ix + 1, n - 1);
        }
      int count;
      int *p = positions (ev, &ix[0], v->rows, &count);
      if (tilde_value_is_flat (v))
        return gather (ev, v, p, count, TILDE_VALUE_ARRAY, count, 1);
      TildeValue r = *v;
      r.rows = count;
      r.u.elems = tilde_arena_alloc (CX->arena, sizeof (TildeValue) * (gsize) MAX (count, 1));
      for (int k = 0; k < count; k++)
        r.u.elems[k] = index_value (ev, &v->u.elems[p[k]], ix + 1, n - 1);
      if (count > 0)
        r.elem = r.u.elems[0].kind;
      return r;
    }
  if (v->kind == TILDE_VALUE_VECTOR || v->kind == TILDE_VALUE_ROW_VECTOR
      || v->kind == TILDE_VALUE_COMPLEX_VECTOR || v->kind == TILDE_VALUE_COMPLEX_ROW_VECTOR)
    {
      gint32 len = v->rows * v->cols;
      if (ix[0].kind == MIR_INDEX_SINGLE)
        {
          return element_at (ev, v, single_position (ev, &ix[0], len));
        }
      int count;
      int *p = positions (ev, &ix[0], len, &count);
      gboolean col = v->kind == TILDE_VALUE_VECTOR || v->kind == TILDE_VALUE_COMPLEX_VECTOR;
      return gather (ev, v, p, count, (TildeValueKind) v->kind, col ? count : 1, col ? 1 : count);
    }
  if (v->kind == TILDE_VALUE_MATRIX || v->kind == TILDE_VALUE_COMPLEX_MATRIX)
    {
      gint32 R = v->rows, C = v->cols;
      int nr, nc;
      if (n > 1 && ix[0].kind == MIR_INDEX_SINGLE && ix[1].kind == MIR_INDEX_SINGLE)
        {
          int i = single_position (ev, &ix[0], R);
          return element_at (ev, v, i + single_position (ev, &ix[1], C) * R);
        }
      int *pr = positions (ev, &ix[0], R, &nr);
      Ix all = { .kind = MIR_INDEX_ALL };
      const Ix *cix = n > 1 ? &ix[1] : &all;
      int *pc = positions (ev, cix, C, &nc);
      gboolean single_r = ix[0].kind == MIR_INDEX_SINGLE;
      gboolean single_c = n > 1 && ix[1].kind == MIR_INDEX_SINGLE;
      if (single_r && single_c)
        return element_at (ev, v, pr[0] + pc[0] * R);
      gint32 *pos = tilde_arena_alloc (CX->arena, sizeof (gint32) * (gsize) MAX (nr * nc, 1));
      for (int j = 0; j < nc; j++)
        for (int i = 0; i < nr; i++)
          pos[i + j * nr] = pr[i] + pc[j] * R;
      if (single_r)
        return gather (ev, v, pos, nc, scalar_kind_of_row ((TildeValueKind) v->kind, FALSE), 1, nc);
      if (single_c)
        return gather (ev, v, pos, nr, scalar_kind_of_row ((TildeValueKind) v->kind, TRUE), nr, 1);
      return gather (ev, v, pos, nr * nc, (TildeValueKind) v->kind, nr, nc);
    }
  rt_raise (CX, TILDE_MODEL_ERROR_FATAL, "cannot index a %s",
            tilde_value_kind_name ((TildeValueKind) v->kind));
}

TildeValue
rt_index_range (Ev *ev, const TildeValue *v, int lo, int hi)
{
  Ix ix = { .kind = MIR_INDEX_BETWEEN, .lo = lo, .hi = hi };
  return index_value (ev, v, &ix, 1);
}

/* A vector, row vector or flat array of ints or reals (not complex). */
static inline gboolean
is_real_1d (const TildeValue *v)
{
  return v->kind == TILDE_VALUE_VECTOR || v->kind == TILDE_VALUE_ROW_VECTOR
    || (v->kind == TILDE_VALUE_ARRAY && tilde_value_is_flat (v));
}

/* Fails, as positions does, on the first of idx[0..n) outside 1..len. */
static void
check_positions (Ev *ev, const int *idx, gint32 n, gint32 len)
{
  int lo = 1, hi = 1;
  /* the common case in one pass without branches */
  for (gint32 k = 0; k < n; k++)
    {
      lo = MIN (lo, idx[k]);
      hi = MAX (hi, idx[k]);
    }
  if (lo >= 1 && hi <= len)
    return;
  for (gint32 k = 0; k < n; k++)
    if (idx[k] < 1 || idx[k] > len)
      out_of_range (ev, idx[k], len);
}

/* v[idx] of a one-dimensional v: what positions and gather do, without
 * their intermediate array. */
static TildeValue
gather_multi (Ev *ev, const TildeValue *v, const int *idx, gint32 n)
{
  gint32 len = tilde_value_flat_size (v);
  gboolean row = v->kind == TILDE_VALUE_ROW_VECTOR;
  TildeValue r = { .kind = v->kind, .elem = v->elem, .ad = v->ad, .rows = row ? 1 : n,
                   .cols = row ? n : 1 };
  gsize m = (gsize) MAX (n, 1);
  check_positions (ev, idx, n, len);
  if (v->ad)
    {
      gint32 *ids = r.idx = tilde_arena_alloc (CX->arena, sizeof (gint32) * m);
      if (v->idx)
        for (gint32 k = 0; k < n; k++)
          ids[k] = v->idx[idx[k] - 1];
      else
        for (gint32 k = 0; k < n; k++)
          ids[k] = v->start - 1 + idx[k];
    }
  else if (v->kind == TILDE_VALUE_ARRAY && v->elem == TILDE_VALUE_INT)
    {
      int *iv = r.u.iv = tilde_arena_alloc (CX->arena, sizeof (int) * m);
      for (gint32 k = 0; k < n; k++)
        iv[k] = v->u.iv[idx[k] - 1];
    }
  else
    {
      double *d = r.u.d = rt_alloc_d (CX, (gsize) n);
      for (gint32 k = 0; k < n; k++)
        d[k] = v->u.d[idx[k] - 1];
    }
  return r;
}

void
rt_ex_indexed (Ev *ev, const Ex *e, TildeValue *out)
{
  TildeValue base;
  Ix stack[4];
  Ix *ix = e->n_index <= 4 ? stack : tilde_arena_alloc (CX->arena, sizeof (Ix) * (gsize) e->n_index);
  rt_eval (ev, e->kids[0], &base);
  eval_indices (ev, e->kids + 1, e->index_kinds, e->n_index, ix);
  /* the common x[i] of a flat container without a trip through the general path */
  if (e->n_index == 1 && ix[0].kind == MIR_INDEX_SINGLE && is_real_1d (&base))
    {
      *out = scalar_at (&base, single_position (ev, &ix[0], tilde_value_flat_size (&base)));
      return;
    }
  if (e->n_index == 1 && ix[0].kind == MIR_INDEX_MULTI && is_real_1d (&base))
    {
      *out = gather_multi (ev, &base, ix[0].multi, ix[0].n_multi);
      return;
    }
  *out = index_value (ev, &base, ix, e->n_index);
}

/* ---- specialised scalar operations ---- */

void
rt_ex_int_arith (Ev *ev, const Ex *e, TildeValue *out)
{
  TildeValue a, b;
  rt_eval (ev, e->kids[0], &a);
  rt_eval (ev, e->kids[1], &b);
  gint64 r = e->op == 0 ? (gint64) a.u.i + b.u.i : e->op == 1 ? (gint64) a.u.i - b.u.i
    : (gint64) a.u.i * b.u.i;
  if (r > G_MAXINT || r < G_MININT)
    rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: integer overflow", e->name);
  tilde_value_set_int (out, (int) r);
}

void
rt_ex_real_arith (Ev *ev, const Ex *e, TildeValue *out)
{
  TildeValue a, b;
  rt_eval (ev, e->kids[0], &a);
  rt_eval (ev, e->kids[1], &b);
  rt_arith_scalar (CX, e->op, &a, &b, out);
}

void
rt_ex_compare (Ev *ev, const Ex *e, TildeValue *out)
{
  TildeValue a, b;
  rt_eval (ev, e->kids[0], &a);
  rt_eval (ev, e->kids[1], &b);
  double x = a.kind == TILDE_VALUE_INT ? a.u.i : rt_scalar (CX, &a);
  double y = b.kind == TILDE_VALUE_INT ? b.u.i : rt_scalar (CX, &b);
  int r;
  switch (e->op)
    {
    case 0: r = x < y; break;
    case 1: r = x <= y; break;
    case 2: r = x > y; break;
    case 3: r = x >= y; break;
    case 4: r = x == y; break;
    default: r = x != y; break;
    }
  tilde_value_set_int (out, r);
}

static inline double
real_value (Ev *ev, const TildeValue *v)
{
  return v->ad ? CX->tape->val[v->start] : v->kind == TILDE_VALUE_INT ? v->u.i : v->u.r;
}

/* fma of three scalars, the optimised form of a + b * c in loops: one node. */
void
rt_ex_fma3 (Ev *ev, const Ex *e, TildeValue *out)
{
  TildeValue a, b, c;
  rt_eval (ev, e->kids[0], &a);
  rt_eval (ev, e->kids[1], &b);
  rt_eval (ev, e->kids[2], &c);
  double x = real_value (ev, &a), y = real_value (ev, &b), z = real_value (ev, &c);
  double v = fma (x, y, z);
  /* the operands that are variables, with their partials y, x and 1 */
  gint32 id[3];
  double d[3];
  int n = 0;
  if (a.ad)
    id[n] = a.start, d[n++] = y;
  if (b.ad)
    id[n] = b.start, d[n++] = x;
  if (c.ad)
    id[n] = c.start, d[n++] = 1;
  gint32 r;
  switch (n)
    {
    case 0:
      tilde_value_set_real (out, v);
      return;
    case 1:
      r = ad_unary (CX->tape, v, id[0], d[0]);
      break;
    case 2:
      r = ad_binary (CX->tape, v, id[0], d[0], id[1], d[1]);
      break;
    default:
      r = ad_ternary (CX->tape, v, id[0], d[0], id[1], d[1], id[2], d[2]);
      break;
    }
  if (r < 0)
    rt_raise (CX, TILDE_MODEL_ERROR_FATAL, "the autodiff tape is full");
  tilde_value_set_var (out, r);
}

void
rt_ex_index1 (Ev *ev, const Ex *e, TildeValue *out)
{
  const TildeValue *base = &ev->slots[e->slot];
  TildeValue iv;
  rt_eval (ev, e->kids[0], &iv);
  int i = iv.u.i;
  gint32 len = tilde_value_flat_size (base);
  if (i < 1 || i > len)
    out_of_range (ev, i, len);
  gint32 p = i - 1;
  if (base->ad)
    tilde_value_set_var (out, tilde_value_var (base, p));
  else if (base->kind == TILDE_VALUE_ARRAY && base->elem == TILDE_VALUE_INT)
    tilde_value_set_int (out, base->u.iv[p]);
  else
    tilde_value_set_real (out, base->u.d[p]);
}

/* ---- assignment ---- */

/* A copy the slot may own and change in place. */
static TildeValue
own_copy (Ev *ev, const TildeValue *v)
{
  TildeValue c = *v;
  if (!tilde_value_kind_is_scalar ((TildeValueKind) v->kind) && !(v->ad && !v->idx))
    c = tilde_value_copy (CX->arena, v);
  c.view = 0;
  return c;
}

static void
check_same_size (Ev *ev, const char *name, const TildeValue *t, const TildeValue *v)
{
  if (tilde_value_kind_is_scalar ((TildeValueKind) t->kind) || t->kind == TILDE_VALUE_TUPLE)
    return;
  if (t->rows != v->rows || t->cols != v->cols)
    rt_raise (CX, TILDE_MODEL_ERROR_INDEX, "assign: size of left-hand side %s (%d x %d) and "
              "size of right-hand side (%d x %d) must match", name, t->rows, t->cols, v->rows,
              v->cols);
}

/* gives a flat slot value its own id list (promoting data to variables) */
static void
make_writable_ad (Ev *ev, TildeValue *t)
{
  gint32 n = tilde_value_flat_size (t);
  if (!t->ad)
    {
      TildeValue a = rt_promote_ad (CX, t);
      *t = a;
    }
  if (!t->idx)
    {
      gint32 *ids = tilde_arena_alloc (CX->arena, sizeof (gint32) * (gsize) MAX (n, 1));
      for (gint32 i = 0; i < n; i++)
        ids[i] = t->start + i;
      t->idx = ids;
    }
  if (t->kind == TILDE_VALUE_ARRAY)
    t->elem = TILDE_VALUE_REAL;
}

void
rt_write_vars (Ev *ev, TildeValue *t, gint32 pos, gint32 n, gint32 first)
{
  make_writable_ad (ev, t);
  for (gint32 k = 0; k < n; k++)
    t->idx[pos + k] = first + k;
}

static void
write_positions (Ev *ev, TildeValue *t, const gint32 *pos, gint32 n, const TildeValue *rhs)
{
  gboolean rscalar = tilde_value_kind_is_scalar ((TildeValueKind) rhs->kind);
  if (!rscalar)
    rt_check_size (CX, "assignment", tilde_value_flat_size (rhs), n);
  if (t->kind == TILDE_VALUE_ARRAY && t->elem == TILDE_VALUE_INT)
    {
      for (gint32 k = 0; k < n; k++)
        t->u.iv[pos[k]] = rscalar ? rhs->u.i : rhs->u.iv[k];
      return;
    }
  if (t->kind >= TILDE_VALUE_COMPLEX_VECTOR && t->kind <= TILDE_VALUE_COMPLEX_MATRIX)
    {
      rt_complex_write (CX, t, pos, n, rhs);
      return;
    }
  if (rhs->ad || t->ad)
    {
      make_writable_ad (ev, t);
      TildeValue r = rhs->ad ? *rhs : rt_promote_ad (CX, rhs);
      for (gint32 k = 0; k < n; k++)
        t->idx[pos[k]] = rscalar ? r.start : tilde_value_var (&r, k);
      return;
    }
  const double *x = rt_values (CX, rhs);
  for (gint32 k = 0; k < n; k++)
    t->u.d[pos[k]] = x[rscalar ? 0 : k];
}

static void
assign_into (Ev *ev, const char *name, TildeValue *t, const Ix *ix, int n, const TildeValue *rhs)
{
  if (n == 0)
    {
      check_same_size (ev, name, t, rhs);
      *t = own_copy (ev, rhs);
      return;
    }
  if (t->kind == TILDE_VALUE_ARRAY && !tilde_value_is_flat (t))
    {
      if (ix[0].kind == MIR_INDEX_SINGLE)
        {
          assign_into (ev, name, &t->u.elems[single_position (ev, &ix[0], t->rows)], ix + 1,
                       n - 1, rhs);
          return;
        }
      int count;
      int *p = positions (ev, &ix[0], t->rows, &count);
      rt_check_size (CX, "assignment", rhs->rows, count);
      for (int k = 0; k < count; k++)
        assign_into (ev, name, &t->u.elems[p[k]], ix + 1, n - 1, &rhs->u.elems[k]);
      return;
    }
  gint32 R = t->kind == TILDE_VALUE_ARRAY ? t->rows : t->rows;
  if (t->kind == TILDE_VALUE_MATRIX || t->kind == TILDE_VALUE_COMPLEX_MATRIX)
    {
      int nr, nc;
      if (n > 1 && ix[0].kind == MIR_INDEX_SINGLE && ix[1].kind == MIR_INDEX_SINGLE)
        {
          gint32 one = single_position (ev, &ix[0], R);
          one += single_position (ev, &ix[1], t->cols) * R;
          write_positions (ev, t, &one, 1, rhs);
          return;
        }
      int *pr = positions (ev, &ix[0], R, &nr);
      Ix all = { .kind = MIR_INDEX_ALL };
      int *pc = positions (ev, n > 1 ? &ix[1] : &all, t->cols, &nc);
      gint32 *pos = tilde_arena_alloc (CX->arena, sizeof (gint32) * (gsize) MAX (nr * nc, 1));
      for (int j = 0; j < nc; j++)
        for (int i = 0; i < nr; i++)
          pos[i + j * nr] = pr[i] + pc[j] * R;
      write_positions (ev, t, pos, nr * nc, rhs);
      return;
    }
  if (ix[0].kind == MIR_INDEX_SINGLE)
    {
      gint32 one = single_position (ev, &ix[0], tilde_value_flat_size (t));
      write_positions (ev, t, &one, 1, rhs);
      return;
    }
  int count;
  int *p = positions (ev, &ix[0], tilde_value_flat_size (t), &count);
  write_positions (ev, t, (const gint32 *) p, count, rhs);
}

/* The part of *t that the levels of an lvalue before its last select:
 * elements of arrays by single indices, then members of tuples. */
static TildeValue *
lvalue_member (Ev *ev, const St *s, TildeValue *t, const Ix *ix, int *used)
{
  int k = 0;
  for (int level = 0; level < s->n_lv_levels - 1; level++)
    {
      for (int j = 0; j < s->lv_count[level]; j++, k++)
        {
          if (t->kind != TILDE_VALUE_ARRAY || tilde_value_is_flat (t)
              || ix[k].kind != MIR_INDEX_SINGLE)
            rt_raise (CX, TILDE_MODEL_ERROR_INDEX, "assign: %s is not indexed by single "
                      "indices down to a tuple", s->name);
          t = &t->u.elems[single_position (ev, &ix[k], t->rows)];
        }
      int member = s->lv_proj[level + 1];
      if (t->kind != TILDE_VALUE_TUPLE || member < 1 || member > t->rows)
        rt_raise (CX, TILDE_MODEL_ERROR_INDEX, "assign: %s has no tuple member %d", s->name,
                  member);
      t = &t->u.elems[member - 1];
    }
  *used = k;
  return t;
}

/* An assignment to a part of a tuple: x.2 = v, x[i].1[j] = v. */
static Flow
assign_path (Ev *ev, const St *s, const TildeValue *v)
{
  Ix *ix = tilde_arena_alloc (CX->arena, sizeof (Ix) * (gsize) MAX (s->n_lv_index, 1));
  eval_indices (ev, s->lv_index, s->lv_kinds, s->n_lv_index, ix);
  int used;
  TildeValue *t = lvalue_member (ev, s, &ev->slots[s->slot], ix, &used);
  TildeValue r = *v;
  /* a real member stays real when an int is assigned */
  if (used == s->n_lv_index && t->kind == TILDE_VALUE_REAL && r.kind == TILDE_VALUE_INT)
    r = tilde_value_real (r.u.i);
  assign_into (ev, s->name, t, ix + used, s->n_lv_index - used, &r);
  return FLOW_NEXT;
}

Flow
rt_st_assign (Ev *ev, const St *s)
{
  TildeValue v;
  rt_eval (ev, s->e, &v);
  TildeValue *t = &ev->slots[s->slot];
  if (s->n_lv_levels)
    return assign_path (ev, s, &v);
  if (s->n_lv_index == 0)
    {
      if (tilde_value_kind_is_scalar ((TildeValueKind) v.kind))
        {
          /* keep a real slot real when an int is assigned */
          if (t->kind == TILDE_VALUE_REAL && v.kind == TILDE_VALUE_INT)
            v = tilde_value_real (v.u.i);
          *t = v;
          return FLOW_NEXT;
        }
      check_same_size (ev, s->name, t, &v);
      *t = own_copy (ev, &v);
      return FLOW_NEXT;
    }
  /* x[i] = scalar: the hot case in loops */
  if (s->n_lv_index == 1 && s->lv_kinds[0] == MIR_INDEX_SINGLE && is_real_1d (t)
      && tilde_value_kind_is_scalar ((TildeValueKind) v.kind))
    {
      TildeValue iv;
      rt_eval (ev, s->lv_index[0], &iv);
      int i = rt_int (CX, &iv);
      gint32 len = tilde_value_flat_size (t);
      if (i < 1 || i > len)
        out_of_range (ev, i, len);
      gint32 pos = i - 1;
      write_positions (ev, t, &pos, 1, &v);
      return FLOW_NEXT;
    }
  Ix stack[4];
  Ix *ix = s->n_lv_index <= 4 ? stack
    : tilde_arena_alloc (CX->arena, sizeof (Ix) * (gsize) s->n_lv_index);
  eval_indices (ev, s->lv_index, s->lv_kinds, s->n_lv_index, ix);
  assign_into (ev, s->name, t, ix, s->n_lv_index, &v);
  return FLOW_NEXT;
}

/* ---- declarations and data ---- */

static TildeValueKind
kind_of (const TildeType *t)
{
  switch (tilde_type_kind (t))
    {
    case TILDE_TYPE_INT: return TILDE_VALUE_INT;
    case TILDE_TYPE_REAL: return TILDE_VALUE_REAL;
    case TILDE_TYPE_COMPLEX: return TILDE_VALUE_COMPLEX;
    case TILDE_TYPE_VECTOR: return TILDE_VALUE_VECTOR;
    case TILDE_TYPE_ROW_VECTOR: return TILDE_VALUE_ROW_VECTOR;
    case TILDE_TYPE_MATRIX: return TILDE_VALUE_MATRIX;
    case TILDE_TYPE_COMPLEX_VECTOR: return TILDE_VALUE_COMPLEX_VECTOR;
    case TILDE_TYPE_COMPLEX_ROW_VECTOR: return TILDE_VALUE_COMPLEX_ROW_VECTOR;
    case TILDE_TYPE_COMPLEX_MATRIX: return TILDE_VALUE_COMPLEX_MATRIX;
    case TILDE_TYPE_ARRAY: return TILDE_VALUE_ARRAY;
    case TILDE_TYPE_TUPLE: return TILDE_VALUE_TUPLE;
    default: return TILDE_VALUE_REAL;
    }
}

static int
size_of (Ev *ev, const Ex *e)
{
  TildeValue v;
  rt_eval (ev, e, &v);
  return rt_int (CX, &v);
}

TildeShape *
rt_eval_sized (Ev *ev, const Sz *sz)
{
  TildeShape *s = tilde_shape_new (CX->arena, sz->kind, 1, 1);
  switch (sz->kind)
    {
    case TILDE_VALUE_VECTOR:
    case TILDE_VALUE_COMPLEX_VECTOR:
      s->rows = size_of (ev, sz->d1);
      break;
    case TILDE_VALUE_ROW_VECTOR:
    case TILDE_VALUE_COMPLEX_ROW_VECTOR:
      s->cols = size_of (ev, sz->d1);
      break;
    case TILDE_VALUE_MATRIX:
    case TILDE_VALUE_COMPLEX_MATRIX:
      s->rows = size_of (ev, sz->d1);
      s->cols = size_of (ev, sz->d2);
      break;
    case TILDE_VALUE_ARRAY:
      s->rows = size_of (ev, sz->d1);
      s->elem = rt_eval_sized (ev, sz->elem);
      break;
    case TILDE_VALUE_TUPLE:
      s->n_members = sz->n_members;
      s->members = tilde_arena_alloc (CX->arena, sizeof (TildeShape *) * MAX (sz->n_members, 1));
      for (guint i = 0; i < sz->n_members; i++)
        s->members[i] = rt_eval_sized (ev, sz->members[i]);
      break;
    default:
      break;
    }
  if (s->rows < 0 || s->cols < 0)
    rt_raise (CX, TILDE_MODEL_ERROR_INDEX, "negative size in a declaration");
  return s;
}

/* The rows and columns a vector, row vector or matrix is declared with. */
static void
declared_size (Ev *ev, const Sz *sz, gint32 *rows, gint32 *cols)
{
  *rows = sz->kind == TILDE_VALUE_ROW_VECTOR ? 1 : size_of (ev, sz->d1);
  *cols = sz->kind == TILDE_VALUE_VECTOR ? 1 : size_of (ev, sz->kind == TILDE_VALUE_MATRIX
                                                        ? sz->d2 : sz->d1);
  if (*rows < 0 || *cols < 0)
    rt_raise (CX, TILDE_MODEL_ERROR_INDEX, "negative size in a declaration");
}

Flow
rt_st_decl (Ev *ev, const St *s)
{
  TildeValue *t = &ev->slots[s->slot];
  const Sz *sz = s->sized;
  /* a vector or matrix with a value: only its size matters */
  if (sz && s->e && (sz->kind == TILDE_VALUE_VECTOR || sz->kind == TILDE_VALUE_ROW_VECTOR
                     || sz->kind == TILDE_VALUE_MATRIX))
    {
      TildeValue v, d = { .kind = sz->kind };
      declared_size (ev, sz, &d.rows, &d.cols);
      rt_eval (ev, s->e, &v);
      check_same_size (ev, s->name, &d, &v);
      *t = own_copy (ev, &v);
      return FLOW_NEXT;
    }
  if (sz && sz->kind == TILDE_VALUE_REAL)
    tilde_value_set_real (t, NAN);
  else if (sz && sz->kind == TILDE_VALUE_INT)
    tilde_value_set_int (t, G_MININT);
  else if (sz)
    *t = tilde_value_new_data (CX->arena, rt_eval_sized (ev, sz));
  else
    *t = tilde_value_int (0);
  if (s->e)
    {
      TildeValue v;
      rt_eval (ev, s->e, &v);
      if (t->kind == TILDE_VALUE_REAL && v.kind == TILDE_VALUE_INT)
        v = tilde_value_real (v.u.i);
      if (sz)
        check_same_size (ev, s->name, t, &v);
      *t = own_copy (ev, &v);
    }
  return FLOW_NEXT;
}

Flow
rt_st_decl_read (Ev *ev, const St *s)
{
  TildeValue v;
  rt_eval (ev, s->e, &v);
  v.view = 0;
  ev->slots[s->slot] = v;
  return FLOW_NEXT;
}

Flow
rt_st_decl_chol (Ev *ev, const St *s)
{
  TildeValue d = { .kind = TILDE_VALUE_MATRIX }, k, values, l;
  declared_size (ev, s->sized, &d.rows, &d.cols);
  rt_eval (ev, s->e, &k);
  /* the factor's values only: its derivatives are the density's business */
  values = k;
  if (k.ad)
    {
      values.ad = 0;
      values.idx = NULL;
      values.view = 0;
      values.u.d = (double *) rt_values (CX, &k);
    }
  CX->fn_name = "cholesky_decompose";
  s->builtin->fn (CX, 1, &values, &l);
  check_same_size (ev, s->name, &d, &l);
  ev->slots[s->slot] = own_copy (ev, &k);
  ev->slots[s->slot2] = l;
  return FLOW_NEXT;
}

Flow
rt_st_read_data (Ev *ev, const St *s)
{
  TildeShape *shape = rt_eval_sized (ev, s->sized);
  char *problem = NULL;
  TildeValue v;
  if (!ev->data || !tilde_json_data_read (ev->data, s->var_name, shape, CX->arena, &v, &problem))
    {
      if (!problem)
        problem = g_strdup_printf ("variable %s not found", s->var_name);
      CX->err_kind = TILDE_MODEL_ERROR_DATA;
      g_free (CX->err_msg);
      CX->err_msg = problem;
      longjmp (*CX->jmp, 1);
    }
  ev->slots[s->slot] = v;
  return FLOW_NEXT;
}

/* ---- parameters ---- */

static TildeShape *
param_shape (Ev *ev, const TildeType *type, const int *dims, int n, int *k)
{
  TildeValueKind kind = kind_of (type);
  TildeShape *s = tilde_shape_new (CX->arena, kind, 1, 1);
  switch (kind)
    {
    case TILDE_VALUE_ARRAY:
      s->rows = *k < n ? dims[(*k)++] : 0;
      s->elem = param_shape (ev, tilde_type_element (type), dims, n, k);
      break;
    case TILDE_VALUE_VECTOR:
    case TILDE_VALUE_COMPLEX_VECTOR:
      s->rows = *k < n ? dims[(*k)++] : 0;
      break;
    case TILDE_VALUE_ROW_VECTOR:
    case TILDE_VALUE_COMPLEX_ROW_VECTOR:
      s->cols = *k < n ? dims[(*k)++] : 0;
      break;
    case TILDE_VALUE_MATRIX:
    case TILDE_VALUE_COMPLEX_MATRIX:
      s->rows = *k < n ? dims[(*k)++] : 0;
      s->cols = *k < n ? dims[(*k)++] : 0;
      break;
    case TILDE_VALUE_REAL:
    case TILDE_VALUE_COMPLEX:
      break;
    default:
      rt_raise (CX, TILDE_MODEL_ERROR_FATAL, "parameters of type %s are not supported",
                tilde_value_kind_name (kind));
    }
  return s;
}

void
rt_add_term (Ev *ev, const TildeValue *v)
{
  TildeValue s = *v;
  if (!tilde_value_kind_is_scalar ((TildeValueKind) v->kind))
    rt_sum (CX, v, &s);
  if (s.ad)
    {
      if (G_UNLIKELY (ev->n_terms == ev->cap_terms))
        {
          ev->cap_terms = MAX (16, 2 * ev->cap_terms);
          ev->terms = g_renew (gint32, ev->terms, ev->cap_terms);
        }
      ev->terms[ev->n_terms++] = s.start;
    }
  else
    ev->target_const += rt_scalar (CX, &s);
}

const TildeShape *
rt_param_shape (Ev *ev, const Ex *e)
{
  if (e->shape)
    return e->shape;
  if (e->psized)
    return rt_eval_sized (ev, e->psized);
  int dims[8];
  int nd = MIN (e->n_kids, 8);
  for (int i = 0; i < nd; i++)
    dims[i] = size_of (ev, e->kids[i]);
  int k = 0;
  return param_shape (ev, e->type, dims, nd, &k);
}

/* An unconstrained parameter of reals is a view of theta, as the identity
 * transform makes it. */
static inline gboolean
read_identity (const TildeShape *shape, const TildeValue *u, TildeValue *out)
{
  gboolean eigen = shape->kind == TILDE_VALUE_VECTOR || shape->kind == TILDE_VALUE_ROW_VECTOR
    || shape->kind == TILDE_VALUE_MATRIX;
  gboolean reals = shape->kind == TILDE_VALUE_ARRAY && shape->elem->kind == TILDE_VALUE_REAL;
  if (shape->kind == TILDE_VALUE_REAL)
    {
      if (u->ad)
        tilde_value_set_var (out, u->start);
      else
        tilde_value_set_real (out, u->u.d[0]);
      return TRUE;
    }
  if (!eigen && !reals)
    return FALSE;
  *out = (TildeValue) { .kind = (guint8) shape->kind, .rows = shape->rows,
                        .cols = reals ? 1 : shape->cols, .ad = u->ad };
  if (reals)
    out->elem = TILDE_VALUE_REAL;
  if (u->ad)
    out->start = u->start;
  else
    out->u.d = u->u.d;
  return TRUE;
}

/* The next n values of theta. */
static inline TildeValue
take_theta (Ev *ev, gint32 n)
{
  gint32 total = tilde_value_flat_size (ev->theta);
  if (ev->theta_pos + n > total)
    rt_raise (CX, TILDE_MODEL_ERROR_FATAL, "the unconstrained vector is too short: %d values for "
              "at least %d parameters", total, ev->theta_pos + n);
  TildeValue u = *ev->theta;
  u.rows = n;
  if (u.ad)
    u.start = ev->theta->start + ev->theta_pos;
  else
    u.u.d = ev->theta->u.d + ev->theta_pos;
  ev->theta_pos += n;
  return u;
}

static void
add_log_jacobian (Ev *ev, const TildeValue *lj)
{
  /* the log Jacobian belongs to the prior */
  if (ev->jacobian && ev->in_log_prob && ev->context != TILDE_MODEL_CONTEXT_LIKELIHOOD)
    rt_add_term (ev, lj);
}

/* A tuple parameter (or an array of them), member by member, each array
 * element whole before the next, as Stan serialises them. */
static void
read_tuple_param (Ev *ev, const Tr *tr, const TildeShape *shape, TildeValue *out)
{
  if (shape->kind == TILDE_VALUE_ARRAY && shape->elem->kind != TILDE_VALUE_REAL
      && shape->elem->kind != TILDE_VALUE_INT && tr->kind == MIR_TRANS_TUPLE)
    {
      *out = (TildeValue) { .kind = TILDE_VALUE_ARRAY, .rows = shape->rows, .cols = 1,
                            .elem = (guint8) shape->elem->kind };
      out->u.elems = tilde_arena_alloc (CX->arena, sizeof (TildeValue) * (gsize) MAX (shape->rows, 1));
      for (gint32 i = 0; i < shape->rows; i++)
        read_tuple_param (ev, tr, shape->elem, &out->u.elems[i]);
      return;
    }
  if (shape->kind == TILDE_VALUE_TUPLE)
    {
      if (tr->kind != MIR_TRANS_TUPLE || tr->n_members != shape->n_members)
        rt_raise (CX, TILDE_MODEL_ERROR_FATAL, "a tuple parameter's transform does not fit it");
      *out = (TildeValue) { .kind = TILDE_VALUE_TUPLE, .rows = (gint32) shape->n_members,
                            .cols = 1 };
      out->u.elems = tilde_arena_alloc (CX->arena,
                                        sizeof (TildeValue) * (gsize) MAX (shape->n_members, 1));
      for (guint i = 0; i < shape->n_members; i++)
        read_tuple_param (ev, tr->members[i], shape->members[i], &out->u.elems[i]);
      return;
    }
  TildeValue u = take_theta (ev, rt_free_size (tr->kind, shape)), a, b, lj;
  if (tr->kind == MIR_TRANS_IDENTITY && read_identity (shape, &u, out))
    return;
  if (tr->a)
    rt_eval (ev, tr->a, &a);
  if (tr->b)
    rt_eval (ev, tr->b, &b);
  CX->fn_name = "constrain";
  rt_constrain (CX, tr->kind, tr->a ? &a : NULL, tr->b ? &b : NULL, shape, &u, out, &lj);
  add_log_jacobian (ev, &lj);
}

void
rt_ex_read_param (Ev *ev, const Ex *e, TildeValue *out)
{
  const TildeShape *shape = rt_param_shape (ev, e);
  if (e->tr)
    {
      read_tuple_param (ev, e->tr, shape, out);
      return;
    }
  TildeValue u = take_theta (ev, rt_free_size (e->tkind, shape));
  if (e->tkind == MIR_TRANS_IDENTITY && read_identity (shape, &u, out))
    return;
  TildeValue a, b, lj;
  if (e->ta)
    rt_eval (ev, e->ta, &a);
  if (e->tb)
    rt_eval (ev, e->tb, &b);
  CX->fn_name = "constrain";
  rt_constrain (CX, e->tkind, e->ta ? &a : NULL, e->tb ? &b : NULL, shape, &u, out, &lj);
  add_log_jacobian (ev, &lj);
}

/* ---- statements ---- */

Flow
rt_exec (Ev *ev, const St *s)
{
  const St *outer = ev->stmt;
  ev->stmt = s;
  Flow f = s->fn (ev, s);
  ev->stmt = outer;
  return f;
}

Flow
rt_st_block (Ev *ev, const St *s)
{
  for (int i = 0; i < s->n_body; i++)
    {
      Flow f = rt_exec (ev, s->body[i]);
      if (f != FLOW_NEXT)
        return f;
    }
  return FLOW_NEXT;
}

Flow
rt_st_target (Ev *ev, const St *s)
{
  if ((s->target_jacobian && !ev->jacobian) || !rt_term_counts (ev, s))
    return FLOW_NEXT;
  TildeValue v;
  rt_eval (ev, s->e, &v);
  rt_add_term (ev, &v);
  return FLOW_NEXT;
}

Flow
rt_st_if (Ev *ev, const St *s)
{
  TildeValue c;
  rt_eval (ev, s->e, &c);
  if (truth (ev, &c))
    return rt_exec (ev, s->then_s);
  if (s->else_s)
    return rt_exec (ev, s->else_s);
  return FLOW_NEXT;
}

Flow
rt_st_while (Ev *ev, const St *s)
{
  for (;;)
    {
      TildeValue c;
      rt_eval (ev, s->e, &c);
      if (!truth (ev, &c))
        return FLOW_NEXT;
      Flow f = rt_exec (ev, s->then_s);
      if (f == FLOW_BREAK)
        return FLOW_NEXT;
      if (f == FLOW_RETURN)
        return f;
    }
}

Flow
rt_st_for (Ev *ev, const St *s)
{
  int lo = size_of (ev, s->e), hi = size_of (ev, s->e2);
  for (int i = lo; i <= hi; i++)
    {
      tilde_value_set_int (&ev->slots[s->slot], i);
      Flow f = rt_exec (ev, s->then_s);
      if (f == FLOW_BREAK)
        break;
      if (f == FLOW_RETURN)
        return f;
    }
  return FLOW_NEXT;
}

Flow rt_st_break (Ev *ev, const St *s) { return FLOW_BREAK; }
Flow rt_st_continue (Ev *ev, const St *s) { return FLOW_CONTINUE; }
Flow rt_st_return (Ev *ev, const St *s) { return FLOW_RETURN; }
Flow rt_st_skip (Ev *ev, const St *s) { return FLOW_NEXT; }

/* ---- user-defined functions ---- */

#define MAX_DEPTH 10000
/* Room left below the deepest call for the frames a call makes (the
 * library's, LAPACK's) before it comes back here. */
#define STACK_MARGIN (256 * 1024)

/* The lowest address nested calls may reach on this thread's stack, or
 * NULL where the stack's extent cannot be known: recursion that a depth
 * count alone would let overflow the stack (a function that calls
 * reduce_sum on itself makes large frames per level) ends in an error. */
static const char *
stack_floor (void)
{
  static __thread const char *floor;
  static __thread gboolean known;

  if (!known)
    {
      pthread_attr_t attr;
      void *addr;
      size_t size;

      known = TRUE;
      if (pthread_getattr_np (pthread_self (), &attr) == 0)
        {
          if (pthread_attr_getstack (&attr, &addr, &size) == 0 && size > 2 * STACK_MARGIN)
            floor = (const char *) addr + STACK_MARGIN;
          pthread_attr_destroy (&attr);
        }
    }
  return floor;
}

TildeValue *
rt_function_frame (Ev *ev, const RtFunction *f)
{
  return tilde_arena_alloc0 (CX->arena, sizeof (TildeValue) * (gsize) MAX (f->n_slots, 1));
}

void
rt_call_function (Ev *ev, const RtFunction *f, TildeValue *frame, gboolean drop,
                  const guint64 *arg_deps, int n_args, TildeValue *out)
{
  const char *floor = stack_floor ();
  char here;
  if (++ev->depth > MAX_DEPTH)
    rt_raise (CX, TILDE_MODEL_ERROR_FATAL, "%s: more than %d nested function calls", f->name,
              MAX_DEPTH);
  if (ev->depth <= RT_MAX_CALL_SITES)
    ev->call_sites[ev->depth - 1] = ev->stmt;
  if (floor != NULL && &here < floor)
    rt_raise (CX, TILDE_MODEL_ERROR_FATAL, "%s: function calls nested %d deep fill the "
              "thread's stack", f->name, ev->depth);
  TildeValue *caller = ev->slots;
  gboolean propto = CX->propto;
  guint64 caller_args = ev->param_args;
  /* the terms of an _lp function are prior when they depend on an argument
   * that depends on parameters here */
  if (arg_deps)
    {
      guint64 args = 0;
      for (int i = 0; i < n_args; i++)
        if (arg_deps[i] & caller_args)
          args |= G_GUINT64_CONSTANT (1) << MIN (i, 63);
      ev->param_args = args;
    }
  /* a user density drops constants inside only when called as _lupdf */
  if (f->is_density)
    CX->propto = propto && drop;
  ev->slots = frame;
  Flow flow = rt_exec (ev, f->body);
  ev->slots = caller;
  CX->propto = propto;
  ev->param_args = caller_args;
  ev->depth--;
  if (tilde_type_kind (f->return_type) == TILDE_TYPE_VOID)
    {
      tilde_value_set_int (out, 0);
      return;
    }
  if (flow != FLOW_RETURN)
    rt_raise (CX, TILDE_MODEL_ERROR_FATAL, "%s: the function ended without returning a value",
              f->name);
  *out = ev->retval;
  if (out->kind == TILDE_VALUE_INT && tilde_type_kind (f->return_type) == TILDE_TYPE_REAL)
    tilde_value_set_real (out, out->u.i);
}

void
rt_ex_user_call (Ev *ev, const Ex *e, TildeValue *out)
{
  TildeValue *frame = rt_function_frame (ev, e->code);
  for (int i = 0; i < e->n_kids; i++)
    rt_eval (ev, e->kids[i], &frame[i]);
  rt_call_function (ev, e->code, frame, e->drop, e->arg_deps, e->n_kids, out);
}

Flow
rt_st_return_value (Ev *ev, const St *s)
{
  rt_eval (ev, s->e, &ev->retval);
  return FLOW_RETURN;
}

Flow
rt_st_expr (Ev *ev, const St *s)
{
  TildeValue v;
  rt_eval (ev, s->e, &v);
  return FLOW_NEXT;
}

/* ---- outputs ---- */

void
rt_out_push (Ev *ev, double x)
{
  if (ev->n_out == ev->cap_out)
    {
      ev->cap_out = MAX (64, 2 * ev->cap_out);
      ev->out = g_renew (double, ev->out, ev->cap_out);
    }
  ev->out[ev->n_out++] = x;
}

static double
real_at (Ev *ev, const TildeValue *v, gint32 pos)
{
  if (v->ad)
    return CX->tape->val[tilde_value_var (v, pos)];
  if (v->kind == TILDE_VALUE_ARRAY && v->elem == TILDE_VALUE_INT)
    return v->u.iv[pos];
  return v->u.d[pos];
}

/* Part 0 (real) or 1 (imaginary) of a complex scalar: an autodiff one
 * holds the ids of its parts, a data one the parts themselves. */
static double
complex_part (Ev *ev, const TildeValue *v, int part)
{
  return v->ad ? CX->tape->val[tilde_value_var (v, part)] : v->u.z[part];
}

static void
write_scalar (Ev *ev, const TildeValue *v)
{
  if (v->kind == TILDE_VALUE_COMPLEX)
    {
      rt_out_push (ev, complex_part (ev, v, 0));
      rt_out_push (ev, complex_part (ev, v, 1));
    }
  else
    rt_out_push (ev, rt_scalar (CX, v));
}

/* The element of v at the multi-index idx (array dims, then eigen). */
static void
write_at (Ev *ev, const TildeValue *v, const int *idx)
{
  while (v->kind == TILDE_VALUE_ARRAY && !tilde_value_is_flat (v))
    v = &v->u.elems[*idx++];
  if (v->kind == TILDE_VALUE_TUPLE)
    {
      for (gint32 i = 0; i < v->rows; i++)
        rt_write_value (ev, &v->u.elems[i]);
      return;
    }
  if (tilde_value_kind_is_scalar ((TildeValueKind) v->kind))
    {
      write_scalar (ev, v);
      return;
    }
  gint32 pos;
  if (v->kind == TILDE_VALUE_MATRIX || v->kind == TILDE_VALUE_COMPLEX_MATRIX)
    pos = idx[0] + idx[1] * v->rows;
  else
    pos = idx[0];
  if (v->kind >= TILDE_VALUE_COMPLEX_VECTOR && v->kind <= TILDE_VALUE_COMPLEX_MATRIX)
    {
      rt_out_push (ev, real_at (ev, v, 2 * pos));
      rt_out_push (ev, real_at (ev, v, 2 * pos + 1));
    }
  else
    rt_out_push (ev, real_at (ev, v, pos));
}

void
rt_write_value (Ev *ev, const TildeValue *v)
{
  int dims[16], nd = 0;
  const TildeValue *t = v;
  while (nd < 14)
    {
      if (t->kind == TILDE_VALUE_ARRAY)
        {
          dims[nd++] = t->rows;
          if (t->rows == 0)
            return;
          if (tilde_value_is_flat (t))
            break;
          t = &t->u.elems[0];
          continue;
        }
      if (t->kind == TILDE_VALUE_MATRIX || t->kind == TILDE_VALUE_COMPLEX_MATRIX)
        {
          dims[nd++] = t->rows;
          dims[nd++] = t->cols;
        }
      else if (tilde_value_kind_is_eigen ((TildeValueKind) t->kind))
        dims[nd++] = t->rows * t->cols;
      break;
    }
  gint64 total = 1;
  for (int i = 0; i < nd; i++)
    total *= dims[i];
  if (total == 0)
    return;
  int idx[16] = { 0 };
  for (gint64 k = 0; k < total; k++)
    {
      write_at (ev, v, idx);
      /* column-major: the first index moves fastest */
      for (int d = 0; d < nd; d++)
        {
          if (++idx[d] < dims[d])
            break;
          idx[d] = 0;
        }
    }
}

/* The unconstrained values of a tuple parameter, in the order
 * read_tuple_param reads them. */
static void
write_tuple_free (Ev *ev, const Tr *tr, const TildeValue *x)
{
  if (x->kind == TILDE_VALUE_ARRAY && !tilde_value_is_flat (x) && tr->kind == MIR_TRANS_TUPLE)
    {
      for (gint32 i = 0; i < x->rows; i++)
        write_tuple_free (ev, tr, &x->u.elems[i]);
      return;
    }
  if (x->kind == TILDE_VALUE_TUPLE)
    {
      if (tr->kind != MIR_TRANS_TUPLE || tr->n_members != (guint) x->rows)
        rt_raise (CX, TILDE_MODEL_ERROR_DATA, "a tuple parameter's value does not fit its type");
      for (gint32 i = 0; i < x->rows; i++)
        write_tuple_free (ev, tr->members[i], &x->u.elems[i]);
      return;
    }
  TildeValue a, b;
  if (tr->a)
    rt_eval (ev, tr->a, &a);
  if (tr->b)
    rt_eval (ev, tr->b, &b);
  TildeShape *shape = tilde_shape_of_value (CX->arena, x);
  gint32 n = rt_free_size (tr->kind, shape);
  double *free = rt_alloc_d (CX, (gsize) n);
  CX->fn_name = "unconstrain";
  rt_unconstrain (CX, tr->kind, tr->a ? &a : NULL, tr->b ? &b : NULL, x, free);
  for (gint32 i = 0; i < n; i++)
    rt_out_push (ev, free[i]);
}

Flow
rt_st_write (Ev *ev, const St *s)
{
  TildeValue x;
  rt_eval (ev, s->e, &x);
  if (!s->target_jacobian)
    {
      rt_write_value (ev, &x);
      return FLOW_NEXT;
    }
  if (s->tr)
    {
      write_tuple_free (ev, s->tr, &x);
      return FLOW_NEXT;
    }
  TildeValue a, b;
  if (s->e2)
    rt_eval (ev, s->e2, &a);
  if (s->then_s)
    rt_eval (ev, s->then_s->e, &b);
  TildeShape *shape = tilde_shape_of_value (CX->arena, &x);
  gint32 n = rt_free_size (s->tkind, shape);
  double *free = rt_alloc_d (CX, (gsize) n);
  CX->fn_name = "unconstrain";
  rt_unconstrain (CX, s->tkind, s->e2 ? &a : NULL, s->then_s ? &b : NULL, &x, free);
  for (gint32 i = 0; i < n; i++)
    rt_out_push (ev, free[i]);
  return FLOW_NEXT;
}

Flow
rt_st_check (Ev *ev, const St *s)
{
  TildeValue x, a, b;
  rt_eval (ev, s->e, &x);
  if (s->e2)
    rt_eval (ev, s->e2, &a);
  if (s->then_s)
    rt_eval (ev, s->then_s->e, &b);
  rt_check_constraint (CX, s->tkind, s->e2 ? &a : NULL, s->then_s ? &b : NULL, &x, s->var_name);
  return FLOW_NEXT;
}

Flow
rt_st_validate (Ev *ev, const St *s)
{
  TildeValue v;
  rt_eval (ev, s->e, &v);
  int n = rt_int (CX, &v);
  if (n < 0)
    rt_raise (CX, TILDE_MODEL_ERROR_INDEX, "Found negative dimension size in variable "
              "declaration; variable=%s; dimension size expression=%s; expression value=%d",
              s->name, s->var_name, n);
  if (s->tkind == MIR_TRANS_SIMPLEX && n < 1)
    rt_raise (CX, TILDE_MODEL_ERROR_INDEX, "%s: a simplex must have at least one element; "
              "size %s is %d", s->name, s->var_name, n);
  if (s->tkind == MIR_TRANS_UNIT_VECTOR && n < 1)
    rt_raise (CX, TILDE_MODEL_ERROR_INDEX, "%s: a unit vector must have at least one element; "
              "size %s is %d", s->name, s->var_name, n);
  return FLOW_NEXT;
}

Flow
rt_st_check_greater_or_equal (Ev *ev, const St *s)
{
  TildeValue a, b;
  rt_eval (ev, s->e, &a);
  rt_eval (ev, s->e2, &b);
  double x = rt_scalar (CX, &a), low = rt_scalar (CX, &b);
  if (!(x >= low))
    rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s %s is %g, but must be greater than or equal "
              "to %g", s->name, s->var_name, x, low);
  return FLOW_NEXT;
}

/* The dimensions of arrays, vectors and matrices, outermost first (an
 * array's from its first element); none for a scalar. At most `max`. */
static int
value_dims (const TildeValue *v, gint32 *dims, int max)
{
  int n = 0;
  for (;;)
    {
      if (n + 2 > max)
        return n;
      if (v->kind == TILDE_VALUE_ARRAY || v->kind == TILDE_VALUE_VECTOR
          || v->kind == TILDE_VALUE_COMPLEX_VECTOR)
        dims[n++] = v->rows;
      else if (v->kind == TILDE_VALUE_ROW_VECTOR || v->kind == TILDE_VALUE_COMPLEX_ROW_VECTOR)
        dims[n++] = v->cols;
      else if (v->kind == TILDE_VALUE_MATRIX || v->kind == TILDE_VALUE_COMPLEX_MATRIX)
        {
          dims[n++] = v->rows;
          dims[n++] = v->cols;
        }
      if (v->kind != TILDE_VALUE_ARRAY || v->rows == 0 || tilde_value_is_flat (v))
        return n;
      v = &v->u.elems[0];
    }
}

/* "(3, 2)"; "()" for a scalar */
static char *
dims_text (const gint32 *dims, int n)
{
  GString *out = g_string_new ("(");
  for (int k = 0; k < n; k++)
    g_string_append_printf (out, k ? ", %d" : "%d", dims[k]);
  g_string_append_c (out, ')');
  return g_string_free (out, FALSE);
}

/* Runs in the log density of every model with a container bound: it
 * compares numbers, and writes text only for the error. */
Flow
rt_st_check_matching_dims (Ev *ev, const St *s)
{
  TildeValue a, b;
  gint32 da[16], db[16];
  rt_eval (ev, s->e, &a);
  rt_eval (ev, s->e2, &b);
  int na = value_dims (&a, da, 16), nb = value_dims (&b, db, 16);
  if (na == nb && memcmp (da, db, sizeof (gint32) * (gsize) na) == 0)
    return FLOW_NEXT;
  g_autofree char *ta = dims_text (da, na);
  g_autofree char *tb = dims_text (db, nb);
  rt_raise (CX, TILDE_MODEL_ERROR_INDEX, "%s %s and %s %s must match in size", s->name, ta,
            s->var_name, tb);
}

/* Element `pos` (column-major) of a flat value, as C++ streams it: a
 * complex number as "(re,im)". */
static void
append_element (Ev *ev, GString *out, const TildeValue *v, gint32 pos)
{
  if (v->kind == TILDE_VALUE_ARRAY && v->elem == TILDE_VALUE_INT)
    g_string_append_printf (out, "%d", v->u.iv[pos]);
  else if (tilde_value_kind_is_complex ((TildeValueKind) v->kind))
    g_string_append_printf (out, "(%g,%g)", real_at (ev, v, 2 * pos), real_at (ev, v, 2 * pos + 1));
  else
    g_string_append_printf (out, "%g", real_at (ev, v, pos));
}

/* As Stan prints values: arrays and vectors in brackets, a matrix as its
 * rows in brackets ("[[1,2],[3,4]]"), a tuple in parentheses. */
static void
append_value (Ev *ev, GString *out, const TildeValue *v)
{
  if (v->kind == TILDE_VALUE_INT)
    g_string_append_printf (out, "%d", v->u.i);
  else if (v->kind == TILDE_VALUE_REAL)
    g_string_append_printf (out, "%g", rt_scalar (CX, v));
  else if (v->kind == TILDE_VALUE_COMPLEX)
    g_string_append_printf (out, "(%g,%g)", complex_part (ev, v, 0), complex_part (ev, v, 1));
  else if (v->kind == TILDE_VALUE_MATRIX || v->kind == TILDE_VALUE_COMPLEX_MATRIX)
    {
      g_string_append_c (out, '[');
      for (gint32 i = 0; i < v->rows; i++)
        {
          g_string_append (out, i ? ",[" : "[");
          for (gint32 j = 0; j < v->cols; j++)
            {
              if (j)
                g_string_append_c (out, ',');
              append_element (ev, out, v, i + j * v->rows);
            }
          g_string_append_c (out, ']');
        }
      g_string_append_c (out, ']');
    }
  else if (tilde_value_is_flat (v))
    {
      g_string_append_c (out, '[');
      gint32 n = tilde_value_flat_size (v);
      for (gint32 i = 0; i < n; i++)
        {
          if (i)
            g_string_append_c (out, ',');
          append_element (ev, out, v, i);
        }
      g_string_append_c (out, ']');
    }
  else
    {
      g_string_append_c (out, v->kind == TILDE_VALUE_TUPLE ? '(' : '[');
      for (gint32 i = 0; i < v->rows; i++)
        {
          if (i)
            g_string_append_c (out, ',');
          append_value (ev, out, &v->u.elems[i]);
        }
      g_string_append_c (out, v->kind == TILDE_VALUE_TUPLE ? ')' : ']');
    }
}

/* The values are computed first: an error while computing one must not
 * leave a half-built string behind (longjmp skips cleanups). */
static char *
message_of (Ev *ev, const St *s)
{
  TildeValue *vals = tilde_arena_alloc (CX->arena, sizeof (TildeValue) * (gsize) MAX (s->n_body, 1));
  for (int i = 0; i < s->n_body; i++)
    {
      const Ex *e = s->body[i]->e;
      if (!(e->fn == rt_ex_const && e->name))
        rt_eval (ev, e, &vals[i]);
    }
  GString *out = g_string_new (NULL);
  for (int i = 0; i < s->n_body; i++)
    {
      const Ex *e = s->body[i]->e;
      if (e->fn == rt_ex_const && e->name)
        g_string_append (out, e->name);
      else
        append_value (ev, out, &vals[i]);
    }
  return g_string_free (out, FALSE);
}

Flow
rt_st_print (Ev *ev, const St *s)
{
  char *msg = message_of (ev, s);
  g_mutex_lock (ev->print_lock);
  if (ev->print_func)
    ev->print_func (msg, ev->print_data);
  else
    fprintf (stdout, "%s\n", msg);
  g_mutex_unlock (ev->print_lock);
  g_free (msg);
  return FLOW_NEXT;
}

Flow
rt_st_reject (Ev *ev, const St *s)
{
  rt_raise_take (CX, s->tkind ? TILDE_MODEL_ERROR_FATAL : TILDE_MODEL_ERROR_REJECT,
                 message_of (ev, s));
}

const Ex *
rt_ex_find (const Ex *e, const MirExpr *mir)
{
  if (!e || !mir)
    return NULL;
  if (e->mir == mir)
    return e;
  for (int i = 0; i < e->n_kids; i++)
    {
      const Ex *found = rt_ex_find (e->kids[i], mir);
      if (found)
        return found;
    }
  return NULL;
}

const TildeValue *
rt_global_value (const Ex *e, const TildeValue *globals, int n_globals)
{
  if (!e || e->fn != rt_ex_var || e->op || e->slot < 0 || e->slot >= n_globals)
    return NULL;
  return &globals[e->slot];
}
