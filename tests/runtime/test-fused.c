/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Densities with fused arguments and loops run as one vectorised density:
 * each model is prepared twice, with those forms and with every statement
 * run as written, and the two must agree on the log density and its
 * gradient (with and without propto and Jacobians), and on the error and
 * its message when the evaluation fails. Each model must also take the
 * form it is meant to test, and the gradients match finite differences.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <malloc.h>
#include <math.h>
#include <string.h>

#include "runtime/exec-private.h"
#include "runtime-test-util.h"
#include "mir/mir-transform.h"
#include "mir/passes/pipeline.h"

typedef struct {
  const char *name;
  const char *source;
  const char *data;
  guint       fused;       /* statements of log_prob in the fused forms */
  guint       fallbacks;   /* errors: how often a fused form gives way */
} Case;

static TildeModel *
prepare (const Case *c, MirOptLevel level, gboolean fused)
{
  g_autoptr (MirProgram) lowered = rt_test_mir_from_string (c->source);
  g_autoptr (MirProgram) transformed = mir_transform_program (lowered);
  g_autoptr (MirProgram) prog = mir_pipeline_run (transformed, level, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeJsonData) data = tilde_json_data_new_from_string (c->data, -1, &error);
  g_assert_no_error (error);
  g_autoptr (GPtrArray) diags = tilde_diagnostic_list_new ();
  rt_compiler_set_fused (fused);
  TildeModel *m = tilde_model_new (prog, data, diags);
  rt_compiler_set_fused (TRUE);
  if (!m)
    g_error ("%s: %s", c->name, ((TildeDiagnostic *) g_ptr_array_index (diags, 0))->message);
  return m;
}

/* The two models agree at theta: both fail alike, or both give the same
 * value and gradient. TRUE when they succeeded. */
static gboolean
agree (const char *name, TildeModel *f, TildeModel *g, const double *theta, gboolean propto,
       gboolean jacobian)
{
  gsize P = tilde_model_num_params_unconstrained (f);
  g_autofree double *gf = g_new0 (double, P);
  g_autofree double *gg = g_new0 (double, P);
  g_autoptr (TildeModelError) ef = NULL;
  g_autoptr (TildeModelError) eg = NULL;
  double lf = tilde_model_log_density (f, theta, propto, jacobian, gf, &ef);
  double lg = tilde_model_log_density (g, theta, propto, jacobian, gg, &eg);
  if (ef || eg)
    {
      if (!ef || !eg)
        g_error ("%s: %s fails alone: %s", name, ef ? "the fused form" : "the general form",
                 (ef ? ef : eg)->message);
      g_assert_cmpint (ef->kind, ==, eg->kind);
      g_assert_cmpstr (ef->message, ==, eg->message);
      return FALSE;
    }
  if (!rt_test_close (lf, lg, 1e-12))
    g_error ("%s: log density %.17g, the general form %.17g", name, lf, lg);
  for (gsize i = 0; i < P; i++)
    if (!rt_test_close (gf[i], gg[i], 1e-12))
      g_error ("%s: gradient[%" G_GSIZE_FORMAT "] %.17g, the general form %.17g", name, i, gf[i],
               gg[i]);
  return TRUE;
}

static void
check_fd (const char *name, TildeModel *m, const double *theta)
{
  gsize P = tilde_model_num_params_unconstrained (m);
  g_autofree double *g = g_new (double, P);
  g_autofree double *t = g_memdup2 (theta, sizeof (double) * P);
  tilde_model_log_density (m, theta, FALSE, TRUE, g, NULL);
  for (gsize i = 0; i < P; i++)
    {
      double h = 1e-6 * fmax (1, fabs (theta[i])), lp[2];
      for (int s = 0; s < 2; s++)
        {
          t[i] = theta[i] + (s ? h : -h);
          lp[s] = tilde_model_log_density (m, t, FALSE, TRUE, NULL, NULL);
        }
      t[i] = theta[i];
      if (!rt_test_close (g[i], (lp[1] - lp[0]) / (2 * h), 1e-6))
        g_error ("%s: gradient[%" G_GSIZE_FORMAT "] %.12g, finite differences %.12g", name, i,
                 g[i], (lp[1] - lp[0]) / (2 * h));
    }
}

static void
test_case (gconstpointer p)
{
  const Case *c = p;
  for (int level = 0; level < 2; level++)
    {
      MirOptLevel l = level ? MIR_OPT_O1 : MIR_OPT_O0;
      g_autoptr (TildeModel) f = prepare (c, l, TRUE);
      g_autoptr (TildeModel) g = prepare (c, l, FALSE);
      g_assert_cmpuint (rt_model_count_fused (f), ==, c->fused);
      g_assert_cmpuint (rt_model_count_fused (g), ==, 0);
      gsize P = tilde_model_num_params_unconstrained (f);
      g_autofree double *theta = g_new (double, P);
      gboolean ok = FALSE;
      guint fallbacks = rt_fused_fallbacks ();
      for (int k = 0; k < 4; k++)
        {
          for (gsize i = 0; i < P; i++)
            theta[i] = 0.7 * sin (1.3 * (double) (i + 1) + k) + 0.1 * k;
          for (int mode = 0; mode < 4; mode++)
            ok |= agree (c->name, f, g, theta, mode & 1, mode & 2);
          if (k == 0 && ok)
            check_fd (c->name, f, theta);
        }
      g_assert_true (ok);
      /* the fused forms ran: none gave way to the general path */
      g_assert_cmpuint (rt_fused_fallbacks (), ==, fallbacks);
    }
}

static const Case cases[] = {
  { "ar1",
    "data { int N; vector[N] y; }\n"
    "parameters { real alpha; real beta; real<lower=0> sigma; }\n"
    "model {\n"
    "  for (n in 2:N) y[n] ~ normal(alpha + beta * y[n - 1], sigma);\n"
    "}\n",
    "{\"N\": 6, \"y\": [0.3, -0.2, 1.1, 0.8, 0.1, -0.6]}", 1 },
  { "parameter-slices",
    "data { int J; array[J] real s; }\n"
    "parameters { real mu; real<lower=0> tau; vector[J] z; vector[J] theta; }\n"
    "model {\n"
    "  for (j in 1:J) {\n"
    "    z[j] ~ std_normal();\n"
    "    theta[j] ~ normal(mu + tau * z[j], s[j]);\n"
    "  }\n"
    "}\n",
    "{\"J\": 4, \"s\": [1, 2, 0.5, 1.5]}", 1 },
  { "gathers",
    "data { int N; int G; array[N] int<lower=1, upper=G> g; vector[N] y; }\n"
    "parameters { vector[G] mu; real<lower=0> sigma; real a; }\n"
    "model {\n"
    "  mu ~ normal(0, 2);\n"
    "  for (n in 1:N) y[n] ~ normal(a * mu[g[n]], sigma);\n"
    "  y ~ normal(a - 2 * mu[g], sigma + 1);\n"
    "}\n",
    "{\"N\": 7, \"G\": 3, \"g\": [1, 3, 2, 2, 3, 1, 1], "
    "\"y\": [0.5, -1, 2, 0.1, 0.3, -0.4, 1.2]}", 2 },
  /* a sum with a product in one pass (the fused fma), scalar or vector
   * terms on either side; gathers at least four times as long as their
   * span, summed per variable in four lanes, with elements left over */
  { "products-and-sums-over-gathers",
    "data { int N; int G; array[N] int<lower=1, upper=G> g; vector[N] y; vector[N] x; }\n"
    "parameters { real mu; real<lower=0> tau; vector[G] eta; real<lower=0> sigma; }\n"
    "model {\n"
    "  eta ~ std_normal();\n"
    "  y ~ normal(mu + tau * eta[g], sigma);\n"
    "  y ~ normal(eta[g] * tau + mu, sigma);\n"
    "  y ~ normal(x + tau * eta[g], sigma);\n"
    "  y ~ normal(tau * x + eta[g], sigma);\n"
    "}\n",
    "{\"N\": 22, \"G\": 4, \"g\": [1, 3, 2, 2, 4, 1, 1, 3, 3, 4, 2, 1, 1, 1, 2, 4, 4, 3, 2, 1, 4, 3], "
    "\"y\": [0.5, -1, 2, 0.1, 0.3, -0.4, 1.2, 0.8, -0.3, 0.0, 1.5, 2.2, -1.1, 0.4, 0.9, -0.2, "
    "0.6, 1.0, -0.7, 0.2, 1.3, -0.5], "
    "\"x\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22]}", 4 },
  /* a gather over a wider span than its length */
  { "sparse-gather",
    "data { int N; int G; array[N] int<lower=1, upper=G> g; vector[N] y; }\n"
    "parameters { vector[G] mu; real<lower=0> sigma; }\n"
    "model {\n"
    "  mu ~ normal(0, 2);\n"
    "  y ~ normal(1.5 * mu[g] - 0.5, sigma);\n"
    "}\n",
    "{\"N\": 3, \"G\": 20, \"g\": [2, 19, 7], \"y\": [0.5, -1, 2]}", 1 },
  { "rows-times-vector",
    "data { int N; int K; matrix[N, K] X; array[N] int<lower=0, upper=1> y; }\n"
    "parameters { real alpha; vector[K] beta; }\n"
    "model {\n"
    "  for (n in 1:N) y[n] ~ bernoulli_logit(alpha + X[n] * beta);\n"
    "  for (n in 2:N) target += normal_lpdf(alpha | X[n - 1] * beta, 3);\n"
    "}\n",
    "{\"N\": 5, \"K\": 2, \"X\": [[1, 0.5], [-0.3, 2], [0.7, -1], [0, 1], [1.5, 0.2]], "
    "\"y\": [1, 0, 1, 1, 0]}", 2 },
  { "loop-variable-and-offsets",
    "data { int N; vector[N] y; array[N + 2] int k; }\n"
    "parameters { real a; real b; real<lower=0> s; }\n"
    "model {\n"
    "  for (n in 1:N) {\n"
    "    y[n] ~ normal(a + b * n, s);\n"
    "    target += poisson_log_lpmf(k[n + 2] | a - b / (1 + n));\n"
    "    k[2 + n] ~ poisson_log(-a * k[n + 1]);\n"
    "  }\n"
    "}\n",
    "{\"N\": 4, \"y\": [1, 2.5, 2.9, 4.2], \"k\": [0, 1, 3, 2, 0, 5]}", 1 },
  { "elementwise-statements",
    "data { int N; vector[N] x; row_vector[N] r; }\n"
    "parameters { real a; real<lower=0> b; vector[N] z; }\n"
    "model {\n"
    "  z ~ normal(-(a - x) ./ (b + x .* x) + fma(a, x, z / 2), b * 2);\n"
    "  r ~ cauchy(x' * b - a, fma(b, r, 1.5));\n"
    "  target += gamma_lupdf(b + x | 2, b * 0.5 + 1);\n"
    "}\n",
    "{\"N\": 3, \"x\": [0.5, 1, 2], \"r\": [-1, 0.25, 1.5]}", 3 },
  /* fma of two scalars and a vector: the product is one value for all */
  { "scalar-product-plus-vector",
    "data { int N; vector[N] x; vector[N] s; }\n"
    "parameters { real a; real<lower=0> b; vector[N] w; }\n"
    "model {\n"
    "  w ~ normal (fma (a, b, x), s);\n"
    "}\n",
    "{\"N\": 3, \"x\": [1.5, 0.2, -0.7], \"s\": [1, 2, 0.5]}", 1 },
  { "empty-loop",
    "data { int N; vector[N] y; }\n"
    "parameters { real mu; }\n"
    "model {\n"
    "  mu ~ normal(0, 1);\n"
    "  for (n in 1:N) y[n] ~ normal(mu * y[n], -1);\n"
    "}\n",
    "{\"N\": 0, \"y\": []}", 1 },
  { "elementwise-expressions",
    "data { int N; vector[N] x; row_vector[N] r; }\n"
    "parameters { real mu; real<lower=0> tau; vector[N] eta; }\n"
    "transformed parameters {\n"
    "  vector[N] theta = mu + tau * eta;\n"
    "  row_vector[N] rho = r * tau - mu;\n"
    "}\n"
    "model {\n"
    "  eta ~ std_normal();\n"
    "  x ~ normal(theta, 1);\n"
    "  target += -0.5 * dot_self(rho) + sum(exp(eta .* x - 1));\n"
    "}\n",
    "{\"N\": 3, \"x\": [0.5, 1, 2], \"r\": [-1, 0.25, 1.5]}", 3 },
  { "gp-cholesky",
    "data { int N; array[N] real x; vector[N] y; }\n"
    "parameters { real<lower=0> rho; real<lower=0> alpha; real<lower=0> sigma; vector[N] mu;\n"
    "             vector[N] z; }\n"
    "model {\n"
    "  matrix[N, N] L_K = cholesky_decompose(add_diag(gp_exp_quad_cov(x, alpha, rho),\n"
    "                                                  square(sigma)));\n"
    "  mu ~ normal(0, 1);\n"
    "  y ~ multi_normal_cholesky(mu, L_K);\n"
    "  matrix[N, N] L_2 = cholesky_decompose(add_diag(gp_exp_quad_cov(x, 1.5, rho), 1));\n"
    "  target += multi_normal_cholesky_lpdf(z' | rep_row_vector(0.5, N), L_2);\n"
    "}\n",
    "{\"N\": 4, \"x\": [-1, 0.5, 1.2, 3], \"y\": [0.3, -0.2, 1.1, 0.8]}", 2 },
  { "cholesky-data-or-read-again",
    "data { int N; array[N] real x; vector[N] y; }\n"
    "parameters { real<lower=0> rho; vector[N] mu; }\n"
    "model {\n"
    "  matrix[N, N] L_D = cholesky_decompose(add_diag(gp_exp_quad_cov(x, 1, 1), 0.1));\n"
    "  matrix[N, N] L_K = cholesky_decompose(add_diag(gp_exp_quad_cov(x, 1, rho), 0.1));\n"
    "  y ~ multi_normal_cholesky(mu, L_D);\n"
    "  y ~ multi_normal_cholesky(mu, L_K);\n"
    "  target += -0.01 * sum(L_K);\n"
    "}\n",
    "{\"N\": 3, \"x\": [-1, 0.5, 1.2], \"y\": [0.3, -0.2, 1.1]}", 1 },
  { "scalar-expressions",
    "data { int N; vector[N] r; int k; }\n"
    "parameters { real mu; real<lower=0> a0; real<lower=0, upper=1> a1;\n"
    "             real<lower=0, upper=1 - a1> b1; }\n"
    "model {\n"
    "  array[N] real s;\n"
    "  s[1] = 1;\n"
    "  for (t in 2:N)\n"
    "    s[t] = sqrt(a0 + a1 * pow(r[t - 1] - mu, 2) + b1 * square(s[t - 1]));\n"
    "  r ~ normal(mu, s);\n"
    "  target += -inv_logit(mu * k - a0) / (1 + exp(-a1));\n"
    "  target += log(a0 + 1) * expm1(b1) - inv(2 + mu * mu);\n"
    "  target += (mu - k) * (mu + k) * mu * k;\n"
    "  target += -(a0 * a1 * b1 * mu) / (a0 + a1 + b1 + 1);\n"
    "}\n",
    "{\"N\": 5, \"r\": [0.3, -0.2, 1.1, 0.8, -0.5], \"k\": 2}", 5 },
  /* a local variable that changes after a fused statement read it */
  { "local-changed-after",
    "data { int N; vector[N] x; vector[N] y; }\n"
    "parameters { real a; real b; }\n"
    "model {\n"
    "  vector[N] w = x;\n"
    "  y ~ normal(a + b * w, 1);\n"
    "  w[1] = 100;\n"
    "  for (n in 1:N) y[n] ~ normal(a * w[n], 2);\n"
    "  w[2] = -100;\n"
    "}\n",
    "{\"N\": 3, \"x\": [0.5, 1, 2], \"y\": [1, 0, -1]}", 2 },
  /* loops of scalar terms: one program an iteration */
  { "mixture-loop",
    "data { int<lower=0> N; vector[N] y; }\n"
    "parameters { ordered[2] mu; array[2] real<lower=0> sigma; real<lower=0, upper=1> theta; }\n"
    "model {\n"
    "  mu ~ normal(0, 2);\n"
    "  sigma ~ normal(0, 2);\n"
    "  theta ~ beta(5, 5);\n"
    "  for (n in 1:N)\n"
    "    target += log_mix(theta, normal_lpdf(y[n] | mu[1], sigma[1]),\n"
    "                      normal_lpdf(y[n] | mu[2], sigma[2]));\n"
    "}\n",
    "{\"N\": 6, \"y\": [-1.5, 0.2, 2.5, 3.1, -0.7, 8]}", 1 },
  { "scalar-terms-of-slices",
    "data { int N; vector[N] y; array[N] int k; }\n"
    "parameters { vector[N] eta; real a; real<lower=0> s; }\n"
    "model {\n"
    "  for (n in 2:N) {\n"
    "    target += log_sum_exp(normal_lpdf(y[n] | eta[n], s), log1m(inv_logit(a * k[n])));\n"
    "    target += 0.5 * n * a - square(eta[n] - y[n - 1]) / (1 + exp(a))\n"
    "              + log1p(square(eta[n - 1])) - sqrt(s + k[n]) + expm1(-s) * pow(s, 1.5)\n"
    "              + fma(a, y[n], -eta[n]) * inv(2 + s);\n"
    "  }\n"
    "}\n",
    "{\"N\": 5, \"y\": [0.3, -1.2, 0.8, 2.2, -0.4], \"k\": [1, 0, 3, 2, 1]}", 1 },
  /* ~ normal: what propto drops depends on what is data */
  { "normal-of-scalar-programs",
    "data { int N; vector[N] x; vector[N] y; real<lower=0> s; }\n"
    "parameters { real alpha; real beta; real<lower=0, upper=1> lambda; real<lower=0> sigma; }\n"
    "model {\n"
    "  for (n in 1:N) y[n] ~ normal(alpha - beta * pow(lambda, x[n]), sigma);\n"
    "  for (n in 1:N) y[n] ~ normal(alpha * exp(-x[n]), s);\n"
    "  for (n in 1:N) y[n] ~ normal(exp(x[n]), s + x[n]);\n"
    "  for (n in 1:N) target += normal_lupdf(y[n] | log1p(square(x[n] * beta)), sigma * s);\n"
    "}\n",
    "{\"N\": 4, \"x\": [1, 2.5, 4, 7], \"y\": [1.8, 2.2, 2.4, 2.5], \"s\": 0.7}", 4 },
  /* locals of the body, and inner loops adding to them */
  { "ar-k-loop",
    "data { int<lower=0> K; int<lower=0> T; array[T] real y; }\n"
    "parameters { real alpha; array[K] real beta; real<lower=0> sigma; }\n"
    "model {\n"
    "  alpha ~ normal(0, 10);\n"
    "  beta ~ normal(0, 10);\n"
    "  sigma ~ cauchy(0, 2.5);\n"
    "  for (t in (K + 1):T) {\n"
    "    real mu = alpha;\n"
    "    for (k in 1:K) {\n"
    "      mu += beta[k] * y[t - k];\n"
    "    }\n"
    "    y[t] ~ normal(mu, sigma);\n"
    "  }\n"
    "}\n",
    "{\"K\": 3, \"T\": 9, \"y\": [0.7, 0.8, 0.78, 1.03, 0.97, 1.08, 0.71, 0.78, 0.46]}", 1 },
  { "ar-k-loop-no-lags",
    "data { int<lower=0> K; int<lower=0> T; array[T] real y; }\n"
    "parameters { real alpha; array[K] real beta; real<lower=0> sigma; }\n"
    "model {\n"
    "  for (t in (K + 1):T) {\n"
    "    real mu = alpha;\n"
    "    for (k in 1:K) mu += beta[k] * y[t - k];\n"
    "    y[t] ~ normal(mu, sigma);\n"
    "  }\n"
    "}\n",
    "{\"K\": 0, \"T\": 4, \"y\": [0.7, 0.8, 0.78, 1.03]}", 1 },
  { "locals-and-inner-sums",
    "data { int N; int K; vector[N] y; vector[N] x; }\n"
    "parameters { real a; vector[K] b; real<lower=0> s; }\n"
    "model {\n"
    "  for (n in (K + 1):N) {\n"
    "    real m = a * x[n];\n"
    "    real v;\n"
    "    v = s + 0.5;\n"
    "    for (k in 1:K) m += exp(b[k]) * y[n - k] / k;\n"
    "    for (j in 2:K) {\n"
    "      v = v + square(b[j] - b[j - 1]) * x[n] + j * 0.01;\n"
    "    }\n"
    "    m = m - 0.1 * v;\n"
    "    real u = a;\n"
    "    for (k in 1:K) u += (n * 0.1 + b[k]) * y[n - k];\n"   /* a factor that varies */
    "    y[n] ~ normal(m, v);\n"
    "    target += -0.5 * square(m - x[n]) + log(v) - 0.01 * square(u);\n"
    "  }\n"
    "}\n",
    "{\"N\": 7, \"K\": 3, \"y\": [0.3, -1.2, 0.8, 2.2, -0.4, 1.1, 0.5],"
    " \"x\": [0.5, 1, 1.5, 0.2, 0.9, 1.3, 0.1]}", 1 },
  /* recurrences: x[n] from x[n - 1] */
  { "garch11",
    "data { int<lower=0> T; array[T] real y; real<lower=0> sigma1; }\n"
    "parameters { real mu; real<lower=0> alpha0; real<lower=0, upper=1> alpha1;\n"
    "             real<lower=0, upper=(1 - alpha1)> beta1; }\n"
    "model {\n"
    "  array[T] real sigma;\n"
    "  sigma[1] = sigma1;\n"
    "  for (t in 2:T) {\n"
    "    sigma[t] = sqrt(alpha0 + alpha1 * square(y[t - 1] - mu) + beta1 * square(sigma[t - 1]));\n"
    "  }\n"
    "  y ~ normal(mu, sigma);\n"
    "}\n",
    "{\"T\": 7, \"y\": [0.3, -1.2, 0.8, 2.2, -0.4, 1.1, 0.5], \"sigma1\": 0.9}", 1 },
  { "recurrence-of-parameters",
    "data { int N; vector[N] x; vector[N] y; }\n"
    "parameters { real<lower=-1, upper=1> rho; real m0; real<lower=0> s; }\n"
    "transformed parameters {\n"
    "  vector[N] m;\n"
    "  m[1] = m0;\n"
    "  for (n in 2:N) m[n] = fma(rho, m[n - 1], log1p(square(x[n])) * 0.5 - n * 0.01);\n"
    "}\n"
    "model {\n"
    "  y ~ normal(m, s);\n"
    "  vector[N] w = m;\n"
    "  for (n in 2:N) w[n] = exp(rho * x[n - 1]) - 0.5 * w[n - 1] * w[n - 1];\n"
    "  target += -0.1 * dot_self(w);\n"
    "}\n",
    "{\"N\": 6, \"x\": [0.5, 1, 1.5, 0.2, 0.9, 1.3], \"y\": [0.3, -1.2, 0.8, 2.2, -0.4, 1.1]}",
    2 },
  /* stochastic volatility: x[t] read before it is assigned, slices of
   * parameters */
  { "stochastic-volatility",
    "data { int<lower=0> T; vector[T] y; }\n"
    "parameters { real mu; real<lower=-1, upper=1> phi; real<lower=0> sigma;\n"
    "             vector[T] h_std; }\n"
    "transformed parameters {\n"
    "  vector[T] h = h_std * sigma;\n"
    "  h[1] /= sqrt(1 - phi * phi);\n"
    "  h += mu;\n"
    "  for (t in 2:T) h[t] += phi * (h[t - 1] - mu);\n"
    "}\n"
    "model {\n"
    "  sigma ~ cauchy(0, 5);\n"
    "  mu ~ cauchy(0, 10);\n"
    "  h_std ~ std_normal();\n"
    "  y ~ normal(0, exp(h / 2));\n"
    "  vector[T] g = h;\n"
    "  for (t in 2:(T - 1)) g[t] = 0.5 * g[t - 1] + 0.25 * (g[t + 1] - h_std[t - 1]);\n"
    "  target += -0.5 * dot_self(g);\n"
    "}\n",
    "{\"T\": 6, \"y\": [0.3, -1.2, 0.8, 2.2, -0.4, 1.1]}", 6 },
  { "scalar-terms-of-data-only",
    "data { int N; vector[N] y; }\n"
    "parameters { real mu; }\n"
    "model {\n"
    "  mu ~ normal(0, 1);\n"
    "  for (n in 1:N) target += log_sum_exp(y[n], -y[n]);\n"
    "}\n",
    "{\"N\": 3, \"y\": [0.3, -1.2, 0.8]}", 1 },
};

/* Errors from the fused forms are the general path's: the element, the
 * index, the sizes. */
static const Case error_cases[] = {
  { "scale-of-an-element",
    "data { int N; vector[N] x; vector[N] y; }\n"
    "parameters { real mu; }\n"
    "model {\n"
    "  for (n in 1:N) y[n] ~ normal(mu, x[n] + mu);\n"
    "}\n",
    "{\"N\": 3, \"x\": [1, 2, -3], \"y\": [1, 0, -1]}", 1, 1 },
  { "index-out-of-range",
    "data { int N; vector[N] x; vector[N] y; }\n"
    "parameters { real mu; }\n"
    "model {\n"
    "  for (n in 1:N) y[n] ~ normal(mu + x[n + 1], 1);\n"
    "}\n",
    "{\"N\": 3, \"x\": [1, 2, 3], \"y\": [1, 0, -1]}", 1, 1 },
  { "gather-out-of-range",
    "data { int N; array[N] int g; vector[N] y; }\n"
    "parameters { vector[2] mu; }\n"
    "model {\n"
    "  for (n in 1:N) y[n] ~ normal(2 * mu[g[n]], 1);\n"
    "}\n",
    "{\"N\": 3, \"g\": [1, 2, 3], \"y\": [1, 0, -1]}", 1, 1 },
  { "covariance-not-positive-definite",
    "parameters { real a; real b; }\n"
    "model {\n"
    "  matrix[2, 2] L = cholesky_decompose([[exp(a), b + 2], [b + 2, exp(a)]]);\n"
    "  [1, 2]' ~ multi_normal_cholesky([a, b]', L);\n"
    "}\n",
    "{}", 1, 0 },
  { "covariance-not-symmetric",
    "parameters { real a; real b; }\n"
    "model {\n"
    "  matrix[2, 2] L = cholesky_decompose([[exp(a), b + 1], [b, exp(a)]]);\n"
    "  [1, 2]' ~ multi_normal_cholesky([a, b]', L);\n"
    "}\n",
    "{}", 1, 0 },
  { "multi-normal-variate-nan",
    "data { vector[2] y; }\n"
    "parameters { real a; real b; }\n"
    "model {\n"
    "  matrix[2, 2] L = cholesky_decompose([[exp(a), b / 2], [b / 2, exp(a)]]);\n"
    "  y ~ multi_normal_cholesky([a, b]', L);\n"
    "}\n",
    "{\"y\": [1, \"NaN\"]}", 1, 0 },
  { "multi-normal-sizes",
    "data { vector[3] y; }\n"
    "parameters { real a; real b; }\n"
    "model {\n"
    "  matrix[2, 2] L = cholesky_decompose([[exp(a), b / 2], [b / 2, exp(a)]]);\n"
    "  y ~ multi_normal_cholesky(rep_vector(a, 3), L);\n"
    "}\n",
    "{\"y\": [1, 2, 3]}", 1, 0 },
  { "expression-sizes-differ",
    "data { vector[3] x; vector[2] u; }\n"
    "parameters { real mu; }\n"
    "model {\n"
    "  target += sum(mu * x - u);\n"
    "}\n",
    "{\"x\": [1, 2, 3], \"u\": [1, 2]}", 1, 1 },
  { "sizes-differ",
    "data { vector[3] x; vector[2] u; vector[3] y; }\n"
    "parameters { real mu; }\n"
    "model {\n"
    "  y ~ normal(mu * x + u, 1);\n"
    "}\n",
    "{\"x\": [1, 2, 3], \"u\": [1, 2], \"y\": [1, 0, -1]}", 1, 1 },
  { "nan-variate",
    "data { int N; vector[N] y; }\n"
    "parameters { real mu; }\n"
    "model {\n"
    "  for (n in 1:N) y[n] ~ normal(mu * y[n], 1);\n"
    "}\n",
    "{\"N\": 3, \"y\": [1, \"NaN\", -1]}", 1, 1 },
  { "mixing-proportion-out-of-range",
    "data { int N; vector[N] y; }\n"
    "parameters { real mu; real t; }\n"
    "model {\n"
    "  for (n in 1:N)\n"
    "    target += log_mix(t, normal_lpdf(y[n] | mu, 1), normal_lpdf(y[n] | -mu, 1));\n"
    "}\n",
    "{\"N\": 3, \"y\": [1, 0, -1]}", 1, 1 },
  { "scale-of-an-element-in-a-scalar-loop",
    "data { int N; vector[N] x; vector[N] y; }\n"
    "parameters { real mu; }\n"
    "model {\n"
    "  for (n in 1:N) target += log_sum_exp(normal_lpdf(y[n] | mu, x[n] + mu), 0);\n"
    "}\n",
    "{\"N\": 3, \"x\": [1, 2, -3], \"y\": [1, 0, -1]}", 1, 1 },
  { "scale-from-an-inner-loop",
    "data { int N; vector[N] y; }\n"
    "parameters { real mu; real t; }\n"
    "model {\n"
    "  for (n in 2:N) {\n"
    "    real s = 1;\n"
    "    for (k in 1:3) s = s * t + y[n - 1] * 0.01;\n"
    "    y[n] ~ normal(mu, s);\n"
    "  }\n"
    "}\n",
    "{\"N\": 3, \"y\": [1, 0, -1]}", 1, 1 },
  { "recurrence-index-out-of-range",
    "data { int N; vector[N] y; }\n"
    "parameters { real mu; real t; }\n"
    "model {\n"
    "  vector[N] m;\n"
    "  m[1] = mu;\n"
    "  for (n in 2:N) m[n] = t * m[n - 1] + y[n + 1];\n"
    "  y ~ normal(m, 1);\n"
    "}\n",
    "{\"N\": 3, \"y\": [1, 0, -1]}", 1, 1 },
  { "inner-index-out-of-range",
    "data { int N; vector[N] y; }\n"
    "parameters { real mu; real t; }\n"
    "model {\n"
    "  for (n in 1:N) {\n"
    "    real m = mu;\n"
    "    for (k in 1:2) m += t * y[n + k];\n"
    "    y[n] ~ normal(m, 1);\n"
    "  }\n"
    "}\n",
    "{\"N\": 3, \"y\": [1, 0, -1]}", 1, 1 },
};

static void
test_error (gconstpointer p)
{
  const Case *c = p;
  g_autoptr (TildeModel) f = prepare (c, MIR_OPT_O1, TRUE);
  g_autoptr (TildeModel) g = prepare (c, MIR_OPT_O1, FALSE);
  g_assert_cmpuint (rt_model_count_fused (f), ==, c->fused);
  double theta[2] = { 0.5, -0.25 };
  guint fallbacks = rt_fused_fallbacks ();
  if (agree (c->name, f, g, theta, TRUE, TRUE))
    g_error ("%s: no error", c->name);
  g_assert_cmpuint (rt_fused_fallbacks (), ==, fallbacks + c->fallbacks);
}

/* The messages themselves: the loop's, naming no element, and the density
 * named as Stan names it (normal_lpdf, also for ~). */
static void
test_error_messages (void)
{
  g_autoptr (TildeModel) m = prepare (&error_cases[0], MIR_OPT_O1, TRUE);
  double theta[1] = { 0.5 }, g[1];
  g_autoptr (TildeModelError) e = NULL;
  g_assert_true (isnan (tilde_model_log_density (m, theta, TRUE, TRUE, g, &e)));
  g_assert_cmpint (e->kind, ==, TILDE_MODEL_ERROR_DOMAIN);
  g_assert_cmpstr (e->message, ==, "normal_lpdf: Scale parameter is -2.5, but must be positive!");
  g_clear_pointer (&e, tilde_model_error_free);
  g_autoptr (TildeModel) m2 = prepare (&error_cases[1], MIR_OPT_O1, TRUE);
  g_assert_true (isnan (tilde_model_log_density (m2, theta, TRUE, TRUE, g, &e)));
  g_assert_cmpint (e->kind, ==, TILDE_MODEL_ERROR_INDEX);
  g_assert_cmpstr (e->message, ==, "index 4 out of range; expecting index to be between 1 and 3");
  /* and the model still evaluates where the loop succeeds */
  theta[0] = 3.5;
  g_clear_pointer (&e, tilde_model_error_free);
  double lp = tilde_model_log_density (m, theta, FALSE, TRUE, g, &e);
  g_assert_null (e);
  /* y = (1, 0, -1), sigma = x + 3.5 = (4.5, 5.5, 0.5) */
  double y[3] = { 1, 0, -1 }, s[3] = { 4.5, 5.5, 0.5 }, want = 0, dwant = 0;
  for (int n = 0; n < 3; n++)
    {
      double z = (y[n] - 3.5) / s[n];
      want += -0.5 * z * z - log (s[n]) - 0.5 * log (2 * G_PI);
      /* d/dmu through both the location and the scale */
      dwant += z / s[n] + (z * z - 1) / s[n];
    }
  g_assert_cmpfloat_with_epsilon (lp, want, 1e-12);
  g_assert_cmpfloat_with_epsilon (g[0], dwant, 1e-12);
}

/* Loops that must stay loops. */
static void
test_not_vectorised (void)
{
  static const Case c = {
    "stays",
    "functions { real f(real x) { return 2 * x; } }\n"
    "data { int N; vector[N] y; matrix[N, 2] X; }\n"
    "parameters { real mu; }\n"
    "model {\n"
    "  for (n in 1:N) y[n] ~ normal(f(mu), 1);\n"                 /* a user function */
    "  for (n in 1:N) { vector[2] m = X[n]'; y[n] ~ normal(m[1], 1); }\n" /* a vector */
    "  for (n in 1:N) { real m = mu; for (k in 1:n) m += y[k]; y[n] ~ normal(m, 1); }\n"
    "  for (n in 1:N) y[n] ~ normal(mu * X[n, 1], 1);\n"           /* two indices */
    "  for (n in 1:N) target += -abs(y[n] - mu);\n"                /* not a density */
    "  for (n in 1:N) mu ~ normal(0, 1);\n"                        /* nothing varies */
    "}\n",
    "{\"N\": 2, \"y\": [1, 2], \"X\": [[1, 2], [3, 4]]}", 0 };
  g_autoptr (TildeModel) f = prepare (&c, MIR_OPT_O0, TRUE);
  g_assert_cmpuint (rt_model_count_fused (f), ==, 0);
  g_autoptr (TildeModel) g = prepare (&c, MIR_OPT_O0, FALSE);
  double theta[1] = { 0.3 };
  g_assert_true (agree (c.name, f, g, theta, TRUE, TRUE));
}

/* A product by a data scalar keeps the scalar until the reverse sweep,
 * whatever the evaluation does in between (as written, and fused). */
static void
test_scalar_factors (void)
{
  static const Case c = {
    "scalar-factors",
    "parameters { vector[3] v; real w; }\n"
    "model {\n"
    "  target += sum(1.5 * v) + sum(v * 2.5) + sum(v / 4.0);\n"
    "  target += normal_lpdf(w | 0.25, 3.5) + student_t_lpdf(w | 4.5, 0.5, 2.5);\n"
    "  target += cauchy_lpdf(w | -0.75, 1.25) + sum(exp(v) * 0.125);\n"
    "}\n", "{}", 0, 0 };
  for (int fused = 0; fused < 2; fused++)
    {
      g_autoptr (TildeModel) m = prepare (&c, MIR_OPT_O0, fused);
      double theta[4] = { 0.1, -0.2, 0.3, 0.4 }, g[4];
      g_autoptr (TildeModelError) e = NULL;
      tilde_model_log_density (m, theta, FALSE, TRUE, g, &e);
      g_assert_null (e);
      for (int i = 0; i < 3; i++)
        g_assert_cmpfloat_with_epsilon (g[i], 4.25 + 0.125 * exp (theta[i]), 1e-12);
      check_fd (c.name, m, theta);
    }
}

static const Case *
find_case (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    if (strcmp (cases[i].name, name) == 0)
      return &cases[i];
  g_error ("no case %s", name);
}

/* A loop of scalar terms runs its iterations in blocks: many blocks, the
 * last one short, agree with the loop as written. */
static void
test_scalar_loop_blocks (void)
{
  GString *json = g_string_new ("{\"N\": 300, \"y\": [");
  for (int n = 0; n < 300; n++)
    g_string_append_printf (json, "%s%.3f", n ? ", " : "", 3 * sin (0.37 * n) + (n % 3));
  g_string_append (json, "]}");
  Case c = {
    "scalar-loop-blocks",
    "data { int<lower=0> N; vector[N] y; }\n"
    "parameters { ordered[2] mu; array[2] real<lower=0> sigma; real<lower=0, upper=1> theta;\n"
    "             vector[N] u; }\n"
    "model {\n"
    "  u ~ normal(0, 1);\n"
    "  for (n in 2:N)\n"
    "    target += log_mix(theta, normal_lpdf(y[n] | mu[1] + u[n - 1], sigma[1]),\n"
    "                      normal_lpdf(y[n] | mu[2], sigma[2] + square(u[n])));\n"
    "}\n",
    json->str, 1, 0 };
  test_case (&c);
  g_string_free (json, TRUE);
}

/* An inner loop updating a local over more iterations than a block holds,
 * with the loop variables read as values; recurrences likewise; inner
 * loops over slices of parameters. */
static void
test_inner_loops (void)
{
  GString *json = g_string_new ("{\"K\": 4, \"T\": 300, \"y\": [");
  for (int n = 0; n < 300; n++)
    g_string_append_printf (json, "%s%.3f", n ? ", " : "", sin (0.37 * n) + 0.1 * (n % 3));
  g_string_append (json, "]}");
  Case c = {
    "inner-loop-blocks",
    "data { int<lower=0> K; int<lower=0> T; array[T] real y; }\n"
    "parameters { real alpha; array[K] real beta; real<lower=0> sigma; }\n"
    "model {\n"
    "  beta ~ normal(0, 1);\n"
    "  for (t in (K + 1):T) {\n"
    "    real mu = alpha;\n"
    "    real w = 0;\n"
    "    for (k in 1:K) mu = fma(beta[k], y[t - k], mu);\n"
    "    for (k in 1:K) w = w * 0.5 + log1p(square(beta[k])) * k + t * 1e-3;\n"
    "    y[t] ~ normal(mu + 0.1 * w, sigma);\n"
    "  }\n"
    "}\n",
    json->str, 1, 0 };
  test_case (&c);
  g_string_free (json, TRUE);

  /* a recurrence over more iterations than a block holds */
  json = g_string_new ("{\"T\": 300, \"sigma1\": 0.7, \"y\": [");
  for (int n = 0; n < 300; n++)
    g_string_append_printf (json, "%s%.3f", n ? ", " : "", sin (0.37 * n) * (1 + 0.1 * (n % 5)));
  g_string_append (json, "]}");
  Case g = *find_case ("garch11");
  g.name = "recurrence-blocks";
  g.data = json->str;
  test_case (&g);
  g_string_free (json, TRUE);

  /* slices of parameters in the inner loop: their partials by k */
  static const Case params = {
    "inner-loop-over-parameters",
    "data { int N; vector[N] y; }\n"
    "parameters { vector[N] u; real<lower=0> s; vector[2] c; }\n"
    "model {\n"
    "  u ~ normal(0, 1);\n"
    "  for (n in 3:N) {\n"
    "    real m = 0;\n"
    "    real w = c[1];\n"
    "    for (k in 1:2) m += 0.5 * u[n - k];\n"
    "    for (k in 1:2) w = fma(c[k], u[n - k], w);\n"
    "    for (k in 1:2) w = w * 0.5 + exp(-square(u[n - k] - y[n - k]));\n"
    "    y[n] ~ normal(m + w, s);\n"
    "  }\n"
    "}\n",
    "{\"N\": 7, \"y\": [1, 0, -1, 0.5, 2, 0.3, -0.2]}", 1 };
  test_case (&params);
}

/* In the prior and likelihood contexts a body that sets locals still runs
 * them, errors included, as the loop as written does. */
static void
test_inner_loop_contexts (void)
{
  static const Case cases_[] = {
    { "contexts-lags-out-of-range",
      "data { int K; int T; array[T] real y; }\n"
      "parameters { real alpha; vector[K] beta; real<lower=0> sigma; }\n"
      "model {\n"
      "  beta ~ normal(0, 1);\n"
      "  for (t in 1:T) {\n"
      "    real mu = alpha;\n"
      "    for (k in 1:K) mu += beta[k] * y[t - k];\n"
      "    y[t] ~ normal(mu, sigma);\n"
      "  }\n"
      "}\n",
      "{\"K\": 2, \"T\": 6, \"y\": [0.7, 0.8, 0.78, 1.03, 0.97, 1.08]}", 1 },
  };
  static const TildeModelContext contexts[] = {
    TILDE_MODEL_CONTEXT_JOINT, TILDE_MODEL_CONTEXT_PRIOR, TILDE_MODEL_CONTEXT_LIKELIHOOD,
  };
  const Case *cs[] = { find_case ("ar-k-loop"), &cases_[0] };
  for (guint i = 0; i < G_N_ELEMENTS (cs); i++)
    for (guint k = 0; k < G_N_ELEMENTS (contexts); k++)
      {
        g_autoptr (TildeModel) f = prepare (cs[i], MIR_OPT_O1, TRUE);
        g_autoptr (TildeModel) g = prepare (cs[i], MIR_OPT_O1, FALSE);
        g_assert_cmpuint (rt_model_count_fused (f), ==, 1);
        tilde_model_set_context (f, contexts[k]);
        tilde_model_set_context (g, contexts[k]);
        double theta[5] = { 0.4, -0.3, 0.2, 0.1, -0.5 };
        g_assert_cmpuint (tilde_model_num_params_unconstrained (f), <=, G_N_ELEMENTS (theta));
        /* the first succeeds in every context, the second fails in every one */
        g_assert_true (agree (cs[i]->name, f, g, theta, TRUE, TRUE) == (i == 0));
      }
}

/* ---- random loop bodies ---- */

/* A random real expression over the leaves, of at most `depth` levels,
 * of operations defined everywhere (so that no check gives way). */
static void
random_expr (GString *s, GRand *r, const char *const *leaves, guint n_leaves, int depth)
{
  if (depth == 0 || g_rand_double (r) < 0.3)
    {
      g_string_append (s, leaves[g_rand_int_range (r, 0, (gint32) n_leaves)]);
      return;
    }
  static const char *const forms[] = {
    "(A + B)", "(A - B)", "(A * B)", "fma(A, B, A)", "inv_logit(A)", "log1p(square(A))",
    "log_sum_exp(A, B)", "(A / (1 + square(B)))", "exp(-square(A))", "sqrt(1 + square(A))",
    "square(A)", "(-(A))", "pow(1 + square(A), 0.5)",
  };
  const char *f = forms[g_rand_int_range (r, 0, G_N_ELEMENTS (forms))];
  for (; *f; f++)
    if (*f == 'A' || *f == 'B')
      random_expr (s, r, leaves, n_leaves, depth - 1);
    else
      g_string_append_c (s, *f);
}

/* Loops with locals, inner loops updating them and a recurrence, their
 * bodies drawn at random from fixed seeds: the fused forms are taken, never
 * give way, and agree with the loops as written. */
static void
test_random_loop_bodies (void)
{
  static const char *const inner_leaves[] = {
    "mu", "beta[k]", "y[t - k]", "alpha", "t * 0.01", "k * 0.1", "0.5", "z[k]", "u[t - k]",
  };
  static const char *const rec_leaves[] = {
    "x[n - 1]", "y[n]", "a", "b", "n * 0.01", "0.3", "y[n - 1]", "u[n]", "u[n - 1]",
  };
  static const char *const inits[] = { "alpha", "u[t]", "0", "t * 0.1", "y[t]" };
  static const char *const updates[] = {
    "mu + beta[k] * y[t - k]", "fma(beta[k], y[t - k], mu)", "y[t - k] * exp(beta[k]) + mu",
    "mu + beta[k] * u[t - k]",
  };
  for (guint32 seed = 1; seed <= 60; seed++)
    {
      g_autoptr (GRand) r = g_rand_new_with_seed (seed);
      int K = (int[]) { 0, 1, 3 }[g_rand_int_range (r, 0, 3)];
      int T = (int[]) { 6, 140, 300 }[g_rand_int_range (r, 0, 3)];
      g_autoptr (GString) inner = g_string_new ("(");
      random_expr (inner, r, inner_leaves, G_N_ELEMENTS (inner_leaves), 3);
      g_string_append (inner, ") * 0.5 + mu * 0.5");
      g_autoptr (GString) rec = g_string_new ("(");
      random_expr (rec, r, rec_leaves, G_N_ELEMENTS (rec_leaves), 3);
      g_string_append (rec, ") + 0.5 * x[n - 1]");
      g_autofree char *source = g_strdup_printf (
        "data { int K; int T; array[T] real y; vector[K] z; }\n"
        "parameters { real alpha; vector[K] beta; real<lower=0> sigma; vector[T] u; real a;\n"
        "             real<lower=0, upper=1> b; }\n"
        "model {\n"
        "  u ~ normal(0, 1);\n"
        "  beta ~ normal(0, 1);\n"
        "  for (t in (K + 1):T) {\n"
        "    real mu = %s;\n"
        "    for (k in 1:K) mu = %s;\n"
        "    real w = mu;\n"
        "    mu = alpha * 0.1;\n"
        "    for (k in 1:K) mu = %s;\n"
        "    target += normal_lupdf(y[t] | mu * 0.3, sigma + 1);\n"
        "    target += -square(w) * 0.01;\n"
        "  }\n"
        "  vector[T] x;\n"
        "  x[1] = a;\n"
        "  for (n in 2:T) x[n] = %s;\n"
        "  target += -0.001 * dot_self(x);\n"
        "}\n",
        inits[g_rand_int_range (r, 0, G_N_ELEMENTS (inits))], inner->str,
        updates[g_rand_int_range (r, 0, G_N_ELEMENTS (updates))], rec->str);
      g_autoptr (GString) data = g_string_new (NULL);
      g_string_printf (data, "{\"K\": %d, \"T\": %d, \"z\": [", K, T);
      for (int k = 0; k < K; k++)
        g_string_append_printf (data, "%s%.1f", k ? ", " : "", 0.3 * (k + 1));
      g_string_append (data, "], \"y\": [");
      for (int n = 0; n < T; n++)
        g_string_append_printf (data, "%s%.3f", n ? ", " : "", 1.1 * sin (0.37 * n) + 0.1 * (n % 3));
      g_string_append (data, "]}");
      g_autofree char *name = g_strdup_printf ("random-loop-body-%u", seed);
      Case c = { name, source, data->str, 0, 0 };
      for (int level = 0; level < 2; level++)
        {
          MirOptLevel l = level ? MIR_OPT_O1 : MIR_OPT_O0;
          g_autoptr (TildeModel) f = prepare (&c, l, TRUE);
          g_autoptr (TildeModel) g = prepare (&c, l, FALSE);
          /* the loop over t and the recurrence at least */
          g_assert_cmpuint (rt_model_count_fused (f), >=, 2);
          gsize P = tilde_model_num_params_unconstrained (f);
          g_autofree double *theta = g_new (double, P);
          guint fallbacks = rt_fused_fallbacks ();
          for (int k = 0; k < 2; k++)
            {
              for (gsize i = 0; i < P; i++)
                theta[i] = 0.6 * sin (1.7 * (double) (i + 1) + k);
              for (int mode = 0; mode < 4; mode++)
                g_assert_true (agree (name, f, g, theta, mode & 1, mode & 2));
            }
          g_assert_cmpuint (rt_fused_fallbacks (), ==, fallbacks);
        }
    }
}

/* In steady state the fused forms allocate nothing. */
static void
test_no_allocation (void)
{
  const char *names[] = { "ar1", "gathers", "rows-times-vector", "elementwise-expressions",
                          "gp-cholesky", "scalar-expressions", "mixture-loop",
                          "scalar-terms-of-slices" };
  TildeModel *m[G_N_ELEMENTS (names)];
  double theta[64], g[64];
  for (guint i = 0; i < G_N_ELEMENTS (theta); i++)
    theta[i] = 0.1 * sin (i + 1.0);
  for (guint k = 0; k < G_N_ELEMENTS (names); k++)
    {
      m[k] = prepare (find_case (names[k]), MIR_OPT_O1, TRUE);
      g_assert_cmpuint (tilde_model_num_params_unconstrained (m[k]), <=, G_N_ELEMENTS (theta));
    }
  for (int i = 0; i < 20; i++)
    for (guint k = 0; k < G_N_ELEMENTS (names); k++)
      g_assert_true (isfinite (tilde_model_log_density (m[k], theta, TRUE, TRUE, g, NULL)));
  struct mallinfo2 before = mallinfo2 ();
  for (int i = 0; i < 500; i++)
    {
      theta[0] = 0.001 * i;
      for (guint k = 0; k < G_N_ELEMENTS (names); k++)
        tilde_model_log_density (m[k], theta, TRUE, TRUE, g, NULL);
    }
  struct mallinfo2 after = mallinfo2 ();
  g_assert_cmpuint (after.uordblks, ==, before.uordblks);
  g_assert_cmpuint (after.hblkhd, ==, before.hblkhd);
  for (guint k = 0; k < G_N_ELEMENTS (names); k++)
    tilde_model_free (m[k]);
}

/* The covariance of one set of data points is computed on its lower
 * triangle, and add_diag of it fused into it: the same values and
 * gradients as the cross covariance of the points with themselves (which
 * takes the general path) plus add_diag as the library computes it, for
 * each stationary kernel, points that are reals or vectors, and diagonals
 * that are data, a parameter or a vector of them. The weights are not
 * symmetric, so both triangles' adjoints count. */
static void
test_gp_symmetric (void)
{
  static const char *const kernels[] = { "gp_exp_quad_cov", "gp_matern32_cov", "gp_matern52_cov",
                                         "gp_exponential_cov" };
  static const char *const diags[] = { "0.5", "s", "v", "square(s) + v" };
  static const char *const points[] = { "x", "xv" };
  const char *data = "{\"N\": 3, \"x\": [-1, 0.5, 1.2], \"xv\": [[0, 1], [0.5, -1], [2, 0.3]], "
    "\"W\": [[1, -2, 0.5], [0.3, 1, 2], [-1, 0.7, 1.5]]}";
  for (guint k = 0; k < G_N_ELEMENTS (kernels); k++)
    for (guint d = 0; d < G_N_ELEMENTS (diags); d++)
      for (guint p = 0; p < G_N_ELEMENTS (points); p++)
        {
#define GP_FORM "data { int N; array[N] real x; array[N] vector[2] xv; matrix[N, N] W; }\n" \
            "parameters { real<lower=0> a; real<lower=0> l; real<lower=0> s; vector<lower=0>[N] v; }\n" \
            "model {\n" \
            "  matrix[N, N] K = %s(%s%s, a, l);\n" \
            "  matrix[N, N] KD = add_diag(%s(%s%s, a, l), %s);\n" \
            "  target += sum(K .* W) - sum(KD .* W') + log_determinant(KD);\n" \
            "}\n"
          g_autofree char *sym = g_strdup_printf (GP_FORM, kernels[k], points[p], "", kernels[k],
                                                  points[p], "", diags[d]);
          g_autofree char *cross_points = g_strdup_printf (", %s", points[p]);
          g_autofree char *cross = g_strdup_printf (GP_FORM, kernels[k], points[p], cross_points,
                                                    kernels[k], points[p], cross_points, diags[d]);
          Case cs = { sym, sym, data, 0, 0 }, cc = { cross, cross, data, 0, 0 };
          g_autoptr (TildeModel) f = prepare (&cs, MIR_OPT_O0, TRUE);
          g_autoptr (TildeModel) g = prepare (&cc, MIR_OPT_O0, FALSE);
          double theta[6];
          for (int k2 = 0; k2 < 2; k2++)
            {
              for (int i = 0; i < 6; i++)
                theta[i] = 0.4 * sin (1.7 * (i + 1) + k2);
              g_assert_true (agree (sym, f, g, theta, FALSE, TRUE));
            }
          check_fd (sym, f, theta);
        }
#undef GP_FORM
}

/* normal (y | a + b * v, sigma) in one pass: taken where it applies (v
 * gathered parameters, a range of parameters, data slices of a loop; the
 * two scalars either side of the product, data or parameters), not where
 * the sum's other term is a container; the log density the other fused
 * forms' to the bit, the gradient theirs but for the order of its sums,
 * in every mode and at both levels. */
static void
test_affine_normal (void)
{
  static const Case c = {
    "affine-normal",
    "data { int N; int G; array[N] int<lower=1, upper=G> g; vector[N] y; vector[N] x; }\n"
    "parameters { real mu; real<lower=0> tau; vector[G] eta; vector[N] theta; real<lower=0> s; }\n"
    "model {\n"
    "  eta ~ std_normal();\n"
    "  y ~ normal(mu + tau * eta[g], s);\n"
    "  target += normal_lupdf(y | eta[g] * tau + 1.5, 2);\n"
    "  y ~ normal(theta * 2 + mu, 0.5);\n"
    "  for (n in 2:N) y[n] ~ normal(mu + tau * y[n - 1], s);\n"
    "  y ~ normal(x + tau * eta[g], s);\n"
    "}\n",
    "{\"N\": 9, \"G\": 2, \"g\": [1, 2, 2, 1, 2, 1, 1, 2, 2], "
    "\"y\": [0.5, -1, 2, 0.1, 0.3, -0.4, 1.2, 0.8, -0.3], \"x\": [1, 2, 3, 4, 5, 6, 7, 8, 9]}",
    5, 0 };
  for (int level = 0; level < 2; level++)
    {
      MirOptLevel l = level ? MIR_OPT_O1 : MIR_OPT_O0;
      g_autoptr (TildeModel) one_pass = prepare (&c, l, TRUE);
      rt_compiler_set_affine_normal (FALSE);
      g_autoptr (TildeModel) other = prepare (&c, l, TRUE);
      rt_compiler_set_affine_normal (TRUE);
      gsize P = tilde_model_num_params_unconstrained (one_pass);
      g_autofree double *theta = g_new (double, P);
      g_autofree double *g1 = g_new (double, P);
      g_autofree double *g2 = g_new (double, P);
      for (int k = 0; k < 3; k++)
        {
          for (gsize i = 0; i < P; i++)
            theta[i] = 0.6 * sin (1.1 * (double) (i + 1) + k);
          for (int mode = 0; mode < 4; mode++)
            {
              guint runs = rt_fused_affine_normal_runs ();
              double l1 = tilde_model_log_density (one_pass, theta, mode & 1, mode & 2, g1, NULL);
              /* four of the five: the last one's sum has a container */
              g_assert_cmpuint (rt_fused_affine_normal_runs (), ==, runs + 4);
              double l2 = tilde_model_log_density (other, theta, mode & 1, mode & 2, g2, NULL);
              g_assert_cmpuint (rt_fused_affine_normal_runs (), ==, runs + 4);
              g_assert_cmpfloat (l1, ==, l2);
              for (gsize i = 0; i < P; i++)
                if (!rt_test_close (g1[i], g2[i], 1e-13))
                  g_error ("gradient[%" G_GSIZE_FORMAT "] %.17g, the other fused forms %.17g", i,
                           g1[i], g2[i]);
            }
        }
      check_fd (c.name, one_pass, theta);
    }
  /* a NaN in y: the one pass gives way, and the density's own message */
  static const Case bad = {
    "affine-normal-nan",
    "data { int N; vector[N] y; }\n"
    "parameters { real mu; real<lower=0> tau; vector[N] z; }\n"
    "model { y ~ normal(mu + tau * z, 1); }\n",
    "{\"N\": 3, \"y\": [0.5, \"NaN\", 2]}", 1, 0 };
  g_autoptr (TildeModel) m = prepare (&bad, MIR_OPT_O0, TRUE);
  double theta[5] = { 0.1, 0.2, 0.3, 0.4, 0.5 };
  g_autoptr (TildeModelError) e = NULL;
  guint runs = rt_fused_affine_normal_runs ();
  tilde_model_log_density (m, theta, FALSE, TRUE, NULL, &e);
  g_assert_nonnull (e);
  g_assert_cmpint (e->kind, ==, TILDE_MODEL_ERROR_DOMAIN);
  g_assert_cmpstr (e->message, ==, "normal_lpdf: Random variable[2] is nan, but must be not nan!");
  g_assert_cmpuint (rt_fused_affine_normal_runs (), ==, runs);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/runtime/fused/%s", cases[i].name);
      g_test_add_data_func (path, &cases[i], test_case);
    }
  for (guint i = 0; i < G_N_ELEMENTS (error_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/runtime/fused/error/%s", error_cases[i].name);
      g_test_add_data_func (path, &error_cases[i], test_error);
    }
  g_test_add_func ("/runtime/fused/error-messages", test_error_messages);
  g_test_add_func ("/runtime/fused/not-vectorised", test_not_vectorised);
  g_test_add_func ("/runtime/fused/no-allocation", test_no_allocation);
  g_test_add_func ("/runtime/fused/scalar-loop-blocks", test_scalar_loop_blocks);
  g_test_add_func ("/runtime/fused/inner-loops", test_inner_loops);
  g_test_add_func ("/runtime/fused/inner-loop-contexts", test_inner_loop_contexts);
  g_test_add_func ("/runtime/fused/random-loop-bodies", test_random_loop_bodies);
  g_test_add_func ("/runtime/fused/scalar-factors", test_scalar_factors);
  g_test_add_func ("/runtime/fused/gp-symmetric", test_gp_symmetric);
  g_test_add_func ("/runtime/fused/affine-normal", test_affine_normal);
  return g_test_run ();
}
