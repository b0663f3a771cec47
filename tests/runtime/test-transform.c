/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Constraint transforms: the inverse undoes the transform, results satisfy
 * their constraint, the log-Jacobian equals the log absolute determinant of
 * a numerical Jacobian (finite differences, LU), and derivatives through the
 * transform agree with finite differences.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "runtime/transform/transform.h"
#include "runtime-test-util.h"

typedef struct {
  RtCtx   cx;
  jmp_buf jmp;
} Harness;

typedef struct {
  const char      *name;
  MirTransformKind kind;
  TildeValueKind   shape_kind;
  gint32           rows, cols;
  gboolean         has_a, has_b;
  double           a, b;
} Case;

static const Case cases[] = {
  { "lower", MIR_TRANS_LOWER, TILDE_VALUE_VECTOR, 3, 1, TRUE, FALSE, 1.5, 0 },
  { "upper", MIR_TRANS_UPPER, TILDE_VALUE_VECTOR, 3, 1, TRUE, FALSE, -2, 0 },
  { "lower-upper", MIR_TRANS_LOWER_UPPER, TILDE_VALUE_VECTOR, 3, 1, TRUE, TRUE, -1, 3 },
  { "offset", MIR_TRANS_OFFSET, TILDE_VALUE_REAL, 1, 1, TRUE, FALSE, 2, 0 },
  { "multiplier", MIR_TRANS_MULTIPLIER, TILDE_VALUE_VECTOR, 2, 1, TRUE, FALSE, 3, 0 },
  { "offset-multiplier", MIR_TRANS_OFFSET_MULTIPLIER, TILDE_VALUE_VECTOR, 2, 1, TRUE, TRUE, 2, 0.5 },
  { "ordered", MIR_TRANS_ORDERED, TILDE_VALUE_VECTOR, 4, 1 },
  { "positive-ordered", MIR_TRANS_POSITIVE_ORDERED, TILDE_VALUE_VECTOR, 4, 1 },
  { "simplex", MIR_TRANS_SIMPLEX, TILDE_VALUE_VECTOR, 4, 1 },
  { "unit-vector", MIR_TRANS_UNIT_VECTOR, TILDE_VALUE_VECTOR, 3, 1 },
  { "sum-to-zero", MIR_TRANS_SUM_TO_ZERO, TILDE_VALUE_VECTOR, 4, 1 },
  { "sum-to-zero-matrix", MIR_TRANS_SUM_TO_ZERO, TILDE_VALUE_MATRIX, 3, 4 },
  { "cholesky-factor-corr", MIR_TRANS_CHOLESKY_CORR, TILDE_VALUE_MATRIX, 4, 4 },
  { "cholesky-factor-cov", MIR_TRANS_CHOLESKY_COV, TILDE_VALUE_MATRIX, 4, 3 },
  { "cov-matrix", MIR_TRANS_COVARIANCE, TILDE_VALUE_MATRIX, 3, 3 },
  { "corr-matrix", MIR_TRANS_CORRELATION, TILDE_VALUE_MATRIX, 4, 4 },
  { "column-stochastic", MIR_TRANS_STOCHASTIC_COLUMN, TILDE_VALUE_MATRIX, 3, 2 },
  { "row-stochastic", MIR_TRANS_STOCHASTIC_ROW, TILDE_VALUE_MATRIX, 2, 3 },
};

static Harness *
harness_new (void)
{
  Harness *h = g_new0 (Harness, 1);
  h->cx.tape = ad_tape_new ();
  h->cx.arena = tilde_arena_new (0);
  h->cx.jmp = &h->jmp;
  return h;
}

static void
harness_free (Harness *h)
{
  ad_tape_free (h->cx.tape);
  tilde_arena_free (h->cx.arena);
  g_free (h->cx.err_msg);
  g_free (h);
}

static TildeShape
case_shape (const Case *c)
{
  TildeShape s = { .kind = c->shape_kind, .rows = c->rows, .cols = c->cols };
  return s;
}

/* constrain data u; FALSE on error */
static gboolean
constrain (Harness *h, const Case *c, const double *u, gint32 n, gboolean ad, TildeValue *x,
           TildeValue *lj, TildeValue *uv)
{
  TildeShape s = case_shape (c);
  TildeValue a = tilde_value_real (c->a), b = tilde_value_real (c->b);
  *uv = rt_new_data (&h->cx, TILDE_VALUE_VECTOR, n, 1);
  memcpy (uv->u.d, u, sizeof (double) * (gsize) n);
  if (ad)
    *uv = rt_promote_ad (&h->cx, uv);
  if (setjmp (h->jmp))
    return FALSE;
  rt_constrain (&h->cx, c->kind, c->has_a ? &a : NULL, c->has_b ? &b : NULL, &s, uv, x, lj);
  return TRUE;
}

static double
value_of (Harness *h, const TildeValue *v, gint32 i)
{
  if (tilde_value_kind_is_scalar ((TildeValueKind) v->kind))
    return rt_scalar (&h->cx, v);
  return v->ad ? h->cx.tape->val[tilde_value_var (v, i)] : v->u.d[i];
}

/* The independent coordinates of a constrained value, as many as the free
 * ones: the coordinates Stan's log-Jacobians are taken with respect to. */
static gint32
coordinates (Harness *h, const Case *c, const TildeValue *x, double *out)
{
  gint32 R = c->rows, C = c->cols, k = 0;
  switch (c->kind)
    {
    case MIR_TRANS_SUM_TO_ZERO:
      /* a matrix's last row and column follow from the others */
      for (gint32 j = 0; j < MAX (C - 1, 1); j++)
        for (gint32 i = 0; i + 1 < R; i++)
          out[k++] = value_of (h, x, i + j * R);
      break;
    case MIR_TRANS_SIMPLEX:
      for (gint32 i = 0; i + 1 < R; i++)
        out[k++] = value_of (h, x, i);
      break;
    case MIR_TRANS_CHOLESKY_CORR:
    case MIR_TRANS_CORRELATION:
      for (gint32 j = 0; j < C; j++)
        for (gint32 i = j + 1; i < R; i++)
          out[k++] = value_of (h, x, i + j * R);
      break;
    case MIR_TRANS_CHOLESKY_COV:
    case MIR_TRANS_COVARIANCE:
      for (gint32 j = 0; j < C; j++)
        for (gint32 i = j; i < R; i++)
          out[k++] = value_of (h, x, i + j * R);
      break;
    case MIR_TRANS_STOCHASTIC_COLUMN:
      for (gint32 j = 0; j < C; j++)
        for (gint32 i = 0; i + 1 < R; i++)
          out[k++] = value_of (h, x, i + j * R);
      break;
    case MIR_TRANS_STOCHASTIC_ROW:
      for (gint32 j = 0; j + 1 < C; j++)
        for (gint32 i = 0; i < R; i++)
          out[k++] = value_of (h, x, i + j * R);
      break;
    default:
      for (gint32 i = 0; i < R * C; i++)
        out[k++] = value_of (h, x, i);
    }
  return k;
}

static gboolean
check_and_free (Harness *h, const Case *c, const TildeValue *x, double *u)
{
  TildeValue a = tilde_value_real (c->a), b = tilde_value_real (c->b);
  if (setjmp (h->jmp))
    return FALSE;
  rt_check_constraint (&h->cx, c->kind, c->has_a ? &a : NULL, c->has_b ? &b : NULL, x, "x");
  rt_unconstrain (&h->cx, c->kind, c->has_a ? &a : NULL, c->has_b ? &b : NULL, x, u);
  return TRUE;
}

static double
log_abs_det (double *J, int n)
{
  int *piv = g_new (int, n);
  g_assert_cmpint (LAPACKE_dgetrf (LAPACK_COL_MAJOR, n, n, J, n, piv), ==, 0);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += log (fabs (J[i + i * n]));
  g_free (piv);
  return s;
}

static void
free_point (gint32 n, double *u, int seed)
{
  for (gint32 i = 0; i < n; i++)
    u[i] = 0.7 * sin (1.3 * (i + 1) + seed) - 0.2;
}

static void
test_transform (gconstpointer data)
{
  const Case *c = data;
  Harness *h = harness_new ();
  TildeShape s = case_shape (c);
  gint32 n = rt_free_size (c->kind, &s);
  double *u = g_new (double, n), *u2 = g_new (double, n), *coord = g_new (double, n + 8);
  double *J = g_new0 (double, (gsize) n * (gsize) n);
  double log_det_first = 0;
  for (int seed = 0; seed < 3; seed++)
    {
      free_point (n, u, seed);
      TildeValue x, lj, uv;
      if (!constrain (h, c, u, n, FALSE, &x, &lj, &uv))
        g_error ("%s: %s", c->name, h->cx.err_msg);
      /* it satisfies its constraint, and the inverse gives u back */
      if (!check_and_free (h, c, &x, u2))
        g_error ("%s: %s", c->name, h->cx.err_msg);
      if (c->kind == MIR_TRANS_UNIT_VECTOR)
        {
          /* only the direction is kept: the inverse's image maps back to x */
          TildeValue x2, l2, us;
          g_assert_true (constrain (h, c, u2, n, FALSE, &x2, &l2, &us));
          for (gint32 i = 0; i < n; i++)
            g_assert_cmpfloat_with_epsilon (x2.u.d[i], x.u.d[i], 1e-14);
        }
      else
        for (gint32 i = 0; i < n; i++)
          if (!rt_test_close (u2[i], u[i], 1e-10))
            g_error ("%s: inverse gives %.17g for %.17g at %d", c->name, u2[i], u[i], i);
      /* the log-Jacobian against a numerical one */
      if (c->kind != MIR_TRANS_UNIT_VECTOR)
        {
          for (gint32 j = 0; j < n; j++)
            {
              double step = 1e-6, fp[64], fm[64];
              g_assert_cmpint (n, <=, 64);
              for (int sgn = 0; sgn < 2; sgn++)
                {
                  memcpy (u2, u, sizeof (double) * (gsize) n);
                  u2[j] += sgn ? step : -step;
                  TildeValue xs, ls, us;
                  g_assert_true (constrain (h, c, u2, n, FALSE, &xs, &ls, &us));
                  g_assert_cmpint (coordinates (h, c, &xs, sgn ? fp : fm), ==, n);
                }
              for (gint32 i = 0; i < n; i++)
                J[i + j * n] = (fp[i] - fm[i]) / (2 * step);
            }
          double ld = log_abs_det (J, n);
          double l = rt_scalar (&h->cx, &lj);
          if (c->kind == MIR_TRANS_SUM_TO_ZERO)
            {
              /* an isometry: Stan adds nothing, the determinant is a constant
               * and the lengths of u and x are equal */
              double uu = 0, xx = 0;
              for (gint32 i = 0; i < n; i++)
                uu += u[i] * u[i];
              for (gint32 i = 0; i < c->rows * c->cols; i++)
                xx += value_of (h, &x, i) * value_of (h, &x, i);
              g_assert_cmpfloat_with_epsilon (xx, uu, 1e-12);
              g_assert_cmpfloat (l, ==, 0);
              if (seed == 0)
                log_det_first = ld;
              else
                g_assert_cmpfloat_with_epsilon (ld, log_det_first, 1e-7);
            }
          else if (!rt_test_close (l, ld, 1e-7))
            g_error ("%s: log-Jacobian %.12g, numerical %.12g", c->name, l, ld);
        }
      else
        {
          double ss = 0;
          for (gint32 i = 0; i < n; i++)
            ss += u[i] * u[i];
          g_assert_cmpfloat_with_epsilon (rt_scalar (&h->cx, &lj), -0.5 * ss, 1e-14);
        }
      /* derivatives through the transform: f = weighted outputs + lj */
      ad_tape_reset (h->cx.tape);
      g_assert_true (constrain (h, c, u, n, TRUE, &x, &lj, &uv));
      gint32 m = c->rows * c->cols;
      double *w = rt_alloc_d (&h->cx, (gsize) m);
      for (gint32 i = 0; i < m; i++)
        w[i] = 0.5 + 0.25 * (i % 3);
      AdOperand ops[2] = { rt_operand (&x, w) };
      guint n_ops = 1;
      double one = 1;
      if (lj.ad)
        ops[n_ops++] = (AdOperand) { .start = lj.start, .n = 1, .partial = &one };
      gint32 seed_id = ad_reduction (h->cx.tape, 0, n_ops, ops);
      ad_gradient (h->cx.tape, &seed_id, 1);
      for (gint32 j = 0; j < n; j++)
        {
          double analytic = h->cx.tape->adj[tilde_value_var (&uv, j)];
          double f[2], step = 1e-6;
          for (int sgn = 0; sgn < 2; sgn++)
            {
              memcpy (u2, u, sizeof (double) * (gsize) n);
              u2[j] += sgn ? step : -step;
              TildeValue xs, ls, us;
              g_assert_true (constrain (h, c, u2, n, FALSE, &xs, &ls, &us));
              f[sgn] = rt_scalar (&h->cx, &ls);
              for (gint32 i = 0; i < m; i++)
                f[sgn] += w[i] * value_of (h, &xs, i);
            }
          double numeric = (f[1] - f[0]) / (2 * step);
          if (!rt_test_close (analytic, numeric, 1e-6))
            g_error ("%s: d/du[%d]: autodiff %.12g, finite differences %.12g", c->name, j,
                     analytic, numeric);
        }
    }
  g_free (u);
  g_free (u2);
  g_free (coord);
  g_free (J);
  harness_free (h);
}

static gboolean
constrain_with (Harness *h, const TildeValue *lo, const TildeValue *hi, const TildeShape *s,
                const TildeValue *u, TildeValue *x, TildeValue *lj)
{
  if (setjmp (h->jmp))
    return FALSE;
  rt_constrain (&h->cx, MIR_TRANS_LOWER_UPPER, lo, hi, s, u, x, lj);
  return TRUE;
}

/* Bounds that depend on parameters get their share of the gradient. */
static void
test_parameter_bounds (void)
{
  Harness *h = harness_new ();
  TildeShape s = { .kind = TILDE_VALUE_REAL, .rows = 1, .cols = 1 };
  TildeValue lo = rt_promote_ad (&h->cx, &(TildeValue) { .kind = TILDE_VALUE_REAL, .rows = 1, .cols = 1, .u.r = 0.2 });
  TildeValue hi = rt_promote_ad (&h->cx, &(TildeValue) { .kind = TILDE_VALUE_REAL, .rows = 1, .cols = 1, .u.r = 0.9 });
  TildeValue u = rt_promote_ad (&h->cx, &(TildeValue) { .kind = TILDE_VALUE_REAL, .rows = 1, .cols = 1, .u.r = 0.4 });
  TildeValue uv = u, x, lj;
  uv.kind = TILDE_VALUE_VECTOR;
  g_assert_true (constrain_with (h, &lo, &hi, &s, &uv, &x, &lj));
  gint32 seeds[2] = { x.start, lj.start };
  ad_gradient (h->cx.tape, seeds, 2);
  double sg = 1 / (1 + exp (-0.4));
  /* x = lo + (hi - lo) sg; lj = log (hi - lo) + log sg + log (1 - sg) */
  g_assert_cmpfloat_with_epsilon (h->cx.tape->adj[lo.start], 1 - sg - 1 / 0.7, 1e-14);
  g_assert_cmpfloat_with_epsilon (h->cx.tape->adj[hi.start], sg + 1 / 0.7, 1e-14);
  g_assert_cmpfloat_with_epsilon (h->cx.tape->adj[u.start], 0.7 * sg * (1 - sg) + 1 - 2 * sg, 1e-14);
  harness_free (h);
}

static gboolean
check_ok (Harness *h, MirTransformKind kind, const TildeValue *a, const TildeValue *x,
          const char *name)
{
  if (setjmp (h->jmp))
    return FALSE;
  rt_check_constraint (&h->cx, kind, a, NULL, x, name);
  return TRUE;
}

static void
test_check_messages (void)
{
  Harness *h = harness_new ();
  double v[3] = { 0.5, 0.2, 0.4 };
  TildeValue x = rt_new_data (&h->cx, TILDE_VALUE_VECTOR, 3, 1);
  memcpy (x.u.d, v, sizeof v);
  g_assert_false (check_ok (h, MIR_TRANS_SIMPLEX, NULL, &x, "theta"));
  g_assert_cmpstr (h->cx.err_msg, ==, "theta is not a valid simplex. sum(theta) = 1.1, but should be 1");
  TildeValue lo = tilde_value_real (0.3);
  g_assert_false (check_ok (h, MIR_TRANS_LOWER, &lo, &x, "sigma"));
  g_assert_cmpstr (h->cx.err_msg, ==, "sigma[2] is 0.2, but must be greater than or equal to 0.3");
  g_assert_false (check_ok (h, MIR_TRANS_ORDERED, NULL, &x, "mu"));
  g_assert_true (strstr (h->cx.err_msg, "mu is not a valid ordered vector"));
  /* a zero-sum matrix: its rows, then its columns (column-major values) */
  TildeValue m = rt_new_data (&h->cx, TILDE_VALUE_MATRIX, 2, 2);
  const double rows_ok[4] = { 1, 1, -1, -1 }, cols_ok[4] = { 1, -1, 2, -2 };
  memcpy (m.u.d, rows_ok, sizeof rows_ok);
  g_assert_false (check_ok (h, MIR_TRANS_SUM_TO_ZERO, NULL, &m, "S"));
  g_assert_cmpstr (h->cx.err_msg, ==, "S does not sum to zero. sum(S[, 1]) = 2, but should be 0");
  memcpy (m.u.d, cols_ok, sizeof cols_ok);
  g_assert_false (check_ok (h, MIR_TRANS_SUM_TO_ZERO, NULL, &m, "S"));
  g_assert_cmpstr (h->cx.err_msg, ==, "S does not sum to zero. sum(S[1, ]) = 3, but should be 0");
  harness_free (h);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/runtime/transform/%s", cases[i].name);
      g_test_add_data_func (path, &cases[i], test_transform);
    }
  g_test_add_func ("/runtime/transform/parameter-bounds", test_parameter_bounds);
  g_test_add_func ("/runtime/transform/check-messages", test_check_messages);
  return g_test_run ();
}
