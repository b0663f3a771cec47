/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The constraint transforms called as functions: foo_constrain (y, ...)
 * maps unconstrained values to constrained ones, foo_jacobian does the
 * same and adds log |J| to the target (when the Jacobian is wanted, as
 * `jacobian +=` would), foo_unconstrain inverts the transform. Each applies
 * to every element of an array, and goes through the same code as the
 * parameters' own transforms. foo_unconstrain of the elementwise
 * transforms (bounds, offset and multiplier) maps each element with its
 * derivative; of the others, its derivatives are the pseudo-inverse of the
 * transform's Jacobian (unconstrain_differentiated).
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/transform/transform.h"
#include "runtime/hof/hof-private.h"

#include <lapacke.h>
#include <math.h>
#include <string.h>

typedef enum { FN_CONSTRAIN, FN_JACOBIAN, FN_UNCONSTRAIN } FnForm;

typedef struct {
  const char      *base;
  MirTransformKind kind;
  int              n_bounds;   /* real arguments after y */
  int              n_sizes;    /* int arguments after y: the constrained size */
} Transform;

static const Transform transforms[] = {
  { "lower_bound", MIR_TRANS_LOWER, 1, 0 },
  { "upper_bound", MIR_TRANS_UPPER, 1, 0 },
  { "lower_upper_bound", MIR_TRANS_LOWER_UPPER, 2, 0 },
  { "offset_multiplier", MIR_TRANS_OFFSET_MULTIPLIER, 2, 0 },
  { "ordered", MIR_TRANS_ORDERED, 0, 0 },
  { "positive_ordered", MIR_TRANS_POSITIVE_ORDERED, 0, 0 },
  { "simplex", MIR_TRANS_SIMPLEX, 0, 0 },
  { "sum_to_zero", MIR_TRANS_SUM_TO_ZERO, 0, 0 },
  { "unit_vector", MIR_TRANS_UNIT_VECTOR, 0, 0 },
  { "stochastic_column", MIR_TRANS_STOCHASTIC_COLUMN, 0, 0 },
  { "stochastic_row", MIR_TRANS_STOCHASTIC_ROW, 0, 0 },
  { "corr_matrix", MIR_TRANS_CORRELATION, 0, 1 },
  { "cov_matrix", MIR_TRANS_COVARIANCE, 0, 1 },
  { "cholesky_factor_corr", MIR_TRANS_CHOLESKY_CORR, 0, 1 },
  { "cholesky_factor_cov", MIR_TRANS_CHOLESKY_COV, 0, 2 },
};

static const Transform *
transform_of (const char *name, FnForm *form)
{
  static const char *const suffixes[] = { "_constrain", "_jacobian", "_unconstrain" };
  for (guint i = 0; i < G_N_ELEMENTS (transforms); i++)
    {
      gsize len = strlen (transforms[i].base);
      if (strncmp (name, transforms[i].base, len) != 0)
        continue;
      for (int f = 0; f < 3; f++)
        if (strcmp (name + len, suffixes[f]) == 0)
          {
            *form = (FnForm) f;
            return &transforms[i];
          }
    }
  return NULL;
}

static gboolean
is_elementwise (MirTransformKind k)
{
  return k == MIR_TRANS_LOWER || k == MIR_TRANS_UPPER || k == MIR_TRANS_LOWER_UPPER
    || k == MIR_TRANS_OFFSET_MULTIPLIER;
}

static gboolean
holds_elems (const TildeValue *v)
{
  return v->kind == TILDE_VALUE_ARRAY && !tilde_value_is_flat (v);
}

/* The constrained shape of an unconstrained value y, element by element. */
static TildeShape *
constrained_shape (RtCtx *cx, const Transform *t, const TildeValue *y, const int *sizes)
{
  if (holds_elems (y))
    {
      TildeShape *elem = y->rows > 0 ? constrained_shape (cx, t, &y->u.elems[0], sizes)
        : tilde_shape_new (cx->arena, TILDE_VALUE_VECTOR, 0, 1);
      return tilde_shape_array (cx->arena, elem, y->rows);
    }
  if (y->kind == TILDE_VALUE_ARRAY)
    return tilde_shape_array (cx->arena, tilde_shape_new (cx->arena, TILDE_VALUE_REAL, 1, 1),
                              y->rows);
  TildeValueKind k = (TildeValueKind) y->kind;
  if (k == TILDE_VALUE_INT)
    k = TILDE_VALUE_REAL;
  gint32 r = y->rows, c = y->cols;
  switch (t->kind)
    {
    case MIR_TRANS_SIMPLEX:
      r++;
      break;
    case MIR_TRANS_SUM_TO_ZERO:
      r++;
      if (k == TILDE_VALUE_MATRIX)
        c++;
      break;
    case MIR_TRANS_STOCHASTIC_COLUMN:
      r++;
      break;
    case MIR_TRANS_STOCHASTIC_ROW:
      c++;
      break;
    case MIR_TRANS_CORRELATION:
    case MIR_TRANS_COVARIANCE:
    case MIR_TRANS_CHOLESKY_CORR:
      k = TILDE_VALUE_MATRIX;
      r = c = sizes[0];
      break;
    case MIR_TRANS_CHOLESKY_COV:
      k = TILDE_VALUE_MATRIX;
      r = sizes[0];
      c = sizes[1];
      break;
    default:
      break;
    }
  if (r < 0 || c < 0)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: negative size", cx->fn_name);
  return tilde_shape_new (cx->arena, k, r, c);
}

/* The unconstrained shape of a constrained value x. */
static TildeShape *
free_shape (RtCtx *cx, const Transform *t, const TildeValue *x)
{
  if (holds_elems (x))
    {
      TildeShape *elem = x->rows > 0 ? free_shape (cx, t, &x->u.elems[0])
        : tilde_shape_new (cx->arena, TILDE_VALUE_VECTOR, 0, 1);
      return tilde_shape_array (cx->arena, elem, x->rows);
    }
  if (x->kind == TILDE_VALUE_ARRAY)
    return tilde_shape_array (cx->arena, tilde_shape_new (cx->arena, TILDE_VALUE_REAL, 1, 1),
                              x->rows);
  TildeValueKind k = (TildeValueKind) x->kind;
  if (k == TILDE_VALUE_INT)
    k = TILDE_VALUE_REAL;
  TildeShape *s = tilde_shape_new (cx->arena, k, x->rows, x->cols);
  switch (t->kind)
    {
    case MIR_TRANS_SIMPLEX:
      s->rows = MAX (x->rows - 1, 0);
      break;
    case MIR_TRANS_SUM_TO_ZERO:
      s->rows = MAX (x->rows - 1, 0);
      if (k == TILDE_VALUE_MATRIX)
        s->cols = MAX (x->cols - 1, 0);
      break;
    case MIR_TRANS_STOCHASTIC_COLUMN:
      s->rows = MAX (x->rows - 1, 0);
      break;
    case MIR_TRANS_STOCHASTIC_ROW:
      s->cols = MAX (x->cols - 1, 0);
      break;
    case MIR_TRANS_CORRELATION:
    case MIR_TRANS_COVARIANCE:
    case MIR_TRANS_CHOLESKY_CORR:
    case MIR_TRANS_CHOLESKY_COV:
      {
        TildeShape *whole = tilde_shape_new (cx->arena, TILDE_VALUE_MATRIX, x->rows, x->cols);
        s->kind = TILDE_VALUE_VECTOR;
        s->rows = rt_free_size (t->kind, whole);
        s->cols = 1;
        break;
      }
    default:
      break;
    }
  return s;
}

/* Every real of v, flattened in order, as one flat value (ad when any is). */
static TildeValue
flat_of (RtCtx *cx, const TildeValue *v)
{
  gint32 n = rt_hof_flatten (cx, v, NULL);
  if (!rt_is_ad (v))
    {
      TildeValue u = rt_new_data (cx, TILDE_VALUE_VECTOR, n, 1);
      rt_hof_flatten (cx, v, u.u.d);
      return u;
    }
  TildeValue u = { .kind = TILDE_VALUE_VECTOR, .ad = 1, .rows = n, .cols = 1 };
  u.idx = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (n, 1));
  gint32 k = 0;
  /* leaves in order */
  const TildeValue *stack[64];
  gint32 pos[64];
  int depth = 0;
  const TildeValue *cur = v;
  for (;;)
    {
      if (holds_elems (cur))
        {
          if (cur->rows > 0 && depth < 64)
            {
              stack[depth] = cur;
              pos[depth++] = 0;
              cur = &cur->u.elems[0];
              continue;
            }
        }
      else
        {
          TildeValue p = rt_promote_ad (cx, cur);
          gint32 m = tilde_value_kind_is_scalar ((TildeValueKind) cur->kind) ? 1
            : tilde_value_flat_size (cur);
          for (gint32 i = 0; i < m; i++)
            u.idx[k++] = m == 1 && tilde_value_kind_is_scalar ((TildeValueKind) cur->kind)
              ? p.start : tilde_value_var (&p, i);
        }
      /* the next leaf */
      while (depth > 0 && pos[depth - 1] + 1 >= stack[depth - 1]->rows)
        depth--;
      if (depth == 0)
        break;
      cur = &stack[depth - 1]->u.elems[++pos[depth - 1]];
    }
  return u;
}

/* The inverses of the elementwise transforms, with their derivatives in
 * x and the bounds (x[1], x[2]). */
static double
inv_lower (const double *x, double *d)
{
  d[0] = 1 / (x[0] - x[1]);
  d[1] = -d[0];
  return log (x[0] - x[1]);
}

static double
inv_upper (const double *x, double *d)
{
  d[0] = -1 / (x[1] - x[0]);
  d[1] = -d[0];
  return log (x[1] - x[0]);
}

static double
inv_lower_upper (const double *x, double *d)
{
  double w = x[2] - x[1], u = (x[0] - x[1]) / w, dy = 1 / (u * (1 - u));
  d[0] = dy / w;
  d[1] = dy * (x[0] - x[2]) / (w * w);
  d[2] = -dy * (x[0] - x[1]) / (w * w);
  return log (u / (1 - u));
}

static double
inv_offset_multiplier (const double *x, double *d)
{
  d[0] = 1 / x[2];
  d[1] = -d[0];
  d[2] = -(x[0] - x[1]) / (x[2] * x[2]);
  return (x[0] - x[1]) / x[2];
}

/* foo_unconstrain of variables, for the elementwise transforms: checked
 * on the values as the transform itself checks them, then mapped. */
static void
unconstrain_elementwise (RtCtx *cx, MirTransformKind kind, const TildeValue *args,
                         TildeValue *out)
{
  int n = kind == MIR_TRANS_LOWER || kind == MIR_TRANS_UPPER ? 2 : 3;
  gint32 len[3];
  double *x[3];
  for (int i = 0; i < n; i++)
    {
      len[i] = rt_hof_flatten (cx, &args[i], NULL);
      x[i] = rt_alloc_d (cx, (gsize) len[i]);
      rt_hof_flatten (cx, &args[i], x[i]);
    }
  for (gint32 k = 0; k < len[0]; k++)
    {
      double v = x[0][k], lo = x[1][len[1] == 1 ? 0 : k];
      double hi = n > 2 ? x[2][len[2] == 1 ? 0 : k] : 0;
      gboolean ok = kind == MIR_TRANS_LOWER ? v >= lo : kind == MIR_TRANS_UPPER ? v <= lo
        : kind == MIR_TRANS_LOWER_UPPER ? v >= lo && v <= hi : hi > 0 && isfinite (lo);
      if (!ok)
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: x[%d] is %g, which is outside its bounds",
                  cx->fn_name, k + 1, v);
    }
  RtScalarFn f = kind == MIR_TRANS_LOWER ? inv_lower : kind == MIR_TRANS_UPPER ? inv_upper
    : kind == MIR_TRANS_LOWER_UPPER ? inv_lower_upper : inv_offset_multiplier;
  rt_map (cx, n, args, out, f);
}

/* The Jacobian (n_x x n_y, column-major) of the transform at the free
 * values y, on a tape of its own: one reverse sweep per constrained
 * value. */
static double *
transform_jacobian (RtCtx *cx, MirTransformKind kind, const TildeShape *shape, const double *y,
                    gint32 n_y, gint32 n_x)
{
  double *J = rt_alloc_d (cx, (gsize) n_x * (gsize) MAX (n_y, 1));
  RtCtx own = { .tape = ad_tape_new (), .fn_name = cx->fn_name };
  jmp_buf jmp;
  own.arena = own.tape->arena;
  own.jmp = &jmp;
  if (setjmp (jmp))
    {
      char *message = g_steal_pointer (&own.err_msg);
      TildeModelErrorKind err_kind = own.err_kind;
      ad_tape_free (own.tape);
      rt_raise_take (cx, err_kind, message);
    }
  TildeValue u = rt_new_data (&own, TILDE_VALUE_VECTOR, n_y, 1), x, lj;
  memcpy (u.u.d, y, sizeof (double) * (gsize) n_y);
  u = rt_promote_ad (&own, &u);
  rt_constrain (&own, kind, NULL, NULL, shape, &u, &x, &lj);
  for (gint32 i = 0; i < n_x; i++)
    {
      gint32 id = tilde_value_var (&x, i);
      ad_gradient (own.tape, &id, 1);
      for (gint32 j = 0; j < n_y; j++)
        J[i + (gsize) j * n_x] = own.tape->adj[tilde_value_var (&u, j)];
    }
  ad_tape_free (own.tape);
  return J;
}

/* foo_unconstrain (x) of a structured transform, x depending on
 * parameters: y = free (x) by value; dy/dx the pseudo-inverse of the
 * transform's Jacobian at y, which is the inverse's derivative along every
 * direction in which x can move and still meet its constraint (the only
 * directions a constrained x moves in). */
static void
unconstrain_differentiated (RtCtx *cx, const Transform *t, const TildeValue *x, TildeValue *out)
{
  if (holds_elems (x))
    {
      *out = (TildeValue) { .kind = TILDE_VALUE_ARRAY, .rows = x->rows, .cols = 1 };
      out->u.elems = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * (gsize) MAX (x->rows, 1));
      for (gint32 i = 0; i < x->rows; i++)
        unconstrain_differentiated (cx, t, &x->u.elems[i], &out->u.elems[i]);
      out->elem = x->rows > 0 ? out->u.elems[0].kind : TILDE_VALUE_VECTOR;
      return;
    }
  gint32 n_x = x->rows * x->cols;
  TildeValue xd = rt_new_data (cx, (TildeValueKind) x->kind, x->rows, x->cols);
  memcpy (xd.u.d, rt_values (cx, x), sizeof (double) * (gsize) n_x);
  TildeShape *fs = free_shape (cx, t, &xd);
  TildeShape shape = { .kind = (TildeValueKind) x->kind, .rows = x->rows, .cols = x->cols };
  gint32 n_y = rt_free_size (MIR_TRANS_IDENTITY, fs);
  double *y = rt_alloc_d (cx, (gsize) MAX (n_y, 1));
  rt_unconstrain (cx, t->kind, NULL, NULL, &xd, y);
  double *J = transform_jacobian (cx, t->kind, &shape, y, n_y, n_x);
  /* least squares J P = I (n_x x n_x): P's first n_y rows are J's
   * pseudo-inverse (unit_vector's J is a projection, of rank n - 1: its
   * pseudo-inverse is that projection) */
  double *B = rt_alloc_d (cx, (gsize) n_x * (gsize) n_x), *sv = rt_alloc_d (cx, (gsize) MAX (n_y, 1));
  memset (B, 0, sizeof (double) * (gsize) n_x * (gsize) n_x);
  for (gint32 i = 0; i < n_x; i++)
    B[i + (gsize) i * n_x] = 1;
  lapack_int rank;
  if (n_y > 0 && LAPACKE_dgelsd (LAPACK_COL_MAJOR, n_x, n_y, n_x, J, n_x, B, n_x, sv, 1e-10, &rank) != 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: the transform's Jacobian could not be inverted",
              cx->fn_name);
  gint32 *ids = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (n_x, 1));
  for (gint32 i = 0; i < n_x; i++)
    ids[i] = tilde_value_var (x, i);
  TildeValue u = { .kind = TILDE_VALUE_VECTOR, .rows = n_y, .cols = 1, .ad = 1 };
  u.idx = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (n_y, 1));
  for (gint32 j = 0; j < n_y; j++)
    {
      double *row = rt_alloc_d (cx, (gsize) n_x);
      for (gint32 i = 0; i < n_x; i++)
        row[i] = B[j + (gsize) i * n_x];
      AdOperand op = { .idx = ids, .n = n_x, .partial = row };
      u.idx[j] = rt_reduce (cx, y[j], 1, &op).start;
    }
  /* the identity transform lays the values out in the free shape */
  TildeValue ignored;
  rt_constrain (cx, MIR_TRANS_IDENTITY, NULL, NULL, fs, &u, out, &ignored);
}

static void
transform_call (RtCtx *cx, const Transform *t, FnForm form, const TildeValue *args,
                TildeValue *out, TildeValue *lj)
{
  const TildeValue *a = t->n_bounds > 0 ? &args[1] : NULL;
  const TildeValue *b = t->n_bounds > 1 ? &args[2] : NULL;
  if (form == FN_UNCONSTRAIN)
    {
      const TildeValue *x = &args[0];
      gboolean ad = rt_is_ad (x) || (a && rt_is_ad (a)) || (b && rt_is_ad (b));
      if (ad && is_elementwise (t->kind))
        {
          unconstrain_elementwise (cx, t->kind, args, out);
          return;
        }
      if (ad)
        {
          unconstrain_differentiated (cx, t, x, out);
          return;
        }
      TildeShape *fs = free_shape (cx, t, x);
      TildeValue u = rt_new_data (cx, TILDE_VALUE_VECTOR, rt_free_size (MIR_TRANS_IDENTITY, fs), 1);
      rt_unconstrain (cx, t->kind, a, b, x, u.u.d);
      /* the identity transform lays the flat values out in the free shape */
      TildeValue ignored;
      rt_constrain (cx, MIR_TRANS_IDENTITY, NULL, NULL, fs, &u, out, &ignored);
      return;
    }
  int sizes[2] = { 0, 0 };
  for (int i = 0; i < t->n_sizes; i++)
    sizes[i] = rt_int (cx, &args[1 + i]);
  TildeShape *shape = constrained_shape (cx, t, &args[0], sizes);
  TildeValue u = flat_of (cx, &args[0]);
  gint32 need = rt_free_size (t->kind, shape);
  if (u.rows != need)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: y has %d unconstrained values, but the "
              "constrained size needs %d", cx->fn_name, u.rows, need);
  rt_constrain (cx, t->kind, a, b, shape, &u, out, lj);
}

static void
k_transform (RtCtx *cx, int nargs, const TildeValue *args, TildeValue *out)
{
  FnForm form = FN_CONSTRAIN;
  const Transform *t = transform_of (cx->fn_name, &form);
  TildeValue lj;
  transform_call (cx, t, form, args, out, &lj);
}

void
rt_ex_transform_jacobian (Ev *ev, const Ex *e, TildeValue *out)
{
  TildeValue args[3];
  for (int i = 0; i < e->n_kids; i++)
    rt_eval (ev, e->kids[i], &args[i]);
  ev->cx.fn_name = e->name;
  FnForm form;
  const Transform *t = transform_of (e->name, &form);
  TildeValue lj;
  transform_call (&ev->cx, t, FN_CONSTRAIN, args, out, &lj);
  if (ev->jacobian && ev->in_log_prob)
    rt_add_term (ev, &lj);
}

const RtBuiltin rt_builtins_transform[] = {
  { "lower_bound_constrain", k_transform, 2, 2 },
  { "lower_bound_unconstrain", k_transform, 2, 2 },
  { "upper_bound_constrain", k_transform, 2, 2 },
  { "upper_bound_unconstrain", k_transform, 2, 2 },
  { "lower_upper_bound_constrain", k_transform, 3, 3 },
  { "lower_upper_bound_unconstrain", k_transform, 3, 3 },
  { "offset_multiplier_constrain", k_transform, 3, 3 },
  { "offset_multiplier_unconstrain", k_transform, 3, 3 },
  { "ordered_constrain", k_transform, 1, 1 },
  { "ordered_unconstrain", k_transform, 1, 1 },
  { "positive_ordered_constrain", k_transform, 1, 1 },
  { "positive_ordered_unconstrain", k_transform, 1, 1 },
  { "simplex_constrain", k_transform, 1, 1 },
  { "simplex_unconstrain", k_transform, 1, 1 },
  { "sum_to_zero_constrain", k_transform, 1, 1 },
  { "sum_to_zero_unconstrain", k_transform, 1, 1 },
  { "unit_vector_constrain", k_transform, 1, 1 },
  { "unit_vector_unconstrain", k_transform, 1, 1 },
  { "stochastic_column_constrain", k_transform, 1, 1 },
  { "stochastic_column_unconstrain", k_transform, 1, 1 },
  { "stochastic_row_constrain", k_transform, 1, 1 },
  { "stochastic_row_unconstrain", k_transform, 1, 1 },
  { "corr_matrix_constrain", k_transform, 2, 2 },
  { "corr_matrix_unconstrain", k_transform, 1, 1 },
  { "cov_matrix_constrain", k_transform, 2, 2 },
  { "cov_matrix_unconstrain", k_transform, 1, 1 },
  { "cholesky_factor_corr_constrain", k_transform, 2, 2 },
  { "cholesky_factor_corr_unconstrain", k_transform, 1, 1 },
  { "cholesky_factor_cov_constrain", k_transform, 3, 3 },
  { "cholesky_factor_cov_unconstrain", k_transform, 1, 1 },
  { NULL, NULL, 0, 0 },
};
