/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Library functions and log densities: values against mpmath at 50 digits
 * (data/reference-values.json, made by make-reference-values.py), closed
 * forms for the matrix kernels, and every derivative against central
 * finite differences of the function's own values.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "runtime/runtime-private.h"
#include "kernel-harness.h"
#include "runtime-test-util.h"

/* a number from JSON, where "nan", "inf" and "-inf" are strings */
static double
json_real (JsonArray *a, guint i)
{
  JsonNode *n = json_array_get_element (a, i);
  if (json_node_get_value_type (n) == G_TYPE_STRING)
    {
      const char *w = json_node_get_string (n);
      return g_str_equal (w, "nan") ? NAN : g_str_equal (w, "inf") ? INFINITY : -INFINITY;
    }
  return json_node_get_double (n);
}

/* a test argument from JSON: number, {"int"}, {"ints"}, {"array"},
 * {"vector"}, {"vectors"}, {"matrix": rows}, {"matrices"} */
static TildeValue
arg_from_json (Harness *h, JsonNode *n)
{
  if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING)
    {
      /* JSON has no NaN or infinities */
      const char *w = json_node_get_string (n);
      return tilde_value_real (g_str_equal (w, "nan") ? NAN : g_str_equal (w, "inf") ? INFINITY
                               : -INFINITY);
    }
  if (JSON_NODE_HOLDS_VALUE (n))
    return tilde_value_real (json_node_get_double (n));
  JsonObject *o = json_node_get_object (n);
  if (json_object_has_member (o, "int"))
    return tilde_value_int ((int) json_object_get_int_member (o, "int"));
  if (json_object_has_member (o, "ints"))
    {
      JsonArray *a = json_object_get_array_member (o, "ints");
      guint len = json_array_get_length (a);
      TildeValue v = { .kind = TILDE_VALUE_ARRAY, .elem = TILDE_VALUE_INT, .rows = (gint32) len,
                       .cols = 1 };
      v.u.iv = tilde_arena_alloc (h->cx.arena, sizeof (int) * MAX (len, 1));
      for (guint i = 0; i < len; i++)
        v.u.iv[i] = (int) json_array_get_int_element (a, i);
      return v;
    }
  if (json_object_has_member (o, "array"))
    {
      JsonArray *a = json_object_get_array_member (o, "array");
      guint len = json_array_get_length (a);
      TildeValue v = rt_new_data (&h->cx, TILDE_VALUE_ARRAY, (gint32) len, 1);
      for (guint i = 0; i < len; i++)
        v.u.d[i] = json_real (a, i);
      return v;
    }
  if (json_object_has_member (o, "vectors") || json_object_has_member (o, "matrices"))
    {
      /* arrays of vectors or matrices: each element as one argument */
      gboolean vecs = json_object_has_member (o, "vectors");
      JsonArray *a = json_object_get_array_member (o, vecs ? "vectors" : "matrices");
      guint len = json_array_get_length (a);
      TildeValue v = { .kind = TILDE_VALUE_ARRAY, .elem = vecs ? TILDE_VALUE_VECTOR : TILDE_VALUE_MATRIX,
                       .rows = (gint32) len, .cols = 1 };
      v.u.elems = tilde_arena_alloc (h->cx.arena, sizeof (TildeValue) * MAX (len, 1));
      for (guint i = 0; i < len; i++)
        {
          JsonObject *e = json_object_new ();
          json_object_set_member (e, vecs ? "vector" : "matrix",
                                  json_node_copy (json_array_get_element (a, i)));
          JsonNode *en = json_node_init_object (json_node_alloc (), e);
          v.u.elems[i] = arg_from_json (h, en);
          json_node_unref (en);
          json_object_unref (e);
        }
      return v;
    }
  if (json_object_has_member (o, "row_vector"))
    {
      JsonArray *a = json_object_get_array_member (o, "row_vector");
      guint len = json_array_get_length (a);
      TildeValue v = rt_new_data (&h->cx, TILDE_VALUE_ROW_VECTOR, 1, (gint32) len);
      for (guint i = 0; i < len; i++)
        v.u.d[i] = json_real (a, i);
      return v;
    }
  if (json_object_has_member (o, "vector"))
    {
      JsonArray *a = json_object_get_array_member (o, "vector");
      guint len = json_array_get_length (a);
      TildeValue v = rt_new_data (&h->cx, TILDE_VALUE_VECTOR, (gint32) len, 1);
      for (guint i = 0; i < len; i++)
        v.u.d[i] = json_real (a, i);
      return v;
    }
  JsonArray *rows = json_object_get_array_member (o, "matrix");
  guint R = json_array_get_length (rows);
  guint C = json_array_get_length (json_array_get_array_element (rows, 0));
  TildeValue v = rt_new_data (&h->cx, TILDE_VALUE_MATRIX, (gint32) R, (gint32) C);
  for (guint i = 0; i < R; i++)
    for (guint j = 0; j < C; j++)
      v.u.d[i + j * R] = json_real (json_array_get_array_element (rows, i), j);
  return v;
}

static JsonObject *
reference_values (void)
{
  static JsonParser *parser;
  if (!parser)
    {
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, "runtime", "data",
                                                     "reference-values.json", NULL);
      g_autoptr (GError) error = NULL;
      parser = json_parser_new ();
      json_parser_load_from_file (parser, path, &error);
      g_assert_no_error (error);
    }
  return json_node_get_object (json_parser_get_root (parser));
}

/* ---- gradients against finite differences ---- */

/* f(args) reduced to a scalar: weights . flatten (out), data only */
static double
weighted (Harness *h, const TildeValue *out)
{
  if (tilde_value_kind_is_scalar ((TildeValueKind) out->kind))
    return rt_scalar (&h->cx, out);
  const double *x = rt_values (&h->cx, out);
  double s = 0;
  for (gint32 i = 0; i < tilde_value_flat_size (out); i++)
    s += x[i] * (0.3 + 0.1 * (i % 5));
  return s;
}

static double
value_at (Harness *h, const char *name, gboolean drop, int n, const TildeValue *args)
{
  TildeValue out;
  ad_tape_reset (h->cx.tape);
  if (!call (h, name, drop, n, args, &out))
    g_error ("%s: %s", name, h->cx.err_msg);
  return weighted (h, &out);
}

/* The j-th real of a data value (nested arrays walked in order) and its
 * autodiff id in the promoted value. */
static double *
real_slot (TildeValue *v, gint32 j)
{
  if (tilde_value_kind_is_scalar ((TildeValueKind) v->kind))
    return &v->u.r;
  if (tilde_value_is_flat (v))
    return &v->u.d[j];
  for (gint32 e = 0; e < v->rows; e++)
    {
      gint32 n = (gint32) tilde_value_count_scalars (&v->u.elems[e]);
      if (j < n)
        return real_slot (&v->u.elems[e], j);
      j -= n;
    }
  g_assert_not_reached ();
}

static gint32
real_id (const TildeValue *v, gint32 j)
{
  if (tilde_value_is_flat (v) || tilde_value_kind_is_scalar ((TildeValueKind) v->kind))
    return tilde_value_var (v, j);
  for (gint32 e = 0; e < v->rows; e++)
    {
      gint32 n = (gint32) tilde_value_count_scalars (&v->u.elems[e]);
      if (j < n)
        return real_id (&v->u.elems[e], j);
      j -= n;
    }
  g_assert_not_reached ();
}

static gboolean
is_symmetric_matrix (const TildeValue *v)
{
  if (v->kind != TILDE_VALUE_MATRIX || v->rows != v->cols || v->rows < 2)
    return FALSE;
  for (int j = 0; j < v->cols; j++)
    for (int i = 0; i < j; i++)
      if (v->u.d[i + j * v->rows] != v->u.d[j + i * v->rows])
        return FALSE;
  return TRUE;
}

/* A vector of nonnegative values adding up to 1 (within rounding), or an
 * array of them. */
static gboolean
is_simplex (const TildeValue *v)
{
  if (v->kind == TILDE_VALUE_ARRAY && v->elem == TILDE_VALUE_VECTOR)
    {
      for (gint32 e = 0; e < v->rows; e++)
        if (!is_simplex (&v->u.elems[e]))
          return FALSE;
      return v->rows > 0;
    }
  if (v->kind != TILDE_VALUE_VECTOR || v->rows < 2)
    return FALSE;
  double s = 0;
  for (gint32 i = 0; i < v->rows; i++)
    {
      if (v->u.d[i] < 0)
        return FALSE;
      s += v->u.d[i];
    }
  return fabs (s - 1) < 1e-14;
}

/* Checks d f / d (each real of args[k]) for every real argument. A
 * symmetric matrix argument is perturbed in (i, j) and (j, i) together and
 * compared with the sum of both adjoints: functions that read a symmetric
 * matrix (or check that it is one) may put the whole derivative on either
 * side. Arguments in `simplex` stay on the simplex: element i goes up as
 * element i + 1 goes down, compared with the difference of the adjoints. */
/* Correlation matrices keep their unit diagonal: only the off-diagonal
 * pairs are perturbed. */
static gboolean unit_diagonal;

/* A Cholesky factor (lower triangular, positive diagonal, something below
 * it) keeps its zeros: functions may check that it is one. */
static gboolean
is_cholesky_factor (const TildeValue *v)
{
  if (v->kind != TILDE_VALUE_MATRIX || v->rows != v->cols || v->rows < 2)
    return FALSE;
  gboolean below = FALSE;
  for (int j = 0; j < v->cols; j++)
    for (int i = 0; i < v->rows; i++)
      {
        double x = v->u.d[i + j * v->rows];
        if ((i < j && x != 0) || (i == j && !(x > 0)))
          return FALSE;
        below |= i > j && x != 0;
      }
  return below;
}

static void
check_gradient_simplex (Harness *h, const char *name, gboolean drop, int n,
                        const TildeValue *args_in, double tol, guint skip, guint simplex)
{
  TildeValue args[8];
  g_assert_cmpint (n, <=, 8);
  for (int k = 0; k < n; k++)
    {
      if (args_in[k].kind == TILDE_VALUE_INT || (skip & (1u << k))
          || (args_in[k].kind == TILDE_VALUE_ARRAY && args_in[k].elem == TILDE_VALUE_INT))
        continue;
      gboolean sym = is_symmetric_matrix (&args_in[k]);
      gboolean chol = is_cholesky_factor (&args_in[k]);
      gboolean on_simplex = (simplex & (1u << k)) && is_simplex (&args_in[k]);
      gint32 R = args_in[k].rows;
      gint32 len = (gint32) tilde_value_count_scalars (&args_in[k]);
      for (gint32 i = 0; i < len; i++)
        {
          gint32 i2 = sym ? (i / R) + (i % R) * R : i;   /* the mirrored entry */
          double sign2 = 1;
          if (sym && (i % R < i / R || (unit_diagonal && i % R == i / R)))
            continue;
          if (chol && i % R < i / R)
            continue;
          if (on_simplex)
            {
              gint32 K = args_in[k].kind == TILDE_VALUE_ARRAY ? args_in[k].u.elems[0].rows : len;
              i2 = (i / K) * K + (i % K + 1) % K;
              sign2 = -1;
            }
          /* analytic: the k-th argument on the tape */
          memcpy (args, args_in, sizeof (TildeValue) * (gsize) n);
          ad_tape_reset (h->cx.tape);
          for (int j = 0; j < n; j++)
            if (args[j].kind != TILDE_VALUE_INT && !tilde_value_kind_is_scalar ((TildeValueKind) args[j].kind))
              args[j] = tilde_value_copy (h->cx.arena, &args_in[j]);
          args[k] = rt_promote_ad (&h->cx, &args_in[k]);
          TildeValue out;
          if (!call (h, name, drop, n, args, &out))
            g_error ("%s: %s", name, h->cx.err_msg);
          /* reduce with the same weights on the tape */
          gint32 seed;
          if (tilde_value_kind_is_scalar ((TildeValueKind) out.kind))
            seed = out.ad ? out.start : -1;
          else
            {
              gint32 m = tilde_value_flat_size (&out);
              double *w = rt_alloc_d (&h->cx, (gsize) m);
              for (gint32 q = 0; q < m; q++)
                w[q] = 0.3 + 0.1 * (q % 5);
              AdOperand op = rt_operand (&out, w);
              seed = out.ad ? ad_reduction (h->cx.tape, 0, 1, &op) : -1;
            }
          double analytic = 0;
          if (seed >= 0)
            {
              ad_gradient (h->cx.tape, &seed, 1);
              analytic = h->cx.tape->adj[real_id (&args[k], i)];
              if (i2 != i)
                analytic += sign2 * h->cx.tape->adj[real_id (&args[k], i2)];
            }
          /* numerical */
          TildeValue pert[8];
          TildeValue base = tilde_value_copy (h->cx.arena, &args_in[k]);
          double x0 = *real_slot (&base, i), x2 = *real_slot (&base, i2);
          double step = 1e-6 * fmax (1.0, fabs (x0));
          if (x0 != 0)
            step = fmin (step, 1e-3 * fabs (x0));
          /* central differences at h and h/2, Richardson-extrapolated:
           * the error falls from O(h^2) to O(h^4), so that steep
           * functions near the edge of their domain can be checked */
          double fv[4];
          for (int s = 0; s < 4; s++)
            {
              double hs = (s & 2) ? 0.5 * step : step;
              memcpy (pert, args_in, sizeof (TildeValue) * (gsize) n);
              pert[k] = tilde_value_copy (h->cx.arena, &args_in[k]);
              *real_slot (&pert[k], i) = x0 + ((s & 1) ? hs : -hs);
              if (i2 != i)
                *real_slot (&pert[k], i2) = x2 + sign2 * ((s & 1) ? hs : -hs);
              fv[s] = value_at (h, name, drop, n, pert);
            }
          double d1 = (fv[1] - fv[0]) / (2 * step), d2 = (fv[3] - fv[2]) / step;
          double numeric = (4 * d2 - d1) / 3;
          if (!rt_test_close (analytic, numeric, tol))
            g_error ("%s: d/d arg %d [%d]: autodiff %.12g, finite differences %.12g", name, k,
                     i, analytic, numeric);
        }
    }
}

static void
check_gradient_skipping (Harness *h, const char *name, gboolean drop, int n,
                         const TildeValue *args_in, double tol, guint skip)
{
  check_gradient_simplex (h, name, drop, n, args_in, tol, skip, 0);
}

/* cholesky_decompose reads a symmetric matrix: perturb (i, j) and (j, i)
 * together and compare with the sum of their adjoints. */
static void
check_cholesky_gradient (Harness *h, const TildeValue *S)
{
  int n = S->rows;
  for (int j = 0; j < n; j++)
    for (int i = j; i < n; i++)
      {
        ad_tape_reset (h->cx.tape);
        TildeValue a = rt_promote_ad (&h->cx, S), out;
        g_assert_true (call (h, "cholesky_decompose", FALSE, 1, &a, &out));
        double *w = rt_alloc_d (&h->cx, (gsize) (n * n));
        for (int q = 0; q < n * n; q++)
          w[q] = 0.3 + 0.1 * (q % 5);
        AdOperand op = rt_operand (&out, w);
        gint32 seed = ad_reduction (h->cx.tape, 0, 1, &op);
        ad_gradient (h->cx.tape, &seed, 1);
        double analytic = h->cx.tape->adj[a.start + i + j * n]
          + (i != j ? h->cx.tape->adj[a.start + j + i * n] : 0);
        double f[2], step = 1e-6;
        for (int s = 0; s < 2; s++)
          {
            TildeValue p = tilde_value_copy (h->cx.arena, S);
            p.u.d[i + j * n] += s ? step : -step;
            if (i != j)
              p.u.d[j + i * n] += s ? step : -step;
            f[s] = value_at (h, "cholesky_decompose", FALSE, 1, &p);
          }
        double numeric = (f[1] - f[0]) / (2 * step);
        if (!rt_test_close (analytic, numeric, 1e-6))
          g_error ("cholesky_decompose: d/d S[%d,%d]: autodiff %.12g, finite differences %.12g",
                   i + 1, j + 1, analytic, numeric);
      }
}

static void
check_gradient (Harness *h, const char *name, gboolean drop, int n, const TildeValue *args_in,
                double tol)
{
  check_gradient_skipping (h, name, drop, n, args_in, tol, 0);
}

static int
load_args (Harness *h, JsonObject *c, TildeValue *args)
{
  JsonArray *a = json_object_get_array_member (c, "args");
  int n = (int) json_array_get_length (a);
  for (int k = 0; k < n; k++)
    args[k] = arg_from_json (h, json_array_get_element (a, (guint) k));
  return n;
}

static void
check_table (const char *member, double tol)
{
  Harness *h = harness_new ();
  JsonArray *cases = json_object_get_array_member (reference_values (), member);
  for (guint c = 0; c < json_array_get_length (cases); c++)
    {
      JsonObject *cs = json_array_get_object_element (cases, c);
      const char *name = json_object_get_string_member (cs, "name");
      TildeValue args[8], out;
      int n = load_args (h, cs, args);
      if (!call (h, name, FALSE, n, args, &out))
        g_error ("%s: %s", name, h->cx.err_msg);
      JsonNode *vn = json_object_get_member (cs, "value");
      if (JSON_NODE_HOLDS_ARRAY (vn))
        {
          /* a container's values, column-major */
          JsonArray *ev = json_node_get_array (vn);
          gint32 len = tilde_value_flat_size (&out);
          g_assert_cmpint (len, ==, (gint32) json_array_get_length (ev));
          const double *x = rt_values (&h->cx, &out);
          for (gint32 i = 0; i < len; i++)
            {
              double expected = json_real (ev, (guint) i);
              if (!rt_test_close (x[i], expected, tol))
                g_error ("%s case %u [%d]: %.17g, mpmath %.17g", name, c, i, x[i], expected);
            }
          continue;
        }
      double v = rt_scalar (&h->cx, &out);
      double expected = json_object_get_double_member (cs, "value");
      if (!rt_test_close (v, expected, tol) && !(fabs (v - expected) <= tol * fabs (expected)))
        g_error ("%s case %u: %.17g, mpmath %.17g", name, c, v, expected);
    }
  harness_free (h);
}

static void
test_function_values (void)
{
  check_table ("functions", 1e-12);
}

static void
test_density_values (void)
{
  check_table ("densities", 1e-10);
}

static gboolean
smooth_enough (const char *name, const TildeValue *args, int n)
{
  /* finite differences cannot follow inv_Phi into its tails */
  return !g_str_equal (name, "inv_Phi") || (args[0].u.r > 1e-6 && args[0].u.r < 1 - 1e-4);
}

static void
check_table_gradients (const char *member)
{
  Harness *h = harness_new ();
  JsonArray *cases = json_object_get_array_member (reference_values (), member);
  for (guint c = 0; c < json_array_get_length (cases); c++)
    {
      JsonObject *cs = json_array_get_object_element (cases, c);
      const char *name = json_object_get_string_member (cs, "name");
      TildeValue args[8];
      int n = load_args (h, cs, args);
      if (!smooth_enough (name, args, n)
          || (json_object_has_member (cs, "values_only")
              && json_object_get_boolean_member (cs, "values_only")))
        continue;
      guint skip = 0;
      /* probabilities cannot leave the simplex */
      guint simplex = g_str_equal (name, "dirichlet_lpdf") ? 1
        : g_str_equal (name, "categorical_lpmf") || g_str_equal (name, "multinomial_lpmf") ? 2 : 0;
      unit_diagonal = g_str_equal (name, "lkj_corr_lpdf");
      check_gradient_simplex (h, name, FALSE, n, args, 2e-6, skip, simplex);
      unit_diagonal = FALSE;
    }
  harness_free (h);
}

static void
test_function_gradients (void)
{
  check_table_gradients ("functions");
}

static void
test_density_gradients (void)
{
  check_table_gradients ("densities");
}

/* ---- matrix kernels ---- */

static const double L3[9] = { 1.5, 0.3, -0.4, 0, 0.8, 0.2, 0, 0, 1.1 };  /* column-major */

static void
test_linalg_values (void)
{
  Harness *h = harness_new ();
  TildeValue L = vec (h, TILDE_VALUE_MATRIX, 3, 3, L3), S, C, out;
  /* S = L L^T, so cholesky_decompose (S) = L */
  g_assert_true (call (h, "multiply_lower_tri_self_transpose", FALSE, 1, &L, &S));
  g_assert_true (call (h, "cholesky_decompose", FALSE, 1, &S, &C));
  for (int i = 0; i < 9; i++)
    g_assert_cmpfloat_with_epsilon (C.u.d[i], L3[i], 1e-14);
  /* mdivide_left_tri_low (L, L x) = x */
  double xv[3] = { 0.5, -2, 1.25 };
  TildeValue x = vec (h, TILDE_VALUE_VECTOR, 3, 1, xv), b, args[2];
  args[0] = L;
  args[1] = x;
  g_assert_true (call (h, "Times__", FALSE, 2, args, &b));
  g_assert_cmpfloat_with_epsilon (b.u.d[0], 1.5 * 0.5, 1e-15);
  g_assert_cmpfloat_with_epsilon (b.u.d[2], -0.4 * 0.5 + 0.2 * -2 + 1.1 * 1.25, 1e-15);
  args[1] = b;
  g_assert_true (call (h, "mdivide_left_tri_low", FALSE, 2, args, &out));
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat_with_epsilon (out.u.d[i], xv[i], 1e-14);
  /* gp_exp_quad_cov: alpha^2 exp (-d^2 / (2 rho^2)) */
  double pts[3] = { 0, 1, 2.5 };
  TildeValue p = vec (h, TILDE_VALUE_ARRAY, 3, 1, pts);
  TildeValue g[3] = { p, tilde_value_real (1.3), tilde_value_real (0.7) };
  g_assert_true (call (h, "gp_exp_quad_cov", FALSE, 3, g, &out));
  g_assert_cmpfloat_with_epsilon (out.u.d[1 + 2 * 3], 1.69 * exp (-2.25 / (2 * 0.49)), 1e-14);
  g_assert_cmpfloat_with_epsilon (out.u.d[0], 1.69, 1e-14);
  /* softmax and log_softmax */
  double sv[3] = { 1, 2, 0.5 };
  TildeValue s = vec (h, TILDE_VALUE_VECTOR, 3, 1, sv);
  g_assert_true (call (h, "softmax", FALSE, 1, &s, &out));
  double z = exp (1) + exp (2) + exp (0.5);
  g_assert_cmpfloat_with_epsilon (out.u.d[1], exp (2) / z, 1e-15);
  g_assert_true (call (h, "log_softmax", FALSE, 1, &s, &out));
  g_assert_cmpfloat_with_epsilon (out.u.d[2], 0.5 - log (z), 1e-14);
  g_assert_true (call (h, "cumulative_sum", FALSE, 1, &s, &out));
  g_assert_cmpfloat (out.u.d[2], ==, 3.5);
  /* columns_dot_product, diag_pre_multiply, add_diag */
  args[0] = L;
  args[1] = L;
  g_assert_true (call (h, "columns_dot_product", FALSE, 2, args, &out));
  g_assert_cmpfloat_with_epsilon (out.u.d[0], 2.25 + 0.09 + 0.16, 1e-15);
  args[0] = x;
  args[1] = L;
  g_assert_true (call (h, "diag_pre_multiply", FALSE, 2, args, &out));
  g_assert_cmpfloat_with_epsilon (out.u.d[2], 1.25 * -0.4, 1e-15);
  args[0] = L;
  args[1] = tilde_value_real (2);
  g_assert_true (call (h, "add_diag", FALSE, 2, args, &out));
  g_assert_cmpfloat_with_epsilon (out.u.d[4], 2.8, 1e-15);
  g_assert_cmpfloat (out.u.d[1], ==, 0.3);
  harness_free (h);
}

static void
test_linalg_gradients (void)
{
  Harness *h = harness_new ();
  TildeValue L = vec (h, TILDE_VALUE_MATRIX, 3, 3, L3), S;
  g_assert_true (call (h, "multiply_lower_tri_self_transpose", FALSE, 1, &L, &S));
  double xv[3] = { 0.5, -2, 1.25 }, mv[6] = { 1, 2, 3, -1, 0.5, 2 };
  TildeValue x = vec (h, TILDE_VALUE_VECTOR, 3, 1, xv);
  TildeValue r = vec (h, TILDE_VALUE_ROW_VECTOR, 1, 3, xv);
  TildeValue M = vec (h, TILDE_VALUE_MATRIX, 2, 3, mv);
  TildeValue pts = vec (h, TILDE_VALUE_ARRAY, 3, 1, xv);
  TildeValue a2[2], a3[3];
  check_cholesky_gradient (h, &S);
  check_gradient (h, "multiply_lower_tri_self_transpose", FALSE, 1, &L, 1e-6);
  a2[0] = L; a2[1] = x;
  check_gradient (h, "mdivide_left_tri_low", FALSE, 2, a2, 1e-6);
  check_gradient (h, "Times__", FALSE, 2, a2, 1e-6);
  a2[0] = M; a2[1] = L;
  check_gradient (h, "Times__", FALSE, 2, a2, 1e-6);
  a2[0] = r; a2[1] = x;
  check_gradient (h, "Times__", FALSE, 2, a2, 1e-6);
  check_gradient (h, "dot_product", FALSE, 2, a2, 1e-6);
  a2[0] = x; a2[1] = L;
  check_gradient (h, "diag_pre_multiply", FALSE, 2, a2, 1e-6);
  a2[0] = L; a2[1] = x;
  check_gradient (h, "diag_post_multiply", FALSE, 2, a2, 1e-6);
  check_gradient (h, "add_diag", FALSE, 2, a2, 1e-6);
  a2[0] = L; a2[1] = S;
  check_gradient (h, "columns_dot_product", FALSE, 2, a2, 1e-6);
  check_gradient (h, "rows_dot_product", FALSE, 2, a2, 1e-6);
  a3[0] = pts; a3[1] = tilde_value_real (1.3); a3[2] = tilde_value_real (0.7);
  check_gradient (h, "gp_exp_quad_cov", FALSE, 3, a3, 1e-6);
  /* eigenvectors: S V = V diag (lambda), and their gradient */
  TildeValue V, lam;
  g_assert_true (call (h, "eigenvectors_sym", FALSE, 1, &S, &V));
  g_assert_true (call (h, "eigenvalues_sym", FALSE, 1, &S, &lam));
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < 3; i++)
      {
        double sv = 0;
        for (int j = 0; j < 3; j++)
          sv += S.u.d[i + 3 * j] * V.u.d[j + 3 * k];
        g_assert_cmpfloat_with_epsilon (sv, lam.u.d[k] * V.u.d[i + 3 * k], 1e-13);
      }
  check_gradient (h, "eigenvectors_sym", FALSE, 1, &S, 1e-6);
  check_gradient (h, "softmax", FALSE, 1, &x, 1e-6);
  check_gradient (h, "log_softmax", FALSE, 1, &x, 1e-6);
  check_gradient (h, "cumulative_sum", FALSE, 1, &x, 1e-6);
  check_gradient (h, "log_sum_exp", FALSE, 1, &x, 1e-6);
  check_gradient (h, "exp", FALSE, 1, &x, 1e-6);
  check_gradient (h, "Phi", FALSE, 1, &x, 1e-6);
  a2[0] = x; a2[1] = tilde_value_real (2.5);
  check_gradient (h, "EltDivide__", FALSE, 2, a2, 1e-6);
  check_gradient (h, "Minus__", FALSE, 2, a2, 1e-6);
  a2[0] = vec (h, TILDE_VALUE_VECTOR, 3, 1, (double[]) { 0.5, 2, 1.25 });
  check_gradient (h, "pow", FALSE, 2, a2, 1e-6);
  a2[0] = tilde_value_real (2.5); a2[1] = x;
  check_gradient (h, "Divide__", FALSE, 2, (TildeValue[]) { x, tilde_value_real (2.5) }, 1e-6);
  check_gradient (h, "EltTimes__", FALSE, 2, (TildeValue[]) { x, x }, 1e-6);
  check_gradient (h, "Plus__", FALSE, 2, a2, 1e-6);
  harness_free (h);
}

/* Functions of ints give ints; the logical functions follow C's truth. */
static void
test_integer_functions (void)
{
  Harness *h = harness_new ();
  struct { const char *name; int n; double a, b; gboolean ia, ib; int expected; } cases[] = {
    { "falling_factorial", 2, 6, 3, TRUE, TRUE, 120 },
    { "rising_factorial", 2, 4, 3, TRUE, TRUE, 120 },
    { "falling_factorial", 2, 5, 0, TRUE, TRUE, 1 },
    { "logical_and", 2, 1, 0, TRUE, TRUE, 0 },
    { "logical_and", 2, 2.5, -1, FALSE, FALSE, 1 },
    { "logical_or", 2, 0, 0, TRUE, FALSE, 0 },
    { "logical_eq", 2, 3, 3.0, TRUE, FALSE, 1 },
    { "logical_neq", 2, 3, 3.5, TRUE, FALSE, 1 },
    { "logical_lt", 2, -1, -1, FALSE, TRUE, 0 },
    { "logical_lte", 2, -1, -1, FALSE, TRUE, 1 },
    { "logical_gt", 2, 2, 1.5, TRUE, FALSE, 1 },
    { "logical_gte", 2, 1, 1.5, TRUE, FALSE, 0 },
    { "logical_negation", 1, 0.0, 0, FALSE, FALSE, 1 },
    { "logical_negation", 1, 7, 0, TRUE, FALSE, 0 },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      TildeValue a[2] = { cases[c].ia ? tilde_value_int ((int) cases[c].a) : tilde_value_real (cases[c].a),
                          cases[c].ib ? tilde_value_int ((int) cases[c].b) : tilde_value_real (cases[c].b) };
      TildeValue out;
      g_assert_true (call (h, cases[c].name, FALSE, cases[c].n, a, &out));
      g_assert_cmpint (out.kind, ==, TILDE_VALUE_INT);
      if (out.u.i != cases[c].expected)
        g_error ("%s case %u: %d, expected %d", cases[c].name, c, out.u.i, cases[c].expected);
    }
  /* a product beyond int is an error, as Stan's overflow check */
  TildeValue big[2] = { tilde_value_int (100), tilde_value_int (10) }, out;
  g_assert_false (call (h, "falling_factorial", FALSE, 2, big, &out));
  harness_free (h);
}

/* Containers rearranged, cut and built: values by hand, gradients of the
 * rearrangements (gathered variables) against finite differences. */
static void
test_containers (void)
{
  Harness *h = harness_new ();
  double xv[5] = { 0.5, -2.0, 3.0, 0.5, 1.0 };
  TildeValue x = vec (h, TILDE_VALUE_VECTOR, 5, 1, xv), out, a2[2];
  g_assert_true (call (h, "sort_asc", FALSE, 1, &x, &out));
  double asc[5] = { -2.0, 0.5, 0.5, 1.0, 3.0 };
  g_assert_cmpmem (out.u.d, sizeof asc, asc, sizeof asc);
  g_assert_cmpint (out.kind, ==, TILDE_VALUE_VECTOR);
  g_assert_true (call (h, "sort_indices_desc", FALSE, 1, &x, &out));
  int desc_idx[5] = { 3, 5, 1, 4, 2 };   /* ties keep their order */
  g_assert_cmpmem (out.u.iv, sizeof desc_idx, desc_idx, sizeof desc_idx);
  a2[0] = x;
  a2[1] = tilde_value_int (5);
  g_assert_true (call (h, "rank", FALSE, 2, a2, &out));
  g_assert_cmpint (out.u.i, ==, 3);
  TildeValue distinct = vec (h, TILDE_VALUE_VECTOR, 4, 1, (double[]) { 0.5, -2.0, 3.0, 0.7 });
  check_gradient (h, "sort_desc", FALSE, 1, &distinct, 1e-8);
  /* quantile: R's type 7, quantile (c (0.5, -2, 3, 0.5, 1), 0.3) = 0.5,
   * at 0.9: 1 + 0.6 (3 - 1) = 2.2 */
  a2[1] = tilde_value_real (0.9);
  g_assert_true (call (h, "quantile", FALSE, 2, a2, &out));
  g_assert_cmpfloat_with_epsilon (out.u.r, 2.2, 1e-15);
  a2[1] = vec (h, TILDE_VALUE_ARRAY, 3, 1, (double[]) { 0, 0.3, 1 });
  g_assert_true (call (h, "quantile", FALSE, 2, a2, &out));
  g_assert_cmpfloat (out.u.d[0], ==, -2);
  g_assert_cmpfloat_with_epsilon (out.u.d[1], 0.5, 1e-15);
  g_assert_cmpfloat (out.u.d[2], ==, 3);
  /* append_array of reals and of ints */
  a2[0] = vec (h, TILDE_VALUE_ARRAY, 2, 1, (double[]) { 1, 2 });
  a2[1] = vec (h, TILDE_VALUE_ARRAY, 3, 1, (double[]) { 3, 4, 5 });
  g_assert_true (call (h, "append_array", FALSE, 2, a2, &out));
  g_assert_cmpint (out.rows, ==, 5);
  g_assert_cmpfloat (out.u.d[3], ==, 4);
  check_gradient (h, "append_array", FALSE, 2, a2, 1e-8);
  /* matrices: rows, columns, blocks */
  double mv[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };   /* 3 x 4, column-major */
  TildeValue M = vec (h, TILDE_VALUE_MATRIX, 3, 4, mv);
  TildeValue b5[5] = { M, tilde_value_int (2), tilde_value_int (3), tilde_value_int (2),
                       tilde_value_int (2) };
  g_assert_true (call (h, "block", FALSE, 5, b5, &out));
  double blk[4] = { 8, 9, 11, 12 };
  g_assert_cmpmem (out.u.d, sizeof blk, blk, sizeof blk);
  check_gradient (h, "block", FALSE, 5, b5, 1e-8);
  a2[0] = M;
  a2[1] = tilde_value_int (2);
  g_assert_true (call (h, "row", FALSE, 2, a2, &out));
  g_assert_cmpint (out.kind, ==, TILDE_VALUE_ROW_VECTOR);
  g_assert_cmpfloat (out.u.d[3], ==, 11);
  g_assert_true (call (h, "col", FALSE, 2, a2, &out));
  g_assert_cmpint (out.kind, ==, TILDE_VALUE_VECTOR);
  g_assert_cmpfloat (out.u.d[2], ==, 6);
  TildeValue s4[4] = { M, tilde_value_int (1), tilde_value_int (2), tilde_value_int (3) };
  g_assert_true (call (h, "sub_row", FALSE, 4, s4, &out));
  g_assert_cmpfloat (out.u.d[2], ==, 10);
  g_assert_true (call (h, "sub_col", FALSE, 4, s4, &out));
  g_assert_cmpfloat (out.u.d[2], ==, 6);
  a2[1] = tilde_value_int (5);
  g_assert_false (call (h, "col", FALSE, 2, a2, &out));
  g_assert_cmpint (h->cx.err_kind, ==, TILDE_MODEL_ERROR_INDEX);
  g_assert_true (call (h, "to_array_2d", FALSE, 1, &M, &out));
  g_assert_cmpint (out.rows, ==, 3);
  g_assert_cmpfloat (out.u.elems[1].u.d[2], ==, 8);
  g_assert_true (call (h, "dims", FALSE, 1, &out, &out));
  g_assert_cmpint (out.rows, ==, 2);
  g_assert_cmpint (out.u.iv[0], ==, 3);
  g_assert_cmpint (out.u.iv[1], ==, 4);
  g_assert_true (call (h, "dims", FALSE, 1, &M, &out));
  g_assert_cmpint (out.u.iv[1], ==, 4);
  TildeValue S = vec (h, TILDE_VALUE_MATRIX, 2, 2, (double[]) { 1, 2, 99, 3 });
  g_assert_true (call (h, "symmetrize_from_lower_tri", FALSE, 1, &S, &out));
  g_assert_cmpfloat (out.u.d[2], ==, 2);
  check_gradient (h, "symmetrize_from_lower_tri", FALSE, 1, &S, 1e-8);
  /* sequences and constants */
  TildeValue l3[3] = { tilde_value_int (5), tilde_value_int (1), tilde_value_int (9) };
  g_assert_true (call (h, "linspaced_int_array", FALSE, 3, l3, &out));
  int li[5] = { 1, 3, 5, 7, 9 };
  g_assert_cmpmem (out.u.iv, sizeof li, li, sizeof li);
  l3[0] = tilde_value_int (8);
  l3[2] = tilde_value_int (4);
  g_assert_true (call (h, "linspaced_int_array", FALSE, 3, l3, &out));
  int li2[8] = { 1, 1, 2, 2, 3, 3, 4, 4 };
  g_assert_cmpmem (out.u.iv, sizeof li2, li2, sizeof li2);
  TildeValue lr[3] = { tilde_value_int (3), tilde_value_real (-1), tilde_value_real (1) };
  g_assert_true (call (h, "linspaced_row_vector", FALSE, 3, lr, &out));
  g_assert_cmpint (out.kind, ==, TILDE_VALUE_ROW_VECTOR);
  g_assert_cmpfloat (out.u.d[1], ==, 0);
  a2[0] = tilde_value_int (4);
  a2[1] = tilde_value_int (2);
  g_assert_true (call (h, "one_hot_vector", FALSE, 2, a2, &out));
  g_assert_cmpfloat (out.u.d[1], ==, 1);
  g_assert_cmpfloat (out.u.d[2], ==, 0);
  g_assert_true (call (h, "one_hot_int_array", FALSE, 2, a2, &out));
  g_assert_cmpint (out.u.iv[1], ==, 1);
  g_assert_true (call (h, "ones_int_array", FALSE, 1, a2, &out));
  g_assert_cmpint (out.u.iv[3], ==, 1);
  g_assert_true (call (h, "uniform_simplex", FALSE, 1, a2, &out));
  g_assert_cmpfloat (out.u.d[0], ==, 0.25);
  harness_free (h);
}

/* ---- densities: propto and errors ---- */

static void
test_propto (void)
{
  Harness *h = harness_new ();
  TildeValue a[3] = { tilde_value_real (0.3), tilde_value_real (-1), tilde_value_real (2) }, out;
  /* nothing depends on parameters: everything is dropped */
  g_assert_true (call (h, "normal_lupdf", TRUE, 3, a, &out));
  g_assert_cmpfloat (rt_scalar (&h->cx, &out), ==, 0);
  /* a parameter location keeps only the quadratic term */
  a[1] = rt_promote_ad (&h->cx, &a[1]);
  g_assert_true (call (h, "normal_lupdf", TRUE, 3, a, &out));
  g_assert_cmpfloat_with_epsilon (rt_scalar (&h->cx, &out), -0.5 * 0.65 * 0.65, 1e-15);
  /* a parameter scale keeps -log sigma too */
  a[2] = rt_promote_ad (&h->cx, &a[2]);
  g_assert_true (call (h, "normal_lupdf", TRUE, 3, a, &out));
  g_assert_cmpfloat_with_epsilon (rt_scalar (&h->cx, &out), -0.5 * 0.65 * 0.65 - log (2), 1e-15);
  /* poisson_log drops -lgamma (n + 1) */
  TildeValue p[2] = { tilde_value_int (3), rt_promote_ad (&h->cx, &(TildeValue) { 0 }) };
  p[1] = rt_promote_ad (&h->cx, &(TildeValue) { .kind = TILDE_VALUE_REAL, .rows = 1, .cols = 1, .u.r = 0.5 });
  g_assert_true (call (h, "poisson_log_lupmf", TRUE, 2, p, &out));
  g_assert_cmpfloat_with_epsilon (rt_scalar (&h->cx, &out), 3 * 0.5 - exp (0.5), 1e-15);
  g_assert_true (call (h, "poisson_log_lupmf", FALSE, 2, p, &out));
  g_assert_cmpfloat_with_epsilon (rt_scalar (&h->cx, &out), 3 * 0.5 - exp (0.5) - log (6), 1e-15);
  /* student_t with data degrees of freedom drops the lgamma terms */
  TildeValue t[4] = { rt_promote_ad (&h->cx, &a[0]), tilde_value_real (3), tilde_value_real (0),
                      tilde_value_real (1) };
  g_assert_true (call (h, "student_t_lupdf", TRUE, 4, t, &out));
  g_assert_cmpfloat_with_epsilon (rt_scalar (&h->cx, &out), -2 * log1p (0.09 / 3), 1e-15);
  harness_free (h);
}

static void
test_domain_errors (void)
{
  Harness *h = harness_new ();
  TildeValue a[3] = { tilde_value_real (0.3), tilde_value_real (0), tilde_value_real (-1) }, out;
  g_assert_false (call (h, "normal_lpdf", FALSE, 3, a, &out));
  g_assert_cmpint (h->cx.err_kind, ==, TILDE_MODEL_ERROR_DOMAIN);
  g_assert_cmpstr (h->cx.err_msg, ==, "normal_lpdf: Scale parameter is -1, but must be positive!");
  double s[2] = { 1, -2 };
  a[2] = vec (h, TILDE_VALUE_VECTOR, 2, 1, s);
  a[0] = vec (h, TILDE_VALUE_VECTOR, 2, 1, s);
  g_assert_false (call (h, "cauchy_lpdf", FALSE, 3, a, &out));
  g_assert_cmpstr (h->cx.err_msg, ==, "cauchy_lpdf: Scale parameter[2] is -2, but must be positive finite!");
  TildeValue p[2] = { tilde_value_int (-1), tilde_value_real (2) };
  g_assert_false (call (h, "poisson_lpmf", FALSE, 2, p, &out));
  g_assert_cmpstr (h->cx.err_msg, ==, "poisson_lpmf: Random variable is -1, but must be nonnegative!");
  TildeValue b[3] = { tilde_value_real (1.5), tilde_value_real (2), tilde_value_real (2) };
  g_assert_false (call (h, "beta_lpdf", FALSE, 3, b, &out));
  g_assert_true (strstr (h->cx.err_msg, "Random variable is 1.5, but must be in the interval [0, 1]"));
  double three[3] = { 1, 2, 3 };
  a[0] = vec (h, TILDE_VALUE_VECTOR, 3, 1, three);
  a[1] = tilde_value_real (0);
  a[2] = vec (h, TILDE_VALUE_VECTOR, 2, 1, (double[]) { 1, 1 });
  g_assert_false (call (h, "normal_lpdf", FALSE, 3, a, &out));
  g_assert_cmpint (h->cx.err_kind, ==, TILDE_MODEL_ERROR_INDEX);
  g_assert_true (strstr (h->cx.err_msg, "must match in size"));
  harness_free (h);
}

/* Under propto each density keeps exactly the terms Stan keeps: a term
 * stays when an argument it depends on is a parameter (the reference data
 * list each term with the arguments it depends on). Every subset of the
 * real arguments is made autodiff in turn. */
static void
test_propto_terms (void)
{
  Harness *h = harness_new ();
  JsonArray *cases = json_object_get_array_member (reference_values (), "densities");
  guint checked = 0;
  for (guint c = 0; c < json_array_get_length (cases); c++)
    {
      JsonObject *cs = json_array_get_object_element (cases, c);
      if (!json_object_has_member (cs, "terms"))
        continue;
      const char *name = json_object_get_string_member (cs, "name");
      g_autofree char *base = g_strndup (name, strlen (name) - 4);
      g_autofree char *unnorm = g_strconcat (base, g_str_has_suffix (name, "lpdf") ? "lupdf" : "lupmf",
                                             NULL);
      JsonArray *terms = json_object_get_array_member (cs, "terms");
      TildeValue args[8], use[8], out;
      int n = load_args (h, cs, args);
      unsigned reals = 0;
      for (int k = 0; k < n; k++)
        if (args[k].kind != TILDE_VALUE_INT
            && !(args[k].kind == TILDE_VALUE_ARRAY && args[k].elem == TILDE_VALUE_INT))
          reals |= 1u << k;
      for (unsigned mask = 0; mask < (1u << n); mask++)
        {
          if ((mask & reals) != mask)
            continue;
          ad_tape_reset (h->cx.tape);
          for (int k = 0; k < n; k++)
            use[k] = (mask & (1u << k)) ? rt_promote_ad (&h->cx, &args[k]) : args[k];
          double expected = 0, scale = 1;
          for (guint t = 0; t < json_array_get_length (terms); t++)
            {
              JsonObject *term = json_array_get_object_element (terms, t);
              double tv = json_object_get_double_member (term, "value");
              if ((unsigned) json_object_get_int_member (term, "mask") & mask)
                expected += tv;
              scale = fmax (scale, fabs (tv));
            }
          if (!call (h, unnorm, TRUE, n, use, &out))
            g_error ("%s: %s", unnorm, h->cx.err_msg);
          double got = rt_scalar (&h->cx, &out);
          if (!(fabs (got - expected) <= 1e-12 * scale))
            g_error ("%s case %u, parameters %#x: %.17g under propto, expected %.17g", unnorm, c,
                     mask, got, expected);
          /* without propto nothing is dropped */
          if (!call (h, unnorm, FALSE, n, use, &out))
            g_error ("%s: %s", unnorm, h->cx.err_msg);
          double full = json_object_get_double_member (cs, "value");
          if (!(fabs (rt_scalar (&h->cx, &out) - full) <= 1e-12 * scale))
            g_error ("%s case %u: %.17g, expected %.17g", unnorm, c, rt_scalar (&h->cx, &out), full);
          checked++;
        }
    }
  g_assert_cmpuint (checked, >, 0);
  harness_free (h);
}



/* Arguments out of their domain raise Stan's message naming the function,
 * the argument and its value (data/domain-errors.json: Stan's wording for
 * each case; "nan", "inf" and "-inf" as strings). */
static void
test_domain_error_table (void)
{
  Harness *h = harness_new ();
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "runtime", "data",
                                                 "domain-errors.json", NULL);
  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  JsonArray *cases = json_node_get_array (json_parser_get_root (parser));
  for (guint c = 0; c < json_array_get_length (cases); c++)
    {
      JsonObject *cs = json_array_get_object_element (cases, c);
      const char *name = json_object_get_string_member (cs, "name");
      TildeValue args[8], out;
      int n = load_args (h, cs, args);
      if (call (h, name, FALSE, n, args, &out))
        g_error ("%s case %u: no error", name, c);
      g_assert_cmpint (h->cx.err_kind, ==, TILDE_MODEL_ERROR_DOMAIN);
      g_assert_cmpstr (h->cx.err_msg, ==, json_object_get_string_member (cs, "message"));
    }
  harness_free (h);
}

/* Vectorised densities equal the sum of their scalar terms. */
static void
test_vectorised (void)
{
  Harness *h = harness_new ();
  double y[3] = { 0.5, 1.5, 3 }, mu[3] = { 0, 1, 2 };
  TildeValue out, one;
  TildeValue a[3] = { vec (h, TILDE_VALUE_ARRAY, 3, 1, y), vec (h, TILDE_VALUE_VECTOR, 3, 1, mu),
                      tilde_value_real (1.5) };
  double sum = 0;
  for (int i = 0; i < 3; i++)
    {
      TildeValue s[3] = { tilde_value_real (y[i]), tilde_value_real (mu[i] + 1), tilde_value_real (1.5) };
      a[1].u.d[i] = mu[i] + 1;
      g_assert_true (call (h, "gamma_lpdf", FALSE, 3, s, &one));
      sum += rt_scalar (&h->cx, &one);
    }
  g_assert_true (call (h, "gamma_lpdf", FALSE, 3, a, &out));
  g_assert_cmpfloat_with_epsilon (rt_scalar (&h->cx, &out), sum, 1e-13);
  check_gradient (h, "gamma_lpdf", FALSE, 3, a, 1e-6);
  TildeValue n[3] = { { .kind = TILDE_VALUE_ARRAY, .elem = TILDE_VALUE_INT, .rows = 3, .cols = 1 },
                      vec (h, TILDE_VALUE_VECTOR, 3, 1, mu), tilde_value_real (2) };
  int counts[3] = { 0, 4, 2 };
  n[0].u.iv = counts;
  check_gradient (h, "neg_binomial_2_log_lpmf", FALSE, 3, n, 1e-6);
  check_gradient (h, "poisson_log_lpmf", FALSE, 2, n, 1e-6);
  check_gradient (h, "bernoulli_logit_lpmf", FALSE, 2,
                  (TildeValue[]) { { .kind = TILDE_VALUE_ARRAY, .elem = TILDE_VALUE_INT, .rows = 3,
                                     .cols = 1, .u.iv = (int[]) { 0, 1, 1 } }, n[1] }, 1e-6);
  harness_free (h);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/runtime/math/reference-values", test_function_values);
  g_test_add_func ("/runtime/math/gradients", test_function_gradients);
  g_test_add_func ("/runtime/math/integer-functions", test_integer_functions);
  g_test_add_func ("/runtime/math/containers", test_containers);
  g_test_add_func ("/runtime/math/linalg-values", test_linalg_values);
  g_test_add_func ("/runtime/math/linalg-gradients", test_linalg_gradients);
  g_test_add_func ("/runtime/dist/reference-values", test_density_values);
  g_test_add_func ("/runtime/dist/gradients", test_density_gradients);
  g_test_add_func ("/runtime/dist/propto", test_propto);
  g_test_add_func ("/runtime/dist/domain-errors", test_domain_errors);
  g_test_add_func ("/runtime/dist/vectorised", test_vectorised);
  g_test_add_func ("/runtime/dist/propto-terms", test_propto_terms);
  g_test_add_func ("/runtime/dist/domain-error-table", test_domain_error_table);
  return g_test_run ();
}
