/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Hidden Markov models, sparse matrices and decompositions, called as
 * kernels: values against independent truths (enumeration of every state
 * path, dense products, closed-form exponentials, the identities a
 * decomposition must satisfy) and every derivative against central finite
 * differences.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <gsl/gsl_integration.h>
#include <gsl/gsl_rng.h>
#include <complex.h>
#include <math.h>
#include <string.h>

#include "kernel-harness.h"
#include "runtime-test-util.h"
#include "runtime/math/real-schur.h"

/* ---- gradients against finite differences ---- */

/* The ids (or values) of every real of a result, tuples flattened. */
static gint32
flatten (Harness *h, const TildeValue *v, gint32 *ids, double *x)
{
  if (v->kind == TILDE_VALUE_TUPLE || (v->kind == TILDE_VALUE_ARRAY && !tilde_value_is_flat (v)))
    {
      gint32 n = 0;
      for (gint32 i = 0; i < v->rows; i++)
        n += flatten (h, &v->u.elems[i], ids ? ids + n : NULL, x ? x + n : NULL);
      return n;
    }
  if (v->kind == TILDE_VALUE_ARRAY && v->elem == TILDE_VALUE_INT)
    return 0;
  gint32 n = tilde_value_kind_is_scalar ((TildeValueKind) v->kind) ? 1 : tilde_value_flat_size (v);
  for (gint32 i = 0; i < n; i++)
    {
      if (ids)
        ids[i] = !v->ad ? -1 : tilde_value_kind_is_scalar ((TildeValueKind) v->kind) ? v->start
          : tilde_value_var (v, i);
      if (x)
        x[i] = rt_values (&h->cx, v)[i];
    }
  return n;
}

static double
weight (gint32 q)
{
  return 0.3 + 0.1 * (q % 5);
}

static double
weighted (Harness *h, const char *name, int n, const TildeValue *args)
{
  TildeValue out;
  if (!call (h, name, FALSE, n, args, &out))
    g_error ("%s: %s", name, h->cx.err_msg);
  double x[4096];
  gint32 m = flatten (h, &out, NULL, NULL);
  g_assert_cmpint (m, <=, 4096);
  flatten (h, &out, NULL, x);
  double s = 0;
  for (gint32 q = 0; q < m; q++)
    s += weight (q) * x[q];
  return s;
}

static gboolean
is_real_arg (const TildeValue *v)
{
  return v->kind != TILDE_VALUE_INT
    && !(v->kind == TILDE_VALUE_ARRAY && v->elem == TILDE_VALUE_INT);
}

static void
check_gradient (Harness *h, const char *name, int n, const TildeValue *args_in, double tol)
{
  TildeValue args[8];
  for (int k = 0; k < n; k++)
    {
      if (!is_real_arg (&args_in[k]))
        continue;
      gint32 len = tilde_value_flat_size (&args_in[k]);
      for (gint32 i = 0; i < len; i++)
        {
          memcpy (args, args_in, sizeof (TildeValue) * (gsize) n);
          ad_tape_reset (h->cx.tape);
          args[k] = rt_promote_ad (&h->cx, &args_in[k]);
          TildeValue out;
          if (!call (h, name, FALSE, n, args, &out))
            g_error ("%s: %s", name, h->cx.err_msg);
          gint32 ids[4096];
          gint32 m = flatten (h, &out, ids, NULL);
          double analytic = 0;
          if (m > 0)
            {
              gint32 seed = ad_constant (h->cx.tape, 0);
              double *w = rt_alloc_d (&h->cx, (gsize) m);
              gint32 *live = tilde_arena_alloc (h->cx.arena, sizeof (gint32) * (gsize) m);
              gint32 nl = 0;
              for (gint32 q = 0; q < m; q++)
                if (ids[q] >= 0)
                  {
                    w[nl] = weight (q);
                    live[nl++] = ids[q];
                  }
              if (nl > 0)
                {
                  AdOperand op = { .idx = live, .n = nl, .partial = w };
                  seed = ad_reduction (h->cx.tape, 0, 1, &op);
                }
              ad_gradient (h->cx.tape, &seed, 1);
              analytic = h->cx.tape->adj[tilde_value_var (&args[k], i)];
            }
          TildeValue pert[8];
          double x0 = rt_values (&h->cx, &args_in[k])[i];
          double step = 1e-5 * fmax (1.0, fabs (x0)), fv[4];
          for (int s = 0; s < 4; s++)
            {
              double hs = (s & 2) ? 0.5 * step : step;
              memcpy (pert, args_in, sizeof (TildeValue) * (gsize) n);
              pert[k] = tilde_value_copy (h->cx.arena, &args_in[k]);
              if (pert[k].kind == TILDE_VALUE_REAL)
                pert[k].u.r = x0 + ((s & 1) ? hs : -hs);
              else
                pert[k].u.d[i] = x0 + ((s & 1) ? hs : -hs);
              fv[s] = weighted (h, name, n, pert);
            }
          double d1 = (fv[1] - fv[0]) / (2 * step), d2 = (fv[3] - fv[2]) / step;
          double numeric = (4 * d2 - d1) / 3;
          if (!rt_test_close (analytic, numeric, tol))
            g_error ("%s: d/d arg %d [%d]: autodiff %.12g, finite differences %.12g", name, k,
                     i, analytic, numeric);
        }
    }
}

static TildeValue
matrix (Harness *h, int rows, int cols, const double *row_major)
{
  TildeValue v = rt_new_data (&h->cx, TILDE_VALUE_MATRIX, rows, cols);
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++)
      v.u.d[i + j * rows] = row_major[i * cols + j];
  return v;
}

static TildeValue
ints (Harness *h, int n, const int *x)
{
  TildeValue v = { .kind = TILDE_VALUE_ARRAY, .elem = TILDE_VALUE_INT, .rows = n, .cols = 1 };
  v.u.iv = tilde_arena_memdup (h->cx.arena, x, sizeof (int) * (gsize) MAX (n, 1));
  return v;
}

static TildeValue
apply (Harness *h, const char *name, int n, const TildeValue *args)
{
  TildeValue out;
  if (!call (h, name, FALSE, n, args, &out))
    g_error ("%s: %s", name, h->cx.err_msg);
  return out;
}

/* ---- hidden Markov models ---- */

#define HK 3
#define HN 4

static const double hmm_lo[HK * HN] = {   /* row-major K x N */
  -1.2, -0.3, -2.0, -0.7,
  -0.4, -1.8, -0.2, -1.1,
  -2.5, -0.9, -1.3, -0.1,
};
static const double hmm_gamma[HK * HK] = {
  0.7, 0.2, 0.1,
  0.25, 0.5, 0.25,
  0.1, 0.3, 0.6,
};
static const double hmm_rho[HK] = { 0.5, 0.3, 0.2 };

/* p (path, y) summed over every path (row-major arguments), and the
 * posterior marginal of each state at each time (K x N, row-major). */
static double
hmm_enumerate (const double *lo, const double *g, const double *rho, double *marg)
{
  int paths = 1;
  for (int n = 0; n < HN; n++)
    paths *= HK;
  double total = 0;
  if (marg)
    memset (marg, 0, sizeof (double) * HK * HN);
  for (int p = 0; p < paths; p++)
    {
      int z[HN], q = p;
      for (int n = 0; n < HN; n++, q /= HK)
        z[n] = q % HK;
      double w = rho[z[0]] * exp (lo[z[0] * HN]);
      for (int n = 1; n < HN; n++)
        w *= g[z[n - 1] * HK + z[n]] * exp (lo[z[n] * HN + n]);
      total += w;
      for (int n = 0; marg && n < HN; n++)
        marg[z[n] * HN + n] += w;
    }
  for (int i = 0; marg && i < HK * HN; i++)
    marg[i] /= total;
  return total;
}

static void
test_hmm (void)
{
  Harness *h = harness_new ();
  TildeValue args[3] = { matrix (h, HK, HN, hmm_lo), matrix (h, HK, HK, hmm_gamma),
                         vec (h, TILDE_VALUE_VECTOR, HK, 1, hmm_rho) };
  double marg[HK * HN];
  double p = hmm_enumerate (hmm_lo, hmm_gamma, hmm_rho, marg);
  TildeValue lp = apply (h, "hmm_marginal", 3, args);
  g_assert_true (rt_test_close (lp.u.r, log (p), 1e-13));
  TildeValue probs = apply (h, "hmm_hidden_state_prob", 3, args);
  for (int k = 0; k < HK; k++)
    for (int n = 0; n < HN; n++)
      g_assert_true (rt_test_close (probs.u.d[k + n * HK], marg[k * HN + n], 1e-13));

  /* the gradient against finite differences of the enumeration (the
   * simplex checks would refuse perturbed arguments) */
  for (int a = 0; a < 3; a++)
    {
      ad_tape_reset (h->cx.tape);
      TildeValue ad[3] = { args[0], args[1], args[2] };
      ad[a] = rt_promote_ad (&h->cx, &args[a]);
      TildeValue out = apply (h, "hmm_marginal", 3, ad);
      ad_gradient (h->cx.tape, &out.start, 1);
      int rows = a == 2 ? HK : HK, cols = a == 0 ? HN : a == 1 ? HK : 1;
      for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
          {
            double lo[HK * HN], g[HK * HK], rho[HK];
            memcpy (lo, hmm_lo, sizeof lo);
            memcpy (g, hmm_gamma, sizeof g);
            memcpy (rho, hmm_rho, sizeof rho);
            double *x = a == 0 ? &lo[i * HN + j] : a == 1 ? &g[i * HK + j] : &rho[i];
            double x0 = *x, step = 1e-6, f[2];
            for (int s = 0; s < 2; s++)
              {
                *x = x0 + (s ? step : -step);
                f[s] = log (hmm_enumerate (lo, g, rho, NULL));
              }
            double numeric = (f[1] - f[0]) / (2 * step);
            double analytic = h->cx.tape->adj[ad[a].start + i + j * rows];
            if (!rt_test_close (analytic, numeric, 1e-7))
              g_error ("hmm_marginal: d/d arg %d [%d, %d]: %.12g, finite differences %.12g", a,
                       i, j, analytic, numeric);
          }
    }

  /* draws: each time's state frequencies against the marginals */
  h->cx.rng = gsl_rng_alloc (gsl_rng_mt19937);
  gsl_rng_set (h->cx.rng, 20240611);
  int counts[HK * HN] = { 0 };
  const int draws = 20000;
  for (int d = 0; d < draws; d++)
    {
      TildeValue z = apply (h, "hmm_latent_rng", 3, args);
      g_assert_cmpint (z.rows, ==, HN);
      for (int n = 0; n < HN; n++)
        {
          g_assert_cmpint (z.u.iv[n], >=, 1);
          g_assert_cmpint (z.u.iv[n], <=, HK);
          counts[(z.u.iv[n] - 1) * HN + n]++;
        }
      if (d % 1000 == 0)
        ad_tape_reset (h->cx.tape);
    }
  for (int i = 0; i < HK * HN; i++)
    {
      double f = (double) counts[i] / draws;
      /* four standard errors */
      g_assert_cmpfloat (fabs (f - marg[i]), <, 4 * sqrt (marg[i] * (1 - marg[i]) / draws));
    }
  gsl_rng_free (h->cx.rng);
  h->cx.rng = NULL;

  /* Stan's checks */
  const double bad_rho[HK] = { 0.5, 0.3, 0.3 };
  args[2] = vec (h, TILDE_VALUE_VECTOR, HK, 1, bad_rho);
  TildeValue out;
  g_assert_false (call (h, "hmm_marginal", FALSE, 3, args, &out));
  g_assert_cmpstr (h->cx.err_msg, ==, "hmm_marginal: rho is not a valid simplex. sum(rho) = "
                   "1.1, but should be 1");
  harness_free (h);
}

/* ---- sparse matrices ---- */

static const double tall[4 * 3] = { 1.2, -0.3, 0.5, 0.4, 2.0, -1.1, -0.7, 0.2, 1.5, 0.9, 1.3,
                                    -0.4 };
static const double square[3 * 3] = { 2.0, -0.5, 0.3, 0.7, 1.4, -0.9, -1.2, 0.6, 1.8 };

static const double sparse_a[3 * 4] = {
  0, 2.5, 0, -1,
  0, 0, 0, 0,
  4, 0, 0.5, 3,
};

static void
test_sparse (void)
{
  Harness *h = harness_new ();
  TildeValue A = matrix (h, 3, 4, sparse_a);
  TildeValue w = apply (h, "csr_extract_w", 1, &A);
  TildeValue v = apply (h, "csr_extract_v", 1, &A);
  TildeValue u = apply (h, "csr_extract_u", 1, &A);
  const double ew[] = { 2.5, -1, 4, 0.5, 3 };
  const int ev[] = { 2, 4, 1, 3, 4 }, eu[] = { 1, 3, 3, 6 };
  g_assert_cmpint (w.rows, ==, 5);
  for (int i = 0; i < 5; i++)
    {
      g_assert_cmpfloat (w.u.d[i], ==, ew[i]);
      g_assert_cmpint (v.u.iv[i], ==, ev[i]);
    }
  g_assert_cmpint (u.rows, ==, 4);
  for (int i = 0; i < 4; i++)
    g_assert_cmpint (u.u.iv[i], ==, eu[i]);
  TildeValue t = apply (h, "csr_extract", 1, &A);
  g_assert_cmpint (t.kind, ==, TILDE_VALUE_TUPLE);
  g_assert_cmpfloat (t.u.elems[0].u.d[4], ==, 3);
  g_assert_cmpint (t.u.elems[2].u.iv[3], ==, 6);

  TildeValue args[6] = { tilde_value_int (3), tilde_value_int (4), w, v, u };
  TildeValue D = apply (h, "csr_to_dense_matrix", 5, args);
  for (int i = 0; i < 12; i++)
    g_assert_cmpfloat (D.u.d[i], ==, A.u.d[i]);

  const double b[] = { 0.3, -1.2, 2.0, 0.7 };
  args[5] = vec (h, TILDE_VALUE_VECTOR, 4, 1, b);
  TildeValue y = apply (h, "csr_matrix_times_vector", 6, args);
  for (int i = 0; i < 3; i++)
    {
      double s = 0;
      for (int j = 0; j < 4; j++)
        s += sparse_a[i * 4 + j] * b[j];
      g_assert_true (rt_test_close (y.u.d[i], s, 1e-15));
    }
  check_gradient (h, "csr_matrix_times_vector", 6, args, 1e-8);
  check_gradient (h, "csr_to_dense_matrix", 5, args, 1e-8);
  /* (at a matrix without zeros: perturbing a zero changes the pattern) */
  TildeValue dense = matrix (h, 4, 3, tall);
  check_gradient (h, "csr_extract_w", 1, &dense, 1e-8);

  const int bad_v[] = { 2, 5, 1, 3, 4 };
  args[3] = ints (h, 5, bad_v);
  TildeValue out;
  g_assert_false (call (h, "csr_matrix_times_vector", FALSE, 6, args, &out));
  g_assert_cmpstr (h->cx.err_msg, ==, "csr_matrix_times_vector: v[] is 5, but must be in the "
                   "interval [1, 4]");
  harness_free (h);
}

/* ---- decompositions ---- */

static double
entry (const TildeValue *m, int i, int j)
{
  return m->u.d[i + j * m->rows];
}

static void
check_qr (Harness *h, const TildeValue *A, gboolean full)
{
  int m = A->rows, n = A->cols;
  TildeValue Q = apply (h, full ? "qr_Q" : "qr_thin_Q", 1, A);
  TildeValue R = apply (h, full ? "qr_R" : "qr_thin_R", 1, A);
  g_assert_cmpint (Q.rows, ==, m);
  g_assert_cmpint (Q.cols, ==, R.rows);
  g_assert_cmpint (R.cols, ==, n);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      {
        double s = 0;
        for (int k = 0; k < Q.cols; k++)
          s += entry (&Q, i, k) * entry (&R, k, j);
        g_assert_true (rt_test_close (s, entry (A, i, j), 1e-13));
      }
  for (int i = 0; i < Q.cols; i++)
    for (int j = 0; j < Q.cols; j++)
      {
        double s = 0;
        for (int k = 0; k < m; k++)
          s += entry (&Q, k, i) * entry (&Q, k, j);
        g_assert_true (rt_test_close (s, i == j, 1e-13));
      }
  for (int i = 0; i < R.rows; i++)
    for (int j = 0; j < MIN (i, n); j++)
      g_assert_cmpfloat (entry (&R, i, j), ==, 0);
  for (int i = 0; i < MIN (R.rows, n); i++)
    g_assert_cmpfloat (entry (&R, i, i), >=, 0);
}

static void
test_qr (void)
{
  Harness *h = harness_new ();
  TildeValue T = matrix (h, 4, 3, tall), S = matrix (h, 3, 3, square);
  TildeValue W = rt_new_data (&h->cx, TILDE_VALUE_MATRIX, 3, 4);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++)
      W.u.d[i + j * 3] = tall[j * 3 + i];
  const TildeValue *all[] = { &T, &S, &W };
  for (int c = 0; c < 3; c++)
    {
      check_qr (h, all[c], FALSE);
      check_qr (h, all[c], TRUE);
      check_gradient (h, "qr_thin_Q", 1, all[c], 1e-7);
      check_gradient (h, "qr_thin_R", 1, all[c], 1e-7);
      check_gradient (h, "qr_R", 1, all[c], 1e-7);
      check_gradient (h, "qr_thin", 1, all[c], 1e-7);
    }
  check_gradient (h, "qr_Q", 1, &S, 1e-7);
  check_gradient (h, "qr_Q", 1, &W, 1e-7);
  harness_free (h);
}

static void
test_svd (void)
{
  Harness *h = harness_new ();
  TildeValue T = matrix (h, 4, 3, tall), S = matrix (h, 3, 3, square);
  TildeValue W = rt_new_data (&h->cx, TILDE_VALUE_MATRIX, 3, 4);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++)
      W.u.d[i + j * 3] = tall[j * 3 + i];
  const TildeValue *all[] = { &T, &S, &W };
  for (int c = 0; c < 3; c++)
    {
      const TildeValue *A = all[c];
      TildeValue U = apply (h, "svd_U", 1, A), V = apply (h, "svd_V", 1, A);
      TildeValue s = apply (h, "singular_values", 1, A);
      int k = MIN (A->rows, A->cols);
      g_assert_cmpint (s.rows, ==, k);
      for (int q = 1; q < k; q++)
        g_assert_cmpfloat (s.u.d[q], <=, s.u.d[q - 1]);
      for (int i = 0; i < A->rows; i++)
        for (int j = 0; j < A->cols; j++)
          {
            double x = 0;
            for (int q = 0; q < k; q++)
              x += entry (&U, i, q) * s.u.d[q] * entry (&V, j, q);
            g_assert_true (rt_test_close (x, entry (A, i, j), 1e-13));
          }
      check_gradient (h, "singular_values", 1, A, 1e-7);
      check_gradient (h, "svd_U", 1, A, 1e-6);
      check_gradient (h, "svd_V", 1, A, 1e-6);
      check_gradient (h, "svd", 1, A, 1e-6);
    }
  /* the singular values of [[3, 0], [4, 5]] are sqrt (45) and sqrt (5) */
  const double m2[] = { 3, 0, 4, 5 };
  TildeValue M = matrix (h, 2, 2, m2);
  TildeValue s = apply (h, "singular_values", 1, &M);
  g_assert_true (rt_test_close (s.u.d[0], sqrt (45), 1e-14));
  g_assert_true (rt_test_close (s.u.d[1], sqrt (5), 1e-14));
  /* equal singular values (3 times a rotation R): their sum, the nuclear
   * norm, has the gradient U V' = R, with no division by their gap */
  const double rot[] = { 1.8, 2.4, -2.4, 1.8 };
  ad_tape_reset (h->cx.tape);
  TildeValue Rm = matrix (h, 2, 2, rot), Ra = rt_promote_ad (&h->cx, &Rm);
  TildeValue sr = apply (h, "singular_values", 1, &Ra);
  gint32 seeds[2] = { tilde_value_var (&sr, 0), tilde_value_var (&sr, 1) };
  ad_gradient (h->cx.tape, seeds, 2);
  for (int i = 0; i < 4; i++)
    g_assert_true (rt_test_close (h->cx.tape->adj[tilde_value_var (&Ra, i)], Rm.u.d[i] / 3, 1e-12));
  harness_free (h);
}

static void
test_matrix_exp (void)
{
  Harness *h = harness_new ();
  /* upper triangular: [[e^a, b (e^a - e^c) / (a - c)], [0, e^c]] */
  const double a = 0.7, b = -1.3, c = -0.4;
  const double tri[] = { a, b, 0, c };
  TildeValue A = matrix (h, 2, 2, tri);
  TildeValue E = apply (h, "matrix_exp", 1, &A);
  g_assert_true (rt_test_close (entry (&E, 0, 0), exp (a), 1e-14));
  g_assert_true (rt_test_close (entry (&E, 0, 1), b * (exp (a) - exp (c)) / (a - c), 1e-14));
  g_assert_true (rt_test_close (entry (&E, 1, 0), 0, 1e-14));
  g_assert_true (rt_test_close (entry (&E, 1, 1), exp (c), 1e-14));
  /* a rotation's generator */
  const double t = 0.9, rot[] = { 0, -t, t, 0 };
  TildeValue G = matrix (h, 2, 2, rot);
  E = apply (h, "matrix_exp", 1, &G);
  g_assert_true (rt_test_close (entry (&E, 0, 0), cos (t), 1e-14));
  g_assert_true (rt_test_close (entry (&E, 0, 1), -sin (t), 1e-14));
  g_assert_true (rt_test_close (entry (&E, 1, 0), sin (t), 1e-14));
  TildeValue S = matrix (h, 3, 3, square);
  check_gradient (h, "matrix_exp", 1, &S, 1e-7);
  /* exp (A) B and exp (t A) B */
  TildeValue B = matrix (h, 3, 4, tall);
  TildeValue args[3] = { S, B };
  TildeValue P = apply (h, "matrix_exp_multiply", 2, args);
  TildeValue ES = apply (h, "matrix_exp", 1, &S);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++)
      {
        double x = 0;
        for (int k = 0; k < 3; k++)
          x += entry (&ES, i, k) * entry (&B, k, j);
        g_assert_true (rt_test_close (entry (&P, i, j), x, 1e-13));
      }
  check_gradient (h, "matrix_exp_multiply", 2, args, 1e-7);
  args[0] = tilde_value_real (0.6);
  args[1] = S;
  args[2] = B;
  check_gradient (h, "scale_matrix_exp_multiply", 3, args, 1e-7);
  harness_free (h);
}

static void
test_generalized_inverse (void)
{
  Harness *h = harness_new ();
  TildeValue T = matrix (h, 4, 3, tall);
  /* rank one: the Moore-Penrose conditions */
  const double r1[] = { 1, 2, 3, 2, 4, 6 };
  TildeValue R = matrix (h, 2, 3, r1);
  const TildeValue *all[] = { &T, &R };
  for (int c = 0; c < 2; c++)
    {
      const TildeValue *A = all[c];
      TildeValue G = apply (h, "generalized_inverse", 1, A);
      int m = A->rows, n = A->cols;
      g_assert_cmpint (G.rows, ==, n);
      g_assert_cmpint (G.cols, ==, m);
      /* A G A = A and G A G = G */
      for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
          {
            double x = 0;
            for (int p = 0; p < n; p++)
              for (int q = 0; q < m; q++)
                x += entry (A, i, p) * entry (&G, p, q) * entry (A, q, j);
            g_assert_true (rt_test_close (x, entry (A, i, j), 1e-12));
          }
      for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
          {
            double x = 0;
            for (int p = 0; p < m; p++)
              for (int q = 0; q < n; q++)
                x += entry (&G, i, p) * entry (A, p, q) * entry (&G, q, j);
            g_assert_true (rt_test_close (x, entry (&G, i, j), 1e-12));
          }
    }
  check_gradient (h, "generalized_inverse", 1, &T, 1e-7);
  TildeValue S = matrix (h, 3, 3, square);
  check_gradient (h, "generalized_inverse", 1, &S, 1e-7);
  harness_free (h);
}

static void
test_eigen_general (void)
{
  Harness *h = harness_new ();
  /* a rotation by 90 degrees: eigenvalues i and -i */
  const double rot[] = { 0, -1, 1, 0 };
  TildeValue A = matrix (h, 2, 2, rot);
  TildeValue l = apply (h, "eigenvalues", 1, &A);
  g_assert_cmpint (l.kind, ==, TILDE_VALUE_COMPLEX_VECTOR);
  g_assert_true (rt_test_close (fabs (l.u.d[1]), 1, 1e-14));
  g_assert_true (rt_test_close (l.u.d[1], -l.u.d[3], 1e-14));
  g_assert_true (rt_test_close (l.u.d[0], 0, 1e-14));
  /* A v = lambda v for a general matrix */
  TildeValue S = matrix (h, 3, 3, square);
  TildeValue d = apply (h, "eigendecompose", 1, &S);
  const TildeValue *V = &d.u.elems[0], *lam = &d.u.elems[1];
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < 3; i++)
      {
        double re = 0, im = 0;
        for (int j = 0; j < 3; j++)
          {
            re += entry (&S, i, j) * V->u.d[2 * (j + 3 * k)];
            im += entry (&S, i, j) * V->u.d[2 * (j + 3 * k) + 1];
          }
        double vr = V->u.d[2 * (i + 3 * k)], vi = V->u.d[2 * (i + 3 * k) + 1];
        double lr = lam->u.d[2 * k], li = lam->u.d[2 * k + 1];
        g_assert_true (rt_test_close (re, lr * vr - li * vi, 1e-12));
        g_assert_true (rt_test_close (im, lr * vi + li * vr, 1e-12));
      }
  /* a real matrix's eigenvalues in Stan's order (Eigen 3.4's, recorded),
   * each eigenvector with its own */
  static const struct { int n; double a[36]; double l[12]; } orders[] = {
    { 3, { 1, 2, 3, 0, 4, 5, 1, 0, 6 },
      { 1.08849669, 0, 2.87053872, 0, 7.04096459, 0 } },
    { 3, { 0.5, -1, 0.2, 1, 0.3, 0, 0.1, 0.2, 0.9 },
      { 0.379411998, 0.995921482, 0.379411998, -0.995921482, 0.941176004, 0 } },
    { 2, { 0.236372, 0.1, 0.2, 0.51287 }, { 0.176851473, 0, 0.572390527, 0 } },
    { 6, { 1.17, 0.75, -0.48, 0.01, 0.63, 1.54, -1.43, -0.91, 0.32, -1.17, 0.89, -0.07,
           -0.25, -0.52, -0.54, -0.32, -0.36, 1.36, 0.46, -0.13, -0.20, -0.81, 0.74, -1.31,
           0.65, 0.33, -0.16, -0.62, 0.58, -0.49, 0.91, 0.66, 0.91, 1.26, 0.54, -1.51 },
      { 1.33933349, 0, -1.51522944, 0, -1.16782259, 0.618960438, -1.16782259, -0.618960438,
        0.245770561, 0.352090857, 0.245770561, -0.352090857 } },
  };
  for (guint c = 0; c < G_N_ELEMENTS (orders); c++)
    {
      int n = orders[c].n;
      TildeValue M = matrix (h, n, n, orders[c].a);
      TildeValue ev = apply (h, "eigenvalues", 1, &M);
      TildeValue ed = apply (h, "eigendecompose", 1, &M);
      const TildeValue *W = &ed.u.elems[0];
      for (int k = 0; k < 2 * n; k++)
        {
          g_assert_cmpfloat (fabs (ev.u.d[k] - orders[c].l[k]), <, 1e-8);
          g_assert_cmpfloat (ed.u.elems[1].u.d[k], ==, ev.u.d[k]);
        }
      for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++)
          {
            double complex av = 0, v = W->u.d[2 * (i + n * k)] + I * W->u.d[2 * (i + n * k) + 1];
            for (int j = 0; j < n; j++)
              av += entry (&M, i, j) * (W->u.d[2 * (j + n * k)] + I * W->u.d[2 * (j + n * k) + 1]);
            double complex value = ev.u.d[2 * k] + I * ev.u.d[2 * k + 1];
            g_assert_cmpfloat (cabs (av - value * v), <, 1e-10);
          }
    }
  /* and the eigenvectors of real eigenvalues as Stan's, sign included
   * (Eigen 3.4's, recorded): the first columns of the first and last cases */
  static const struct { int c, n, cols; double v[9]; } vectors[] = {
    { 0, 3, 3, { -0.926994589, -0.324127197, 0.188739482, 0.56767265, 0.803021264,
                 -0.181396285, 0.475775359, 0.75149246, 0.457052393 } },
    { 3, 6, 1, { -0.799021479, 0.455534966, -0.168351485, -0.0829783432, -0.202994252,
                 -0.278600567 } },
  };
  for (guint c = 0; c < G_N_ELEMENTS (vectors); c++)
    {
      int n = vectors[c].n;
      TildeValue M = matrix (h, n, n, orders[vectors[c].c].a);
      TildeValue vecs = apply (h, "eigenvectors", 1, &M);
      for (int j = 0; j < vectors[c].cols; j++)
        for (int i = 0; i < n; i++)
          {
            g_assert_cmpfloat (fabs (vecs.u.d[2 * (i + n * j)] - vectors[c].v[i + n * j]), <, 1e-8);
            g_assert_cmpfloat (fabs (vecs.u.d[2 * (i + n * j) + 1]), <, 1e-15);
          }
    }
  /* a complex matrix's eigenvalues by magnitude, as Stan's (Eigen 3.4's
   * complex solver, recorded); LAPACK lists 2.19+2.34i first */
  {
    static const double zc[] = { 1, 2, 0.5, -1, 2, 0, -1, 0.5, 0, 1, 1, 1, 0.3, 0, 2, -2, -1, 0.25 };
    static const double expected[] = { 0.501040158, 0.0932552019, -2.69259415, 0.811789722,
                                       2.19155399, 2.34495508 };
    TildeValue Z = { .kind = TILDE_VALUE_COMPLEX_MATRIX, .rows = 3, .cols = 3 };
    Z.u.d = rt_alloc_d (&h->cx, 18);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        {
          Z.u.d[2 * (i + 3 * j)] = zc[2 * (3 * i + j)];
          Z.u.d[2 * (i + 3 * j) + 1] = zc[2 * (3 * i + j) + 1];
        }
    TildeValue zl = apply (h, "eigenvalues", 1, &Z);
    for (int k = 0; k < 6; k++)
      g_assert_cmpfloat (fabs (zl.u.d[k] - expected[k]), <, 1e-8);
    /* each eigenvector still with its eigenvalue */
    TildeValue zd = apply (h, "eigendecompose", 1, &Z);
    for (int k = 0; k < 3; k++)
      for (int i = 0; i < 3; i++)
        {
          double complex av = 0, v = zd.u.elems[0].u.d[2 * (i + 3 * k)]
                                     + I * zd.u.elems[0].u.d[2 * (i + 3 * k) + 1];
          for (int j = 0; j < 3; j++)
            av += (zc[2 * (3 * i + j)] + I * zc[2 * (3 * i + j) + 1])
                  * (zd.u.elems[0].u.d[2 * (j + 3 * k)] + I * zd.u.elems[0].u.d[2 * (j + 3 * k) + 1]);
          double complex value = zd.u.elems[1].u.d[2 * k] + I * zd.u.elems[1].u.d[2 * k + 1];
          g_assert_cmpfloat (cabs (av - value * v), <, 1e-12);
        }
  }
  /* the Schur form: A = U T U*, T upper triangular */
  TildeValue U = apply (h, "complex_schur_decompose_u", 1, &S);
  TildeValue Tm = apply (h, "complex_schur_decompose_t", 1, &S);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      {
        double re = 0, im = 0;
        for (int p = 0; p < 3; p++)
          for (int q = 0; q < 3; q++)
            {
              double ur = U.u.d[2 * (i + 3 * p)], ui = U.u.d[2 * (i + 3 * p) + 1];
              double tr = Tm.u.d[2 * (p + 3 * q)], ti = Tm.u.d[2 * (p + 3 * q) + 1];
              double wr = U.u.d[2 * (j + 3 * q)], wi = -U.u.d[2 * (j + 3 * q) + 1];
              double xr = ur * tr - ui * ti, xi = ur * ti + ui * tr;
              re += xr * wr - xi * wi;
              im += xr * wi + xi * wr;
            }
        g_assert_true (rt_test_close (re, entry (&S, i, j), 1e-12));
        g_assert_true (rt_test_close (im, 0, 1e-12));
        if (i > j)
          g_assert_true (rt_test_close (hypot (Tm.u.d[2 * (i + 3 * j)],
                                               Tm.u.d[2 * (i + 3 * j) + 1]), 0, 1e-14));
      }
  harness_free (h);
}

/* The eigendecomposition of general real matrices of many shapes against
 * its definition: A v = lambda v, each v of unit length, complex
 * eigenvalues in conjugate pairs (the positive imaginary part first) with
 * conjugate vectors; the zero matrix and a defective one included. */
static void
test_real_eigen_property (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (20261124);
  for (int trial = 0; trial < 400; trial++)
    {
      int n = g_rand_int_range (rand, 1, 21), kind = trial % 7;
      g_autofree double *a = g_new0 (double, n * n);
      for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
          {
            double x = g_rand_double_range (rand, -2, 2);
            switch (kind)
              {
              case 1: x = round (2 * x); break;                   /* repeated eigenvalues */
              case 2: x = i > j + 1 ? 0 : x; break;               /* Hessenberg */
              case 3: x = i > j ? 0 : x; break;                   /* triangular */
              case 4: x = i == j ? 1 : (j == i + 1 ? 1 : 0); break; /* a Jordan block */
              case 5: x = 0; break;
              case 6: x = i == j ? x : 1e-3 * x; break;           /* nearly diagonal */
              default: break;
              }
            a[i + j * n] = x;
          }
      g_autofree double *re = g_new (double, n);
      g_autofree double *im = g_new (double, n);
      g_autofree double complex *v = g_new (double complex, n * n);
      g_assert_true (rt_real_eigen (a, n, re, im, v));
      double big = 0;
      for (int i = 0; i < n * n; i++)
        big = fmax (big, fabs (a[i]));
      for (int k = 0; k < n; k++)
        {
          double complex lambda = re[k] + I * im[k];
          double length = 0;
          for (int i = 0; i < n; i++)
            {
              double complex av = 0;
              for (int j = 0; j < n; j++)
                av += a[i + j * n] * v[j + k * n];
              /* a Jordan block's eigenvectors are parallel: its residual
               * is still that of rounding */
              g_assert_cmpfloat (cabs (av - lambda * v[i + k * n]), <=, 1e-12 * fmax (big, 1));
              length += creal (v[i + k * n] * conj (v[i + k * n]));
            }
          g_assert_cmpfloat (fabs (length - 1), <, 1e-12);
          if (im[k] > 0)
            {
              g_assert_cmpint (k + 1, <, n);
              g_assert_cmpfloat (re[k + 1], ==, re[k]);
              g_assert_cmpfloat (im[k + 1], ==, -im[k]);
              for (int i = 0; i < n; i++)
                g_assert_true (v[i + (k + 1) * n] == conj (v[i + k * n]));
            }
        }
    }
}

/* ---- hypergeometric functions ---- */

static double
hyper (Harness *h, const char *name, int n, const TildeValue *args)
{
  TildeValue out = apply (h, name, n, args);
  return out.u.r;
}

static void
test_hypergeometric (void)
{
  Harness *h = harness_new ();
  /* 2F1 (1, 1; 2; z) = -log (1 - z) / z, by the series and by Pfaff */
  const double zs[] = { 0.5, -0.3, -3.0, -1.0 };
  for (guint i = 0; i < G_N_ELEMENTS (zs); i++)
    {
      TildeValue args[4] = { tilde_value_real (1), tilde_value_real (1), tilde_value_real (2),
                             tilde_value_real (zs[i]) };
      g_assert_true (rt_test_close (hyper (h, "hypergeometric_2F1", 4, args),
                                    -log1p (-zs[i]) / zs[i], 1e-13));
    }
  /* Gauss: 2F1 (1, 1; 3; 1) = 2 */
  TildeValue g[4] = { tilde_value_real (1), tilde_value_real (1), tilde_value_real (3),
                      tilde_value_real (1) };
  g_assert_true (rt_test_close (hyper (h, "hypergeometric_2F1", 4, g), 2, 1e-13));
  /* 1F0 (a;; z) = (1 - z)^-a */
  TildeValue o[2] = { tilde_value_real (1.7), tilde_value_real (0.4) };
  g_assert_true (rt_test_close (hyper (h, "hypergeometric_1F0", 2, o), pow (0.6, -1.7), 1e-14));
  /* 3F2 (1, 1, 1; 2, 2; z) = Li2 (z) / z; Li2 (1/2) = pi^2 / 12 - log (2)^2 / 2 */
  const double a3[] = { 1, 1, 1 }, b2[] = { 2, 2 };
  TildeValue t[3] = { vec (h, TILDE_VALUE_VECTOR, 3, 1, a3), vec (h, TILDE_VALUE_VECTOR, 2, 1, b2),
                      tilde_value_real (0.5) };
  g_assert_true (rt_test_close (hyper (h, "hypergeometric_3F2", 3, t),
                                2 * (G_PI * G_PI / 12 - log (2) * log (2) / 2), 1e-13));
  /* 1F1 (1; 2; z) = (e^z - 1) / z, and 0F0 (;; z) = e^z */
  const double a1[] = { 1 }, b1[] = { 2 };
  TildeValue k[3] = { vec (h, TILDE_VALUE_VECTOR, 1, 1, a1), vec (h, TILDE_VALUE_VECTOR, 1, 1, b1),
                      tilde_value_real (2.5) };
  g_assert_true (rt_test_close (hyper (h, "hypergeometric_pFq", 3, k), expm1 (2.5) / 2.5, 1e-13));
  TildeValue e[3] = { rt_new_data (&h->cx, TILDE_VALUE_VECTOR, 0, 1),
                      rt_new_data (&h->cx, TILDE_VALUE_VECTOR, 0, 1), tilde_value_real (-1.3) };
  g_assert_true (rt_test_close (hyper (h, "hypergeometric_pFq", 3, e), exp (-1.3), 1e-14));
  /* derivatives in every argument */
  TildeValue d[4] = { tilde_value_real (0.7), tilde_value_real (1.3), tilde_value_real (2.1),
                      tilde_value_real (0.35) };
  check_gradient (h, "hypergeometric_2F1", 4, d, 1e-7);
  d[3] = tilde_value_real (-2.5);
  check_gradient (h, "hypergeometric_2F1", 4, d, 1e-7);
  const double pa[] = { 0.6, 1.4, 2.2 }, pb[] = { 1.9, 3.1 };
  TildeValue f[3] = { vec (h, TILDE_VALUE_VECTOR, 3, 1, pa), vec (h, TILDE_VALUE_VECTOR, 2, 1, pb),
                      tilde_value_real (0.45) };
  check_gradient (h, "hypergeometric_3F2", 3, f, 1e-7);
  check_gradient (h, "hypergeometric_pFq", 3, f, 1e-7);
  check_gradient (h, "hypergeometric_1F0", 2, o, 1e-7);
  TildeValue bad[3] = { f[0], f[1], tilde_value_real (1.5) };
  TildeValue out;
  g_assert_false (call (h, "hypergeometric_pFq", FALSE, 3, bad, &out));
  g_assert_cmpstr (h->cx.err_msg, ==, "hypergeometric_pFq: abs(z) is 1.5, but must be less than 1 "
                   "when p = q + 1");
  harness_free (h);
}

/* ---- lkj_cov ---- */

static void
test_lkj_cov (void)
{
  Harness *h = harness_new ();
  /* a covariance with sds (1.5, 0.8, 2) and correlations 0.3, -0.2, 0.5 */
  const double sd[] = { 1.5, 0.8, 2 }, r[3][3] = { { 1, 0.3, -0.2 }, { 0.3, 1, 0.5 },
                                                  { -0.2, 0.5, 1 } };
  double y[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      y[i * 3 + j] = sd[i] * sd[j] * r[i][j];
  const double mu[] = { 0.2, -0.1, 0.4 }, sigma[] = { 0.7, 1.2, 0.9 };
  TildeValue args[4] = { matrix (h, 3, 3, y), vec (h, TILDE_VALUE_VECTOR, 3, 1, mu),
                         vec (h, TILDE_VALUE_VECTOR, 3, 1, sigma), tilde_value_real (2.5) };
  /* under propto, with mu, sigma and eta data: the lognormal kernels in
   * the sds and (eta - 1) log det R */
  double det = 1 + 2 * 0.3 * -0.2 * 0.5 - 0.09 - 0.04 - 0.25, expected = 1.5 * log (det);
  for (int k = 0; k < 3; k++)
    {
      double z = (log (sd[k]) - mu[k]) / sigma[k];
      expected += -log (sd[k]) - 0.5 * z * z;
    }
  ad_tape_reset (h->cx.tape);
  TildeValue ad[4] = { rt_promote_ad (&h->cx, &args[0]), args[1], args[2], args[3] };
  TildeValue out;
  g_assert_true (call (h, "lkj_cov_lupdf", TRUE, 4, ad, &out));
  g_assert_true (rt_test_close (rt_scalar (&h->cx, &out), expected, 1e-13));
  /* the full density: the lognormal's constants and the LKJ normaliser
   * (the difference at two values of eta is the log det term) */
  TildeValue full1 = apply (h, "lkj_cov_lpdf", 4, args);
  args[3] = tilde_value_real (1.0);
  TildeValue full0 = apply (h, "lkj_cov_lpdf", 4, args);
  TildeValue cargs[2] = { matrix (h, 3, 3, (const double *) r), tilde_value_real (2.5) };
  TildeValue c1 = apply (h, "lkj_corr_lpdf", 2, cargs);
  cargs[1] = tilde_value_real (1.0);
  TildeValue c0 = apply (h, "lkj_corr_lpdf", 2, cargs);
  g_assert_true (rt_test_close (full1.u.r - full0.u.r, c1.u.r - c0.u.r, 1e-13));
  args[3] = tilde_value_real (2.5);
  /* y is symmetric: its entries are perturbed in mirrored pairs */
  ad_tape_reset (h->cx.tape);
  ad[0] = rt_promote_ad (&h->cx, &args[0]);
  ad[1] = rt_promote_ad (&h->cx, &args[1]);
  ad[2] = rt_promote_ad (&h->cx, &args[2]);
  ad[3] = rt_promote_ad (&h->cx, &args[3]);
  out = apply (h, "lkj_cov_lpdf", 4, ad);
  ad_gradient (h->cx.tape, &out.start, 1);
  for (int i = 0; i < 3; i++)
    for (int j = i; j < 3; j++)
      {
        double analytic = h->cx.tape->adj[ad[0].start + i + 3 * j]
          + (i != j ? h->cx.tape->adj[ad[0].start + j + 3 * i] : 0), f[2], step = 1e-6;
        for (int s = 0; s < 2; s++)
          {
            TildeValue p[4] = { tilde_value_copy (h->cx.arena, &args[0]), args[1], args[2],
                                args[3] };
            p[0].u.d[i + 3 * j] += s ? step : -step;
            if (i != j)
              p[0].u.d[j + 3 * i] += s ? step : -step;
            f[s] = apply (h, "lkj_cov_lpdf", 4, p).u.r;
          }
        g_assert_true (rt_test_close (analytic, (f[1] - f[0]) / (2 * step), 1e-6));
      }
  for (int a = 1; a < 4; a++)
    for (int i = 0; i < (a < 3 ? 3 : 1); i++)
      {
        double analytic = h->cx.tape->adj[ad[a].start + i], f[2], step = 1e-6;
        for (int s = 0; s < 2; s++)
          {
            TildeValue p[4] = { args[0], args[1], args[2], args[3] };
            if (a < 3)
              {
                p[a] = tilde_value_copy (h->cx.arena, &args[a]);
                p[a].u.d[i] += s ? step : -step;
              }
            else
              p[3] = tilde_value_real (2.5 + (s ? step : -step));
            f[s] = apply (h, "lkj_cov_lpdf", 4, p).u.r;
          }
        g_assert_true (rt_test_close (analytic, (f[1] - f[0]) / (2 * step), 1e-6));
      }
  harness_free (h);
}

/* ---- gaussian_dlm_obs ---- */

/* log N (y | mu, S) for 3-vectors, by Cholesky. */
static double
mvn3 (const double *y, const double *mu, const double S[3][3])
{
  double L[3][3] = { { 0 } }, z[3];
  for (int j = 0; j < 3; j++)
    {
      double s = S[j][j];
      for (int k = 0; k < j; k++)
        s -= L[j][k] * L[j][k];
      L[j][j] = sqrt (s);
      for (int i = j + 1; i < 3; i++)
        {
          double t = S[i][j];
          for (int k = 0; k < j; k++)
            t -= L[i][k] * L[j][k];
          L[i][j] = t / L[j][j];
        }
    }
  double lp = -1.5 * log (2 * G_PI);
  for (int i = 0; i < 3; i++)
    {
      double t = y[i] - mu[i];
      for (int k = 0; k < i; k++)
        t -= L[i][k] * z[k];
      z[i] = t / L[i][i];
      lp += -0.5 * z[i] * z[i] - log (L[i][i]);
    }
  return lp;
}

static void
test_gaussian_dlm (void)
{
  Harness *h = harness_new ();
  /* n = 2 states, r = 1 observation, T = 3 times */
  const double F[2] = { 1.0, 0.5 }, G[4] = { 0.9, 0.2, -0.1, 0.8 }, W[4] = { 0.3, 0.05, 0.05, 0.2 };
  const double C0[4] = { 1.0, 0.1, 0.1, 0.5 }, m0[2] = { 0.4, -0.3 }, V = 0.7;
  const double y[3] = { 0.5, -0.2, 1.1 };
  /* the joint normal of (y_1, y_2, y_3): means F' G^t m0, covariances
   * F' G^(t - s) Sigma_s F (s <= t) plus V on the diagonal, with Sigma_t
   * = G Sigma_{t-1} G' + W, Sigma_0 = C0 */
  double Sig[4][4], Gp[4][4], mean[3], S[3][3];
  double m[2] = { m0[0], m0[1] };
  memcpy (Sig[0], C0, sizeof C0);
  for (int t = 1; t <= 3; t++)
    {
      double nm[2] = { G[0] * m[0] + G[1] * m[1], G[2] * m[0] + G[3] * m[1] };
      m[0] = nm[0];
      m[1] = nm[1];
      mean[t - 1] = F[0] * m[0] + F[1] * m[1];
      const double *P = Sig[t - 1];
      double GP[4] = { G[0] * P[0] + G[1] * P[2], G[0] * P[1] + G[1] * P[3],
                       G[2] * P[0] + G[3] * P[2], G[2] * P[1] + G[3] * P[3] };
      Sig[t][0] = GP[0] * G[0] + GP[1] * G[1] + W[0];
      Sig[t][1] = GP[0] * G[2] + GP[1] * G[3] + W[1];
      Sig[t][2] = GP[2] * G[0] + GP[3] * G[1] + W[2];
      Sig[t][3] = GP[2] * G[2] + GP[3] * G[3] + W[3];
    }
  /* G^k for k = 0, 1, 2 */
  Gp[0][0] = 1, Gp[0][1] = 0, Gp[0][2] = 0, Gp[0][3] = 1;
  for (int k = 1; k < 3; k++)
    {
      const double *P = Gp[k - 1];
      Gp[k][0] = G[0] * P[0] + G[1] * P[2];
      Gp[k][1] = G[0] * P[1] + G[1] * P[3];
      Gp[k][2] = G[2] * P[0] + G[3] * P[2];
      Gp[k][3] = G[2] * P[1] + G[3] * P[3];
    }
  for (int s = 1; s <= 3; s++)
    for (int t = s; t <= 3; t++)
      {
        const double *P = Gp[t - s], *X = Sig[s];
        double PX[4] = { P[0] * X[0] + P[1] * X[2], P[0] * X[1] + P[1] * X[3],
                         P[2] * X[0] + P[3] * X[2], P[2] * X[1] + P[3] * X[3] };
        double c = F[0] * (PX[0] * F[0] + PX[1] * F[1]) + F[1] * (PX[2] * F[0] + PX[3] * F[1]);
        S[t - 1][s - 1] = S[s - 1][t - 1] = c + (s == t ? V : 0);
      }
  double expected = mvn3 (y, mean, S);
  TildeValue args[7] = { matrix (h, 1, 3, y), matrix (h, 2, 1, F), matrix (h, 2, 2, G),
                         matrix (h, 1, 1, &V), matrix (h, 2, 2, W),
                         vec (h, TILDE_VALUE_VECTOR, 2, 1, m0), matrix (h, 2, 2, C0) };
  TildeValue out = apply (h, "gaussian_dlm_obs_lpdf", 7, args);
  g_assert_true (rt_test_close (out.u.r, expected, 1e-12));
  check_gradient (h, "gaussian_dlm_obs_lpdf", 7, args, 1e-6);
  /* V as the vector of a diagonal */
  args[3] = vec (h, TILDE_VALUE_VECTOR, 1, 1, &V);
  out = apply (h, "gaussian_dlm_obs_lpdf", 7, args);
  g_assert_true (rt_test_close (out.u.r, expected, 1e-12));
  harness_free (h);
}

/* ---- beta_neg_binomial's distribution functions ---- */

static void
test_beta_neg_binomial_cdf (void)
{
  Harness *h = harness_new ();
  /* with r = alpha = beta = 1 the mass at k is 1 / ((k + 1) (k + 2)), so
   * F (n) = (n + 1) / (n + 2) */
  for (int n = 0; n < 6; n++)
    {
      TildeValue args[4] = { tilde_value_int (n), tilde_value_real (1), tilde_value_real (1),
                             tilde_value_real (1) };
      double F = (n + 1.0) / (n + 2.0);
      g_assert_true (rt_test_close (apply (h, "beta_neg_binomial_cdf", 4, args).u.r, F, 1e-14));
      g_assert_true (rt_test_close (apply (h, "beta_neg_binomial_lcdf", 4, args).u.r, log (F),
                                    1e-14));
      g_assert_true (rt_test_close (apply (h, "beta_neg_binomial_lccdf", 4, args).u.r,
                                    -log (n + 2.0), 1e-13));
    }
  /* vectorised: the product of the elements' F (and the sum of logs) */
  const int ns[] = { 2, 5 };
  TildeValue v[4] = { ints (h, 2, ns), tilde_value_real (1), tilde_value_real (1),
                      tilde_value_real (1) };
  g_assert_true (rt_test_close (apply (h, "beta_neg_binomial_cdf", 4, v).u.r,
                                3.0 / 4.0 * 6.0 / 7.0, 1e-14));
  TildeValue g[4] = { tilde_value_int (4), tilde_value_real (2.5), tilde_value_real (3.2),
                      tilde_value_real (1.7) };
  check_gradient (h, "beta_neg_binomial_cdf", 4, g, 1e-7);
  check_gradient (h, "beta_neg_binomial_lcdf", 4, g, 1e-7);
  check_gradient (h, "beta_neg_binomial_lccdf", 4, g, 1e-7);
  harness_free (h);
}

/* ---- wiener ---- */

typedef struct {
  Harness *h;
  double alpha, beta, delta;
} WienerAt;

static double
wiener_density (double t, void *p)
{
  WienerAt *w = p;
  TildeValue args[5] = { tilde_value_real (t), tilde_value_real (w->alpha), tilde_value_real (0),
                         tilde_value_real (w->beta), tilde_value_real (w->delta) };
  return exp (apply (w->h, "wiener_lpdf", 5, args).u.r);
}

static void
test_wiener (void)
{
  Harness *h = harness_new ();
  /* the density of the upper boundary integrates to the probability of
   * reaching it first: (1 - exp (-2 delta alpha beta)) / (1 - exp (-2
   * delta alpha)); both series are used on the way */
  const double cases[][3] = { { 1.5, 0.4, 0.8 }, { 2.0, 0.6, -0.5 }, { 0.8, 0.5, 1.7 } };
  gsl_integration_workspace *ws = gsl_integration_workspace_alloc (1000);
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      WienerAt w = { h, cases[c][0], cases[c][1], cases[c][2] };
      gsl_function f = { wiener_density, &w };
      double r, err;
      gsl_integration_qagiu (&f, 0, 1e-12, 1e-10, 1000, ws, &r, &err);
      double p = -expm1 (-2 * w.delta * w.alpha * w.beta) / -expm1 (-2 * w.delta * w.alpha);
      if (!rt_test_close (r, p, 1e-8))
        g_error ("wiener case %u: the density integrates to %.12g, expected %.12g", c, r, p);
      ad_tape_reset (h->cx.tape);
    }
  gsl_integration_workspace_free (ws);
  /* derivatives at small and large times */
  const double ys[] = { 0.45, 3.0 };
  for (int k = 0; k < 2; k++)
    {
      TildeValue args[5] = { tilde_value_real (ys[k]), tilde_value_real (1.3),
                             tilde_value_real (0.2), tilde_value_real (0.35),
                             tilde_value_real (0.7) };
      check_gradient (h, "wiener_lpdf", 5, args, 1e-7);
    }
  TildeValue bad[5] = { tilde_value_real (0.1), tilde_value_real (1.3), tilde_value_real (0.2),
                        tilde_value_real (0.35), tilde_value_real (0.7) };
  TildeValue out;
  g_assert_false (call (h, "wiener_lpdf", FALSE, 5, bad, &out));
  g_assert_cmpstr (h->cx.err_msg, ==, "wiener_lpdf: Random variable = 0.1, but must be greater "
                   "than nondecision time = 0.2");
  harness_free (h);
}

/* The five-parameter form (normal variability sv in the drift) against
 * the four-parameter density averaged over the drift by quadrature, at a
 * small and a large time; its integral over time against the probability of
 * the upper boundary averaged over the drift; and its gradient. */
typedef struct {
  Harness *h;
  double t, alpha, beta, delta, sv;
} Wiener5At;

static double
wiener4_times_normal (double drift, void *p)
{
  Wiener5At *w = p;
  TildeValue args[5] = { tilde_value_real (w->t), tilde_value_real (w->alpha), tilde_value_real (0),
                         tilde_value_real (w->beta), tilde_value_real (drift) };
  double z = (drift - w->delta) / w->sv;
  return exp (apply (w->h, "wiener_lpdf", 5, args).u.r) * exp (-z * z / 2)
         / (w->sv * sqrt (2 * G_PI));
}

static double
wiener5_density (double t, void *p)
{
  Wiener5At *w = p;
  TildeValue args[6] = { tilde_value_real (t), tilde_value_real (w->alpha), tilde_value_real (0),
                         tilde_value_real (w->beta), tilde_value_real (w->delta),
                         tilde_value_real (w->sv) };
  return exp (apply (w->h, "wiener_lpdf", 6, args).u.r);
}

/* The probability of ending at the upper boundary with a fixed drift:
 * (exp (x b) - 1) / (exp (x) - 1) with x = -2 drift alpha, written so that
 * neither side overflows far into the drift's tails. */
static double
upper_probability (double drift, double alpha, double b)
{
  double x = -2 * drift * alpha;
  return fabs (x) < 1e-12 ? b
         : x > 0 ? exp (x * (b - 1)) * -expm1 (-x * b) / -expm1 (-x)
         : expm1 (x * b) / expm1 (x);
}

static double
upper_probability_times_normal (double drift, void *p)
{
  Wiener5At *w = p;
  double z = (drift - w->delta) / w->sv;
  return upper_probability (drift, w->alpha, w->beta) * exp (-z * z / 2) / (w->sv * sqrt (2 * G_PI));
}

static void
test_wiener_drift_variability (void)
{
  Harness *h = harness_new ();
  gsl_integration_workspace *ws = gsl_integration_workspace_alloc (1000);
  const double cases[][4] = { { 1.5, 0.4, 0.8, 0.6 }, { 2.0, 0.6, -0.5, 1.2 } };
  const double times[] = { 0.3, 2.5 };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      Wiener5At w = { h, 0, cases[c][0], cases[c][1], cases[c][2], cases[c][3] };
      double r, err;
      for (guint k = 0; k < G_N_ELEMENTS (times); k++)
        {
          w.t = times[k];
          gsl_function f = { wiener4_times_normal, &w };
          gsl_integration_qagi (&f, 1e-13, 1e-11, 1000, ws, &r, &err);
          double closed = wiener5_density (w.t, &w);
          if (!rt_test_close (closed, r, 1e-8))
            g_error ("wiener case %u, t = %g: %.12g in closed form, %.12g by quadrature", c, w.t,
                     closed, r);
          ad_tape_reset (h->cx.tape);
        }
      gsl_function over_time = { wiener5_density, &w };
      gsl_integration_qagiu (&over_time, 0, 1e-12, 1e-10, 1000, ws, &r, &err);
      gsl_function over_drift = { upper_probability_times_normal, &w };
      double p, perr;
      gsl_integration_qagi (&over_drift, 1e-13, 1e-11, 1000, ws, &p, &perr);
      if (!rt_test_close (r, p, 1e-8))
        g_error ("wiener case %u: the density integrates to %.12g, expected %.12g", c, r, p);
      ad_tape_reset (h->cx.tape);
    }
  gsl_integration_workspace_free (ws);
  const double ys[] = { 0.45, 3.0 };
  for (int k = 0; k < 2; k++)
    {
      TildeValue args[6] = { tilde_value_real (ys[k]), tilde_value_real (1.3),
                             tilde_value_real (0.2), tilde_value_real (0.35),
                             tilde_value_real (0.7), tilde_value_real (0.9) };
      check_gradient (h, "wiener_lpdf", 6, args, 1e-7);
    }
  TildeValue bad[6] = { tilde_value_real (0.9), tilde_value_real (1.3), tilde_value_real (0.2),
                        tilde_value_real (0.35), tilde_value_real (0.7), tilde_value_real (-1) };
  TildeValue out;
  g_assert_false (call (h, "wiener_lpdf", FALSE, 6, bad, &out));
  g_assert_cmpstr (h->cx.err_msg, ==, "wiener_lpdf: Inter-trial variability in drift rate is -1, "
                   "but must be nonnegative!");
  harness_free (h);
}

/* The seven-parameter form (also uniform variability sw in the starting
 * point and st0 in the non-decision time): pointwise against the
 * six-argument density averaged over both by GSL's quadrature, with the
 * average cut at y and with either width zero; its integral over time
 * against the probability of the upper boundary averaged over drift and
 * start; gradients; and the bound on sw. */
typedef struct {
  Harness *h;
  double y, alpha, tau, beta, delta, sv, sw, st0;
  double s, b;           /* the point of the nested quadratures */
  gsl_integration_workspace *inner;
} Wiener7At;

static double
wiener7_density (const Wiener7At *w, double y)
{
  TildeValue args[8] = { tilde_value_real (y), tilde_value_real (w->alpha),
                         tilde_value_real (w->tau), tilde_value_real (w->beta),
                         tilde_value_real (w->delta), tilde_value_real (w->sv),
                         tilde_value_real (w->sw), tilde_value_real (w->st0) };
  return exp (apply (w->h, "wiener_lpdf", 8, args).u.r);
}

static double
f5_at_bias (double b, void *p)
{
  Wiener7At *w = p;
  if (w->y - w->s <= 0)
    return 0;
  TildeValue args[6] = { tilde_value_real (w->y - w->s), tilde_value_real (w->alpha),
                         tilde_value_real (0), tilde_value_real (b),
                         tilde_value_real (w->delta), tilde_value_real (w->sv) };
  return exp (apply (w->h, "wiener_lpdf", 6, args).u.r);
}

static double
bias_average_at (double s, void *p)
{
  Wiener7At *w = p;
  gsl_function f = { f5_at_bias, w };
  double r, err;

  w->s = s;
  if (w->sw == 0)
    return f5_at_bias (w->beta, w);
  gsl_integration_qags (&f, w->beta - w->sw / 2, w->beta + w->sw / 2, 1e-14, 1e-12, 1000,
                        w->inner, &r, &err);
  return r / w->sw;
}

static double
wiener7_by_gsl (Wiener7At *w, gsl_integration_workspace *outer)
{
  gsl_function f = { bias_average_at, w };
  double r, err;

  if (w->st0 == 0)
    return bias_average_at (w->tau, w);
  gsl_integration_qags (&f, w->tau, MIN (w->tau + w->st0, w->y), 1e-14, 1e-11, 1000, outer,
                        &r, &err);
  return r / w->st0;
}

static double
wiener7_over_time (double y, void *p)
{
  return wiener7_density (p, y);
}

static double
upper_over_drift (double drift, void *p)
{
  Wiener7At *w = p;
  double z = (drift - w->delta) / w->sv;
  return upper_probability (drift, w->alpha, w->b) * exp (-z * z / 2) / (w->sv * sqrt (2 * G_PI));
}

static double
upper_over_drift_and_bias (double b, void *p)
{
  Wiener7At *w = p;
  gsl_function f = { upper_over_drift, w };
  double r, err;

  w->b = b;
  gsl_integration_qagi (&f, 1e-14, 1e-12, 1000, w->inner, &r, &err);
  return r / w->sw;
}

static void
test_wiener_full (void)
{
  Harness *h = harness_new ();
  gsl_integration_workspace *outer = gsl_integration_workspace_alloc (1000);
  gsl_integration_workspace *inner = gsl_integration_workspace_alloc (1000);
  /* alpha, tau, beta, delta, sv, sw, st0 */
  const double cases[][7] = {
    { 1.5, 0.2, 0.45, 0.8, 0.6, 0.3, 0.25 },
    { 2.0, 0.1, 0.6, -0.5, 1.2, 0.5, 0.6 },    /* averages cut at y = 0.5 */
    { 1.2, 0.3, 0.5, 1.1, 0.0, 0.0, 0.4 },     /* no variability in the start */
    { 1.2, 0.3, 0.5, 1.1, 0.4, 0.3, 0.0 },     /* none in the non-decision time */
  };
  const double ys[] = { 0.5, 1.4, 3.0 };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    for (guint k = 0; k < G_N_ELEMENTS (ys); k++)
      {
        Wiener7At w = { h, ys[k], cases[c][0], cases[c][1], cases[c][2], cases[c][3],
                        cases[c][4], cases[c][5], cases[c][6], 0, 0, inner };
        double ours = wiener7_density (&w, w.y);
        double theirs = wiener7_by_gsl (&w, outer);
        if (!rt_test_close (ours, theirs, 1e-7))
          g_error ("wiener case %u, y = %g: %.12g, by GSL %.12g", c, w.y, ours, theirs);
        ad_tape_reset (h->cx.tape);
        TildeValue args[8] = { tilde_value_real (w.y), tilde_value_real (w.alpha),
                               tilde_value_real (w.tau), tilde_value_real (w.beta),
                               tilde_value_real (w.delta), tilde_value_real (w.sv),
                               tilde_value_real (w.sw), tilde_value_real (w.st0) };
        /* no derivative in a width held at zero from one side only */
        if (w.sw > 0 && w.st0 > 0 && w.sv > 0)
          check_gradient (h, "wiener_lpdf", 8, args, 1e-6);
      }
  /* the density over time sums to the chance of the upper boundary */
  Wiener7At w = { h, 0, 1.5, 0.2, 0.45, 0.8, 0.6, 0.3, 0.25, 0, 0, inner };
  gsl_function over_time = { wiener7_over_time, &w };
  double total, err, p;
  gsl_integration_qagiu (&over_time, 0.2, 1e-11, 1e-9, 1000, outer, &total, &err);
  gsl_function over_bias = { upper_over_drift_and_bias, &w };
  gsl_integration_qags (&over_bias, w.beta - w.sw / 2, w.beta + w.sw / 2, 1e-13, 1e-11, 1000,
                        outer, &p, &err);
  if (!rt_test_close (total, p, 1e-7))
    g_error ("wiener: the density integrates to %.12g, expected %.12g", total, p);
  TildeValue bad[8] = { tilde_value_real (0.9), tilde_value_real (1.3), tilde_value_real (0.2),
                        tilde_value_real (0.3), tilde_value_real (0.7), tilde_value_real (0.5),
                        tilde_value_real (0.8), tilde_value_real (0.1) };
  TildeValue out;
  g_assert_false (call (h, "wiener_lpdf", FALSE, 8, bad, &out));
  g_assert_cmpstr (h->cx.err_msg, ==, "wiener_lpdf: Inter-trial variability in A-priori bias = "
                   "0.8, but must be smaller than 2*(A-priori bias) = 0.6");
  gsl_integration_workspace_free (inner);
  gsl_integration_workspace_free (outer);
  harness_free (h);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/runtime/library/hmm", test_hmm);
  g_test_add_func ("/runtime/library/sparse", test_sparse);
  g_test_add_func ("/runtime/library/qr", test_qr);
  g_test_add_func ("/runtime/library/svd", test_svd);
  g_test_add_func ("/runtime/library/matrix-exp", test_matrix_exp);
  g_test_add_func ("/runtime/library/generalized-inverse", test_generalized_inverse);
  g_test_add_func ("/runtime/library/eigen-general", test_eigen_general);
  g_test_add_func ("/runtime/library/real-eigen-property", test_real_eigen_property);
  g_test_add_func ("/runtime/library/hypergeometric", test_hypergeometric);
  g_test_add_func ("/runtime/library/lkj-cov", test_lkj_cov);
  g_test_add_func ("/runtime/library/gaussian-dlm", test_gaussian_dlm);
  g_test_add_func ("/runtime/library/beta-neg-binomial-cdf", test_beta_neg_binomial_cdf);
  g_test_add_func ("/runtime/library/wiener", test_wiener);
  g_test_add_func ("/runtime/library/wiener-drift-variability", test_wiener_drift_variability);
  g_test_add_func ("/runtime/library/wiener-full", test_wiener_full);
  return g_test_run ();
}
