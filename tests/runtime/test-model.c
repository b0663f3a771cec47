/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The executable model: output and unconstrained names in Stan's order,
 * constrain and unconstrain as inverses, log densities and gradients of
 * programs with loops, indexing and assignments against finite differences,
 * errors as values, functions the runtime lacks refused at preparation,
 * the example models, and concurrent evaluation from several threads.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <gsl/gsl_rng.h>
#include <malloc.h>
#include <math.h>
#include <string.h>

#include "runtime-test-util.h"
#include "runtime/exec-private.h"
#include "runtime/math/special.h"
#include "mir/mir-print.h"
#include "mir/mir-transform.h"
#include "mir/passes/pipeline.h"

static void
check_gradient_fd (TildeModel *m, const double *theta, gboolean propto, gboolean jacobian)
{
  gsize P = tilde_model_num_params_unconstrained (m);
  g_autofree double *g = g_new (double, P);
  g_autofree double *t = g_memdup2 (theta, sizeof (double) * P);
  double lp, lp2[2];
  g_autoptr (TildeModelError) e = NULL;
  lp = tilde_model_log_density (m, theta, propto, jacobian, g, &e);
  if (e)
    g_error ("log density: %s", e->message);
  g_assert_true (isfinite (lp));
  for (gsize i = 0; i < P; i++)
    {
      double h = 1e-6 * fmax (1, fabs (theta[i]));
      for (int s = 0; s < 2; s++)
        {
          t[i] = theta[i] + (s ? h : -h);
          lp2[s] = tilde_model_log_density (m, t, propto, jacobian, NULL, NULL);
        }
      t[i] = theta[i];
      double fd = (lp2[1] - lp2[0]) / (2 * h);
      if (!rt_test_close (g[i], fd, 1e-6))
        g_error ("gradient[%" G_GSIZE_FORMAT "]: %.12g, finite differences %.12g", i, g[i], fd);
    }
}

/* The constrained values in `json` (freed here), as inits, give theta's
 * n values back to within tol. */
static void
check_inits_give_back (TildeModel *m, GString *json, const double *theta, gsize n, double tol)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeJsonData) inits = tilde_json_data_new_from_string (json->str, -1, &error);
  g_autoptr (TildeModelError) e = NULL;
  g_autofree double *back = g_new (double, n);
  g_string_free (json, TRUE);
  g_assert_no_error (error);
  if (!tilde_model_unconstrain (m, inits, back, &e))
    g_error ("unconstrain: %s", e->message);
  for (gsize i = 0; i < n; i++)
    if (!(fabs (back[i] - theta[i]) <= tol))
      g_error ("unconstrained value %" G_GSIZE_FORMAT ": %.17g, expected %.17g", i, back[i], theta[i]);
}

/* ---- names, constrain, unconstrain ---- */

static const char *names_model =
  "parameters {\n"
  "  real mu;\n"
  "  vector<lower=0>[2] tau;\n"
  "  cholesky_factor_corr[3] L;\n"
  "  array[2] vector[3] z;\n"
  "  matrix[2, 2] M;\n"
  "}\n"
  "transformed parameters {\n"
  "  real s = 2 * mu;\n"
  "}\n"
  "model {\n"
  "  mu ~ normal(0, 1);\n"
  "  tau ~ exponential(1);\n"
  "  L ~ lkj_corr_cholesky(2);\n"
  "  for (i in 1:2) z[i] ~ normal(0, 1);\n"
  "  to_vector(M) ~ normal(0, 1);\n"
  "}\n"
  "generated quantities {\n"
  "  int k = 3;\n"
  "  array[2] real w = {tau[1], tau[2] + 1};\n"
  "}\n";

static void
test_names (void)
{
  g_autoptr (TildeModel) m = rt_test_model (names_model, NULL);
  g_assert_cmpuint (tilde_model_num_params_unconstrained (m), ==, 1 + 2 + 3 + 6 + 4);
  const char *const expected[] = {
    "mu", "tau.1", "tau.2",
    "L.1.1", "L.2.1", "L.3.1", "L.1.2", "L.2.2", "L.3.2", "L.1.3", "L.2.3", "L.3.3",
    "z.1.1", "z.2.1", "z.1.2", "z.2.2", "z.1.3", "z.2.3",
    "M.1.1", "M.2.1", "M.1.2", "M.2.2", "s", "k", "w.1", "w.2", NULL,
  };
  const char *const *names = tilde_model_output_names (m, TRUE, TRUE);
  for (guint i = 0; expected[i]; i++)
    g_assert_cmpstr (names[i], ==, expected[i]);
  g_assert_null (names[G_N_ELEMENTS (expected) - 1]);
  g_assert_cmpuint (tilde_model_num_outputs (m, TRUE, TRUE), ==, G_N_ELEMENTS (expected) - 1);
  g_assert_cmpuint (tilde_model_num_outputs (m, FALSE, FALSE), ==, 22);
  g_assert_cmpstr (tilde_model_output_names (m, FALSE, TRUE)[22], ==, "k");
  const char *const free_expected[] = {
    "mu", "tau.1", "tau.2", "L.1", "L.2", "L.3",
    "z.1.1", "z.1.2", "z.1.3", "z.2.1", "z.2.2", "z.2.3",
    "M.1.1", "M.2.1", "M.1.2", "M.2.2", NULL,
  };
  const char *const *free_names = tilde_model_unconstrained_names (m);
  for (guint i = 0; free_expected[i]; i++)
    g_assert_cmpstr (free_names[i], ==, free_expected[i]);
}

static void
test_constrain_unconstrain (void)
{
  g_autoptr (TildeModel) m = rt_test_model (names_model, NULL);
  double theta[16];
  for (int i = 0; i < 16; i++)
    theta[i] = 0.3 * sin (i + 1.0);
  double out[26];
  g_autoptr (TildeModelError) e = NULL;
  g_assert_true (tilde_model_constrain (m, theta, TRUE, TRUE, NULL, out, &e));
  g_assert_cmpfloat (out[0], ==, theta[0]);
  g_assert_cmpfloat_with_epsilon (out[1], exp (theta[1]), 1e-15);
  g_assert_cmpfloat_with_epsilon (out[3], 1, 1e-15);                 /* L[1,1] */
  g_assert_cmpfloat_with_epsilon (out[4], tanh (theta[3]), 1e-15);   /* L[2,1] */
  g_assert_cmpfloat (out[9], ==, 0);                                  /* L[1,3] */
  g_assert_cmpfloat (out[12], ==, theta[6]);                          /* z[1][1] */
  g_assert_cmpfloat (out[13], ==, theta[9]);                          /* z[2][1] */
  g_assert_cmpfloat (out[14], ==, theta[7]);                          /* z[1][2] */
  g_assert_cmpfloat_with_epsilon (out[22], 2 * theta[0], 1e-15);      /* s */
  g_assert_cmpfloat (out[23], ==, 3);                                 /* k */
  g_assert_cmpfloat_with_epsilon (out[25], exp (theta[2]) + 1, 1e-15);
  /* the constrained values, as inits, give theta back */
  GString *json = g_string_new (NULL);
  g_string_append_printf (json, "{\"mu\": %.17g, \"tau\": [%.17g, %.17g], \"L\": [", out[0], out[1], out[2]);
  for (int r = 0; r < 3; r++)
    g_string_append_printf (json, "%s[%.17g, %.17g, %.17g]", r ? ", " : "", out[3 + r], out[6 + r], out[9 + r]);
  g_string_append_printf (json, "], \"z\": [[%.17g, %.17g, %.17g], [%.17g, %.17g, %.17g]],",
                          out[12], out[14], out[16], out[13], out[15], out[17]);
  g_string_append_printf (json, " \"M\": [[%.17g, %.17g], [%.17g, %.17g]]}", out[18], out[20], out[19], out[21]);
  check_inits_give_back (m, json, theta, 16, 1e-12);
  check_gradient_fd (m, theta, TRUE, TRUE);
  check_gradient_fd (m, theta, FALSE, FALSE);
}

/* ---- programs ---- */

static const char *program_model =
  "data {\n"
  "  int N;\n"
  "  vector[N] x;\n"
  "  array[N] real y;\n"
  "  matrix[N, 2] X;\n"
  "}\n"
  "transformed data {\n"
  "  real xbar = mean(x);\n"
  "  vector[N] xc = x - xbar;\n"
  "}\n"
  "parameters {\n"
  "  real a;\n"
  "  vector[2] b;\n"
  "  real<lower=0> sigma;\n"
  "  ordered[2] cut;\n"
  "  real<lower=cut[1], upper=cut[2]> mid;\n"
  "}\n"
  "transformed parameters {\n"
  "  vector[N] eta;\n"
  "  for (n in 1:N) {\n"
  "    eta[n] = a + X[n] * b;\n"
  "    if (n > 2) eta[n] += 0.1 * eta[n - 1];\n"
  "  }\n"
  "}\n"
  "model {\n"
  "  array[N] real r;\n"
  "  int k = 0;\n"
  "  while (k < N) {\n"
  "    k += 1;\n"
  "    r[k] = k % 2 == 0 ? y[k] - eta[k] : (y[k] - eta[k]) * 1.0;\n"
  "  }\n"
  "  r ~ normal(0, sigma);\n"
  "  target += -0.5 * dot_self(b) + log_sum_exp(cut) + normal_lpdf(xc | mid, 2);\n"
  "  a ~ student_t(4, 0, 2);\n"
  "  sigma ~ gamma(2, 1);\n"
  "  target += sum(square(eta[2:N])) * -1e-3 + log_mix(0.3, normal_lpdf(a | 0, 1), normal_lpdf(a | 1, 2));\n"
  "}\n";

static const char *program_data =
  "{\"N\": 5, \"x\": [0.1, 0.5, -0.3, 1.2, 0.8], \"y\": [1.1, 0.4, -0.2, 2.0, 1.5],"
  " \"X\": [[1, 0.5], [0.2, -1], [0.3, 0.3], [-1, 2], [0.5, 0.1]]}";

static void
test_program_gradient (void)
{
  g_autoptr (TildeModel) m = rt_test_model (program_model, program_data);
  g_assert_cmpuint (tilde_model_num_params_unconstrained (m), ==, 7);
  double theta[7] = { 0.2, -0.4, 0.7, 0.1, -1.0, 0.5, 0.3 };
  check_gradient_fd (m, theta, TRUE, TRUE);
  check_gradient_fd (m, theta, FALSE, TRUE);
  check_gradient_fd (m, theta, TRUE, FALSE);
  /* propto drops a constant: the difference does not depend on theta */
  double a1, a2, b1, b2, theta2[7] = { -0.3, 0.4, 0.1, 0.6, 0.2, -0.5, 1.3 };
  a1 = tilde_model_log_density (m, theta, TRUE, TRUE, NULL, NULL);
  a2 = tilde_model_log_density (m, theta, FALSE, TRUE, NULL, NULL);
  b1 = tilde_model_log_density (m, theta2, TRUE, TRUE, NULL, NULL);
  b2 = tilde_model_log_density (m, theta2, FALSE, TRUE, NULL, NULL);
  g_assert_cmpfloat (fabs (a2 - a1), >, 1);
  g_assert_cmpfloat_with_epsilon (a2 - a1, b2 - b1, 1e-10);
  /* repeated evaluations on a reused tape give identical results */
  double g1[7], g2[7], l1, l2;
  l1 = tilde_model_log_density (m, theta, TRUE, TRUE, g1, NULL);
  for (int i = 0; i < 50; i++)
    l2 = tilde_model_log_density (m, theta2, TRUE, TRUE, g2, NULL);
  l2 = tilde_model_log_density (m, theta, TRUE, TRUE, g2, NULL);
  g_assert_cmpfloat (l1, ==, l2);
  g_assert_cmpmem (g1, sizeof g1, g2, sizeof g2);
}

/* In steady state an evaluation allocates nothing: the heap in use stays
 * the same from one evaluation to the next. */
static void
test_no_allocation (void)
{
  g_autoptr (TildeModel) m = rt_test_model (program_model, program_data);
  double theta[7] = { 0.2, -0.4, 0.7, 0.1, -1.0, 0.5, 0.3 }, g[7];
  for (int i = 0; i < 20; i++)
    tilde_model_log_density (m, theta, TRUE, TRUE, g, NULL);
  struct mallinfo2 before = mallinfo2 ();
  for (int i = 0; i < 500; i++)
    {
      theta[0] = 0.001 * i;
      tilde_model_log_density (m, theta, TRUE, TRUE, g, NULL);
    }
  struct mallinfo2 after = mallinfo2 ();
  g_assert_cmpuint (after.uordblks, ==, before.uordblks);
  g_assert_cmpuint (after.hblkhd, ==, before.hblkhd);
}

/* A node that reads a local variable's values in the reverse sweep sees
 * them as they were, even when the variable changes afterwards. */
static void
test_variables_changed_after_use (void)
{
  g_autoptr (TildeModel) m = rt_test_model (
    "data { int N; vector[N] x; matrix[N, 2] X; }\n"
    "parameters { real a; vector[2] b; }\n"
    "model {\n"
    "  vector[N] w = x;\n"
    "  matrix[N, 2] Z = X;\n"
    "  target += sum(a * w) + dot_product(w, Z * b);\n"
    "  w[1] = 100;\n"
    "  Z[2, 2] = -50;\n"
    "  target += -0.5 * a^2 - 0.5 * dot_self(b);\n"
    "}\n", "{\"N\": 3, \"x\": [1, 2, 3], \"X\": [[1, 0], [0, 1], [1, 1]]}");
  double theta[3] = { 0.5, 0.25, -1 }, g[3];
  tilde_model_log_density (m, theta, TRUE, TRUE, g, NULL);
  /* d/da = sum (x) - a; d/db = X^T x - b */
  g_assert_cmpfloat_with_epsilon (g[0], 6 - 0.5, 1e-14);
  g_assert_cmpfloat_with_epsilon (g[1], 4 - 0.25, 1e-14);
  g_assert_cmpfloat_with_epsilon (g[2], 5 + 1, 1e-14);
  check_gradient_fd (m, theta, TRUE, TRUE);
}

/* x[idx] of vectors, row vectors and arrays: the elements in the order
 * idx names them, repeats included; an index out of range names itself. */
static void
test_multi_index (void)
{
  const char *source =
    "data { array[4] int idx; array[3] int k; array[3] real a; row_vector[3] r; int bad; }\n"
    "parameters { vector[3] v; }\n"
    "model {\n"
    "  array[2] int wrong = {1, bad};\n"
    "  target += sum(v[idx]) + sum(r[idx]) + sum(a[idx]) + sum(k[idx]);\n"
    "  target += num_elements(r[idx]) * 1000 + sum(v[wrong]);\n"
    "}\n";
  g_autoptr (TildeModel) m = rt_test_model (source, "{\"idx\": [3, 1, 3, 2], \"k\": [10, 20, 30], "
                                            "\"a\": [0.5, 0.25, 0.125], \"r\": [1, 2, 4], "
                                            "\"bad\": 2}");
  double theta[3] = { 0.1, 0.2, 0.3 }, g[3];
  g_autoptr (TildeModelError) e = NULL;
  double lp = tilde_model_log_density (m, theta, FALSE, TRUE, g, &e);
  g_assert_null (e);
  /* v3 + v1 + v3 + v2, 4 + 1 + 4 + 2, .125 + .5 + .125 + .25, 30 + 10 + 30 + 20, 4000, v1 + v2 */
  g_assert_cmpfloat_with_epsilon (lp, 0.9 + 11 + 1 + 90 + 4000 + 0.3, 1e-12);
  g_assert_cmpfloat (g[0], ==, 2);
  g_assert_cmpfloat (g[1], ==, 2);
  g_assert_cmpfloat (g[2], ==, 2);
  g_autoptr (TildeModel) m2 = rt_test_model (source, "{\"idx\": [3, 1, 3, 2], \"k\": [10, 20, 30], "
                                             "\"a\": [0.5, 0.25, 0.125], \"r\": [1, 2, 4], "
                                             "\"bad\": 4}");
  lp = tilde_model_log_density (m2, theta, FALSE, TRUE, g, &e);
  g_assert_true (isnan (lp));
  g_assert_cmpint (e->kind, ==, TILDE_MODEL_ERROR_INDEX);
  g_assert_cmpstr (e->message, ==, "index 4 out of range; expecting index to be between 1 and 3");
}

/* A declaration with a value checks the value's size against the declared
 * one, whichever form the statement is compiled to. */
static void
test_declared_sizes (void)
{
  static const struct { const char *decl; const char *message; } cases[] = {
    { "vector[n] v = mu * x;",
      "assign: size of left-hand side v (2 x 1) and size of right-hand side (3 x 1) must match" },
    { "row_vector[n] r = mu * x';",
      "assign: size of left-hand side r (1 x 2) and size of right-hand side (1 x 3) must match" },
    { "matrix[n, n] L = cholesky_decompose(add_diag(rep_matrix(mu, 3, 3), 1));\n"
      "  x ~ multi_normal_cholesky(rep_vector(0, 3), L);",
      "assign: size of left-hand side L (2 x 2) and size of right-hand side (3 x 3) must match" },
    { "vector[m] v = mu * x;", "Found negative dimension size in variable declaration; "
      "variable=v; dimension size expression=m; expression value=-1" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *source = g_strdup_printf (
        "data { int n; int m; vector[3] x; }\n"
        "parameters { real mu; }\n"
        "model {\n"
        "  %s\n"
        "}\n", cases[i].decl);
      g_autoptr (TildeModel) m = rt_test_model (source, "{\"n\": 2, \"m\": -1, \"x\": [1, 2, 3]}");
      double theta[1] = { 0.5 }, g[1];
      g_autoptr (TildeModelError) e = NULL;
      g_assert_true (isnan (tilde_model_log_density (m, theta, TRUE, TRUE, g, &e)));
      g_assert_cmpint (e->kind, ==, TILDE_MODEL_ERROR_INDEX);
      g_assert_cmpstr (e->message, ==, cases[i].message);
    }
}

/* Data-only terms are computed once, but a ~ statement of data alone still
 * follows the evaluation's propto. */
static void
test_data_only_terms (void)
{
  g_autoptr (TildeModel) m = rt_test_model (
    "data { real y; }\n"
    "parameters { real mu; }\n"
    "model {\n"
    "  y ~ normal(0, 2);\n"
    "  target += normal_lpdf(y | 0, 2) + student_t_lccdf(0 | 3, 0, 10);\n"
    "  mu ~ normal(0, 1);\n"
    "}\n", "{\"y\": 1.5}");
  double theta[1] = { 0.5 };
  double t = -log (2) - log (sqrt (2 * M_PI)) - 0.5 * 0.5625;
  double lp = tilde_model_log_density (m, theta, TRUE, TRUE, NULL, NULL);
  g_assert_cmpfloat_with_epsilon (lp, t + log (0.5) - 0.125, 1e-14);
  lp = tilde_model_log_density (m, theta, FALSE, TRUE, NULL, NULL);
  g_assert_cmpfloat_with_epsilon (lp, 2 * t + log (0.5) - 0.125 - log (sqrt (2 * M_PI)), 1e-14);
}

/* ---- errors ---- */

static void
test_errors_are_values (void)
{
  g_autoptr (TildeModel) m = rt_test_model (
    "data { int N; array[N] real y; }\n"
    "parameters { real mu; }\n"
    "model {\n"
    "  if (mu > 5) reject(\"mu too large: \", mu);\n"
    "  if (mu < -5) target += y[N + 1];\n"
    "  y ~ normal(0, mu);\n"
    "}\n", "{\"N\": 2, \"y\": [0.5, 1]}");
  double lp, g[1], theta[1] = { -1 };
  g_autoptr (TildeModelError) e = NULL;
  lp = tilde_model_log_density (m, theta, TRUE, TRUE, g, &e);
  g_assert_true (isnan (lp));
  g_assert_cmpint (e->kind, ==, TILDE_MODEL_ERROR_DOMAIN);
  g_assert_cmpstr (e->message, ==, "normal_lpdf: Scale parameter is -1, but must be positive!");
  /* where, as stanc's C++ says it and for an editor */
  g_assert_cmpstr (e->where, ==, " (in 'model.stan', line 6, column 2 to column 20)");
  g_assert_cmpuint (e->n_places, ==, 1);
  g_assert_cmpstr (e->file, ==, "model.stan");
  g_assert_cmpint (e->begin_line, ==, 6);
  g_assert_cmpint (e->begin_column, ==, 2);
  g_assert_cmpint (e->end_line, ==, 6);
  g_assert_cmpint (e->end_column, ==, 20);
  {
    g_autofree char *described = tilde_model_error_describe (e);
    g_assert_cmpstr (described, ==, "Exception: normal_lpdf: Scale parameter is -1, but must be "
                     "positive! (in 'model.stan', line 6, column 2 to column 20)");
  }
  g_clear_pointer (&e, tilde_model_error_free);
  theta[0] = 6;
  lp = tilde_model_log_density (m, theta, TRUE, TRUE, g, &e);
  g_assert_true (isnan (lp));
  g_assert_cmpint (e->kind, ==, TILDE_MODEL_ERROR_REJECT);
  g_assert_cmpstr (e->message, ==, "mu too large: 6");
  g_assert_cmpstr (e->where, ==, " (in 'model.stan', line 4, column 14 to column 43)");
  g_clear_pointer (&e, tilde_model_error_free);
  theta[0] = -6;
  lp = tilde_model_log_density (m, theta, TRUE, TRUE, g, &e);
  g_assert_true (isnan (lp));
  g_assert_cmpint (e->kind, ==, TILDE_MODEL_ERROR_INDEX);
  g_assert_cmpstr (e->message, ==, "index 3 out of range; expecting index to be between 1 and 2");
  g_assert_cmpstr (e->where, ==, " (in 'model.stan', line 5, column 15 to column 34)");
  g_clear_pointer (&e, tilde_model_error_free);
  /* and the model still works */
  theta[0] = 2;
  lp = tilde_model_log_density (m, theta, TRUE, TRUE, g, &e);
  g_assert_null (e);
  g_assert_cmpfloat_with_epsilon (lp, -2 * log (2) - 0.5 * (0.25 + 1) / 4, 1e-14);
}

/* An error inside user functions names the statement that raised it and
 * every call that led there, innermost first, as stanc's C++ rethrows it
 * ("Exception: " once a place); the vectorised density that calls a
 * function, whose fused form gives way, leaves the evaluation as it found
 * it. An error in transformed data is a diagnostic at its statement. */
static void
test_error_places (void)
{
  g_autoptr (TildeModel) m = rt_test_model (
    "functions {\n"
    "  real g(real x) {\n"
    "    if (x > 0)\n"
    "      reject(\"g: x is \", x);\n"
    "    return x;\n"
    "  }\n"
    "  real f(real x) {\n"
    "    return g(x) + 1;\n"
    "  }\n"
    "}\n"
    "data { vector[3] y; }\n"
    "parameters { real mu; }\n"
    "model {\n"
    "  target += f(mu);\n"
    "  y ~ normal(f(mu + 2), 1);\n"
    "}\n", "{\"y\": [0.5, 1, 1.5]}");
  double g[1], theta[1] = { 0.5 };
  g_autoptr (TildeModelError) e = NULL;
  tilde_model_log_density (m, theta, TRUE, TRUE, g, &e);
  g_assert_nonnull (e);
  g_assert_cmpstr (e->message, ==, "g: x is 0.5");
  g_assert_cmpuint (e->n_places, ==, 3);
  g_assert_cmpint (e->begin_line, ==, 4);
  g_assert_cmpint (e->begin_column, ==, 6);
  g_autofree char *described = tilde_model_error_describe (e);
  g_assert_cmpstr (described, ==, "Exception: Exception: Exception: g: x is 0.5 "
                   "(in 'model.stan', line 4, column 6 to column 28) "
                   "(in 'model.stan', line 8, column 4 to column 20) "
                   "(in 'model.stan', line 14, column 2 to column 18)");
  g_clear_pointer (&e, tilde_model_error_free);
  /* through the density's arguments */
  theta[0] = -1;
  tilde_model_log_density (m, theta, TRUE, TRUE, g, &e);
  g_assert_nonnull (e);
  g_assert_cmpstr (e->message, ==, "g: x is 1");
  g_assert_cmpstr (e->where, ==, " (in 'model.stan', line 4, column 6 to column 28) "
                   "(in 'model.stan', line 8, column 4 to column 20) "
                   "(in 'model.stan', line 15, column 2 to column 27)");
  g_clear_pointer (&e, tilde_model_error_free);
  /* and nothing of the calls is left behind */
  theta[0] = -3;
  double lp = tilde_model_log_density (m, theta, FALSE, TRUE, g, &e);
  g_assert_null (e);
  double expected = -3 + 1;
  for (int i = 0; i < 3; i++)
    expected += -0.5 * log (2 * G_PI) - 0.5 * pow (0.5 * (i + 1) - (-1 + 1), 2);
  g_assert_cmpfloat_with_epsilon (lp, expected, 1e-12);

  g_autoptr (GPtrArray) diags = rt_test_prepare_errors (
    "data { int N; }\n"
    "transformed data {\n"
    "  vector[N] v = rep_vector(1, N);\n"
    "  real s = v[N + 1];\n"
    "}\n"
    "parameters { real mu; }\n"
    "model { mu ~ normal(0, 1); }\n", "{\"N\": 3}");
  g_assert_cmpuint (diags->len, ==, 1);
  const TildeDiagnostic *d = g_ptr_array_index (diags, 0);
  g_assert_cmpstr (d->message, ==, "index 4 out of range; expecting index to be between 1 and 3");
  g_assert_cmpint (d->begin_line, ==, 4);
  g_assert_cmpint (d->begin_column, ==, 2);
  g_assert_cmpint (d->end_column, ==, 20);
}

static void
expect_preparation_error (const char *model, const char *fragment)
{
  g_autoptr (GPtrArray) diags = rt_test_prepare_errors (model, NULL);
  g_assert_cmpuint (diags->len, ==, 1);
  const TildeDiagnostic *d = g_ptr_array_index (diags, 0);
  g_assert_cmpint (d->kind, ==, TILDE_DIAG_RUNTIME);
  if (!strstr (d->message, fragment))
    g_error ("message \"%s\" lacks \"%s\"", d->message, fragment);
}

/* A cholesky_factor_cov sized by data: its rows-at-least-columns check runs
 * (a model with one could not be prepared before), a square factor has its
 * density, and one with fewer rows than columns is refused by name. */
static void
test_cholesky_factor_cov_sizes (void)
{
  static const char *const model =
    "data { int K; int M; }\n"
    "parameters { cholesky_factor_cov[M, K] L; }\n"
    "model { to_vector(L) ~ std_normal(); }\n";
  g_autoptr (TildeModel) m = rt_test_model (model, "{\"K\": 2, \"M\": 3}");
  /* 3 x 2: a positive diagonal of 2 (log-transformed) and 3 other entries */
  double theta[5] = { 0.1, -0.3, 0.2, 0.5, -0.4 }, g[5];
  TildeModelError *e = NULL;
  double lp = tilde_model_log_density (m, theta, FALSE, FALSE, g, &e);

  g_assert_null (e);
  g_assert_true (isfinite (lp));

  g_autoptr (GPtrArray) diags = rt_test_prepare_errors (model, "{\"K\": 3, \"M\": 2}");
  g_assert_cmpuint (diags->len, ==, 1);
  const TildeDiagnostic *d = g_ptr_array_index (diags, 0);
  g_assert_nonnull (strstr (d->message, "cholesky_factor_cov L num rows (must be greater or "
                                        "equal to num cols) is 2, but must be greater than or "
                                        "equal to 3"));
}

/* Int-valued functions over arrays: to_int of reals at two depths, choose
 * and the factorials of ints elementwise with a scalar broadcast. */
static void
test_int_functions_over_arrays (void)
{
  static const char *const model =
    "transformed data {\n"
    "  array[3] real r = {1.7, -2.2, 3.0};\n"
    "  array[2, 3] real r2 = {{1.5, 2.5, 3.5}, {-1.0, 0.0, 9.9}};\n"
    "  array[3] int a = to_int(r);\n"
    "  array[2, 3] int a2 = to_int(r2);\n"
    "  array[2] int c = choose({5, 6}, 2);\n"
    "  array[3] int c2 = choose(7, {1, 2, 3});\n"
    "  array[2, 2] int c3 = choose({{4, 5}, {6, 7}}, {{2, 2}, {3, 3}});\n"
    "  array[2] int f = falling_factorial({5, 6}, 2);\n"
    "  array[2] int g = rising_factorial(3, {1, 2});\n"
    "}\n"
    "parameters { real x; }\n"
    "model {\n"
    "  target += sum(a) + 10 * sum(a2[1]) + 100 * sum(a2[2]) + 1000 * sum(c) + 10000 * sum(c2);\n"
    "  target += 1e5 * (c3[1, 1] + c3[1, 2] + c3[2, 1] + c3[2, 2]) + 1e6 * sum(f) + 1e7 * sum(g);\n"
    "}\n";
  g_autoptr (TildeModel) m = rt_test_model (model, NULL);
  double theta = 0, g;
  TildeModelError *e = NULL;
  double lp = tilde_model_log_density (m, &theta, FALSE, FALSE, &g, &e);

  g_assert_null (e);
  /* a: 1 - 2 + 3; a2: 6 and 8; c: 10 + 15; c2: 7 + 21 + 35; c3: 6 + 10 + 20 + 35;
   * f: 20 + 30; g: 3 + 12 */
  g_assert_cmpfloat (lp, ==, 2 + 60 + 800 + 25000 + 630000 + 7100000 + 50000000 + 150000000);
}

/* _rng calls in transformed data draw from the runtime's own generator
 * when none is given (the same data every time), or from the one given. */
static void
test_transformed_data_rng (void)
{
  static const char *const model =
    "transformed data { real z = normal_rng(0, 1); }\n"
    "parameters { real mu; }\n"
    "model { target += z; }\n";
  g_autoptr (TildeModel) a = rt_test_model (model, NULL);
  g_autoptr (TildeModel) b = rt_test_model (model, NULL);
  g_autoptr (MirProgram) mir = rt_test_mir_from_string (model);
  g_autoptr (GPtrArray) diags = tilde_diagnostic_list_new ();
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  double theta = 0, g, za, zb, zc;
  TildeModelError *e = NULL;

  gsl_rng_set (rng, 12345);
  g_autoptr (TildeModel) c = tilde_model_new_with_rng (mir, NULL, rng, NULL, NULL, diags);
  gsl_rng_free (rng);
  g_assert_nonnull (c);
  za = tilde_model_log_density (a, &theta, FALSE, FALSE, &g, &e);
  g_assert_null (e);
  zb = tilde_model_log_density (b, &theta, FALSE, FALSE, &g, &e);
  g_assert_null (e);
  zc = tilde_model_log_density (c, &theta, FALSE, FALSE, &g, &e);
  g_assert_null (e);
  g_assert_true (isfinite (za) && za != 0);
  g_assert_cmpfloat (za, ==, zb);
  g_assert_cmpfloat (za, !=, zc);
}

/* Recursion that would overflow the thread's stack ends in an error
 * instead: a function that calls reduce_sum on the whole of its own slice
 * never ends, and its frames are large; an ordinary recursion 1000 deep
 * still runs. */
static void
test_recursion_bounded_by_stack (void)
{
  static const char *const endless =
    "functions {\n"
    "  real g(array[] real y_slice, int start, int end) {\n"
    "    if (size(y_slice) > 1) return reduce_sum(g, y_slice, 1);\n"
    "    return normal_lpdf(y_slice | 0, 1);\n"
    "  }\n"
    "}\n"
    "parameters { array[10] real y; }\n"
    "model { target += reduce_sum(g, y, 1); }\n";
  static const char *const deep =
    "functions {\n"
    "  real rsum(int n) { if (n == 0) return 0; return n + rsum(n - 1); }\n"
    "}\n"
    "parameters { real x; }\n"
    "model { target += rsum(1000); }\n";
  g_autoptr (TildeModel) m = rt_test_model (endless, NULL);
  g_autoptr (TildeModel) d = rt_test_model (deep, NULL);
  double theta[10] = { 0 }, g[10];
  TildeModelError *e = NULL;

  tilde_model_log_density (m, theta, FALSE, FALSE, g, &e);
  g_assert_nonnull (e);
  g_assert_nonnull (strstr (e->message, "g: function calls nested"));
  g_assert_nonnull (strstr (e->message, "fill the thread's stack"));
  g_clear_pointer (&e, tilde_model_error_free);
  g_assert_cmpfloat (tilde_model_log_density (d, theta, FALSE, FALSE, g, &e), ==, 500500);
  g_assert_null (e);
}

/* Bounds given as containers of the variable's shape: the values lie within
 * them (the shape check of the lowering runs), and a bound of another shape
 * is an error. */
static void
test_container_bounds (void)
{
  static const char *const model =
    "data { int K; vector[K] lb; array[K] real ub; }\n"
    "parameters { vector<lower=lb, upper=to_vector(ub)>[K] x; array[K] real<lower=ub> y; }\n"
    "model { }\n"
    "generated quantities {\n"
    "  int inside = 1;\n"
    "  for (k in 1:K) inside *= x[k] > lb[k] && x[k] < ub[k] && y[k] > ub[k];\n"
    "}\n";
  static const char *const data = "{\"K\": 3, \"lb\": [0, 1, 2], \"ub\": [0.5, 3, 2.5]}";
  g_autoptr (TildeModel) m = rt_test_model (model, data);
  double theta[6] = { -1, 0.3, 2, -4, 0, 1.5 }, g[6];
  TildeModelError *e = NULL;
  double lp = tilde_model_log_density (m, theta, FALSE, TRUE, g, &e);

  g_assert_null (e);
  g_assert_true (isfinite (lp));

  static const char *const mismatched =
    "data { int K; vector[K] lb; }\n"
    "parameters { vector<lower=lb[1:2]>[K] x; }\n"
    "model { }\n";
  g_autoptr (TildeModel) bad = rt_test_model (mismatched, "{\"K\": 3, \"lb\": [0, 1, 2]}");
  tilde_model_log_density (bad, theta, FALSE, TRUE, g, &e);
  g_assert_nonnull (e);
  /* the transform meets the mismatch first, before the shape check */
  g_assert_nonnull (strstr (e->message, "size mismatch"));
  g_clear_pointer (&e, tilde_model_error_free);
}

static void
test_unsupported_at_preparation (void)
{
  static const char *const external =
    "functions {\n"
    "  @extern real ext(real x);\n"
    "}\n";
  g_autofree char *direct = g_strconcat (external, "parameters { real x; }\n"
                                         "model { target += ext(x); }\n", NULL);
  g_autofree char *in_branch = g_strconcat (external, "parameters { real x; }\n"
                                            "model { x ~ normal(0, 1);\n"
                                            "  if (x > 100) target += ext(x); }\n", NULL);

  expect_preparation_error (direct, "the function ext is declared without a definition");
  /* even in a branch that would rarely run */
  expect_preparation_error (in_branch, "the function ext");
}

/* User functions overloaded with as many arguments each: the call runs the
 * overload the type checker chose, an argument promoted where it chose so,
 * at every optimisation level. */
static void
test_overloads_of_equal_arity (void)
{
  static const char *const model =
    "functions {\n"
    "  real f(real x) { return 2 * x; }\n"
    "  real f(vector x) { return sum(x); }\n"
    "  real f(int n) { return 100 * n; }\n"
    "  real f(array[] real x) { return 10 * x[1]; }\n"
    "}\n"
    "parameters { real x; }\n"
    "model { target += f(x) + f([1, 2]') + f(3) + f({x}) + f(2.5); }\n";
  const MirOptLevel levels[] = { MIR_OPT_O0, MIR_OPT_O1, MIR_OPT_EXPERIMENTAL };

  for (guint k = 0; k < G_N_ELEMENTS (levels); k++)
    {
      g_autoptr (TildeModel) m = rt_test_model_at (model, NULL, levels[k]);
      double theta = 0.5, g;
      TildeModelError *e = NULL;
      double lp = tilde_model_log_density (m, &theta, TRUE, TRUE, &g, &e);

      g_assert_null (e);
      /* 2 x + 3 + 300 + 10 x + 5 */
      g_assert_cmpfloat_with_epsilon (lp, 12 * 0.5 + 308, 1e-12);
      g_assert_cmpfloat_with_epsilon (g, 12, 1e-12);
    }
}

/* Overloads passed by name to a higher-order function: the argument
 * carries the type of the overload the type checker chose. */
static void
test_overloads_passed_to_hofs (void)
{
  static const char *const model =
    "functions {\n"
    "  real part(array[] real s, int a, int b, real mu) { return -0.5 * dot_self(to_vector(s) - mu); }\n"
    "  real part(array[] int s, int a, int b, real mu) { return 1000 * mu * sum(s); }\n"
    "  vector rhs(real t, vector y, real k) { return -k * y; }\n"
    "  vector rhs(real t, vector y, vector k) { return -k .* y; }\n"
    "}\n"
    "parameters { real mu; real<lower=0> k; }\n"
    "model {\n"
    "  target += reduce_sum(part, {0.5, 1.5}, 1, mu) + reduce_sum(part, {1, 2}, 1, mu);\n"
    "  target += ode_rk45_tol(rhs, [1.0]', 0, {2.0}, 1e-10, 1e-10, 100000, k)[1][1]\n"
    "            + ode_rk45_tol(rhs, [1.0, 1.0]', 0, {1.0}, 1e-10, 1e-10, 100000, [k, 2 * k]')[1][2];\n"
    "}\n";
  g_autoptr (TildeModel) m = rt_test_model (model, NULL);
  double theta[2] = { 0.25, log (0.5) }, mu = 0.25, k = 0.5;
  TildeModelError *e = NULL;
  double lp = tilde_model_log_density (m, theta, TRUE, FALSE, NULL, &e);

  g_assert_null (e);
  /* the normal part, 3000 mu from the int one, exp (-2 k) and exp (-2 k) */
  double want = -0.5 * ((0.5 - mu) * (0.5 - mu) + (1.5 - mu) * (1.5 - mu)) + 3000 * mu
    + 2 * exp (-2 * k);
  g_assert_true (rt_test_close (lp, want, 1e-7));
  check_gradient_fd (m, theta, TRUE, TRUE);
}

/* Functions of the functions block: recursion, void functions that add to
 * the target, user densities whose constants follow the way they are
 * called. */
static const char *functions_model =
  "functions {\n"
  "  real twice(real x) { return 2 * x; }\n"
  "  real my_normal_lpdf(real y, real mu, real s) { return normal_lupdf(y | mu, s); }\n"
  "  void add_lp(real x) { target += -0.5 * x * x; }\n"
  "  vector scale(vector v, real a) {\n"
  "    vector[rows(v)] r;\n"
  "    for (i in 1:rows(v)) r[i] = a * v[i];\n"
  "    return r;\n"
  "  }\n"
  "  int fact(int n) { if (n <= 1) return 1; return n * fact(n - 1); }\n"
  "}\n"
  "parameters { real mu; vector[2] z; }\n"
  "model {\n"
  "  mu ~ my_normal(0, twice(1));\n"
  "  add_lp(mu);\n"
  "  target += sum(scale(z, fact(3)));\n"
  "  target += my_normal_lpdf(z[1] | 0, 1);\n"
  "}\n";

static void
test_functions (void)
{
  g_autoptr (TildeModel) m = rt_test_model (functions_model, NULL);
  double theta[3] = { 0.3, -0.5, 0.25 };
  double lp = tilde_model_log_density (m, theta, TRUE, TRUE, NULL, NULL);
  /* ~ my_normal drops the constants of the normal inside it; the explicit
   * my_normal_lpdf keeps them */
  double expected = -0.5 * 0.0225 - 0.5 * 0.09 + 6 * (-0.25)
                    - 0.5 * 0.25 - log (sqrt (2 * M_PI));
  g_assert_cmpfloat_with_epsilon (lp, expected, 1e-14);
  lp = tilde_model_log_density (m, theta, FALSE, TRUE, NULL, NULL);
  g_assert_cmpfloat_with_epsilon (lp, expected - log (2) - log (sqrt (2 * M_PI)), 1e-14);
  check_gradient_fd (m, theta, TRUE, TRUE);
}

/* ---- the examples ---- */

static void
test_example (gconstpointer data)
{
  const char *name = data;
  const char *dir = g_getenv ("TILDE_EXAMPLES_DIR");
  g_autofree char *stan = g_build_filename (dir ? dir : "data/examples", name, NULL);
  g_autofree char *base = g_strndup (stan, strlen (stan) - 5);
  g_autofree char *json = g_strconcat (base, ".data.json", NULL);
  g_autoptr (MirProgram) prog = rt_test_mir_from_file (stan);
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeJsonData) d = tilde_json_data_new_from_file (json, &error);
  g_assert_no_error (error);
  g_autoptr (GPtrArray) diags = tilde_diagnostic_list_new ();
  g_autoptr (TildeModel) m = tilde_model_new (prog, d, diags);
  g_assert_nonnull (m);
  gsize P = tilde_model_num_params_unconstrained (m);
  g_autofree double *theta = g_new (double, P);
  for (gsize i = 0; i < P; i++)
    theta[i] = 0.2 * cos (1.7 * i) - 0.1;
  check_gradient_fd (m, theta, TRUE, TRUE);
  check_gradient_fd (m, theta, FALSE, FALSE);
  gsize n = tilde_model_num_outputs (m, TRUE, TRUE);
  const char *const *names = tilde_model_output_names (m, TRUE, TRUE);
  g_assert_cmpuint (g_strv_length ((char **) names), ==, n);
  g_autofree double *out = g_new (double, n);
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  gsl_rng_set (rng, 42);
  g_autoptr (TildeModelError) e = NULL;
  if (!tilde_model_constrain (m, theta, TRUE, TRUE, rng, out, &e))
    g_error ("%s: %s", name, e->message);
  gsl_rng_free (rng);
  for (gsize i = 0; i < n; i++)
    {
      g_assert_true (isfinite (out[i]));
      if (g_str_has_prefix (names[i], "y_rep."))
        g_assert_true (out[i] == 0 || out[i] == 1);
    }
  if (g_str_equal (name, "poisson_glm.stan"))
    {
      /* rate_ratio = exp (beta) */
      g_assert_cmpstr (names[P], ==, "rate_ratio.1");
      g_assert_cmpfloat_with_epsilon (out[P], exp (out[1]), 1e-14);
    }
  if (g_str_equal (name, "eight_schools.stan"))
    {
      g_assert_cmpstr (names[P], ==, "theta.1");
      g_assert_cmpfloat_with_epsilon (out[P], out[0] + out[1] * out[2], 1e-14);
    }
}

/* The library's distributions as a model uses them: vectorised
 * statements, truncation, distribution functions, constrained matrix
 * parameters, and draws in generated quantities. */
static const char *library_model =
  "data { int N; vector[N] y; array[N] int k; array[N] int cat; }\n"
  "parameters {\n"
  "  real mu; real<lower=0> s; real<lower=0> nu; ordered[3] c; simplex[4] th;\n"
  "  cov_matrix[2] Sig; corr_matrix[3] R; vector[2] z;\n"
  "}\n"
  "model {\n"
  "  y ~ gumbel(mu, s);\n"
  "  y ~ logistic(mu, s) T[-10, 10];\n"
  "  y ~ student_t(nu, mu, s);\n"
  "  y ~ skew_normal(mu, s, nu);\n"
  "  target += normal_lcdf(0.5 | mu, s) + gamma_lccdf(1.5 | nu, s) + beta_cdf(0.3 | nu, s);\n"
  "  target += student_t_lccdf(y | nu, mu, s);\n"
  "  k ~ neg_binomial(nu, s);\n"
  "  k ~ beta_binomial(10, nu, s);\n"
  "  cat ~ categorical(th);\n"
  "  cat ~ ordered_logistic(rep_vector(mu, N), c);\n"
  "  z ~ multi_normal(rep_vector(0, 2), Sig);\n"
  "  z ~ multi_student_t(nu, rep_vector(0, 2), Sig);\n"
  "  Sig ~ inv_wishart(4, identity_matrix(2));\n"
  "  Sig ~ wishart(4, identity_matrix(2));\n"
  "  R ~ lkj_corr(2);\n"
  "  th ~ dirichlet(rep_vector(2, 4));\n"
  "  nu ~ chi_square(3);\n"
  "  s ~ weibull(2, 1);\n"
  "}\n"
  "generated quantities {\n"
  "  real g1 = gumbel_rng(mu, s);\n"
  "  array[N] real g2 = skew_normal_rng(y, s, 2);\n"
  "  int g3 = categorical_rng(th);\n"
  "  vector[2] g4 = multi_normal_rng(z, Sig);\n"
  "  matrix[3, 3] g5 = lkj_corr_rng(3, 2);\n"
  "  matrix[2, 2] g6 = wishart_rng(4, Sig);\n"
  "  array[4] int g7 = multinomial_rng(th, 20);\n"
  "  int g8 = ordered_probit_rng(mu, c);\n"
  "}\n";

static void
test_library (void)
{
  g_autoptr (TildeModel) m = rt_test_model (library_model,
                                            "{\"N\": 3, \"y\": [0.3, -1.2, 2.5], \"k\": [0, 3, 7], "
                                            "\"cat\": [1, 3, 4]}");
  gsize P = tilde_model_num_params_unconstrained (m);
  g_assert_cmpuint (P, ==, 1 + 1 + 1 + 3 + 3 + 3 + 3 + 2);
  g_autofree double *theta = g_new (double, P);
  for (gsize i = 0; i < P; i++)
    theta[i] = 0.3 * sin (1.3 * i + 0.4);
  check_gradient_fd (m, theta, TRUE, TRUE);
  check_gradient_fd (m, theta, FALSE, TRUE);
  gsize n = tilde_model_num_outputs (m, TRUE, TRUE);
  g_autofree double *out = g_new (double, n);
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  gsl_rng_set (rng, 7);
  g_autoptr (TildeModelError) e = NULL;
  if (!tilde_model_constrain (m, theta, TRUE, TRUE, rng, out, &e))
    g_error ("library model: %s", e->message);
  gsl_rng_free (rng);
  const char *const *names = tilde_model_output_names (m, TRUE, TRUE);
  int total = 0;
  for (gsize i = 0; i < n; i++)
    {
      g_assert_true (isfinite (out[i]));
      if (g_str_has_prefix (names[i], "g7."))
        total += (int) out[i];
      if (g_str_equal (names[i], "g5.2.2"))
        g_assert_cmpfloat_with_epsilon (out[i], 1, 1e-12);
    }
  g_assert_cmpint (total, ==, 20);
}

/* Container and matrix functions in generated quantities: tuples from
 * eigendecompose_sym, sorting, reshaping, solves and determinants agree
 * with each other. */
static const char *gq_model =
  "data { int N; vector[N] x; }\n"
  "parameters { real mu; real<lower=0> sigma; }\n"
  "model {\n"
  "  x ~ skew_double_exponential(mu, sigma, 0.4);\n"
  "  mu ~ logistic(0, 2);\n"
  "  sigma ~ loglogistic(1, 3);\n"
  "}\n"
  "generated quantities {\n"
  "  matrix[3, 3] S = add_diag(gp_matern32_cov({1.0, 2.0, 3.5}, sigma, 1.0), 0.1);\n"
  "  tuple(matrix[3, 3], vector[3]) ev = eigendecompose_sym(S);\n"
  "  vector[N] sx = sort_desc(x);\n"
  "  array[N] int idx = sort_indices_asc(x);\n"
  "  array[3, 3] real a2 = to_array_2d(S);\n"
  "  array[2] int d = dims(S);\n"
  "  real ld = log_determinant(S);\n"
  "  real ld_eig = sum(log(ev.2));\n"
  "  vector[3] sol = mdivide_left(S, [1, 2, 3]');\n"
  "  vector[3] back = S * sol;\n"
  "  row_vector[3] solr = [1, 2, 3] / S;\n"
  "  int dr = discrete_range_rng(1, 6);\n"
  "  array[3] int dm = dirichlet_multinomial_rng([1, 2, 3]', 10);\n"
  "  real q = quantile(x, 0.5);\n"
  "}\n";

static void
test_gq_functions (void)
{
  g_autoptr (TildeModel) m = rt_test_model (gq_model, "{\"N\": 5, \"x\": [0.3, -1.2, 2.5, 0.8, 1.1]}");
  double theta[2] = { 0.2, -0.3 };
  check_gradient_fd (m, theta, TRUE, TRUE);
  gsize n = tilde_model_num_outputs (m, TRUE, TRUE);
  g_autofree double *out = g_new (double, n);
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  gsl_rng_set (rng, 3);
  g_autoptr (TildeModelError) e = NULL;
  if (!tilde_model_constrain (m, theta, TRUE, TRUE, rng, out, &e))
    g_error ("gq model: %s", e->message);
  gsl_rng_free (rng);
  const char *const *names = tilde_model_output_names (m, TRUE, TRUE);
  double ld = NAN, ld_eig = NAN, q = NAN;
  int dm_total = 0;
  for (gsize i = 0; i < n; i++)
    {
      if (g_str_equal (names[i], "ld"))
        ld = out[i];
      else if (g_str_equal (names[i], "ld_eig"))
        ld_eig = out[i];
      else if (g_str_equal (names[i], "q"))
        q = out[i];
      else if (g_str_has_prefix (names[i], "dm."))
        dm_total += (int) out[i];
      else if (g_str_equal (names[i], "sx.1"))
        g_assert_cmpfloat (out[i], ==, 2.5);
      else if (g_str_equal (names[i], "idx.1"))
        g_assert_cmpfloat (out[i], ==, 2);
      else if (g_str_equal (names[i], "d.1") || g_str_equal (names[i], "d.2"))
        g_assert_cmpfloat (out[i], ==, 3);
      else if (g_str_has_prefix (names[i], "back."))
        g_assert_cmpfloat_with_epsilon (out[i], names[i][5] - '0', 1e-12);
      else if (g_str_equal (names[i], "dr"))
        g_assert_true (out[i] >= 1 && out[i] <= 6);
    }
  g_assert_cmpfloat_with_epsilon (ld, ld_eig, 1e-12);
  g_assert_cmpfloat (q, ==, 0.8);
  g_assert_cmpint (dm_total, ==, 10);
}

/* ---- threads ---- */

typedef struct {
  TildeModel *m;
  double      theta[10];
  double      lp;
  double      g[10];
  gboolean    same;
} Job;

static gpointer
worker (gpointer p)
{
  Job *j = p;
  j->same = TRUE;
  for (int i = 0; i < 2000; i++)
    {
      double g[10];
      double lp = tilde_model_log_density (j->m, j->theta, TRUE, TRUE, g, NULL);
      if (lp != j->lp || memcmp (g, j->g, sizeof g) != 0)
        j->same = FALSE;
    }
  return NULL;
}

/* ---- tuples ---- */

static const char *tuple_model =
  "functions {\n"
  "  tuple(real, tuple(int, real)) split(real x) { return (x, (2, -x)); }\n"
  "}\n"
  "data { real lb; }\n"
  "parameters {\n"
  "  tuple(real, real<lower=0>) p;\n"
  "  array[2] tuple(vector<lower=lb>[2], real) q;\n"
  "}\n"
  "transformed parameters {\n"
  "  tuple(real<lower=0>, real) tp = (p.2, p.1);\n"
  "}\n"
  "model {\n"
  "  p.1 ~ normal(0, 1);\n"
  "  p.2 ~ exponential(1);\n"
  "  for (i in 1:2) {\n"
  "    q[i].1 ~ normal(0, 1);\n"
  "    q[i].2 ~ normal(0, 1);\n"
  "  }\n"
  "}\n"
  "generated quantities {\n"
  "  tuple(real, array[2] int) g = (p.1, {1, 2});\n"
  "  array[2] tuple(real, real) h = {(1.0, 2.0), (3.0, 4.0)};\n"
  "  real a;\n"
  "  int b;\n"
  "  real c;\n"
  "  g.1 = g.1 * 2;\n"
  "  g.2[2] = 7;\n"
  "  h[2].1 = q[2].2;\n"
  "  (a, (b, c)) = split(p.2);\n"
  "  (h[1].2, g.2[1]) = (c, b);\n"
  "}\n";

static double
std_normal_lpdf (double x)
{
  return -0.5 * log (2 * G_PI) - 0.5 * x * x;
}

/* Tuple parameters are read member by member, each array element whole,
 * with their members' constraints and Jacobians; their CSV names put
 * members after a colon (the CmdStan guide's "bar:1, bar:2.1"); members
 * and elements of members can be assigned, and tuples unpacked into them. */
static void
test_tuples (void)
{
  g_autoptr (TildeModel) m = rt_test_model (tuple_model, "{\"lb\": -1}");
  g_assert_cmpuint (tilde_model_num_params_unconstrained (m), ==, 8);
  const char *const names[] = {
    "p:1", "p:2", "q.1:1.1", "q.1:1.2", "q.1:2", "q.2:1.1", "q.2:1.2", "q.2:2", "tp:1", "tp:2",
    "g:1", "g:2.1", "g:2.2", "h.1:1", "h.1:2", "h.2:1", "h.2:2", "a", "b", "c", NULL,
  };
  const char *const *got = tilde_model_output_names (m, TRUE, TRUE);
  for (guint i = 0; names[i]; i++)
    g_assert_cmpstr (got[i], ==, names[i]);
  g_assert_null (got[G_N_ELEMENTS (names) - 1]);
  const char *const free_names[] = { "p:1", "p:2", "q.1:1.1", "q.1:1.2", "q.1:2", "q.2:1.1",
                                     "q.2:1.2", "q.2:2", NULL };
  for (guint i = 0; free_names[i]; i++)
    g_assert_cmpstr (tilde_model_unconstrained_names (m)[i], ==, free_names[i]);

  const double theta[8] = { 0.5, log (2.0), log (1.1), log (1.2), 0.3, log (1.4), log (1.5), -0.6 };
  double lp = tilde_model_log_density (m, theta, FALSE, TRUE, NULL, NULL);
  double expected = std_normal_lpdf (0.5) + (-2.0) + log (2.0);
  const double q[2][3] = { { 0.1, 0.2, 0.3 }, { 0.4, 0.5, -0.6 } };
  for (int i = 0; i < 2; i++)
    expected += std_normal_lpdf (q[i][0]) + std_normal_lpdf (q[i][1]) + std_normal_lpdf (q[i][2])
      + log (q[i][0] + 1) + log (q[i][1] + 1);
  g_assert_true (rt_test_close (lp, expected, 1e-12));
  check_gradient_fd (m, theta, FALSE, TRUE);

  double out[20];
  g_autoptr (TildeModelError) e = NULL;
  g_assert_true (tilde_model_constrain (m, theta, TRUE, TRUE, NULL, out, &e));
  const double want[20] = { 0.5, 2, 0.1, 0.2, 0.3, 0.4, 0.5, -0.6, 2, 0.5,
                            1.0, 2, 7, 1, -2, -0.6, 4, 2, 2, -2 };
  for (int i = 0; i < 20; i++)
    if (!rt_test_close (out[i], want[i], 1e-12))
      g_error ("output %s: %.17g, expected %.17g", names[i], out[i], want[i]);

  /* the constrained values, as inits, give theta back */
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeJsonData) inits = tilde_json_data_new_from_string (
    "{\"p\": {\"1\": 0.5, \"2\": 2}, \"q\": [{\"1\": [0.1, 0.2], \"2\": 0.3},"
    " {\"1\": [0.4, 0.5], \"2\": -0.6}]}", -1, &error);
  g_assert_no_error (error);
  double back[8];
  g_assert_true (tilde_model_unconstrain (m, inits, back, &e));
  for (int i = 0; i < 8; i++)
    g_assert_true (rt_test_close (back[i], theta[i], 1e-12));
}

/* Tuples none of whose members is constrained (the MIR gives them the
 * identity transform) are read and unconstrained member by member too:
 * they were taken for zero values, and the model for one without
 * parameters. */
static void
test_unconstrained_tuples (void)
{
  g_autoptr (TildeModel) m = rt_test_model (
    "parameters { tuple(real, real) p; array[2] tuple(vector[2], tuple(complex, real)) q; }\n"
    "model {\n"
    "  p.1 ~ std_normal(); p.2 ~ std_normal();\n"
    "  for (i in 1:2) {\n"
    "    q[i].1 ~ std_normal(); q[i].2.2 ~ std_normal();\n"
    "    get_real(q[i].2.1) ~ std_normal(); get_imag(q[i].2.1) ~ std_normal();\n"
    "  }\n"
    "}\n", NULL);
  g_assert_cmpuint (tilde_model_num_params_unconstrained (m), ==, 12);
  const char *const names[] = { "p:1", "p:2", "q.1:1.1", "q.1:1.2", "q.1:2:1.real",
                                "q.1:2:1.imag", "q.1:2:2", "q.2:1.1", NULL };
  for (guint i = 0; names[i]; i++)
    g_assert_cmpstr (tilde_model_output_names (m, FALSE, FALSE)[i], ==, names[i]);
  double theta[12], out[12], expected = 0;
  for (int i = 0; i < 12; i++)
    {
      theta[i] = 0.3 * (i + 1) - 1.7;
      expected += std_normal_lpdf (theta[i]);
    }
  g_assert_true (rt_test_close (tilde_model_log_density (m, theta, FALSE, TRUE, NULL, NULL),
                                expected, 1e-12));
  check_gradient_fd (m, theta, FALSE, TRUE);
  g_autoptr (TildeModelError) e = NULL;
  g_assert_true (tilde_model_constrain (m, theta, FALSE, FALSE, NULL, out, &e));
  for (int i = 0; i < 12; i++)
    g_assert_cmpfloat (out[i], ==, theta[i]);
  GString *json = g_string_new (NULL);
  g_string_append_printf (json, "{\"p\": {\"1\": %.17g, \"2\": %.17g}, \"q\": [", out[0], out[1]);
  for (int i = 0; i < 2; i++)
    {
      const double *x = out + 2 + 5 * i;
      g_string_append_printf (json, "%s{\"1\": [%.17g, %.17g], \"2\": {\"1\": [%.17g, %.17g], \"2\": %.17g}}",
                              i ? ", " : "", x[0], x[1], x[2], x[3], x[4]);
    }
  g_string_append (json, "]}");
  check_inits_give_back (m, json, theta, 12, 0);
}

/* ---- complex parameters ---- */

static const char *complex_model =
  "parameters {\n"
  "  complex z;\n"
  "  complex_vector[2] v;\n"
  "  array[2] complex a;\n"
  "  complex_matrix[2, 2] M;\n"
  "}\n"
  "model {\n"
  "  target += -0.5 * norm(z) + 0.1 * get_real(z * z);\n"
  "  target += -0.5 * dot_self(get_real(v)) - 0.25 * dot_self(get_imag(v));\n"
  "  for (i in 1:2) target += -0.5 * abs(a[i] - 1i) ^ 2;\n"
  "  target += -0.5 * sum(get_real(M) .* get_real(M)) + sum(get_imag(M) * [1, 2]');\n"
  "}\n"
  "generated quantities { complex w = z * v[2]; }\n";

/* A complex parameter takes no constraint: its real and imaginary parts
 * are two unconstrained values, side by side, as Stan serialises them,
 * named NAME.real and NAME.imag in the CSV files; init files give each
 * complex value as a pair. */
static void
test_complex_parameters (void)
{
  g_autoptr (TildeModel) m = rt_test_model (complex_model, NULL);
  g_assert_cmpuint (tilde_model_num_params_unconstrained (m), ==, 18);
  const char *const names[] = {
    "z.real", "z.imag", "v.1.real", "v.1.imag", "v.2.real", "v.2.imag",
    "a.1.real", "a.1.imag", "a.2.real", "a.2.imag",
    "M.1.1.real", "M.1.1.imag", "M.2.1.real", "M.2.1.imag",
    "M.1.2.real", "M.1.2.imag", "M.2.2.real", "M.2.2.imag", "w.real", "w.imag", NULL,
  };
  const char *const *got = tilde_model_output_names (m, TRUE, TRUE);
  for (guint i = 0; names[i]; i++)
    g_assert_cmpstr (got[i], ==, names[i]);
  g_assert_null (got[G_N_ELEMENTS (names) - 1]);
  for (guint i = 0; i < 18; i++)
    g_assert_cmpstr (tilde_model_unconstrained_names (m)[i], ==, names[i]);

  double theta[18];
  for (int i = 0; i < 18; i++)
    theta[i] = 0.4 * sin (1.7 * i + 0.3);
  double x = theta[0], y = theta[1];
  double expected = -0.5 * (x * x + y * y) + 0.1 * (x * x - y * y);
  expected += -0.5 * (theta[2] * theta[2] + theta[4] * theta[4])
    - 0.25 * (theta[3] * theta[3] + theta[5] * theta[5]);
  for (int i = 0; i < 2; i++)
    expected += -0.5 * (pow (theta[6 + 2 * i], 2) + pow (theta[7 + 2 * i] - 1, 2));
  /* M column-major: [1,1], [2,1], [1,2], [2,2]; imag(M) * [1, 2]' sums
   * the first column once and the second twice */
  for (int k = 0; k < 4; k++)
    expected += -0.5 * pow (theta[10 + 2 * k], 2) + (k < 2 ? 1 : 2) * theta[11 + 2 * k];
  double lp = tilde_model_log_density (m, theta, FALSE, TRUE, NULL, NULL);
  g_assert_true (rt_test_close (lp, expected, 1e-12));
  check_gradient_fd (m, theta, FALSE, TRUE);

  double out[20];
  g_autoptr (TildeModelError) e = NULL;
  g_assert_true (tilde_model_constrain (m, theta, TRUE, TRUE, NULL, out, &e));
  for (int i = 0; i < 18; i++)
    g_assert_cmpfloat (out[i], ==, theta[i]);
  /* w = z * v[2] */
  g_assert_true (rt_test_close (out[18], x * theta[4] - y * theta[5], 1e-15));
  g_assert_true (rt_test_close (out[19], x * theta[5] + y * theta[4], 1e-15));

  /* the constrained values, as inits, give theta back */
  GString *json = g_string_new (NULL);
  g_string_append_printf (json, "{\"z\": [%.17g, %.17g], \"v\": [[%.17g, %.17g], [%.17g, %.17g]],",
                          out[0], out[1], out[2], out[3], out[4], out[5]);
  g_string_append_printf (json, " \"a\": [[%.17g, %.17g], [%.17g, %.17g]],",
                          out[6], out[7], out[8], out[9]);
  /* JSON rows: [[M11, M12], [M21, M22]] */
  g_string_append_printf (json, " \"M\": [[[%.17g, %.17g], [%.17g, %.17g]], [[%.17g, %.17g], [%.17g, %.17g]]]}",
                          out[10], out[11], out[14], out[15], out[12], out[13], out[16], out[17]);
  check_inits_give_back (m, json, theta, 18, 0);
}

/* A sum_to_zero_matrix parameter: (R - 1) x (C - 1) free values, every
 * row and column of the draw summing to zero; as an init it gives them
 * back; under independent normals each entry's variance is
 * (1 - 1/R) (1 - 1/C), which the isometry makes the log density's
 * Hessian show as the identity on the free values. */
static void
test_sum_to_zero_matrix (void)
{
  g_autoptr (TildeModel) m = rt_test_model ("parameters { sum_to_zero_matrix[3, 4] S; }\n"
                                            "model { to_vector(S) ~ std_normal(); }\n", NULL);
  g_assert_cmpuint (tilde_model_num_params_unconstrained (m), ==, 6);
  double theta[6], out[12];
  for (int i = 0; i < 6; i++)
    theta[i] = 0.8 * cos (2.1 * i + 0.4);
  g_autoptr (TildeModelError) e = NULL;
  g_assert_true (tilde_model_constrain (m, theta, FALSE, FALSE, NULL, out, &e));
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat_with_epsilon (out[i] + out[i + 3] + out[i + 6] + out[i + 9], 0, 1e-14);
  for (int j = 0; j < 4; j++)
    g_assert_cmpfloat_with_epsilon (out[3 * j] + out[3 * j + 1] + out[3 * j + 2], 0, 1e-14);
  /* the log density is -|theta|^2 / 2 up to its constant */
  double ss = 0;
  for (int i = 0; i < 6; i++)
    ss += theta[i] * theta[i];
  double lp = tilde_model_log_density (m, theta, FALSE, TRUE, NULL, NULL);
  g_assert_true (rt_test_close (lp, -0.5 * ss - 6 * log (2 * G_PI), 1e-12));
  check_gradient_fd (m, theta, FALSE, TRUE);

  GString *json = g_string_new ("{\"S\": [");
  for (int i = 0; i < 3; i++)
    g_string_append_printf (json, "%s[%.17g, %.17g, %.17g, %.17g]", i ? ", " : "",
                            out[i], out[i + 3], out[i + 6], out[i + 9]);
  g_string_append (json, "]}");
  check_inits_give_back (m, json, theta, 6, 1e-12);
}

/* ---- GLMs under propto ---- */

static const char *glm_data =
  "{\"N\": 4, \"K\": 2, \"X\": [[1, 0.5], [0.2, -1], [0.3, 0.3], [-1, 2]],"
  " \"y\": [1.1, 0.4, -0.2, 2.0], \"b\": [1, 0, 0, 1], \"c\": [3, 0, 1, 7]}";

static TildeModel *
glm_model_at (const char *statement, MirOptLevel level, gboolean expect_glm)
{
  g_autofree char *source = g_strdup_printf (
    "data { int N; int K; matrix[N, K] X; vector[N] y; array[N] int<lower=0, upper=1> b;\n"
    "       array[N] int<lower=0> c; }\n"
    "parameters { real alpha; vector[K] beta; real<lower=0> sigma; real<lower=0> phi; }\n"
    "model {\n"
    "  alpha ~ normal(0, 1);\n"
    "  beta ~ normal(0, 1);\n"
    "  sigma ~ exponential(1);\n"
    "  phi ~ exponential(1);\n"
    "  %s\n"
    "}\n", statement);
  g_autoptr (MirProgram) lowered = rt_test_mir_from_string (source);
  g_autoptr (MirProgram) transformed = mir_transform_program (lowered);
  g_autoptr (MirProgram) optimized = mir_pipeline_run (transformed, level, NULL);
  g_autofree char *text = mir_print_program (optimized, MIR_PRINT_DEFAULT, NULL);
  /* the rewrite fires where it should, so that the comparison means something */
  g_assert_true ((strstr (text, "_glm_lup") != NULL) == expect_glm);
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeJsonData) data = tilde_json_data_new_from_string (glm_data, -1, &error);
  g_assert_no_error (error);
  g_autoptr (GPtrArray) diags = tilde_diagnostic_list_new ();
  TildeModel *m = tilde_model_new (optimized, data, diags);
  g_assert_nonnull (m);
  return m;
}

/* A statement the optimiser rewrites into a GLM has the same log density
 * and gradient, constants dropped under propto included, as the statement
 * as written: the same at O0, O1 and Oexperimental. */
static void
test_glm_rewrites_propto (void)
{
  static const char *const statements[] = {
    "y ~ normal(alpha + X * beta, sigma);",
    "y ~ normal(X * beta, 2.0);",
    "b ~ bernoulli_logit(alpha + X * beta);",
    "b ~ bernoulli(inv_logit(X * beta + alpha));",
    "c ~ poisson_log(alpha + X * beta);",
    "c ~ poisson(exp(alpha + X * beta));",
    "c ~ neg_binomial_2_log(alpha + X * beta, phi);",
    "c ~ neg_binomial_2_log(X * beta, 3.0);",
    "c ~ neg_binomial_2(exp(alpha + X * beta), phi);",
  };
  const double theta[5] = { 0.3, 0.2, -0.4, log (1.3), log (2.5) };
  for (guint i = 0; i < G_N_ELEMENTS (statements); i++)
    {
      g_autoptr (TildeModel) o0 = glm_model_at (statements[i], MIR_OPT_O0, FALSE);
      g_autoptr (TildeModel) o1 = glm_model_at (statements[i], MIR_OPT_O1, TRUE);
      g_autoptr (TildeModel) ox = glm_model_at (statements[i], MIR_OPT_EXPERIMENTAL, TRUE);
      TildeModel *levels[2] = { o1, ox };
      for (int propto = 0; propto < 2; propto++)
        {
          double g0[5], g[5];
          double lp0 = tilde_model_log_density (o0, theta, propto, TRUE, g0, NULL);
          g_assert_true (isfinite (lp0));
          for (int l = 0; l < 2; l++)
            {
              double lp = tilde_model_log_density (levels[l], theta, propto, TRUE, g, NULL);
              if (!rt_test_close (lp, lp0, 1e-12))
                g_error ("%s propto %d: O0 %.17g, optimised %.17g", statements[i], propto, lp0, lp);
              for (int k = 0; k < 5; k++)
                g_assert_true (rt_test_close (g[k], g0[k], 1e-12));
            }
        }
    }
}

/* neg_binomial_2_log_glm written in the model drops under propto what
 * Stan's drops: -lgamma(n + 1) even with phi a parameter; with phi data it
 * keeps -phi log(phi). */
static void
test_neg_binomial_2_log_glm_propto (void)
{
  static const int c[4] = { 3, 0, 1, 7 };
  static const double X[4][2] = { { 1, 0.5 }, { 0.2, -1 }, { 0.3, 0.3 }, { -1, 2 } };
  const double alpha = 0.3, beta[2] = { 0.2, -0.4 }, phi = 2.5;
  const double theta[5] = { alpha, beta[0], beta[1], log (1.3), log (phi) };
  for (int phi_data = 0; phi_data < 2; phi_data++)
    {
      g_autoptr (TildeModel) m = glm_model_at (phi_data
                                               ? "c ~ neg_binomial_2_log_glm(X, alpha, beta, 2.5);"
                                               : "c ~ neg_binomial_2_log_glm(X, alpha, beta, phi);",
                                               MIR_OPT_O0, TRUE);
      double expected = 0;
      for (int n = 0; n < 4; n++)
        {
          double eta = alpha + X[n][0] * beta[0] + X[n][1] * beta[1];
          double lse = fmax (eta, log (phi)) + log1p (exp (-fabs (eta - log (phi))));
          expected += -(c[n] + phi) * lse + c[n] * eta;
          if (!phi_data)
            expected += phi * log (phi) - lgamma (phi) + lgamma (c[n] + phi);
        }
      g_autoptr (TildeModel) priors = glm_model_at ("", MIR_OPT_O0, FALSE);
      double lp = tilde_model_log_density (m, theta, TRUE, TRUE, NULL, NULL)
        - tilde_model_log_density (priors, theta, TRUE, TRUE, NULL, NULL);
      if (!rt_test_close (lp, expected, 1e-12))
        g_error ("phi data %d: %.17g, expected %.17g", phi_data, lp, expected);
      check_gradient_fd (m, theta, TRUE, TRUE);
    }
}

/* ---- print() ---- */

/* Deliberately unsynchronised: the model calls it one at a time. */
static void
collect_print (const char *text, gpointer user_data)
{
  g_ptr_array_add (user_data, g_strdup (text));
}

static const char *print_model =
  "data { int N; }\n"
  "transformed data { vector[N] v = linspaced_vector(N, 1, N); print(\"v = \", v); }\n"
  "parameters { real mu; }\n"
  "model {\n"
  "  print(\"mu = \", mu, \", N = \", N);\n"
  "  mu ~ normal(0, 1);\n"
  "}\n"
  "generated quantities {\n"
  "  tuple(int, real) t = (N, 2.5);\n"
  "  print(\"t = \", t);\n"
  "}\n";

static gpointer
print_worker (gpointer data)
{
  TildeModel *m = data;
  double theta = 0.25;
  for (int i = 0; i < 200; i++)
    tilde_model_log_density (m, &theta, TRUE, TRUE, NULL, NULL);
  return NULL;
}

/* print() goes through the model's handler, from preparation on, whole
 * lines in the order the statements run; from several threads at once
 * every line arrives intact. */
static void
test_print_handler (void)
{
  g_autoptr (MirProgram) p = rt_test_mir_from_string (print_model);
  g_autoptr (TildeJsonData) data = tilde_json_data_new_from_string ("{\"N\": 3}", -1, NULL);
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (TildeModel) m = tilde_model_new_full (p, data, collect_print, lines, NULL);
  g_assert_nonnull (m);
  g_assert_cmpuint (lines->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (lines, 0), ==, "v = [1,2,3]");
  double theta = 0.25, out[3];
  tilde_model_log_density (m, &theta, TRUE, TRUE, NULL, NULL);
  g_assert_cmpstr (g_ptr_array_index (lines, 1), ==, "mu = 0.25, N = 3");
  g_assert_true (tilde_model_constrain (m, &theta, TRUE, TRUE, NULL, out, NULL));
  g_assert_cmpstr (g_ptr_array_index (lines, 2), ==, "t = (3,2.5)");
  g_assert_cmpuint (lines->len, ==, 3);

  GThread *t[4];
  for (int k = 0; k < 4; k++)
    t[k] = g_thread_new ("chain", print_worker, m);
  for (int k = 0; k < 4; k++)
    g_thread_join (t[k]);
  g_assert_cmpuint (lines->len, ==, 3 + 4 * 200);
  for (guint i = 3; i < lines->len; i++)
    g_assert_cmpstr (g_ptr_array_index (lines, i), ==, "mu = 0.25, N = 3");

  /* a handler set later takes over */
  g_autoptr (GPtrArray) later = g_ptr_array_new_with_free_func (g_free);
  tilde_model_set_print_func (m, collect_print, later);
  tilde_model_log_density (m, &theta, TRUE, TRUE, NULL, NULL);
  g_assert_cmpuint (later->len, ==, 1);
  g_assert_cmpuint (lines->len, ==, 3 + 4 * 200);
}

/* Values print as Stan's C++ streams them: a matrix as its rows, complex
 * numbers as "(re,im)" (in containers, and of parameters, whose parts are
 * autodiff variables), arrays of matrices nested. */
static void
test_print_formats (void)
{
  static const char *model =
    "transformed data {\n"
    "  matrix[2, 3] m = [[1, 2, 3], [4, 5, 6]];\n"
    "  array[2] matrix[2, 2] am = {[[1, 2], [3, 4]], [[5, 6], [7, 8]]};\n"
    "  complex_vector[2] cv = [to_complex(1, 2), to_complex(3, -4)]';\n"
    "  complex_row_vector[2] crv = [to_complex(1, 2), to_complex(3, -4)];\n"
    "  complex_matrix[2, 2] cm = [[to_complex(1, 2), 3], [4, to_complex(0, -1)]];\n"
    "  array[2] complex ca = {to_complex(1, 2), 5};\n"
    "  print(m, \" \", am, \" \", cv, \" \", crv, \" \", cm, \" \", ca);\n"
    "}\n"
    "parameters { complex z; complex_vector[2] w; matrix[1, 2] b; }\n"
    "model { print(z, \" \", w, \" \", b, \" \", z * 2); }\n";
  g_autoptr (MirProgram) p = rt_test_mir_from_string (model);
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (TildeModel) m = tilde_model_new_full (p, NULL, collect_print, lines, NULL);
  g_assert_nonnull (m);
  g_assert_cmpuint (lines->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (lines, 0), ==,
                   "[[1,2,3],[4,5,6]] [[[1,2],[3,4]],[[5,6],[7,8]]] [(1,2),(3,-4)] "
                   "[(1,2),(3,-4)] [[(1,2),(3,0)],[(4,0),(0,-1)]] [(1,2),(5,0)]");
  g_assert_cmpuint (tilde_model_num_params_unconstrained (m), ==, 8);
  double theta[8] = { 0.5, -1.5, 1, 2, 3, 4, 7, 8 };
  g_autofree double *grad = g_new0 (double, 8);
  /* without and with the gradient: data values, then autodiff variables */
  tilde_model_log_density (m, theta, TRUE, TRUE, NULL, NULL);
  tilde_model_log_density (m, theta, TRUE, TRUE, grad, NULL);
  g_assert_cmpuint (lines->len, ==, 3);
  for (guint i = 1; i < 3; i++)
    g_assert_cmpstr (g_ptr_array_index (lines, i), ==, "(0.5,-1.5) [(1,2),(3,4)] [[7,8]] (1,-3)");
}

static void
test_threads (void)
{
  const char *dir = g_getenv ("TILDE_EXAMPLES_DIR");
  g_autofree char *stan = g_build_filename (dir ? dir : "data/examples", "eight_schools.stan", NULL);
  g_autofree char *json = g_build_filename (dir ? dir : "data/examples", "eight_schools.data.json", NULL);
  g_autoptr (MirProgram) prog = rt_test_mir_from_file (stan);
  g_autoptr (TildeJsonData) d = tilde_json_data_new_from_file (json, NULL);
  g_autoptr (TildeModel) m = tilde_model_new (prog, d, NULL);
  Job jobs[4];
  for (int k = 0; k < 4; k++)
    {
      jobs[k].m = m;
      for (int i = 0; i < 10; i++)
        jobs[k].theta[i] = 0.1 * (i - k);
      jobs[k].lp = tilde_model_log_density (m, jobs[k].theta, TRUE, TRUE, jobs[k].g, NULL);
    }
  GThread *t[4];
  for (int k = 0; k < 4; k++)
    t[k] = g_thread_new ("chain", worker, &jobs[k]);
  for (int k = 0; k < 4; k++)
    {
      g_thread_join (t[k]);
      g_assert_true (jobs[k].same);
    }
}

/* Reading and writing single elements in loops takes nothing from the
 * arena: transformed data that walk a million-row matrix element by
 * element grew it by gigabytes, and their preparation spent more time in
 * page faults than in the loops, and the model kept it all: transformed
 * data take from the arena that lives as long as the model. Here 500,000
 * writes and reads of a matrix's elements, of a vector's, of an array's and
 * of a 2-D array's: 56 MB taken when each took a few ints, 166 KB (the
 * data themselves) without. */
static void
test_element_loops_allocate_nothing (void)
{
  static const char source[] =
    "transformed data {\n"
    "  matrix[100, 100] A;\n"
    "  vector[100] v;\n"
    "  array[100] real a;\n"
    "  array[100, 100] real B;\n"
    "  for (rep in 1:50)\n"
    "    for (j in 1:100)\n"
    "      for (i in 1:100) {\n"
    "        A[i, j] = i + j + rep;\n"
    "        v[i] = A[i, j];\n"
    "        a[i] = v[i];\n"
    "        B[i, j] = a[i];\n"
    "      }\n"
    "}\n"
    "parameters {\n"
    "  real mu;\n"
    "}\n"
    "model {\n"
    "  mu ~ normal(a[7] + A[3, 4] + B[5, 6], 1);\n"
    "}\n";
  TildeModel *m = rt_test_model (source, "{}");
  gsize held = rt_model_persist_bytes (m);
  double theta = 0, grad;
  double lp = tilde_model_log_density (m, &theta, FALSE, TRUE, &grad, NULL);
  /* a[7] = v[7] = A[7, 100] = 157 at the last rep, A[3, 4] = 57, B[5, 6] = 61 */
  g_assert_cmpfloat (fabs (grad - (157 + 57 + 61)), <, 1e-9);
  g_assert_true (isfinite (lp));
  g_test_message ("the model's arena holds %" G_GSIZE_FORMAT " bytes after preparing", held);
  g_assert_cmpuint (held, <, 1 << 20);
  tilde_model_free (m);
}

/* A million rows of neg_binomial_2_log: the log density within 1e-13 of
 * the compensated sum of the same rows' terms. Adding each row's three
 * terms straight into one running sum near 10^6 lost 6e-12 of it to
 * rounding, more than OpenCL's tree sum differed from the exact one. */
static void
test_neg_binomial_million_rows (void)
{
  static const char source[] =
    "data {\n"
    "  int N;\n"
    "}\n"
    "transformed data {\n"
    "  vector[N] eta;\n"
    "  array[N] int y;\n"
    "  for (n in 1:N) {\n"
    "    eta[n] = 2 * sin(n * 0.7);\n"
    "    y[n] = n % 7 + (eta[n] > 0);\n"
    "  }\n"
    "}\n"
    "parameters {\n"
    "  real<lower=0> phi;\n"
    "}\n"
    "model {\n"
    "  y ~ neg_binomial_2_log(eta, phi);\n"
    "}\n";
  const int N = 1000000;
  g_autofree char *json = g_strdup_printf ("{\"N\": %d}", N);
  TildeModel *m = rt_test_model (source, json);
  double phi = 1.3, theta = log (phi), grad;
  double lp = tilde_model_log_density (m, &theta, FALSE, FALSE, &grad, NULL);
  /* each row's term as the density forms it, summed with Neumaier's
   * compensation */
  double lphi = log (phi), sum = 0, carry = 0;
  for (int n = 1; n <= N; n++)
    {
      double eta = 2 * sin (n * 0.7), y = n % 7 + (eta > 0);
      double L = tilde_log1p_exp (eta - lphi);
      double term = tilde_lchoose_count (y, phi);
      term += y * eta;
      term += -phi * L - y * (lphi + L);
      double t = sum + term;
      carry += fabs (sum) >= fabs (term) ? (sum - t) + term : (term - t) + sum;
      sum = t;
    }
  sum += carry;
  g_test_message ("log density %.17g, compensated sum %.17g, relative difference %.1e", lp, sum,
                  fabs (lp - sum) / fabs (sum));
  g_assert_cmpfloat (fabs (lp - sum), <=, 1e-13 * fabs (sum));
  tilde_model_free (m);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/runtime/model/names", test_names);
  g_test_add_func ("/runtime/model/constrain-unconstrain", test_constrain_unconstrain);
  g_test_add_func ("/runtime/model/program-gradient", test_program_gradient);
  g_test_add_func ("/runtime/model/no-allocation", test_no_allocation);
  g_test_add_func ("/runtime/model/data-only-terms", test_data_only_terms);
  g_test_add_func ("/runtime/model/multi-index", test_multi_index);
  g_test_add_func ("/runtime/model/declared-sizes", test_declared_sizes);
  g_test_add_func ("/runtime/model/variables-changed-after-use", test_variables_changed_after_use);
  g_test_add_func ("/runtime/model/errors-are-values", test_errors_are_values);
  g_test_add_func ("/runtime/model/error-places", test_error_places);
  g_test_add_func ("/runtime/model/unsupported-at-preparation", test_unsupported_at_preparation);
  g_test_add_func ("/runtime/model/container-bounds", test_container_bounds);
  g_test_add_func ("/runtime/model/recursion-bounded-by-stack", test_recursion_bounded_by_stack);
  g_test_add_func ("/runtime/model/transformed-data-rng", test_transformed_data_rng);
  g_test_add_func ("/runtime/model/int-functions-over-arrays", test_int_functions_over_arrays);
  g_test_add_func ("/runtime/model/cholesky-factor-cov-sizes", test_cholesky_factor_cov_sizes);
  g_test_add_func ("/runtime/model/overloads-of-equal-arity", test_overloads_of_equal_arity);
  g_test_add_func ("/runtime/model/overloads-passed-to-hofs", test_overloads_passed_to_hofs);
  g_test_add_func ("/runtime/model/functions", test_functions);
  g_test_add_func ("/runtime/model/library", test_library);
  g_test_add_func ("/runtime/model/gq-functions", test_gq_functions);
  g_test_add_data_func ("/runtime/model/example/eight_schools", "eight_schools.stan", test_example);
  g_test_add_data_func ("/runtime/model/example/logistic_regression", "logistic_regression.stan", test_example);
  g_test_add_data_func ("/runtime/model/example/poisson_glm", "poisson_glm.stan", test_example);
  g_test_add_func ("/runtime/model/tuples", test_tuples);
  g_test_add_func ("/runtime/model/unconstrained-tuples", test_unconstrained_tuples);
  g_test_add_func ("/runtime/model/complex-parameters", test_complex_parameters);
  g_test_add_func ("/runtime/model/sum-to-zero-matrix", test_sum_to_zero_matrix);
  g_test_add_func ("/runtime/model/glm-rewrites-propto", test_glm_rewrites_propto);
  g_test_add_func ("/runtime/model/neg-binomial-2-log-glm-propto",
                   test_neg_binomial_2_log_glm_propto);
  g_test_add_func ("/runtime/model/print-handler", test_print_handler);
  g_test_add_func ("/runtime/model/print-formats", test_print_formats);
  g_test_add_func ("/runtime/model/threads", test_threads);
  g_test_add_func ("/runtime/model/neg-binomial-million-rows", test_neg_binomial_million_rows);
  g_test_add_func ("/runtime/model/element-loops-allocate-nothing",
                   test_element_loops_allocate_nothing);
  return g_test_run ();
}
