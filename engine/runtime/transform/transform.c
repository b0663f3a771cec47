/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Bounds and offsets are elementwise maps with their derivatives (rt_map),
 * so bounds that depend on parameters get their share of the gradient.
 * Vector and matrix transforms are written once with scalar operations on
 * the tape: recorded in a log-density evaluation, only their values read
 * elsewhere.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/transform/transform.h"
#include "runtime/math/special.h"

#include <lapacke.h>
#include <math.h>
#include <string.h>

/* ---- sizes and shaping ---- */

static gint32
unit_free_size (MirTransformKind kind, const TildeShape *s)
{
  gint32 K = s->rows, n = s->rows * s->cols;
  switch (kind)
    {
    case MIR_TRANS_SIMPLEX:
      return MAX (K - 1, 0);
    case MIR_TRANS_SUM_TO_ZERO:
      if (s->kind == TILDE_VALUE_MATRIX)
        return MAX (s->rows - 1, 0) * MAX (s->cols - 1, 0);
      return MAX (K - 1, 0);
    case MIR_TRANS_CHOLESKY_CORR:
    case MIR_TRANS_CORRELATION:
      return K * (K - 1) / 2;
    case MIR_TRANS_CHOLESKY_COV:
      {
        gint32 M = s->rows, N = s->cols;
        return N * (N + 1) / 2 + (M - N) * N;
      }
    case MIR_TRANS_COVARIANCE:
      return K + K * (K - 1) / 2;
    case MIR_TRANS_STOCHASTIC_COLUMN:
      return MAX (s->rows - 1, 0) * s->cols;
    case MIR_TRANS_STOCHASTIC_ROW:
      return s->rows * MAX (s->cols - 1, 0);
    default:
      return n;
    }
}

static gboolean
is_elementwise (MirTransformKind kind)
{
  return kind <= MIR_TRANS_OFFSET_MULTIPLIER;
}

gint32
rt_free_size (MirTransformKind kind, const TildeShape *shape)
{
  switch (shape->kind)
    {
    case TILDE_VALUE_ARRAY:
      return shape->rows * rt_free_size (kind, shape->elem);
    case TILDE_VALUE_INT:
    case TILDE_VALUE_REAL:
      return 1;
    case TILDE_VALUE_COMPLEX:
      return 2;
    case TILDE_VALUE_COMPLEX_VECTOR:
    case TILDE_VALUE_COMPLEX_ROW_VECTOR:
    case TILDE_VALUE_COMPLEX_MATRIX:
      /* complex values take no constraint: both parts of each, interleaved */
      return 2 * shape->rows * shape->cols;
    case TILDE_VALUE_TUPLE:
      {
        /* a tuple of unconstrained members (constrained ones have a tuple
         * transform, whose members are sized one by one) */
        gint32 n = 0;
        for (guint i = 0; i < shape->n_members; i++)
          n += rt_free_size (MIR_TRANS_IDENTITY, shape->members[i]);
        return n;
      }
    default:
      if (is_elementwise (kind))
        return shape->rows * shape->cols;
      return unit_free_size (kind, shape);
    }
}

/* A value of `shape` viewing `n` consecutive scalars of flat `u` from `at`. */
static TildeValue
view (RtCtx *cx, const TildeValue *u, gint32 at, const TildeShape *shape)
{
  TildeValue v = { .kind = (guint8) shape->kind, .rows = shape->rows, .cols = shape->cols,
                   .ad = u->ad };
  if (shape->kind == TILDE_VALUE_REAL || shape->kind == TILDE_VALUE_INT)
    {
      v.kind = TILDE_VALUE_REAL;
      v.rows = v.cols = 1;
      if (u->ad)
        v.start = tilde_value_var (u, at);
      else
        v.u.r = u->u.d[at];
      return v;
    }
  if (shape->kind == TILDE_VALUE_COMPLEX)
    {
      /* a complex scalar keeps its parts (or their ids) side by side */
      v.rows = v.cols = 1;
      if (!u->ad)
        {
          v.u.z[0] = u->u.d[at];
          v.u.z[1] = u->u.d[at + 1];
        }
      else if (u->idx)
        {
          v.idx = u->idx + at;
          v.start = v.idx[0];
        }
      else
        v.start = u->start + at;
      return v;
    }
  if (shape->kind == TILDE_VALUE_ARRAY && shape->elem->kind != TILDE_VALUE_REAL
      && shape->elem->kind != TILDE_VALUE_INT)
    {
      gint32 step = rt_free_size (MIR_TRANS_IDENTITY, shape->elem);
      v.elem = (guint8) shape->elem->kind;
      v.ad = 0;
      v.u.elems = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * (gsize) MAX (shape->rows, 1));
      for (gint32 i = 0; i < shape->rows; i++)
        v.u.elems[i] = view (cx, u, at + i * step, shape->elem);
      return v;
    }
  if (shape->kind == TILDE_VALUE_ARRAY)
    {
      v.elem = TILDE_VALUE_REAL;
      v.cols = 1;
    }
  if (u->ad)
    {
      if (u->idx)
        v.idx = u->idx + at;
      else
        v.start = u->start + at;
    }
  else
    v.u.d = u->u.d + at;
  return v;
}

/* ---- elementwise transforms ---- */

static double
f_lower (const double *x, double *d)
{
  if (x[1] == -INFINITY)
    {
      d[0] = 1;
      d[1] = 0;
      return x[0];
    }
  double e = exp (x[0]);
  d[0] = e;
  d[1] = 1;
  return e + x[1];
}

static double
j_lower (const double *x, double *d)
{
  d[1] = 0;
  d[0] = x[1] == -INFINITY ? 0 : 1;
  return x[1] == -INFINITY ? 0 : x[0];
}

static double
f_upper (const double *x, double *d)
{
  if (x[1] == INFINITY)
    {
      d[0] = 1;
      d[1] = 0;
      return x[0];
    }
  double e = exp (x[0]);
  d[0] = -e;
  d[1] = 1;
  return x[1] - e;
}

static double
j_upper (const double *x, double *d)
{
  d[1] = 0;
  d[0] = x[1] == INFINITY ? 0 : 1;
  return x[1] == INFINITY ? 0 : x[0];
}

static double
f_lub (const double *x, double *d)
{
  double u = x[0], lb = x[1], ub = x[2];
  d[0] = d[1] = d[2] = 0;
  if (lb == -INFINITY && ub == INFINITY)
    {
      d[0] = 1;
      return u;
    }
  if (lb == -INFINITY)
    {
      double e = exp (u);
      d[0] = -e;
      d[2] = 1;
      return ub - e;
    }
  if (ub == INFINITY)
    {
      double e = exp (u);
      d[0] = e;
      d[1] = 1;
      return lb + e;
    }
  double s = tilde_inv_logit (u), w = ub - lb;
  d[0] = w * s * (1 - s);
  d[1] = 1 - s;
  d[2] = s;
  return w * s + lb;
}

static double
j_lub (const double *x, double *d)
{
  double u = x[0], lb = x[1], ub = x[2];
  d[0] = d[1] = d[2] = 0;
  if (lb == -INFINITY && ub == INFINITY)
    return 0;
  if (lb == -INFINITY || ub == INFINITY)
    {
      d[0] = 1;
      return u;
    }
  double w = ub - lb, au = fabs (u);
  d[0] = 1 - 2 * tilde_inv_logit (u);
  d[1] = -1 / w;
  d[2] = 1 / w;
  return log (w) - au - 2 * log1p (exp (-au));
}

static double
f_affine (const double *x, double *d)
{
  d[0] = x[2];
  d[1] = 1;
  d[2] = x[0];
  return x[1] + x[2] * x[0];
}

static double
j_affine (const double *x, double *d)
{
  d[0] = d[1] = 0;
  d[2] = 1 / x[2];
  return log (x[2]);
}

static void
sum_all (RtCtx *cx, const TildeValue *v, TildeValue *out)
{
  if (tilde_value_kind_is_scalar ((TildeValueKind) v->kind))
    {
      *out = *v;
      return;
    }
  rt_sum (cx, v, out);
}

static void
check_affine_scale (RtCtx *cx, const TildeValue *s)
{
  gint32 n = tilde_value_is_flat (s) || tilde_value_kind_is_scalar ((TildeValueKind) s->kind)
    ? tilde_value_flat_size (s) : 0;
  const double *x = n ? rt_values (cx, s) : NULL;
  for (gint32 i = 0; i < n; i++)
    if (!(x[i] > 0) || isinf (x[i]))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "offset_multiplier_constrain: multiplier is %g, "
                "but must be positive finite!", x[i]);
}

static void
check_lub_order (RtCtx *cx, const TildeValue *lb, const TildeValue *ub)
{
  if (!tilde_value_kind_is_scalar ((TildeValueKind) lb->kind)
      || !tilde_value_kind_is_scalar ((TildeValueKind) ub->kind))
    return;
  double l = rt_scalar (cx, lb), u = rt_scalar (cx, ub);
  if (!(l < u))
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "lub_constrain: lb is %g, but must be less than %g",
              l, u);
}

static void
constrain_elementwise (RtCtx *cx, MirTransformKind kind, const TildeValue *a, const TildeValue *b,
                       const TildeValue *x, TildeValue *out, TildeValue *lj)
{
  TildeValue args[3] = { *x };
  TildeValue lje;
  switch (kind)
    {
    case MIR_TRANS_IDENTITY:
      *out = *x;
      *lj = tilde_value_real (0);
      return;
    case MIR_TRANS_LOWER:
      args[1] = *a;
      rt_map (cx, 2, args, out, f_lower);
      rt_map (cx, 2, args, &lje, j_lower);
      break;
    case MIR_TRANS_UPPER:
      args[1] = *a;
      rt_map (cx, 2, args, out, f_upper);
      rt_map (cx, 2, args, &lje, j_upper);
      break;
    case MIR_TRANS_LOWER_UPPER:
      check_lub_order (cx, a, b);
      args[1] = *a;
      args[2] = *b;
      rt_map (cx, 3, args, out, f_lub);
      rt_map (cx, 3, args, &lje, j_lub);
      break;
    case MIR_TRANS_OFFSET:
      args[1] = *a;
      args[2] = tilde_value_real (1);
      rt_map (cx, 3, args, out, f_affine);
      *lj = tilde_value_real (0);
      return;
    case MIR_TRANS_MULTIPLIER:
      check_affine_scale (cx, a);
      args[1] = tilde_value_real (0);
      args[2] = *a;
      rt_map (cx, 3, args, out, f_affine);
      rt_map (cx, 3, args, &lje, j_affine);
      break;
    case MIR_TRANS_OFFSET_MULTIPLIER:
      check_affine_scale (cx, b);
      args[1] = *a;
      args[2] = *b;
      rt_map (cx, 3, args, out, f_affine);
      rt_map (cx, 3, args, &lje, j_affine);
      break;
    default:
      g_assert_not_reached ();
    }
  sum_all (cx, &lje, lj);
}

/* ---- scalar operations on the tape, for the structured transforms ---- */

typedef gint32 V;

#define VAL(id) (cx->tape->val[id])

static V
s_new_checked (RtCtx *cx, V id)
{
  if (id < 0)
    rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "the autodiff tape is full");
  return id;
}

static V s_const (RtCtx *cx, double v) { return s_new_checked (cx, ad_constant (cx->tape, v)); }
static V s_un (RtCtx *cx, double v, V a, double da) { return s_new_checked (cx, ad_unary (cx->tape, v, a, da)); }
static V s_bin (RtCtx *cx, double v, V a, double da, V b, double db)
{
  return s_new_checked (cx, ad_binary (cx->tape, v, a, da, b, db));
}
static V s_add (RtCtx *cx, V a, V b) { return s_bin (cx, VAL (a) + VAL (b), a, 1, b, 1); }
static V s_sub (RtCtx *cx, V a, V b) { return s_bin (cx, VAL (a) - VAL (b), a, 1, b, -1); }
static V s_mul (RtCtx *cx, V a, V b) { return s_bin (cx, VAL (a) * VAL (b), a, VAL (b), b, VAL (a)); }
static V s_div (RtCtx *cx, V a, V b)
{
  double x = VAL (a), y = VAL (b);
  return s_bin (cx, x / y, a, 1 / y, b, -x / (y * y));
}
static V s_addc (RtCtx *cx, V a, double c) { return s_un (cx, VAL (a) + c, a, 1); }
static V s_scale (RtCtx *cx, V a, double c) { return s_un (cx, VAL (a) * c, a, c); }
static V s_exp (RtCtx *cx, V a) { double e = exp (VAL (a)); return s_un (cx, e, a, e); }
static V s_log (RtCtx *cx, V a) { return s_un (cx, log (VAL (a)), a, 1 / VAL (a)); }
static V s_sqrt (RtCtx *cx, V a) { double r = sqrt (VAL (a)); return s_un (cx, r, a, 0.5 / r); }
static V s_square (RtCtx *cx, V a) { return s_un (cx, VAL (a) * VAL (a), a, 2 * VAL (a)); }
static V s_tanh (RtCtx *cx, V a) { double t = tanh (VAL (a)); return s_un (cx, t, a, 1 - t * t); }
static V s_log1m (RtCtx *cx, V a) { return s_un (cx, log1p (-VAL (a)), a, -1 / (1 - VAL (a))); }
static V s_inv_logit (RtCtx *cx, V a)
{
  double s = tilde_inv_logit (VAL (a));
  return s_un (cx, s, a, s * (1 - s));
}
static V s_log_inv_logit (RtCtx *cx, V a)
{
  return s_un (cx, tilde_log_inv_logit (VAL (a)), a, tilde_inv_logit (-VAL (a)));
}
static V s_log1m_inv_logit (RtCtx *cx, V a)
{
  return s_un (cx, tilde_log1m_inv_logit (VAL (a)), a, -tilde_inv_logit (VAL (a)));
}

/* ids of the n free values of a unit from `u` at `at`, as tape variables */
static V *
unit_ids (RtCtx *cx, const TildeValue *u, gint32 at, gint32 n)
{
  V *ids = tilde_arena_alloc (cx->arena, sizeof (V) * (gsize) MAX (n, 1));
  for (gint32 i = 0; i < n; i++)
    ids[i] = u->ad ? tilde_value_var (u, at + i) : s_const (cx, u->u.d[at + i]);
  return ids;
}

static V *
new_ids (RtCtx *cx, gint32 n)
{
  return tilde_arena_alloc (cx->arena, sizeof (V) * (gsize) MAX (n, 1));
}

/* Each structured transform maps free ids y[] to output ids x[] (rows x
 * cols, column-major) and returns the id of its log |J|. */

static V
t_ordered (RtCtx *cx, const V *y, gint32 K, V *x, gboolean positive)
{
  V lp = s_const (cx, 0);
  if (K == 0)
    return lp;
  x[0] = positive ? s_exp (cx, y[0]) : y[0];
  if (positive)
    lp = y[0];
  for (gint32 k = 1; k < K; k++)
    {
      x[k] = s_add (cx, x[k - 1], s_exp (cx, y[k]));
      lp = s_add (cx, lp, y[k]);
    }
  return lp;
}

static V
t_simplex (RtCtx *cx, const V *y, gint32 K, V *x)
{
  V lp = s_const (cx, 0);
  if (K == 0)
    return lp;
  gint32 N = K - 1;
  V stick = s_const (cx, 1);
  for (gint32 k = 0; k < N; k++)
    {
      V adj = s_addc (cx, y[k], -log ((double) (N - k)));
      V z = s_inv_logit (cx, adj);
      x[k] = s_mul (cx, stick, z);
      lp = s_add (cx, lp, s_log (cx, stick));
      lp = s_add (cx, lp, s_log_inv_logit (cx, adj));
      lp = s_add (cx, lp, s_log1m_inv_logit (cx, adj));
      stick = s_sub (cx, stick, x[k]);
    }
  x[N] = stick;
  return lp;
}

static V
t_unit_vector (RtCtx *cx, const V *y, gint32 K, V *x)
{
  if (K == 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "unit_vector_constrain: y has size 0, but must have a "
              "non-zero size");
  V ss = s_const (cx, 0);
  for (gint32 k = 0; k < K; k++)
    ss = s_add (cx, ss, s_square (cx, y[k]));
  if (!(VAL (ss) > 0))
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "unit_vector_constrain: norm is 0, but must be positive");
  V norm = s_sqrt (cx, ss);
  for (gint32 k = 0; k < K; k++)
    x[k] = s_div (cx, y[k], norm);
  return s_scale (cx, ss, -0.5);
}

static V
t_sum_to_zero (RtCtx *cx, const V *y, gint32 N1, V *x)
{
  /* N1 = N + 1 outputs from N free values: the isometric construction */
  gint32 N = N1 - 1;
  V zero = s_const (cx, 0);
  for (gint32 i = 0; i < N1; i++)
    x[i] = zero;
  if (N <= 0)
    return zero;
  V sum_w = zero;
  for (gint32 i = N; i >= 1; i--)
    {
      double n = i;
      V w = s_scale (cx, y[i - 1], 1 / sqrt (n * (n + 1)));
      sum_w = s_add (cx, sum_w, w);
      x[i - 1] = s_add (cx, x[i - 1], sum_w);
      x[i] = s_sub (cx, x[i], s_scale (cx, w, n));
    }
  return zero;
}

/* An R x C matrix whose rows and columns all sum to zero, from the
 * (R - 1) x (C - 1) free values y (column-major): the vector transform
 * on each column, then on each row. Each step is an isometry onto the
 * zero-sum vectors, so the whole is one too and has no Jacobian. */
static V
t_sum_to_zero_matrix (RtCtx *cx, const V *y, gint32 R, gint32 C, V *x)
{
  V zero = s_const (cx, 0);
  for (gint32 i = 0; i < R * C; i++)
    x[i] = zero;
  if (R <= 1 || C <= 1)
    return zero;
  V *cols = new_ids (cx, R * (C - 1)), *in = new_ids (cx, C - 1), *out = new_ids (cx, C);
  for (gint32 j = 0; j + 1 < C; j++)
    t_sum_to_zero (cx, y + j * (R - 1), R, cols + j * R);
  for (gint32 i = 0; i < R; i++)
    {
      for (gint32 j = 0; j + 1 < C; j++)
        in[j] = cols[i + j * R];
      t_sum_to_zero (cx, in, C, out);
      for (gint32 j = 0; j < C; j++)
        x[i + j * R] = out[j];
    }
  return zero;
}

/* z = tanh (y), with log |J| = sum log (1 - z^2) */
static V
t_corr (RtCtx *cx, const V *y, gint32 n, V *z)
{
  V lp = s_const (cx, 0);
  for (gint32 i = 0; i < n; i++)
    {
      z[i] = s_tanh (cx, y[i]);
      lp = s_add (cx, lp, s_log1m (cx, s_square (cx, z[i])));
    }
  return lp;
}

static V
t_cholesky_corr (RtCtx *cx, const V *y, gint32 K, V *x)
{
  gint32 nz = K * (K - 1) / 2;
  V *z = new_ids (cx, nz);
  V lp = t_corr (cx, y, nz, z);
  V zero = s_const (cx, 0);
  for (gint32 i = 0; i < K * K; i++)
    x[i] = zero;
  if (K == 0)
    return lp;
  x[0] = s_const (cx, 1);
  gint32 k = 0;
  for (gint32 i = 1; i < K; i++)
    {
      x[i] = z[k++];
      V sum_sqs = s_square (cx, x[i]);
      for (gint32 j = 1; j < i; j++)
        {
          V rem = s_log1m (cx, sum_sqs);
          lp = s_add (cx, lp, s_scale (cx, rem, 0.5));
          x[i + j * K] = s_mul (cx, z[k++], s_sqrt (cx, s_addc (cx, s_scale (cx, sum_sqs, -1), 1)));
          sum_sqs = s_add (cx, sum_sqs, s_square (cx, x[i + j * K]));
        }
      x[i + i * K] = s_sqrt (cx, s_addc (cx, s_scale (cx, sum_sqs, -1), 1));
    }
  return lp;
}

static V
t_cholesky_cov (RtCtx *cx, const V *y, gint32 M, gint32 N, V *x)
{
  V zero = s_const (cx, 0), lp = zero;
  for (gint32 i = 0; i < M * N; i++)
    x[i] = zero;
  gint32 pos = 0;
  for (gint32 m = 0; m < N; m++)
    {
      for (gint32 n = 0; n < m; n++)
        x[m + n * M] = y[pos++];
      lp = s_add (cx, lp, y[pos]);
      x[m + m * M] = s_exp (cx, y[pos++]);
    }
  for (gint32 m = N; m < M; m++)
    for (gint32 n = 0; n < N; n++)
      x[m + n * M] = y[pos++];
  return lp;
}

/* x = L L^T for a lower-triangular L of ids */
static void
lower_self_product (RtCtx *cx, const V *L, gint32 K, V *x)
{
  for (gint32 i = 0; i < K; i++)
    for (gint32 j = 0; j <= i; j++)
      {
        V s = s_mul (cx, L[i], L[j]);
        for (gint32 k = 1; k <= j; k++)
          s = s_add (cx, s, s_mul (cx, L[i + k * K], L[j + k * K]));
        x[i + j * K] = s;
        x[j + i * K] = s;
      }
}

static V
t_cov_matrix (RtCtx *cx, const V *y, gint32 K, V *x)
{
  V *L = new_ids (cx, K * K);
  V zero = s_const (cx, 0), lp = s_const (cx, K * TILDE_LOG_TWO);
  for (gint32 i = 0; i < K * K; i++)
    L[i] = zero;
  gint32 pos = 0;
  for (gint32 m = 0; m < K; m++)
    {
      for (gint32 n = 0; n < m; n++)
        L[m + n * K] = y[pos++];
      lp = s_add (cx, lp, s_scale (cx, y[pos], (double) (K - m + 1)));
      L[m + m * K] = s_exp (cx, y[pos++]);
    }
  lower_self_product (cx, L, K, x);
  return lp;
}

static V
t_corr_matrix (RtCtx *cx, const V *y, gint32 K, V *x)
{
  gint32 nz = K * (K - 1) / 2;
  V *z = new_ids (cx, nz);
  V lp = t_corr (cx, y, nz, z);
  V zero = s_const (cx, 0), one = s_const (cx, 1);
  V *L = new_ids (cx, K * K);
  for (gint32 i = 0; i < K * K; i++)
    L[i] = zero;
  if (K == 0)
    return lp;
  /* the Jacobian of the canonical partial correlations */
  gint32 pos = 0;
  for (gint32 k = 0; k + 1 < K; k++)
    for (gint32 i = k + 1; i < K; i++, pos++)
      lp = s_add (cx, lp, s_scale (cx, s_log1m (cx, s_square (cx, z[pos])),
                                   0.5 * (K - k - 2)));
  V *acc = new_ids (cx, K);
  L[0] = one;
  for (gint32 i = 1; i < K; i++)
    {
      L[i] = z[i - 1];
      acc[i] = s_addc (cx, s_scale (cx, s_square (cx, z[i - 1]), -1), 1);
    }
  pos = K - 1;
  for (gint32 i = 1; i + 1 < K; i++)
    {
      L[i + i * K] = s_sqrt (cx, acc[i]);
      for (gint32 r = i + 1; r < K; r++, pos++)
        {
          L[r + i * K] = s_mul (cx, z[pos], s_sqrt (cx, acc[r]));
          acc[r] = s_mul (cx, acc[r], s_addc (cx, s_scale (cx, s_square (cx, z[pos]), -1), 1));
        }
    }
  if (K > 1)
    L[(K - 1) + (K - 1) * K] = s_sqrt (cx, acc[K - 1]);
  lower_self_product (cx, L, K, x);
  return lp;
}

/* constrains one vector or matrix unit */
static void
constrain_unit (RtCtx *cx, MirTransformKind kind, const TildeShape *s, const TildeValue *u,
                gint32 at, TildeValue *out, V *lp)
{
  gint32 nfree = unit_free_size (kind, s);
  V *y = unit_ids (cx, u, at, nfree);
  gint32 n = s->rows * s->cols;
  V *x = new_ids (cx, n);
  V l;
  switch (kind)
    {
    case MIR_TRANS_ORDERED:
      l = t_ordered (cx, y, n, x, FALSE);
      break;
    case MIR_TRANS_POSITIVE_ORDERED:
      l = t_ordered (cx, y, n, x, TRUE);
      break;
    case MIR_TRANS_SIMPLEX:
      l = t_simplex (cx, y, n, x);
      break;
    case MIR_TRANS_UNIT_VECTOR:
      l = t_unit_vector (cx, y, n, x);
      break;
    case MIR_TRANS_SUM_TO_ZERO:
      if (s->kind == TILDE_VALUE_MATRIX)
        l = t_sum_to_zero_matrix (cx, y, s->rows, s->cols, x);
      else
        l = t_sum_to_zero (cx, y, n, x);
      break;
    case MIR_TRANS_CHOLESKY_CORR:
      l = t_cholesky_corr (cx, y, s->rows, x);
      break;
    case MIR_TRANS_CHOLESKY_COV:
      l = t_cholesky_cov (cx, y, s->rows, s->cols, x);
      break;
    case MIR_TRANS_COVARIANCE:
      l = t_cov_matrix (cx, y, s->rows, x);
      break;
    case MIR_TRANS_CORRELATION:
      l = t_corr_matrix (cx, y, s->rows, x);
      break;
    case MIR_TRANS_STOCHASTIC_COLUMN:
      {
        gint32 R = s->rows, C = s->cols;
        l = s_const (cx, 0);
        V *col = new_ids (cx, R);
        for (gint32 j = 0; j < C; j++)
          {
            V lj = t_simplex (cx, y + j * (R - 1), R, col);
            l = s_add (cx, l, lj);
            for (gint32 i = 0; i < R; i++)
              x[i + j * R] = col[i];
          }
        break;
      }
    case MIR_TRANS_STOCHASTIC_ROW:
      {
        gint32 R = s->rows, C = s->cols;
        l = s_const (cx, 0);
        V *row = new_ids (cx, C), *yr = new_ids (cx, MAX (C - 1, 0));
        for (gint32 i = 0; i < R; i++)
          {
            for (gint32 j = 0; j + 1 < C; j++)
              yr[j] = y[i + j * R];
            V lj = t_simplex (cx, yr, C, row);
            l = s_add (cx, l, lj);
            for (gint32 j = 0; j < C; j++)
              x[i + j * R] = row[j];
          }
        break;
      }
    default:
      rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "the %s transform is not supported",
                mir_transform_kind_name (kind));
    }
  TildeValue r = { .kind = (guint8) s->kind, .ad = 1, .rows = s->rows, .cols = s->cols };
  r.idx = x;
  *out = r;
  *lp = s_add (cx, *lp, l);
}

static void
constrain_units (RtCtx *cx, MirTransformKind kind, const TildeShape *s, const TildeValue *u,
                 gint32 *at, TildeValue *out, V *lp)
{
  if (s->kind == TILDE_VALUE_ARRAY)
    {
      TildeValue r = { .kind = TILDE_VALUE_ARRAY, .elem = (guint8) s->elem->kind, .rows = s->rows,
                       .cols = 1 };
      r.u.elems = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * (gsize) MAX (s->rows, 1));
      for (gint32 i = 0; i < s->rows; i++)
        constrain_units (cx, kind, s->elem, u, at, &r.u.elems[i], lp);
      *out = r;
      return;
    }
  constrain_unit (cx, kind, s, u, *at, out, lp);
  *at += unit_free_size (kind, s);
}

/* the values of an ad value as a data value of the same structure */
static TildeValue
to_data (RtCtx *cx, const TildeValue *v)
{
  if (!rt_is_ad (v))
    return *v;
  if (tilde_value_kind_is_scalar ((TildeValueKind) v->kind))
    return tilde_value_real (cx->tape->val[v->start]);
  TildeValue r = *v;
  r.ad = 0;
  r.idx = NULL;
  if (tilde_value_is_flat (v))
    {
      gint32 n = tilde_value_flat_size (v);
      r.u.d = rt_alloc_d (cx, (gsize) n);
      for (gint32 i = 0; i < n; i++)
        r.u.d[i] = cx->tape->val[tilde_value_var (v, i)];
      return r;
    }
  r.u.elems = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * (gsize) MAX (v->rows, 1));
  for (gint32 i = 0; i < v->rows; i++)
    r.u.elems[i] = to_data (cx, &v->u.elems[i]);
  return r;
}

/* real<lower=a> with a scalar bound, the most common parameter: no maps,
 * and the log-Jacobian is u itself. */
static gboolean
constrain_scalar_bound (RtCtx *cx, MirTransformKind kind, const TildeValue *a,
                        const TildeShape *shape, const TildeValue *u, TildeValue *out,
                        TildeValue *lj)
{
  if ((kind != MIR_TRANS_LOWER && kind != MIR_TRANS_UPPER) || shape->kind != TILDE_VALUE_REAL
      || !tilde_value_kind_is_scalar ((TildeValueKind) a->kind) || !u->ad)
    return FALSE;
  double bound = rt_scalar (cx, a);
  if (isinf (bound))
    return FALSE;
  gint32 uid = tilde_value_var (u, 0);
  double e = exp (cx->tape->val[uid]);
  double sign = kind == MIR_TRANS_LOWER ? 1 : -1;
  gint32 id = a->ad ? ad_binary (cx->tape, bound + sign * e, uid, sign * e, a->start, 1)
    : ad_unary (cx->tape, bound + sign * e, uid, sign * e);
  if (id < 0)
    rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "the autodiff tape is full");
  tilde_value_set_var (out, id);
  tilde_value_set_var (lj, uid);
  return TRUE;
}

void
rt_constrain (RtCtx *cx, MirTransformKind kind, const TildeValue *a, const TildeValue *b,
              const TildeShape *shape, const TildeValue *u, TildeValue *out, TildeValue *lj)
{
  if (a && constrain_scalar_bound (cx, kind, a, shape, u, out, lj))
    return;
  if (is_elementwise (kind))
    {
      TildeValue x = view (cx, u, 0, shape);
      constrain_elementwise (cx, kind, a, b, &x, out, lj);
      return;
    }
  V lp = s_const (cx, 0);
  gint32 at = 0;
  constrain_units (cx, kind, shape, u, &at, out, &lp);
  if (!u->ad)
    {
      /* data in, data out: only the values were wanted */
      *out = to_data (cx, out);
      *lj = tilde_value_real (VAL (lp));
      return;
    }
  *lj = rt_ad_scalar (lp);
}

/* ---- inverse transforms (data only) ---- */

/* The K - 1 free values of the zero-sum vector v[0], v[stride], ...,
 * written to y[0], y[ystride], ... */
static void
free_sum_to_zero (const double *v, gint32 stride, gint32 K, double *y, gint32 ystride)
{
  gint32 N = K - 1;
  if (N <= 0)
    return;
  y[(N - 1) * ystride] = -v[N * stride] * sqrt ((double) N * (N + 1)) / N;
  double sum_w = 0;
  for (gint32 i = N - 2; i >= 0; i--)
    {
      double n = i + 1;
      double w = y[(i + 1) * ystride] / sqrt ((n + 1) * (n + 2));
      sum_w += w;
      y[i * ystride] = (sum_w - v[(i + 1) * stride]) * sqrt (n * (n + 1)) / n;
    }
}

/* The sum of line k of the R x C values v (column-major): its k-th row,
 * or its k-th column; the sum of magnitudes in *magnitude if asked. */
static double
line_sum (const double *v, gint32 R, gint32 C, gboolean rows, gint32 k, double *magnitude)
{
  gint32 length = rows ? C : R, stride = rows ? R : 1;
  const double *line = rows ? v + k : v + (gsize) k * R;
  double sum = 0, abs_sum = 0;
  for (gint32 t = 0; t < length; t++)
    {
      sum += line[t * stride];
      abs_sum += fabs (line[t * stride]);
    }
  if (magnitude)
    *magnitude = abs_sum;
  return sum;
}

/* Whether each line of the R x C values p (its rows, or its columns) sums
 * to `target` within what rounding each value to the relative precision
 * `rounding` explains; if `fix`, it is then brought to that sum, by
 * scaling (target 1) or by a shift (target 0). */
static gboolean
line_sums (double *p, gint32 R, gint32 C, gboolean rows, double target, double rounding,
           gboolean fix)
{
  gint32 lines = rows ? R : C, length = rows ? C : R, stride = rows ? R : 1;
  for (gint32 k = 0; k < lines; k++)
    {
      double *line = rows ? p + k : p + (gsize) k * R, magnitude;
      double sum = line_sum (p, R, C, rows, k, &magnitude);
      if (!fix && !(fabs (sum - target) <= 2 * rounding * magnitude))
        return FALSE;
      for (gint32 t = 0; fix && t < length; t++)
        line[t * stride] = target == 0 ? line[t * stride] - sum / length : line[t * stride] / sum;
    }
  return TRUE;
}

/* For values read back from text, rounded to the relative precision
 * cx->rounding: the nearest value that meets a sum constraint (a simplex,
 * a stochastic matrix, a zero-sum vector or matrix) or the unit length,
 * when the value misses it by no more than the rounding; NULL otherwise,
 * for the check to report. */
static const double *
project_rounded (RtCtx *cx, MirTransformKind kind, const TildeValue *x, const double *v)
{
  gint32 R = x->rows, C = x->cols;
  double r = cx->rounding;
  double *p = rt_alloc_d (cx, (gsize) (R * C));
  memcpy (p, v, sizeof (double) * (gsize) (R * C));
  switch (kind)
    {
    case MIR_TRANS_SIMPLEX:
    case MIR_TRANS_STOCHASTIC_COLUMN:
    case MIR_TRANS_STOCHASTIC_ROW:
      {
        gboolean rows = kind == MIR_TRANS_STOCHASTIC_ROW;
        if (!line_sums (p, R, C, rows, 1, r, FALSE))
          return NULL;
        line_sums (p, R, C, rows, 1, r, TRUE);
        return p;
      }
    case MIR_TRANS_SUM_TO_ZERO:
      {
        /* a matrix's rows and columns, each as printed; then the rows,
         * then the columns (shifting columns keeps the rows' sums) */
        gboolean matrix = x->kind == TILDE_VALUE_MATRIX;
        if ((matrix && !line_sums (p, R, C, TRUE, 0, r, FALSE))
            || !line_sums (p, R, C, FALSE, 0, r, FALSE))
          return NULL;
        if (matrix)
          line_sums (p, R, C, TRUE, 0, r, TRUE);
        line_sums (p, R, C, FALSE, 0, r, TRUE);
        return p;
      }
    case MIR_TRANS_UNIT_VECTOR:
      {
        double ss = 0;
        for (gint32 i = 0; i < R * C; i++)
          ss += p[i] * p[i];
        if (!(ss > 0 && fabs (1 - ss) <= 4 * r * ss))
          return NULL;
        for (gint32 i = 0; i < R * C; i++)
          p[i] /= sqrt (ss);
        return p;
      }
    default:
      return NULL;
    }
}

static void
free_unit (RtCtx *cx, MirTransformKind kind, const TildeValue *x, double *y)
{
  const double *v = rt_values (cx, x);
  TildeValue projected;
  if (cx->rounding > 0)
    {
      const double *p = project_rounded (cx, kind, x, v);
      if (p)
        {
          projected = (TildeValue) { .kind = x->kind, .rows = x->rows, .cols = x->cols };
          projected.u.d = (double *) p;
          x = &projected;
          v = p;
        }
    }
  gint32 R = x->rows, C = x->cols, K = R;
  switch (kind)
    {
    case MIR_TRANS_ORDERED:
    case MIR_TRANS_POSITIVE_ORDERED:
      for (gint32 k = 0; k < K; k++)
        {
          if (k > 0 && !(v[k] > v[k - 1]))
            rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: is not a valid ordered vector. "
                      "The element at %d is %g, but should be greater than the previous element, %g",
                      kind == MIR_TRANS_ORDERED ? "ordered_free" : "positive_ordered_free",
                      k + 1, v[k], v[k - 1]);
          if (k == 0)
            y[0] = kind == MIR_TRANS_ORDERED ? v[0] : log (v[0]);
          else
            y[k] = log (v[k] - v[k - 1]);
        }
      if (kind == MIR_TRANS_POSITIVE_ORDERED && K > 0 && !(v[0] > 0))
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "positive_ordered_free: Positive ordered "
                  "variable is %g, but must be positive", v[0]);
      break;
    case MIR_TRANS_SIMPLEX:
      {
        rt_check_constraint (cx, kind, NULL, NULL, x, "simplex_free");
        gint32 N = K - 1;
        double stick = 1;
        for (gint32 k = 0; k < N; k++)
          {
            double z = v[k] / stick;
            y[k] = tilde_logit (z) + log ((double) (N - k));
            stick -= v[k];
          }
        break;
      }
    case MIR_TRANS_UNIT_VECTOR:
      rt_check_constraint (cx, kind, NULL, NULL, x, "unit_vector_free");
      memcpy (y, v, sizeof (double) * (gsize) K);
      break;
    case MIR_TRANS_SUM_TO_ZERO:
      {
        rt_check_constraint (cx, kind, NULL, NULL, x, "sum_to_zero_free");
        if (x->kind != TILDE_VALUE_MATRIX)
          {
            free_sum_to_zero (v, 1, K, y, 1);
            break;
          }
        /* the inverse of the matrix transform: each row, then each column */
        if (R <= 1 || C <= 1)
          break;
        double *rows = rt_alloc_d (cx, (gsize) (R * (C - 1)));
        for (gint32 i = 0; i < R; i++)
          free_sum_to_zero (v + i, R, C, rows + i, R);
        for (gint32 j = 0; j + 1 < C; j++)
          free_sum_to_zero (rows + j * R, 1, R, y + j * (R - 1), 1);
        break;
      }
    case MIR_TRANS_CHOLESKY_CORR:
      {
        /* like Stan, only the shape is checked: factors read from text are
         * not exactly of unit rows */
        if (R != C)
          rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "cholesky_corr_free: Expecting a square "
                    "matrix; rows of x (%d) and columns of x (%d) must match in size", R, C);
        gint32 k = 0;
        for (gint32 i = 1; i < K; i++)
          {
            y[k++] = atanh (v[i]);
            double sum_sqs = v[i] * v[i];
            for (gint32 j = 1; j < i; j++)
              {
                y[k++] = atanh (v[i + j * K] / sqrt (1 - sum_sqs));
                sum_sqs += v[i + j * K] * v[i + j * K];
              }
          }
        break;
      }
    case MIR_TRANS_CHOLESKY_COV:
      {
        rt_check_constraint (cx, kind, NULL, NULL, x, "cholesky_factor_free");
        gint32 pos = 0, M = R, N = C;
        for (gint32 m = 0; m < N; m++)
          {
            for (gint32 n = 0; n < m; n++)
              y[pos++] = v[m + n * M];
            y[pos++] = log (v[m + m * M]);
          }
        for (gint32 m = N; m < M; m++)
          for (gint32 n = 0; n < N; n++)
            y[pos++] = v[m + n * M];
        break;
      }
    case MIR_TRANS_COVARIANCE:
    case MIR_TRANS_CORRELATION:
      {
        rt_check_constraint (cx, kind, NULL, NULL, x,
                             kind == MIR_TRANS_COVARIANCE ? "cov_matrix_free" : "corr_matrix_free");
        double *L = tilde_arena_memdup (cx->arena, v, sizeof (double) * (gsize) MAX (K * K, 1));
        if (K > 0 && LAPACKE_dpotrf (LAPACK_COL_MAJOR, 'L', K, L, K) != 0)
          rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: matrix is not positive definite",
                    kind == MIR_TRANS_COVARIANCE ? "cov_matrix_free" : "corr_matrix_free");
        if (kind == MIR_TRANS_COVARIANCE)
          {
            gint32 pos = 0;
            for (gint32 m = 0; m < K; m++)
              {
                for (gint32 n = 0; n < m; n++)
                  y[pos++] = L[m + n * K];
                y[pos++] = log (L[m + m * K]);
              }
            break;
          }
        /* invert the partial-correlation construction column by column */
        double *acc = rt_alloc_d (cx, (gsize) K);
        for (gint32 i = 0; i < K; i++)
          acc[i] = 1;
        gint32 pos = 0;
        for (gint32 c = 0; c + 1 < K; c++)
          for (gint32 r = c + 1; r < K; r++)
            {
              double z = L[r + c * K] / sqrt (acc[r]);
              acc[r] *= 1 - z * z;
              y[pos++] = atanh (z);
            }
        break;
      }
    case MIR_TRANS_STOCHASTIC_COLUMN:
    case MIR_TRANS_STOCHASTIC_ROW:
      {
        gboolean col = kind == MIR_TRANS_STOCHASTIC_COLUMN;
        gint32 units = col ? C : R, len = col ? R : C;
        TildeValue unit = { .kind = TILDE_VALUE_VECTOR, .rows = len, .cols = 1 };
        unit.u.d = rt_alloc_d (cx, (gsize) len);
        double *yu = rt_alloc_d (cx, (gsize) len);
        for (gint32 s = 0; s < units; s++)
          {
            for (gint32 i = 0; i < len; i++)
              unit.u.d[i] = col ? v[i + s * R] : v[s + i * R];
            free_unit (cx, MIR_TRANS_SIMPLEX, &unit, yu);
            for (gint32 i = 0; i + 1 < len; i++)
              {
                if (col)
                  y[i + s * (R - 1)] = yu[i];
                else
                  y[s + i * R] = yu[i];
              }
          }
        break;
      }
    default:
      rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "the %s transform has no inverse here",
                mir_transform_kind_name (kind));
    }
}

static double
free_scalar (RtCtx *cx, MirTransformKind kind, double x, double a, double b)
{
  switch (kind)
    {
    case MIR_TRANS_IDENTITY:
      return x;
    case MIR_TRANS_LOWER:
      if (a == -INFINITY)
        return x;
      if (!(x >= a))
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "lb_free: Lower bounded variable is %g, but must "
                  "be greater than or equal to %g", x, a);
      return log (x - a);
    case MIR_TRANS_UPPER:
      if (a == INFINITY)
        return x;
      if (!(x <= a))
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "ub_free: Upper bounded variable is %g, but must "
                  "be less than or equal to %g", x, a);
      return log (a - x);
    case MIR_TRANS_LOWER_UPPER:
      if (!(x >= a && x <= b))
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "lub_free: Bounded variable is %g, but must be in "
                  "the interval [%g, %g]", x, a, b);
      if (a == -INFINITY && b == INFINITY)
        return x;
      if (a == -INFINITY)
        return log (b - x);
      if (b == INFINITY)
        return log (x - a);
      return tilde_logit ((x - a) / (b - a));
    case MIR_TRANS_OFFSET:
      return x - a;
    case MIR_TRANS_MULTIPLIER:
      return x / a;
    case MIR_TRANS_OFFSET_MULTIPLIER:
      return (x - a) / b;
    default:
      g_assert_not_reached ();
    }
}

/* bound i of an argument that is a scalar or shaped like the value */
static double
arg_at (RtCtx *cx, const TildeValue *arg, const double *vals, gint32 i)
{
  if (!arg)
    return 0;
  return tilde_value_kind_is_scalar ((TildeValueKind) arg->kind) ? vals[0] : vals[i];
}

static void
unconstrain_rec (RtCtx *cx, MirTransformKind kind, const TildeValue *a, const TildeValue *b,
                 const TildeValue *x, double *y, gint32 *at)
{
  if (x->kind == TILDE_VALUE_ARRAY && !tilde_value_is_flat (x))
    {
      for (gint32 i = 0; i < x->rows; i++)
        {
          const TildeValue *ai = a && a->kind == TILDE_VALUE_ARRAY ? &a->u.elems[i] : a;
          const TildeValue *bi = b && b->kind == TILDE_VALUE_ARRAY ? &b->u.elems[i] : b;
          unconstrain_rec (cx, kind, ai, bi, &x->u.elems[i], y, at);
        }
      return;
    }
  if (tilde_value_kind_is_complex ((TildeValueKind) x->kind))
    {
      /* complex values are unconstrained: their parts as they are */
      gint32 n = 2 * tilde_value_flat_size (x);
      memcpy (y + *at, x->kind == TILDE_VALUE_COMPLEX ? x->u.z : x->u.d,
              sizeof (double) * (gsize) n);
      *at += n;
      return;
    }
  if (is_elementwise (kind) || tilde_value_kind_is_scalar ((TildeValueKind) x->kind)
      || x->kind == TILDE_VALUE_ARRAY)
    {
      gint32 n = tilde_value_flat_size (x);
      const double *v = rt_values (cx, x);
      const double *av = a ? rt_values (cx, a) : NULL, *bv = b ? rt_values (cx, b) : NULL;
      for (gint32 i = 0; i < n; i++)
        y[(*at)++] = free_scalar (cx, kind, v[i], arg_at (cx, a, av, i), arg_at (cx, b, bv, i));
      return;
    }
  free_unit (cx, kind, x, y + *at);
  TildeShape s = { .kind = (TildeValueKind) x->kind, .rows = x->rows, .cols = x->cols };
  *at += unit_free_size (kind, &s);
}

void
rt_unconstrain (RtCtx *cx, MirTransformKind kind, const TildeValue *a, const TildeValue *b,
                const TildeValue *x, double *free)
{
  gint32 at = 0;
  unconstrain_rec (cx, kind, a, b, x, free, &at);
}

/* ---- checks ---- */

static void
check_fail (RtCtx *cx, const char *name, const char *fmt, ...) G_GNUC_PRINTF (3, 4) G_GNUC_NORETURN;

static void
check_fail (RtCtx *cx, const char *name, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *what = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  char *message = g_strdup_printf ("%s %s", name, what);
  g_free (what);
  rt_raise_take (cx, TILDE_MODEL_ERROR_DOMAIN, message);
}

/* Each row (or each column) of the R x C matrix v sums to zero. */
static void
check_zero_sums (RtCtx *cx, const char *name, const double *v, gint32 R, gint32 C,
                 gboolean rows, double tol)
{
  for (gint32 k = 0; k < (rows ? R : C); k++)
    {
      double s = line_sum (v, R, C, rows, k, NULL);
      if (!(fabs (s) <= tol))
        check_fail (cx, name, rows ? "does not sum to zero. sum(%s[%d, ]) = %g, but should be 0"
                    : "does not sum to zero. sum(%s[, %d]) = %g, but should be 0", name, k + 1, s);
    }
}

static void
check_unit (RtCtx *cx, MirTransformKind kind, const TildeValue *x, const char *name)
{
  const double *v = rt_values (cx, x);
  gint32 R = x->rows, C = x->cols, K = R;
  const double tol = 1e-8;
  switch (kind)
    {
    case MIR_TRANS_ORDERED:
    case MIR_TRANS_POSITIVE_ORDERED:
      for (gint32 k = 0; k < K; k++)
        {
          if (kind == MIR_TRANS_POSITIVE_ORDERED && k == 0 && !(v[0] >= 0))
            check_fail (cx, name, "is not a valid positive_ordered vector. The element at 1 is %g, "
                        "but should be postive.", v[0]);
          if (k > 0 && !(v[k] > v[k - 1]))
            check_fail (cx, name, "is not a valid ordered vector. The element at %d is %g, but "
                        "should be greater than the previous element, %g", k + 1, v[k], v[k - 1]);
        }
      break;
    case MIR_TRANS_SIMPLEX:
      {
        double s = 0;
        for (gint32 k = 0; k < K; k++)
          {
            if (!(v[k] >= 0))
              check_fail (cx, name, "is not a valid simplex. %s[%d] = %g, but should be greater "
                          "than or equal to 0", name, k + 1, v[k]);
            s += v[k];
          }
        if (!(fabs (1 - s) <= tol))
          check_fail (cx, name, "is not a valid simplex. sum(%s) = %.9g, but should be 1", name, s);
        break;
      }
    case MIR_TRANS_UNIT_VECTOR:
      {
        double s = 0;
        for (gint32 k = 0; k < K; k++)
          s += v[k] * v[k];
        if (!(fabs (1 - s) <= tol))
          check_fail (cx, name, "is not a valid unit vector. The sum of the squares of the "
                      "elements should be 1, but is %.9g", s);
        break;
      }
    case MIR_TRANS_SUM_TO_ZERO:
      {
        if (x->kind == TILDE_VALUE_MATRIX)
          {
            check_zero_sums (cx, name, v, R, C, TRUE, tol);
            check_zero_sums (cx, name, v, R, C, FALSE, tol);
            break;
          }
        double s = 0;
        for (gint32 k = 0; k < K; k++)
          s += v[k];
        if (!(fabs (s) <= tol))
          check_fail (cx, name, "does not sum to zero. sum(%s) = %g, but should be 0", name, s);
        break;
      }
    case MIR_TRANS_CHOLESKY_CORR:
    case MIR_TRANS_CHOLESKY_COV:
      {
        if (kind == MIR_TRANS_CHOLESKY_CORR && R != C)
          check_fail (cx, name, "is not square");
        for (gint32 j = 0; j < C; j++)
          for (gint32 i = 0; i < R; i++)
            {
              if (i < j && v[i + j * R] != 0)
                check_fail (cx, name, "is not lower triangular; %s[%d,%d]=%g", name, i + 1, j + 1,
                            v[i + j * R]);
              if (i == j && !(v[i + j * R] > 0))
                check_fail (cx, name, "is not positive definite: diagonal element %d is %g",
                            i + 1, v[i + j * R]);
            }
        if (kind == MIR_TRANS_CHOLESKY_CORR)
          for (gint32 i = 0; i < R; i++)
            {
              double s = 0;
              for (gint32 j = 0; j < C; j++)
                s += v[i + j * R] * v[i + j * R];
              if (!(fabs (s - 1) <= tol))
                check_fail (cx, name, "is not a valid unit vector. The sum of the squares of the "
                            "elements should be 1, but is %.9g", s);
            }
        break;
      }
    case MIR_TRANS_COVARIANCE:
    case MIR_TRANS_CORRELATION:
      {
        if (R != C)
          check_fail (cx, name, "is not square");
        for (gint32 j = 0; j < C; j++)
          for (gint32 i = j + 1; i < R; i++)
            if (!(fabs (v[i + j * R] - v[j + i * R]) <= tol))
              check_fail (cx, name, "is not symmetric. %s[%d,%d] = %g, but %s[%d,%d] = %g", name,
                          i + 1, j + 1, v[i + j * R], name, j + 1, i + 1, v[j + i * R]);
        if (kind == MIR_TRANS_CORRELATION)
          for (gint32 i = 0; i < R; i++)
            if (!(fabs (v[i + i * R] - 1) <= tol))
              check_fail (cx, name, "is not a valid correlation matrix. %s[%d,%d] is %.9g, but "
                          "should be near 1", name, i + 1, i + 1, v[i + i * R]);
        double *L = tilde_arena_memdup (cx->arena, v, sizeof (double) * (gsize) MAX (R * R, 1));
        if (R > 0 && LAPACKE_dpotrf (LAPACK_COL_MAJOR, 'L', R, L, R) != 0)
          check_fail (cx, name, "is not positive definite.");
        break;
      }
    case MIR_TRANS_STOCHASTIC_COLUMN:
    case MIR_TRANS_STOCHASTIC_ROW:
      {
        gboolean col = kind == MIR_TRANS_STOCHASTIC_COLUMN;
        for (gint32 s = 0; s < (col ? C : R); s++)
          {
            double sum = 0;
            for (gint32 i = 0; i < (col ? R : C); i++)
              {
                double e = col ? v[i + s * R] : v[s + i * R];
                if (!(e >= 0))
                  check_fail (cx, name, "is not a valid stochastic matrix: element %g is negative", e);
                sum += e;
              }
            if (!(fabs (sum - 1) <= tol))
              check_fail (cx, name, "is not a valid stochastic matrix: a %s sums to %.9g",
                          col ? "column" : "row", sum);
          }
        break;
      }
    default:
      break;
    }
}

void
rt_check_constraint (RtCtx *cx, MirTransformKind kind, const TildeValue *a, const TildeValue *b,
                     const TildeValue *x, const char *name)
{
  if (x->kind == TILDE_VALUE_ARRAY && !tilde_value_is_flat (x))
    {
      for (gint32 i = 0; i < x->rows; i++)
        {
          const TildeValue *ai = a && a->kind == TILDE_VALUE_ARRAY ? &a->u.elems[i] : a;
          const TildeValue *bi = b && b->kind == TILDE_VALUE_ARRAY ? &b->u.elems[i] : b;
          rt_check_constraint (cx, kind, ai, bi, &x->u.elems[i], name);
        }
      return;
    }
  if (!is_elementwise (kind))
    {
      if (tilde_value_kind_is_eigen ((TildeValueKind) x->kind))
        check_unit (cx, kind, x, name);
      return;
    }
  if (kind != MIR_TRANS_LOWER && kind != MIR_TRANS_UPPER && kind != MIR_TRANS_LOWER_UPPER)
    return;
  gint32 n = tilde_value_flat_size (x);
  const double *v = rt_values (cx, x);
  const double *av = a ? rt_values (cx, a) : NULL, *bv = b ? rt_values (cx, b) : NULL;
  gboolean scalar = tilde_value_kind_is_scalar ((TildeValueKind) x->kind);
  for (gint32 i = 0; i < n; i++)
    {
      double lo = arg_at (cx, a, av, i), hi = arg_at (cx, b, bv, i);
      char elem[32] = "";
      if (!scalar)
        g_snprintf (elem, sizeof elem, "[%d]", i + 1);
      if ((kind == MIR_TRANS_LOWER || kind == MIR_TRANS_LOWER_UPPER) && !(v[i] >= lo))
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s%s is %.9g, but must be greater than or equal "
                  "to %.9g", name, elem, v[i], lo);
      if (kind == MIR_TRANS_UPPER && !(v[i] <= lo))
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s%s is %.9g, but must be less than or equal "
                  "to %.9g", name, elem, v[i], lo);
      if (kind == MIR_TRANS_LOWER_UPPER && !(v[i] <= hi))
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s%s is %.9g, but must be less than or equal "
                  "to %.9g", name, elem, v[i], hi);
    }
}
