/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The higher-order functions (reduce_sum, map_rect, integrate_1d, the ODE,
 * algebraic and DAE solvers) through whole models, at O0, O1 and
 * Oexperimental: the log density against a closed form written out here
 * (sums of densities, integrals and solutions known exactly), and its
 * gradient against central finite differences of that closed form.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "runtime-test-util.h"
#include "tilde-frontend.h"
#include "mir/mir-lower.h"
#include "mir/mir-transform.h"
#include "mir/passes/pipeline.h"

static const MirOptLevel levels[] = { MIR_OPT_O0, MIR_OPT_O1, MIR_OPT_EXPERIMENTAL };
#define N_LEVELS G_N_ELEMENTS (levels)
#define MAX_PARAMS 32

typedef double (*Truth) (const double *theta, gboolean propto);

/* The model compiled at every level. */
static void
models (const char *source, const char *data_json, TildeModel **out)
{
  g_autoptr (MirProgram) lowered = rt_test_mir_from_string (source);
  g_autoptr (MirProgram) transformed = mir_transform_program (lowered);
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeJsonData) data = NULL;
  if (data_json)
    {
      data = tilde_json_data_new_from_string (data_json, -1, &error);
      g_assert_no_error (error);
    }
  for (guint l = 0; l < N_LEVELS; l++)
    {
      g_autoptr (MirProgram) p = mir_pipeline_run (transformed, levels[l], NULL);
      g_autoptr (GPtrArray) diags = tilde_diagnostic_list_new ();
      out[l] = tilde_model_new (p, data, diags);
      if (!out[l])
        g_error ("level %u: %s", l,
                 diags->len ? ((TildeDiagnostic *) g_ptr_array_index (diags, 0))->message : "?");
    }
}

static double
central (Truth truth, const double *theta, gsize n, gsize i, gboolean propto)
{
  double x[MAX_PARAMS];
  memcpy (x, theta, sizeof (double) * n);
  double h = 1e-5 * fmax (1, fabs (theta[i]));
  double f[4];
  for (int s = 0; s < 4; s++)
    {
      double hs = (s & 2) ? 0.5 * h : h;
      x[i] = theta[i] + ((s & 1) ? hs : -hs);
      f[s] = truth (x, propto);
    }
  double d1 = (f[1] - f[0]) / (2 * h), d2 = (f[3] - f[2]) / h;
  return (4 * d2 - d1) / 3;
}

/* The log density (with every constant, and with propto) and its
 * gradient at theta, at each level, against truth. */
static void
check_density (const char *source, const char *data, const double *theta, gsize n, Truth truth,
               double tol_value, double tol_grad)
{
  TildeModel *m[N_LEVELS];
  models (source, data, m);
  g_assert_cmpuint (tilde_model_num_params_unconstrained (m[0]), ==, n);
  for (int propto = 0; propto < 2; propto++)
    {
      double expected = truth (theta, propto);
      double fd[MAX_PARAMS];
      for (gsize i = 0; i < n; i++)
        fd[i] = central (truth, theta, n, i, propto);
      for (guint l = 0; l < N_LEVELS; l++)
        {
          double grad[MAX_PARAMS];
          g_autoptr (TildeModelError) error = NULL;
          double lp = tilde_model_log_density (m[l], theta, propto, TRUE, grad, &error);
          if (error)
            g_error ("level %u: %s", l, error->message);
          if (!rt_test_close (lp, expected, tol_value))
            g_error ("level %u, propto %d: log density %.15g, expected %.15g", l, propto, lp,
                     expected);
          for (gsize i = 0; i < n; i++)
            if (!rt_test_close (grad[i], fd[i], tol_grad))
              g_error ("level %u, propto %d: d/dtheta[%" G_GSIZE_FORMAT "] %.12g, finite "
                       "differences %.12g", l, propto, i, grad[i], fd[i]);
        }
    }
  for (guint l = 0; l < N_LEVELS; l++)
    tilde_model_free (m[l]);
}

/* The error a model raises at theta, at every level. */
static void
check_error (const char *source, const char *data, const double *theta, const char *message)
{
  TildeModel *m[N_LEVELS];
  models (source, data, m);
  for (guint l = 0; l < N_LEVELS; l++)
    {
      double grad[MAX_PARAMS];
      for (int round = 0; round < 2; round++)
        {
          g_autoptr (TildeModelError) error = NULL;
          double lp = tilde_model_log_density (m[l], theta, FALSE, TRUE, grad, &error);
          g_assert_true (isnan (lp));
          g_assert_nonnull (error);
          if (!strstr (error->message, message))
            g_error ("level %u: \"%s\" does not contain \"%s\"", l, error->message, message);
        }
      tilde_model_free (m[l]);
    }
}

static double
normal_lpdf (double y, double mu, double sigma)
{
  return -0.5 * log (2 * G_PI) - log (sigma) - 0.5 * (y - mu) * (y - mu) / (sigma * sigma);
}

/* ---- reduce_sum ---- */

static const char reduce_model[] =
  "functions {\n"
  "  real partial_sum(array[] real slice, int start, int end, vector mu, real sigma) {\n"
  "    return normal_lpdf(slice | mu[start:end], sigma);\n"
  "  }\n"
  "  real partial_pois_lpmf(array[] int slice, int start, int end, vector lambda) {\n"
  "    return poisson_lupmf(slice | lambda[start:end]);\n"
  "  }\n"
  "}\n"
  "data { int N; array[N] real y; array[N] int c; }\n"
  "parameters { vector[N] mu; real log_sigma; }\n"
  "model {\n"
  "  target += reduce_sum(partial_sum, y, 2, mu, exp(log_sigma));\n"
  "  target += reduce_sum_static(partial_pois_lupmf, c, 3, exp(mu));\n"
  "  target += reduce_sum_static(partial_sum, y, 1, mu, 2.0);\n"
  "}\n";

static const char reduce_data[] = "{\"N\": 7, \"y\": [0.5, 1.5, -0.3, 2.2, 0.9, 1.1, -1.4],"
  " \"c\": [0, 3, 1, 7, 2, 2, 0]}";
static const double reduce_y[] = { 0.5, 1.5, -0.3, 2.2, 0.9, 1.1, -1.4 };
static const int reduce_c[] = { 0, 3, 1, 7, 2, 2, 0 };

static double
reduce_truth (const double *theta, gboolean propto)
{
  double lp = 0, sigma = exp (theta[7]);
  for (int i = 0; i < 7; i++)
    {
      double mu = theta[i], lambda = exp (mu);
      lp += normal_lpdf (reduce_y[i], mu, sigma) + normal_lpdf (reduce_y[i], mu, 2.0);
      lp += reduce_c[i] * mu - lambda - (propto ? 0 : lgamma (reduce_c[i] + 1.0));
    }
  return lp;
}

static void
test_reduce_sum (void)
{
  const double theta[] = { 0.3, 1.1, -0.2, 1.9, 0.7, 0.8, -1.0, -0.25 };
  check_density (reduce_model, reduce_data, theta, 8, reduce_truth, 1e-12, 1e-7);
}

static void
test_reduce_sum_errors (void)
{
  const char *model =
    "functions {\n"
    "  real ps(array[] real s, int a, int b, real m) {\n"
    "    if (m > 10) reject(\"m too large: \", m);\n"
    "    return normal_lpdf(s | m, 1);\n"
    "  }\n"
    "}\n"
    "data { int g; }\n"
    "parameters { real m; }\n"
    "model { target += reduce_sum(ps, {1.0, 2.0}, g, m); }\n";
  const double big[] = { 11 }, small[] = { 1 };
  check_error (model, "{\"g\": 1}", big, "m too large: 11");
  check_error (model, "{\"g\": 0}", small, "reduce_sum: grainsize is 0, but must be positive!");
}

/* ---- map_rect ---- */

static const char map_rect_model[] =
  "functions {\n"
  "  vector lr(vector beta, vector theta, data array[] real x, data array[] int y) {\n"
  "    return [bernoulli_logit_lpmf(y | beta[1] + to_vector(x) * theta[1]),\n"
  "            theta[1] * beta[2]]';\n"
  "  }\n"
  "}\n"
  "data { array[3, 4] real xs; array[3, 4] int ys; }\n"
  "parameters { vector[2] beta; array[3] vector[1] theta; }\n"
  "model { target += sum(map_rect(lr, beta, theta, xs, ys)); }\n";

static const char map_rect_data[] = "{\"xs\": [[0.1, -0.5, 1.2, 0.3], [2.0, -1.0, 0.0, 0.4],"
  " [-0.3, 0.8, 1.5, -2.2]], \"ys\": [[0, 1, 1, 0], [1, 0, 0, 1], [1, 1, 0, 0]]}";
static const double map_rect_x[3][4] = { { 0.1, -0.5, 1.2, 0.3 }, { 2.0, -1.0, 0.0, 0.4 },
                                         { -0.3, 0.8, 1.5, -2.2 } };
static const int map_rect_y[3][4] = { { 0, 1, 1, 0 }, { 1, 0, 0, 1 }, { 1, 1, 0, 0 } };

static double
map_rect_truth (const double *theta, gboolean propto)
{
  double lp = 0;
  for (int j = 0; j < 3; j++)
    {
      double t = theta[2 + j];
      for (int i = 0; i < 4; i++)
        {
          double eta = theta[0] + map_rect_x[j][i] * t;
          /* log inv_logit (eta) or log (1 - inv_logit (eta)) */
          lp += map_rect_y[j][i] ? -log1p (exp (-eta)) : -log1p (exp (eta));
        }
      lp += t * theta[1];
    }
  return lp;
}

static void
test_map_rect (void)
{
  const double theta[] = { 0.2, -0.7, 0.5, -1.1, 0.9 };
  check_density (map_rect_model, map_rect_data, theta, 5, map_rect_truth, 1e-12, 1e-7);
}

/* ---- integrate_1d ---- */

static const char integrate_model[] =
  "functions {\n"
  "  real gam(real x, real xc, array[] real theta, array[] real x_r, array[] int x_i) {\n"
  "    return exp(-theta[1] * x) * pow(x, theta[2]);\n"
  "  }\n"
  "  real gauss(real x, real xc, array[] real theta, array[] real x_r, array[] int x_i) {\n"
  "    return exp(-theta[1] * x^2);\n"
  "  }\n"
  "  real ex(real x, real xc, array[] real theta, array[] real x_r, array[] int x_i) {\n"
  "    return exp(theta[1] * x);\n"
  "  }\n"
  "  real sq(real x, real xc, array[] real theta, array[] real x_r, array[] int x_i) {\n"
  "    return x^2 * x_r[1] * theta[1];\n"
  "  }\n"
  /* xc: a - x near a, b - x near b, NaN with an infinite limit */
  "  real xcsq(real x, real xc, array[] real theta, array[] real x_r, array[] int x_i) {\n"
  "    if (is_nan(xc)) return exp(-x);\n"
  "    if (x < 1 && !(abs(xc + x) < 1e-12)) reject(\"xc near 0 is \", xc);\n"
  "    if (x > 1 && !(abs(xc - (2 - x)) < 1e-12)) reject(\"xc near 2 is \", xc);\n"
  "    return xc^2;\n"
  "  }\n"
  "}\n"
  "parameters { real<lower=0> k; real<lower=0> a; real t; real<lower=0> b; }\n"
  "model {\n"
  "  target += log(integrate_1d(gam, 0, positive_infinity(), {k, a}, {0.0}, {0}));\n"
  "  target += log(integrate_1d(ex, -1, 2, {t}, {0.0}, {0}, 1e-10));\n"
  "  target += integrate_1d(sq, 0.0, b, {1.0}, {2.0}, {0});\n"
  "  target += integrate_1d(xcsq, 0, 2, {0.0}, {0.0}, {0});\n"
  "  target += integrate_1d(xcsq, 0, positive_infinity(), {0.0}, {0.0}, {0});\n"
  "  target += log(integrate_1d(gauss, negative_infinity(), positive_infinity(), {k}, {0.0},\n"
  "                             {0}));\n"
  "  target += log(integrate_1d(ex, negative_infinity(), 1.5, {a}, {0.0}, {0}));\n"
  "}\n";

static double
integrate_truth (const double *theta, gboolean propto)
{
  double k = exp (theta[0]), a = exp (theta[1]), t = theta[2], b = exp (theta[3]);
  return lgamma (a + 1) - (a + 1) * log (k) + log ((exp (2 * t) - exp (-t)) / t)
    + 2 * b * b * b / 3 + 2.0 / 3.0 + 1 + theta[0] + theta[1] + theta[3]
    + 0.5 * log (G_PI / k) + 1.5 * a - log (a);
}

static void
test_integrate_1d (void)
{
  const double theta[] = { -0.3, 0.4, 0.8, 0.2 };
  check_density (integrate_model, NULL, theta, 4, integrate_truth, 1e-7, 1e-5);
}

/* ---- ODEs ---- */

static const char ode_model[] =
  "functions {\n"
  "  vector decay(real t, vector y, real k) { return -k * y; }\n"
  "  vector sho(real t, vector y, real omega) { return [y[2], -omega^2 * y[1]]'; }\n"
  "  array[] real decay_old(real t, array[] real y, array[] real theta, array[] real x_r,\n"
  "                         array[] int x_i) {\n"
  "    return {-theta[1] * y[1] * x_r[1]};\n"
  "  }\n"
  "}\n"
  "data { int T; array[T] real ts; }\n"
  "parameters { real<lower=0> k; real<lower=0> omega; vector[2] y0; real t0x; real s; }\n"
  "model {\n"
  "  array[T] vector[1] z = ode_rk45_tol(decay, [y0[1]]', 0.0, ts, 1e-10, 1e-10, 100000, k);\n"
  "  array[T] vector[2] w = ode_bdf_tol(sho, y0, -1 + 0.1 * t0x, ts, 1e-10, 1e-10, 100000,\n"
  "                                     omega);\n"
  "  array[T, 1] real u = integrate_ode_rk45(decay_old, {y0[2]}, 0.0, ts, {k}, {1.0}, {0},\n"
  "                                          1e-10, 1e-10, 100000);\n"
  "  array[T] vector[2] v = ode_adams_tol(sho, y0, 0.0, ts, 1e-10, 1e-10, 100000, omega);\n"
  "  array[T] vector[1] q = ode_ckrk_tol(decay, [1.0]', 0.0, ts, 1e-10, 1e-10, 100000, k);\n"
  "  array[2] vector[1] r = ode_rk45_tol(decay, [y0[2]]', 0.0, {1.0, 1.0 + exp(s)}, 1e-10,\n"
  "                                      1e-10, 100000, k);\n"
  "  for (t in 1:T)\n"
  "    target += z[t][1] + 0.5 * w[t][1] - 0.25 * w[t][2] + 0.1 * u[t, 1] + 0.3 * v[t][1]\n"
  "              + 0.2 * v[t][2] - 0.7 * q[t][1];\n"
  "  target += r[1][1] + r[2][1];\n"
  "}\n";

static const char ode_data[] = "{\"T\": 3, \"ts\": [0.5, 1.0, 2.5]}";

/* The harmonic oscillator y'' = -omega^2 y from (t0, y0), at t. */
static void
sho_at (double omega, double y1, double y2, double t0, double t, double *w1, double *w2)
{
  double d = t - t0;
  *w1 = y1 * cos (omega * d) + y2 / omega * sin (omega * d);
  *w2 = -y1 * omega * sin (omega * d) + y2 * cos (omega * d);
}

static double
ode_truth (const double *theta, gboolean propto)
{
  static const double ts[] = { 0.5, 1.0, 2.5 };
  double k = exp (theta[0]), omega = exp (theta[1]), y1 = theta[2], y2 = theta[3];
  double t0 = -1 + 0.1 * theta[4], s = exp (theta[5]);
  double lp = theta[0] + theta[1];
  for (int j = 0; j < 3; j++)
    {
      double w1, w2, v1, v2;
      sho_at (omega, y1, y2, t0, ts[j], &w1, &w2);
      sho_at (omega, y1, y2, 0, ts[j], &v1, &v2);
      lp += y1 * exp (-k * ts[j]) + 0.5 * w1 - 0.25 * w2 + 0.1 * y2 * exp (-k * ts[j])
        + 0.3 * v1 + 0.2 * v2 - 0.7 * exp (-k * ts[j]);
    }
  lp += y2 * exp (-k) + y2 * exp (-k * (1 + s));
  return lp;
}

static void
test_ode (void)
{
  const double theta[] = { -0.35, 0.26, 1.2, -0.4, 0.3, -0.5 };
  check_density (ode_model, ode_data, theta, 6, ode_truth, 1e-7, 1e-6);
}

/* Stiff: y' = -lambda (y - cos t), y(0) = y0, lambda = 1000 exp(u). */
static const char stiff_model[] =
  "functions {\n"
  "  vector stiff(real t, vector y, real lambda) { return -lambda * (y - cos(t)); }\n"
  "}\n"
  "data { int steps; }\n"
  "parameters { real u; real y0; }\n"
  "model {\n"
  "  array[2] vector[1] z = ode_bdf_tol(stiff, [y0]', 0.0, {1.0, 10.0}, 1e-9, 1e-9, steps,\n"
  "                                     1000 * exp(u));\n"
  "  target += z[1][1] + 2 * z[2][1];\n"
  "}\n";

static double
stiff_at (double lambda, double y0, double t)
{
  double l2 = lambda * lambda;
  return (y0 - l2 / (l2 + 1)) * exp (-lambda * t) + (l2 * cos (t) + lambda * sin (t)) / (l2 + 1);
}

static double
stiff_truth (const double *theta, gboolean propto)
{
  double lambda = 1000 * exp (theta[0]);
  return stiff_at (lambda, theta[1], 1) + 2 * stiff_at (lambda, theta[1], 10);
}

static void
test_ode_stiff (void)
{
  const double theta[] = { 0.1, 2.0 };
  check_density (stiff_model, "{\"steps\": 500}", theta, 2, stiff_truth, 1e-7, 1e-6);
  /* the explicit method needs far more steps on the same problem */
  GString *s = g_string_new (stiff_model);
  g_string_replace (s, "ode_bdf_tol", "ode_rk45_tol", 0);
  check_error (s->str, "{\"steps\": 500}", theta,
               "ode_rk45_tol: Failed to integrate to next output time (1) in less than "
               "max_num_steps steps");
  g_string_free (s, TRUE);
}

static void
test_ode_errors (void)
{
  const char *model =
    "functions {\n"
    "  vector f(real t, vector y, real k) {\n"
    "    if (t > 0.5) reject(\"t reached \", t);\n"
    "    return -k * y;\n"
    "  }\n"
    "  vector g(real t, vector y, real k) { return [1, 2, 3]'; }\n"
    "}\n"
    "data { int which; }\n"
    "parameters { real<lower=0> k; }\n"
    "model {\n"
    "  if (which == 1) target += ode_rk45(f, [1.0]', 0.0, {1.0}, k)[1][1];\n"
    "  if (which == 2) target += ode_bdf(f, [1.0]', 0.0, {1.0}, k)[1][1];\n"
    "  if (which == 3) target += ode_rk45(f, [1.0]', 2.0, {1.0}, k)[1][1];\n"
    "  if (which == 4) target += ode_adams(f, [1.0]', 0.0, {0.2, 0.1}, k)[1][1];\n"
    "  if (which == 5) target += ode_rk45(g, [1.0, 2.0]', 0.0, {1.0}, k)[1][1];\n"
    "  if (which == 6) target += ode_rk45_tol(f, [1.0]', 0.0, {1.0}, -1, 1e-6, 100, k)[1][1];\n"
    "}\n";
  const double theta[] = { 0.1 };
  check_error (model, "{\"which\": 1}", theta, "t reached ");
  check_error (model, "{\"which\": 2}", theta, "t reached ");
  check_error (model, "{\"which\": 3}", theta, "ode_rk45: initial time is 2, but must be less "
               "than 1");
  check_error (model, "{\"which\": 4}", theta, "ode_adams: times is not a valid sorted vector. "
               "The element at 2 is 0.1, but should be greater than or equal to the previous "
               "element, 0.2");
  check_error (model, "{\"which\": 5}", theta, "ode_rk45: dy_dt (3) and states (2) must match "
               "in size");
  check_error (model, "{\"which\": 6}", theta, "ode_rk45_tol: relative_tolerance is -1, but must "
               "be positive finite!");
}

/* ---- algebraic solvers ---- */

static const char algebra_model[] =
  "functions {\n"
  "  vector sys(vector x, real a, real b) { return [x[1]^2 + x[2] - a, x[1] - x[2] - b]'; }\n"
  "  vector sys_old(vector x, vector y, array[] real d, array[] int di) {\n"
  "    return [x[1]^2 + x[2] - y[1], x[1] - x[2] - y[2] * d[1]]';\n"
  "  }\n"
  "}\n"
  "parameters { real a; real b; }\n"
  "model {\n"
  "  vector[2] g = [1, 1]';\n"
  "  vector[2] x1 = solve_powell(sys, g, exp(a), b);\n"
  "  vector[2] x2 = solve_newton(sys, g, exp(a), b);\n"
  "  vector[2] x3 = solve_powell_tol(sys, g, 1e-12, 1e-10, 100, exp(a), b);\n"
  "  vector[2] x4 = algebra_solver(sys_old, g, [exp(a), b]', {1.0}, {0});\n"
  "  vector[2] x5 = algebra_solver_newton(sys_old, g, [exp(a), b]', {1.0}, {0}, 1e-10, 1e-8,\n"
  "                                       100);\n"
  "  vector[2] x6 = solve_newton_tol(sys, g, 1e-3, 1e-8, 100, exp(a), 0.5);\n"
  "  target += x1[1] + 2 * x1[2] + 0.5 * x2[1] - x2[2] + x3[1] + 0.3 * x4[2] + 0.2 * x5[1]\n"
  "            + x6[2];\n"
  "}\n";

/* The root of x1^2 + x2 = A, x1 - x2 = b near (1, 1). */
static double
root1 (double A, double b)
{
  return (-1 + sqrt (1 + 4 * (A + b))) / 2;
}

static double
algebra_truth (const double *theta, gboolean propto)
{
  double A = exp (theta[0]), b = theta[1];
  double x1 = root1 (A, b), x2 = x1 - b;
  double y1 = root1 (A, 0.5), y2 = y1 - 0.5;
  return x1 * (1 + 0.5 + 1 + 0.2) + x2 * (2 - 1 + 0.3) + y2;
}

static void
test_algebra (void)
{
  const double theta[] = { 0.3, 0.4 };
  check_density (algebra_model, NULL, theta, 2, algebra_truth, 1e-9, 1e-6);
}

static void
test_algebra_errors (void)
{
  const char *model =
    "functions {\n"
    "  vector none(vector x, real a) { return [x[1]^2 + a]'; }\n"
    "  vector bad(vector x, real a) { if (a > 5) reject(\"a is \", a); return x - a; }\n"
    "}\n"
    "data { int which; }\n"
    "parameters { real<lower=0> a; }\n"
    "model {\n"
    "  if (which == 1) target += solve_powell(none, [1.0]', a)[1];\n"
    "  if (which == 2) target += solve_newton(bad, [1.0]', a)[1];\n"
    "  if (which == 3) target += solve_powell_tol(bad, [1.0]', -1.0, 1e-6, 10, a)[1];\n"
    "}\n";
  const double small[] = { 0.5 }, big[] = { 2 };
  check_error (model, "{\"which\": 1}", small, "solve_powell: ");
  check_error (model, "{\"which\": 2}", big, "a is 7.389");
  check_error (model, "{\"which\": 3}", small, "solve_powell_tol: relative_tolerance is -1, "
               "but must be positive!");
}

/* ---- DAEs ---- */

static const char dae_model[] =
  "functions {\n"
  /* index one, semi-explicit: y2 is algebraic */
  "  vector semi(real t, vector y, vector yp, real k, real c) {\n"
  "    return [yp[1] + k * y[1], y[2] - 2 * y[1] - c]';\n"
  "  }\n"
  /* an implicit ODE: dF/dy' is invertible */
  "  vector impl(real t, vector y, vector yp, real k, real m) {\n"
  "    return [yp[1] + yp[2] + k * y[1] + m * y[2], yp[2] + m * y[2]]';\n"
  "  }\n"
  "}\n"
  "data { int T; array[T] real ts; }\n"
  "parameters { real<lower=0> k; real c; real a; real<lower=0> m; }\n"
  "model {\n"
  "  array[T] vector[2] u = dae_tol(semi, [a, 2 * a + c]', [-k * a, 0]', 0.0, ts, 1e-10, 1e-10,\n"
  "                                 100000, k, c);\n"
  "  array[T] vector[2] v = dae(impl, [a, 1.5]', [-k * a, -1.5 * m]', 0.0, ts, k, m);\n"
  "  for (t in 1:T)\n"
  "    target += u[t][1] + 0.5 * u[t][2] + 0.3 * v[t][1] - 0.7 * v[t][2];\n"
  "}\n";

static double
dae_truth (const double *theta, gboolean propto)
{
  static const double ts[] = { 0.5, 1.0, 2.5 };
  double k = exp (theta[0]), c = theta[1], a = theta[2], m = exp (theta[3]);
  double lp = theta[0] + theta[3];
  for (int j = 0; j < 3; j++)
    {
      double y1 = a * exp (-k * ts[j]);
      lp += y1 + 0.5 * (2 * y1 + c) + 0.3 * y1 - 0.7 * 1.5 * exp (-m * ts[j]);
    }
  return lp;
}

static void
test_dae (void)
{
  const double theta[] = { -0.3, 0.4, 1.3, 0.2 };
  check_density (dae_model, ode_data, theta, 4, dae_truth, 1e-7, 1e-6);
  const char *bad =
    "functions {\n"
    "  vector f(real t, vector y, vector yp, real k) {\n"
    "    if (t > 0.5) reject(\"t reached \", t);\n"
    "    return [yp[1] + k * y[1], y[2] - y[1]]';\n"
    "  }\n"
    "}\n"
    "parameters { real<lower=0> k; }\n"
    "model { target += dae(f, [1.0, 1.0]', [-k, 0]', 0.0, {1.0}, k)[1][1]; }\n";
  const double k[] = { 0.1 };
  check_error (bad, NULL, k, "t reached ");
}

/* ---- complex numbers ---- */

static const char complex_model[] =
  "parameters { real a; real b; vector[4] x; }\n"
  "model {\n"
  "  complex z = to_complex(a, b);\n"
  "  complex w = z * z + exp(z) / (1 + z) - pow(z, to_complex(0.5, 0.25)) + sqrt(z) * sin(z);\n"
  "  target += get_real(w) + 0.3 * get_imag(w) + abs(z) + arg(z) + norm(conj(z));\n"
  "  target += get_real(log(z) + cosh(z) * atan(z) + polar(a^2, b));\n"
  "  complex_vector[4] f = fft(to_complex(x, 0.5 * x));\n"
  "  target += dot_self(get_real(f)) - 0.5 * sum(get_imag(f));\n"
  "  complex_vector[4] g = inv_fft(f);\n"
  "  g[2] = z;\n"
  "  target += 0.1 * sum(get_real(g)) + 0.2 * sum(get_imag(g));\n"
  "  complex_matrix[2, 2] M = [[z, 1], [2i, z * 3]];\n"
  "  complex_matrix[2, 2] P = M * M';\n"
  "  target += get_real(P[1, 2]) + get_imag(P[2, 1]) + get_real(sum(fft2(M)));\n"
  "  complex_vector[2] u = [z, to_complex(a, 1)]';\n"
  "  complex_vector[2] v = [2i, z * z]';\n"
  "  complex d = dot_product(u, v);\n"
  "  target += get_real(d) + 0.4 * get_imag(d) + get_real(dot_self(u)) + get_imag(prod(u));\n"
  "  array[2] complex ua = {z, 3};\n"
  "  target += get_imag(dot_product(ua, ua));\n"
  "  complex_matrix[2, 2] DM = diag_pre_multiply(u, M) + diag_post_multiply(M, v);\n"
  "  target += get_real(DM[1, 2]) + get_imag(DM[2, 1]);\n"
  "  complex_matrix[2, 2] N = [[z, 2], [1i, 3 - z]];\n"
  "  complex_row_vector[2] cd = columns_dot_product(M, N);\n"
  "  complex_vector[2] rd = rows_dot_product(M, N);\n"
  "  target += get_real(cd[1]) + get_imag(cd[2]) + get_real(rd[2]) + 0.5 * get_imag(rd[1]);\n"
  "  target += get_real(columns_dot_self(M)[2]) + get_real(rows_dot_self(M)[1]);\n"
  "  complex_matrix[2, 2] Q = mdivide_right(N, M);\n"
  "  complex_row_vector[2] q = mdivide_right(u', M);\n"
  "  target += get_real(Q[1, 2]) + get_imag(Q[2, 1]) + get_real(q[1]) + get_imag(q[2]);\n"
  "  vector[2] sv = singular_values(M);\n"
  "  target += sv[1] + 0.5 * sv[2];\n"
  "}\n";

/* The same in C99 complex arithmetic, with the DFT as its sum. */
static double
complex_truth (const double *theta, gboolean propto)
{
  double a = theta[0], b = theta[1];
  double complex z = a + I * b;
  double complex w = z * z + cexp (z) / (1 + z) - cpow (z, 0.5 + 0.25 * I) + csqrt (z) * csin (z);
  double lp = creal (w) + 0.3 * cimag (w) + cabs (z) + carg (z) + creal (z) * creal (z)
    + cimag (z) * cimag (z);
  lp += creal (clog (z) + ccosh (z) * catan (z)) + a * a * cos (b);
  double complex x[4], f[4], g[4];
  for (int k = 0; k < 4; k++)
    x[k] = theta[2 + k] + 0.5 * I * theta[2 + k];
  for (int k = 0; k < 4; k++)
    {
      f[k] = 0;
      for (int j = 0; j < 4; j++)
        f[k] += x[j] * cexp (-2 * G_PI * I * j * k / 4);
      lp += creal (f[k]) * creal (f[k]) - 0.5 * cimag (f[k]);
    }
  for (int k = 0; k < 4; k++)
    g[k] = x[k];
  g[1] = z;
  for (int k = 0; k < 4; k++)
    lp += 0.1 * creal (g[k]) + 0.2 * cimag (g[k]);
  double complex M[2][2] = { { z, 1 }, { 2 * I, 3 * z } };
  /* P = M M* (the transpose ' conjugates nothing in Stan: plain transpose) */
  double complex p12 = M[0][0] * M[1][0] + M[0][1] * M[1][1];
  double complex p21 = M[1][0] * M[0][0] + M[1][1] * M[0][1];
  lp += creal (p12) + cimag (p21);
  /* the sum of the 2-d DFT of a 2 x 2 matrix is 4 M[0][0] */
  lp += creal (4 * M[0][0]);
  /* vectors' dot products conjugate the first (as Eigen's), arrays' do not */
  double complex u[2] = { z, a + I }, v[2] = { 2 * I, z * z };
  double complex d = conj (u[0]) * v[0] + conj (u[1]) * v[1];
  lp += creal (d) + 0.4 * cimag (d) + cabs (z) * cabs (z) + a * a + 1 + cimag (z * (a + I));
  lp += cimag (z * z + 9);
  /* diag (u) M + M diag (v) */
  lp += creal (u[0] * M[0][1] + M[0][1] * v[1]) + cimag (u[1] * M[1][0] + M[1][0] * v[0]);
  /* columns' and rows' dot products conjugate nothing (Eigen's
   * cwiseProduct); their dot_self forms sum |x|^2 */
  double complex N[2][2] = { { z, 2 }, { I, 3 - z } };
  double complex cd1 = M[0][1] * N[0][1] + M[1][1] * N[1][1];
  double complex cd0 = M[0][0] * N[0][0] + M[1][0] * N[1][0];
  double complex rd0 = M[0][0] * N[0][0] + M[0][1] * N[0][1];
  double complex rd1 = M[1][0] * N[1][0] + M[1][1] * N[1][1];
  lp += creal (cd0) + cimag (cd1) + creal (rd1) + 0.5 * cimag (rd0);
  lp += pow (cabs (M[0][1]), 2) + pow (cabs (M[1][1]), 2) + pow (cabs (M[0][0]), 2)
    + pow (cabs (M[0][1]), 2);
  /* N M^-1 and u^T M^-1 by the 2 x 2 inverse */
  double complex det = M[0][0] * M[1][1] - M[0][1] * M[1][0];
  double complex inv[2][2] = { { M[1][1] / det, -M[0][1] / det },
                               { -M[1][0] / det, M[0][0] / det } };
  double complex q12 = N[0][0] * inv[0][1] + N[0][1] * inv[1][1];
  double complex q21 = N[1][0] * inv[0][0] + N[1][1] * inv[1][0];
  double complex r0 = u[0] * inv[0][0] + u[1] * inv[1][0];
  double complex r1 = u[0] * inv[0][1] + u[1] * inv[1][1];
  lp += creal (q12) + cimag (q21) + creal (r0) + cimag (r1);
  /* the singular values of M: the square roots of the eigenvalues of the
   * Hermitian M^H M, [[p, q], [conj q, r]] */
  double p = pow (cabs (M[0][0]), 2) + pow (cabs (M[1][0]), 2);
  double r = pow (cabs (M[0][1]), 2) + pow (cabs (M[1][1]), 2);
  double complex q = conj (M[0][0]) * M[0][1] + conj (M[1][0]) * M[1][1];
  double half = 0.5 * (p + r), gap = sqrt (0.25 * (p - r) * (p - r) + pow (cabs (q), 2));
  lp += sqrt (half + gap) + 0.5 * sqrt (half - gap);
  return lp;
}

static void
test_complex (void)
{
  const double theta[] = { 0.7, -0.4, 0.3, -1.2, 0.8, 0.5 };
  check_density (complex_model, NULL, theta, 6, complex_truth, 1e-12, 1e-6);
}

/* ---- in generated quantities: values only ---- */

static void
test_hof_generated_quantities (void)
{
  const char *model =
    "functions {\n"
    "  vector decay(real t, vector y, real k) { return -k * y; }\n"
    "  real gam(real x, real xc, array[] real theta, array[] real x_r, array[] int x_i) {\n"
    "    return exp(-theta[1] * x);\n"
    "  }\n"
    "  vector sys(vector x, real a) { return [x[1]^2 - a]'; }\n"
    "  vector semi(real t, vector y, vector yp, real k) {\n"
    "    return [yp[1] + k * y[1], y[2] - 3 * y[1]]';\n"
    "  }\n"
    "  real ps(array[] real s, int a, int b, real m) { return sum(s) * m; }\n"
    "}\n"
    "parameters { real<lower=0> k; }\n"
    "model { k ~ lognormal(0, 1); }\n"
    "generated quantities {\n"
    "  real y_bdf = ode_bdf(decay, [2.0]', 0.0, {1.5}, k)[1][1];\n"
    "  real y_adams = ode_adams(decay, [2.0]', 0.0, {1.5}, k)[1][1];\n"
    "  real area = integrate_1d(gam, 0, positive_infinity(), {k}, {0.0}, {0});\n"
    "  real root = solve_newton(sys, [1.0]', k)[1];\n"
    "  real alg = dae(semi, [1.0, 3.0]', [-k, 0]', 0.0, {2.0}, k)[1][2];\n"
    "  real rs = reduce_sum(ps, {1.0, 2.0, 3.0}, 1, k);\n"
    "}\n";
  g_autoptr (TildeModel) m = rt_test_model (model, NULL);
  double theta = log (0.8), out[8];
  g_autoptr (TildeModelError) error = NULL;
  g_assert_true (tilde_model_constrain (m, &theta, TRUE, TRUE, NULL, out, &error));
  double k = 0.8;
  g_assert_true (rt_test_close (out[0], k, 1e-15));
  g_assert_true (rt_test_close (out[1], 2 * exp (-1.5 * k), 1e-8));
  g_assert_true (rt_test_close (out[2], 2 * exp (-1.5 * k), 1e-8));
  g_assert_true (rt_test_close (out[3], 1 / k, 1e-8));
  g_assert_true (rt_test_close (out[4], sqrt (k), 1e-10));
  g_assert_true (rt_test_close (out[5], 3 * exp (-2 * k), 1e-8));
  g_assert_true (rt_test_close (out[6], 6 * k, 1e-15));
}

/* ---- library functions in models ---- */

/* The same log density and gradient at every level, the gradient against
 * finite differences of the model's own density. */
static void
check_levels (const char *source, const char *data, const double *theta, gsize n)
{
  TildeModel *m[N_LEVELS];
  models (source, data, m);
  g_assert_cmpuint (tilde_model_num_params_unconstrained (m[0]), ==, n);
  double lp[N_LEVELS], grad[N_LEVELS][MAX_PARAMS];
  for (guint l = 0; l < N_LEVELS; l++)
    {
      g_autoptr (TildeModelError) error = NULL;
      lp[l] = tilde_model_log_density (m[l], theta, FALSE, TRUE, grad[l], &error);
      if (error)
        g_error ("level %u: %s", l, error->message);
      g_assert_true (rt_test_close (lp[l], lp[0], 1e-12));
      for (gsize i = 0; i < n; i++)
        g_assert_true (rt_test_close (grad[l][i], grad[0][i], 1e-10));
    }
  for (gsize i = 0; i < n; i++)
    {
      double x[MAX_PARAMS], f[4], h = 1e-5 * fmax (1, fabs (theta[i]));
      memcpy (x, theta, sizeof (double) * n);
      for (int s = 0; s < 4; s++)
        {
          double hs = (s & 2) ? 0.5 * h : h;
          x[i] = theta[i] + ((s & 1) ? hs : -hs);
          f[s] = tilde_model_log_density (m[0], x, FALSE, TRUE, NULL, NULL);
        }
      double d1 = (f[1] - f[0]) / (2 * h), d2 = (f[3] - f[2]) / h;
      double numeric = (4 * d2 - d1) / 3;
      if (!rt_test_close (grad[0][i], numeric, 1e-6))
        g_error ("d/dtheta[%" G_GSIZE_FORMAT "] %.12g, finite differences %.12g", i,
                 grad[0][i], numeric);
    }
  for (guint l = 0; l < N_LEVELS; l++)
    tilde_model_free (m[l]);
}

/* The eigenvalues of general matrices of parameters, real and complex:
 * functions of them that do not depend on their order, against finite
 * differences. A has a real eigenvalue and a conjugate pair. */
static void
test_eigenvalues_of_parameters (void)
{
  const char *model =
    "parameters { matrix[3, 3] A; complex_matrix[2, 2] Z; }\n"
    "model {\n"
    "  complex_vector[3] l = eigenvalues(A);\n"
    "  complex_vector[2] m = eigenvalues(Z);\n"
    "  for (k in 1:3)\n"
    "    target += abs(l[k]) + get_real(l[k])^3 / 10 + get_imag(l[k])^2\n"
    "              + get_real(exp(0.3 * l[k]));\n"
    "  for (k in 1:2)\n"
    "    target += abs(m[k]) + get_real(m[k]) * get_imag(m[k]) + get_real(m[k])^2;\n"
    "}\n";
  /* A column by column, then Z's (re, im) pairs column by column */
  const double theta[] = { 0.5, 1, 0.1, -1, 0.3, 0.2, 0.2, 0, 0.9,
                           0.4, -0.3, 1.1, 0.2, -0.6, 0.8, 0.7, 0.5 };
  check_levels (model, NULL, theta, G_N_ELEMENTS (theta));

  /* a defective matrix (a Jordan block) has eigenvalues without derivative */
  g_autoptr (TildeModel) m = rt_test_model (model, NULL);
  const double jordan[] = { 1, 0, 0, 1, 1, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 1, 0 };
  double grad[17];
  g_autoptr (TildeModelError) error = NULL;
  tilde_model_log_density (m, jordan, FALSE, TRUE, grad, &error);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "eigenvalues: m is defective"));

  /* eigenvectors are defined up to a complex factor each: refused, named */
  g_autoptr (TildeModel) v = rt_test_model ("parameters { matrix[2, 2] B; }\n"
                                            "model { target += get_real(eigenvectors(B)[1, 1]); }\n",
                                            NULL);
  g_autoptr (TildeModelError) refused = NULL;
  const double b[] = { 1, 2, 3, 4 };
  tilde_model_log_density (v, b, FALSE, TRUE, grad, &refused);
  g_assert_nonnull (refused);
  g_assert_cmpstr (refused->message, ==, "eigenvectors: the eigenvectors of a matrix of parameters "
                   "have no derivatives here (each is defined only up to a complex factor)");
}

static const char library_model[] =
  "data { int K; int N; matrix[K, N] lo; matrix[3, 4] S; }\n"
  "transformed data {\n"
  "  vector[5] w = csr_extract_w(S);\n"
  "  array[5] int v = csr_extract_v(S);\n"
  "  array[4] int u = csr_extract_u(S);\n"
  "}\n"
  "parameters { simplex[K] rho; array[K] simplex[K] g; matrix[3, 3] A; vector[4] b; }\n"
  "model {\n"
  "  matrix[K, K] Gamma;\n"
  "  for (k in 1:K) Gamma[k] = g[k]';\n"
  "  target += hmm_marginal(lo + A[1, 1], Gamma, rho);\n"
  "  target += sum(csr_matrix_times_vector(3, 4, w, v, u, b));\n"
  "  target += sum(qr_thin_Q(A)) + sum(qr_thin_R(A));\n"
  "  target += sum(singular_values(A)) + sum(svd_U(A));\n"
  "  target += sum(matrix_exp(0.3 * A));\n"
  "  target += sum(generalized_inverse(A + diag_matrix(rep_vector(3, 3))));\n"
  "  target += normal_lpdf(to_vector(A) | 0, 1) + normal_lpdf(b | 0, 1);\n"
  "}\n";

static void
test_library_in_models (void)
{
  const char *data = "{\"K\": 2, \"N\": 3, \"lo\": [[-1.0, -0.5, -2.0], [-0.3, -1.5, -0.9]],"
    " \"S\": [[0, 2.5, 0, -1], [0, 0, 0, 0], [4, 0, 0.5, 3]]}";
  const double theta[] = { 0.3, -0.4, 0.8, 1.1, 0.5, -0.6, 0.2, 0.9, -0.3, 1.4, 0.1, 0.7,
                           -0.2, 0.4, 0.6, -0.8 };
  check_levels (library_model, data, theta, 16);
}

/* ---- the transforms as functions ---- */

static void
test_transform_functions (void)
{
  /* the same density written with constrained parameters */
  const char *with_functions =
    "parameters { vector[3] y; real z; array[2] real w; vector[2] q; }\n"
    "transformed parameters {\n"
    "  simplex[4] s = simplex_jacobian(y);\n"
    "  real<lower=1> l = lower_bound_jacobian(z, 1.0);\n"
    "  array[2] real<lower=-1, upper=2> b = lower_upper_bound_jacobian(w, {-1.0, -1.0}, 2);\n"
    "  ordered[2] o = ordered_jacobian(q);\n"
    "}\n"
    "model {\n"
    "  target += dirichlet_lpdf(s | [1, 2, 3, 4]') + exponential_lpdf(l - 1 | 1);\n"
    "  target += normal_lpdf(b | 0.5, 1) + normal_lpdf(o | 0, 2);\n"
    "  target += 0.1 * sum(simplex_constrain(y)) + 0.2 * lower_bound_unconstrain(l, 1.0);\n"
    "  target += 0.3 * sum(lower_upper_bound_unconstrain(b, {-1.0, -1.0}, 2));\n"
    "}\n";
  const char *with_parameters =
    "parameters { simplex[4] s; real<lower=1> l; array[2] real<lower=-1, upper=2> b;\n"
    "  ordered[2] o; }\n"
    "model {\n"
    "  target += dirichlet_lpdf(s | [1, 2, 3, 4]') + exponential_lpdf(l - 1 | 1);\n"
    "  target += normal_lpdf(b | 0.5, 1) + normal_lpdf(o | 0, 2);\n"
    "  target += 0.1 + 0.2 * log(l - 1) + 0.3 * sum(logit((to_vector(b) + 1) / 3));\n"
    "}\n";
  const double theta[] = { 0.3, -0.5, 0.8, 0.4, -0.7, 1.2, 0.1, 0.6 };
  TildeModel *a[N_LEVELS], *b[N_LEVELS];
  models (with_functions, NULL, a);
  models (with_parameters, NULL, b);
  for (guint l = 0; l < N_LEVELS; l++)
    for (int jac = 0; jac < 2; jac++)
      {
        double ga[MAX_PARAMS], gb[MAX_PARAMS];
        g_autoptr (TildeModelError) ea = NULL;
        g_autoptr (TildeModelError) eb = NULL;
        double la = tilde_model_log_density (a[l], theta, FALSE, jac, ga, &ea);
        double lb = tilde_model_log_density (b[l], theta, FALSE, jac, gb, &eb);
        g_assert_null (ea);
        g_assert_null (eb);
        if (!rt_test_close (la, lb, 1e-12))
          g_error ("level %u, jacobian %d: %.15g and %.15g", l, jac, la, lb);
        for (int i = 0; i < 8; i++)
          g_assert_true (rt_test_close (ga[i], gb[i], 1e-10));
      }
  for (guint l = 0; l < N_LEVELS; l++)
    {
      tilde_model_free (a[l]);
      tilde_model_free (b[l]);
    }

  /* unconstraining parameters inverts constraining them, derivatives
   * included (unit_vector's inverse keeps only the direction) */
  const char *inverted =
    "parameters { array[2] vector[2] y; vector[3] c; matrix[2, 2] m; vector[2] e; vector[3] f;\n"
    "  vector[3] o; vector[3] u; }\n"
    "model {\n"
    "  array[2] vector[2] y2 = simplex_unconstrain(simplex_constrain(y));\n"
    "  vector[3] c2 = cholesky_factor_corr_unconstrain(cholesky_factor_corr_constrain(c, 3));\n"
    "  matrix[2, 2] m2 = stochastic_row_unconstrain(stochastic_row_constrain(m));\n"
    "  vector[2] e2 = sum_to_zero_unconstrain(sum_to_zero_constrain(e));\n"
    "  vector[3] f2 = cov_matrix_unconstrain(cov_matrix_constrain(f, 2));\n"
    "  vector[3] o2 = positive_ordered_unconstrain(positive_ordered_constrain(o));\n"
    "  vector[3] u2 = unit_vector_unconstrain(unit_vector_constrain(u));\n"
    "  target += normal_lpdf(y2[1] | 0.3, 1) + normal_lpdf(y2[2] | -0.2, 2) + normal_lpdf(c2 | 0, 1)\n"
    "    + normal_lpdf(to_vector(m2) | 1, 1) + normal_lpdf(e2 | -1, 1) + normal_lpdf(f2 | 0.5, 1)\n"
    "    + normal_lpdf(o2 | 0, 3) + normal_lpdf(u2 | [0.2, -0.4, 0.6]', 1);\n"
    "}\n";
  const char *direct =
    "parameters { array[2] vector[2] y; vector[3] c; matrix[2, 2] m; vector[2] e; vector[3] f;\n"
    "  vector[3] o; vector[3] u; }\n"
    "model {\n"
    "  target += normal_lpdf(y[1] | 0.3, 1) + normal_lpdf(y[2] | -0.2, 2) + normal_lpdf(c | 0, 1)\n"
    "    + normal_lpdf(to_vector(m) | 1, 1) + normal_lpdf(e | -1, 1) + normal_lpdf(f | 0.5, 1)\n"
    "    + normal_lpdf(o | 0, 3) + normal_lpdf(u / norm2(u) | [0.2, -0.4, 0.6]', 1);\n"
    "}\n";
  const double at[22] = { 0.3, -0.5, 0.8, 0.4, -0.7, 1.2, 0.1, 0.6, -0.3, 0.9, 1.1, -1.4, 0.2,
                          0.5, -0.6, 0.7, 0.35, -0.25, 1.5, 0.8, -0.9, 0.45 };
  models (inverted, NULL, a);
  models (direct, NULL, b);
  for (guint l = 0; l < N_LEVELS; l++)
    {
      double ga[MAX_PARAMS], gb[MAX_PARAMS];
      g_autoptr (TildeModelError) ea = NULL;
      g_autoptr (TildeModelError) eb = NULL;
      double la = tilde_model_log_density (a[l], at, FALSE, TRUE, ga, &ea);
      double lb = tilde_model_log_density (b[l], at, FALSE, TRUE, gb, &eb);
      if (ea)
        g_error ("level %u: %s", l, ea->message);
      g_assert_null (eb);
      if (!rt_test_close (la, lb, 1e-10))
        g_error ("level %u: %.15g and %.15g", l, la, lb);
      for (int i = 0; i < 22; i++)
        if (!rt_test_close (ga[i], gb[i], 1e-8))
          g_error ("level %u: d/dtheta[%d] %.15g and %.15g", l, i, ga[i], gb[i]);
    }
  for (guint l = 0; l < N_LEVELS; l++)
    {
      tilde_model_free (a[l]);
      tilde_model_free (b[l]);
    }

  /* unconstraining data inverts constraining it */
  const char *round_trip =
    "transformed data {\n"
    "  vector[3] y = [0.3, -1.2, 0.7]';\n"
    "  matrix[2, 3] m = [[0.1, 0.2, -0.3], [0.5, -0.4, 0.9]];\n"
    "}\n"
    "parameters { real x; }\n"
    "model { x ~ normal(0, 1); }\n"
    "generated quantities {\n"
    "  vector[3] a = simplex_unconstrain(simplex_constrain(y));\n"
    "  vector[3] c = cholesky_factor_corr_unconstrain(cholesky_factor_corr_constrain(y, 3));\n"
    "  matrix[2, 3] d = stochastic_row_unconstrain(stochastic_row_constrain(m));\n"
    "  vector[3] e = sum_to_zero_unconstrain(sum_to_zero_constrain(y));\n"
    "  vector[3] f = cov_matrix_unconstrain(cov_matrix_constrain(y, 2));\n"
    "}\n";
  g_autoptr (TildeModel) m = rt_test_model (round_trip, NULL);
  double out[64], x = 0.1;
  g_autoptr (TildeModelError) error = NULL;
  g_assert_true (tilde_model_constrain (m, &x, TRUE, TRUE, NULL, out, &error));
  const double y[] = { 0.3, -1.2, 0.7 }, mm[] = { 0.1, 0.5, 0.2, -0.4, -0.3, 0.9 };
  for (int i = 0; i < 3; i++)
    {
      g_assert_true (rt_test_close (out[1 + i], y[i], 1e-12));
      g_assert_true (rt_test_close (out[4 + i], y[i], 1e-12));
      g_assert_true (rt_test_close (out[13 + i], y[i], 1e-12));
      g_assert_true (rt_test_close (out[16 + i], y[i], 1e-12));
    }
  for (int i = 0; i < 6; i++)
    g_assert_true (rt_test_close (out[7 + i], mm[i], 1e-12));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/runtime/hof/reduce-sum", test_reduce_sum);
  g_test_add_func ("/runtime/hof/reduce-sum-errors", test_reduce_sum_errors);
  g_test_add_func ("/runtime/hof/map-rect", test_map_rect);
  g_test_add_func ("/runtime/hof/integrate-1d", test_integrate_1d);
  g_test_add_func ("/runtime/hof/ode", test_ode);
  g_test_add_func ("/runtime/hof/ode-stiff", test_ode_stiff);
  g_test_add_func ("/runtime/hof/ode-errors", test_ode_errors);
  g_test_add_func ("/runtime/hof/algebra", test_algebra);
  g_test_add_func ("/runtime/hof/algebra-errors", test_algebra_errors);
  g_test_add_func ("/runtime/hof/dae", test_dae);
  g_test_add_func ("/runtime/hof/library-in-models", test_library_in_models);
  g_test_add_func ("/runtime/hof/complex", test_complex);
  g_test_add_func ("/runtime/hof/eigenvalues-of-parameters", test_eigenvalues_of_parameters);
  g_test_add_func ("/runtime/hof/generated-quantities", test_hof_generated_quantities);
  g_test_add_func ("/runtime/hof/transform-functions", test_transform_functions);
  return g_test_run ();
}
