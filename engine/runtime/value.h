/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Runtime values: what a Stan variable holds while a model runs.
 *
 * One plain struct for every type. Reals are either doubles (data) or
 * autodiff variables on the evaluating thread's tape (`ad` set): a scalar
 * then holds its variable id in `start`, a container its ids either as the
 * contiguous range start .. start + n - 1 (`idx` NULL) or listed in `idx`.
 * Indexing and slicing an autodiff container therefore only gathers ids and
 * never records anything on the tape.
 *
 * Vectors are rows x 1, row vectors 1 x cols, matrices column-major. Arrays
 * of int or real are flat (`iv`, `d`, or ids); arrays of anything else and
 * tuples hold their elements in `elems`. Complex values keep (re, im)
 * pairs interleaved. Storage is borrowed: values live in an arena owned by
 * whoever evaluates, and copying the struct makes a view, not a copy.
 */
#pragma once

#include <glib.h>

#include "tilde-arena.h"

G_BEGIN_DECLS

typedef enum {
  TILDE_VALUE_INT,
  TILDE_VALUE_REAL,
  TILDE_VALUE_COMPLEX,
  TILDE_VALUE_VECTOR,
  TILDE_VALUE_ROW_VECTOR,
  TILDE_VALUE_MATRIX,
  TILDE_VALUE_COMPLEX_VECTOR,
  TILDE_VALUE_COMPLEX_ROW_VECTOR,
  TILDE_VALUE_COMPLEX_MATRIX,
  TILDE_VALUE_ARRAY,
  TILDE_VALUE_TUPLE,
} TildeValueKind;

typedef struct TildeValue TildeValue;

struct TildeValue {
  guint8  kind;        /* TildeValueKind */
  guint8  elem;        /* ARRAY: the kind of its elements */
  guint8  ad;          /* reals are autodiff variables */
  guint8  view;        /* the storage is a variable's, which may change later */
  gint32  rows, cols;  /* eigen: rows x cols; ARRAY and TUPLE: rows elements */
  gint32  start;       /* ad: the first variable id (a scalar's own id) */
  gint32 *idx;         /* ad containers: the ids; NULL when contiguous */
  union {
    int         i;
    double      r;
    double      z[2];
    double     *d;     /* real containers, complex ones interleaved */
    int        *iv;    /* arrays of int */
    TildeValue *elems; /* arrays of non-scalars, tuples */
  } u;
};

/* Setters that write a scalar in place: building a struct and copying it
 * costs a store-forwarding stall on every scalar operation. */
static inline void
tilde_value_set_int (TildeValue *v, int i)
{
  v->kind = TILDE_VALUE_INT;
  v->ad = 0;
  v->view = 0;
  v->idx = NULL;
  v->rows = v->cols = 1;
  v->u.i = i;
}

static inline void
tilde_value_set_real (TildeValue *v, double r)
{
  v->kind = TILDE_VALUE_REAL;
  v->ad = 0;
  v->view = 0;
  v->idx = NULL;
  v->rows = v->cols = 1;
  v->u.r = r;
}

static inline void
tilde_value_set_var (TildeValue *v, gint32 id)
{
  v->kind = TILDE_VALUE_REAL;
  v->ad = 1;
  v->view = 0;
  v->idx = NULL;
  v->rows = v->cols = 1;
  v->start = id;
}

/* The shape a declaration gives a value: its kind and sizes. */
typedef struct TildeShape TildeShape;
struct TildeShape {
  TildeValueKind     kind;
  gint32             rows, cols;   /* eigen; ARRAY: rows = its length */
  const TildeShape  *elem;         /* ARRAY */
  guint              n_members;    /* TUPLE */
  const TildeShape **members;
};

static inline gboolean
tilde_value_kind_is_eigen (TildeValueKind k)
{
  return k >= TILDE_VALUE_VECTOR && k <= TILDE_VALUE_COMPLEX_MATRIX;
}

static inline gboolean
tilde_value_kind_is_scalar (TildeValueKind k)
{
  return k <= TILDE_VALUE_COMPLEX;
}

static inline gboolean
tilde_value_kind_is_complex (TildeValueKind k)
{
  return k == TILDE_VALUE_COMPLEX
    || (k >= TILDE_VALUE_COMPLEX_VECTOR && k <= TILDE_VALUE_COMPLEX_MATRIX);
}

/* Whether an array keeps its elements flat (arrays of int or real). */
static inline gboolean
tilde_value_is_flat (const TildeValue *v)
{
  return tilde_value_kind_is_eigen ((TildeValueKind) v->kind)
    || (v->kind == TILDE_VALUE_ARRAY
        && (v->elem == TILDE_VALUE_INT || v->elem == TILDE_VALUE_REAL));
}

/* Number of scalars held flat (eigen: rows x cols; flat arrays: rows; 1 for
 * a scalar). */
static inline gint32
tilde_value_flat_size (const TildeValue *v)
{
  if (tilde_value_kind_is_eigen ((TildeValueKind) v->kind))
    return v->rows * v->cols;
  if (v->kind == TILDE_VALUE_ARRAY)
    return v->rows;
  return 1;
}

/* The id of the i-th variable of an autodiff value. */
static inline gint32
tilde_value_var (const TildeValue *v, gint32 i)
{
  return v->idx ? v->idx[i] : v->start + i;
}

static inline TildeValue
tilde_value_int (int i)
{
  TildeValue v;
  v.kind = TILDE_VALUE_INT;
  v.elem = 0;
  v.ad = 0;
  v.view = 0;
  v.rows = v.cols = 1;
  v.start = 0;
  v.idx = NULL;
  v.u.i = i;
  return v;
}

static inline TildeValue
tilde_value_real (double r)
{
  TildeValue v;
  v.kind = TILDE_VALUE_REAL;
  v.elem = 0;
  v.ad = 0;
  v.view = 0;
  v.rows = v.cols = 1;
  v.start = 0;
  v.idx = NULL;
  v.u.r = r;
  return v;
}
/* A zero-filled (NaN for reals, as Stan initialises) data value of `shape`
 * in `arena`; ints are set to the smallest int. */
TildeValue tilde_value_new_data (TildeArena *arena, const TildeShape *shape);
/* A deep copy of the storage of `v` into `arena` (ids are copied, not the
 * variables). */
TildeValue tilde_value_copy (TildeArena *arena, const TildeValue *v);
/* Total number of reals (ints count too) in a value, tuples and nested
 * arrays included; complex counts 2. */
gsize      tilde_value_count_scalars (const TildeValue *v);

/* Shapes */
TildeShape *tilde_shape_new    (TildeArena *arena, TildeValueKind kind, gint32 rows, gint32 cols);
TildeShape *tilde_shape_array  (TildeArena *arena, const TildeShape *elem, gint32 n);
/* "array[3] vector[2]", "matrix[2, 2]", "tuple(real, int)" */
char       *tilde_shape_describe (const TildeShape *shape);
/* The shape of a value (taking the first element of arrays of non-scalars). */
TildeShape *tilde_shape_of_value (TildeArena *arena, const TildeValue *v);
/* "int", "real", "vector", ... */
const char *tilde_value_kind_name (TildeValueKind kind);

G_END_DECLS
