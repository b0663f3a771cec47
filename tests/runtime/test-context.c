/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Model contexts: the prior alone (with the log Jacobian), the likelihood
 * alone, and their sum, against the closed forms of the densities, at every
 * optimisation level: vectorised terms, terms in loops (alone and mixed
 * with prior terms in one loop), a local computed from data, truncation,
 * `target +=` without a density, the terms of _lp functions (nested, and
 * called with data and with parameters) and a mixture written with
 * log_mix. The gradients in each context agree with finite differences.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <math.h>

#include "runtime-test-util.h"

static const MirOptLevel levels[] = { MIR_OPT_O0, MIR_OPT_O1, MIR_OPT_EXPERIMENTAL };

static double
normal_lpdf (double y, double mu, double sigma)
{
  double z = (y - mu) / sigma;
  return -0.5 * log (2 * G_PI) - log (sigma) - 0.5 * z * z;
}

static double
normal_lccdf (double y, double mu, double sigma)
{
  return log (0.5 * erfc ((y - mu) / (sigma * G_SQRT2)));
}

/* The closed forms of a model: prior (without the Jacobian), the log
 * Jacobian, and likelihood, at an unconstrained point. */
typedef void (*ClosedForm) (const double *theta, double *prior, double *jacobian,
                            double *likelihood);

typedef struct {
  const char *source;
  const char *data;
  ClosedForm  closed_form;
  gsize       n_params;
} Case;

static double
log_density (TildeModel *m, const double *theta, gboolean jacobian, double *gradient)
{
  g_autoptr (TildeModelError) error = NULL;
  double lp = tilde_model_log_density (m, theta, FALSE, jacobian, gradient, &error);
  if (error)
    g_error ("log density: %s", error->message);
  return lp;
}

static void
check_gradient (TildeModel *m, const double *theta, gsize P)
{
  g_autofree double *g = g_new0 (double, P);
  g_autofree double *t = g_memdup2 (theta, sizeof (double) * P);
  log_density (m, theta, TRUE, g);
  for (gsize i = 0; i < P; i++)
    {
      double h = 1e-6 * fmax (1, fabs (theta[i])), up, down;
      t[i] = theta[i] + h;
      up = log_density (m, t, TRUE, NULL);
      t[i] = theta[i] - h;
      down = log_density (m, t, TRUE, NULL);
      t[i] = theta[i];
      if (!rt_test_close (g[i], (up - down) / (2 * h), 1e-6))
        g_error ("gradient[%" G_GSIZE_FORMAT "]: %.12g, finite differences %.12g", i, g[i],
                 (up - down) / (2 * h));
    }
}

static void
check_case (const Case *cs, const double *theta)
{
  double prior, jac, lik;
  cs->closed_form (theta, &prior, &jac, &lik);
  for (guint l = 0; l < G_N_ELEMENTS (levels); l++)
    {
      g_autoptr (TildeModel) m = rt_test_model_at (cs->source, cs->data, levels[l]);
      g_assert_cmpuint (tilde_model_num_params_unconstrained (m), ==, cs->n_params);
      const struct { TildeModelContext context; double with_jacobian, without; } expected[] = {
        { TILDE_MODEL_CONTEXT_JOINT, prior + jac + lik, prior + lik },
        { TILDE_MODEL_CONTEXT_PRIOR, prior + jac, prior },
        { TILDE_MODEL_CONTEXT_LIKELIHOOD, lik, lik },
      };
      for (guint k = 0; k < G_N_ELEMENTS (expected); k++)
        {
          tilde_model_set_context (m, expected[k].context);
          double with = log_density (m, theta, TRUE, NULL);
          double without = log_density (m, theta, FALSE, NULL);
          if (!rt_test_close (with, expected[k].with_jacobian, 1e-12)
              || !rt_test_close (without, expected[k].without, 1e-12))
            g_error ("%s, context %u: %.17g and %.17g without the Jacobian; expected %.17g and "
                     "%.17g", mir_opt_level_name (levels[l]), expected[k].context, with, without,
                     expected[k].with_jacobian, expected[k].without);
          check_gradient (m, theta, cs->n_params);
        }
    }
}

/* ---- normal with a normal prior on the mean ---- */

static const double nn_y[] = { 0.5, 1.5, -0.3, 2.2 };

static void
nn_closed_form (const double *theta, double *prior, double *jacobian, double *likelihood)
{
  double mu = theta[0], sigma = exp (theta[1]);
  *prior = normal_lpdf (mu, 1, 2) + normal_lpdf (log (sigma), 0, 1) - log (sigma);
  *jacobian = theta[1];
  *likelihood = 0;
  for (guint n = 0; n < G_N_ELEMENTS (nn_y); n++)
    *likelihood += normal_lpdf (nn_y[n], mu, sigma);
}

static void
test_normal_normal (void)
{
  const Case cs = {
    "data { int N; vector[N] y; }\n"
    "parameters { real mu; real<lower=0> sigma; }\n"
    "model {\n"
    "  mu ~ normal(1, 2);\n"
    "  sigma ~ lognormal(0, 1);\n"
    "  y ~ normal(mu, sigma);\n"
    "}\n",
    "{\"N\": 4, \"y\": [0.5, 1.5, -0.3, 2.2]}", nn_closed_form, 2,
  };
  const double theta[] = { 0.7, log (1.3) };
  check_case (&cs, theta);
}

/* ---- loops, a local of data, truncation, target += without a density ---- */

#define J 3
static const double loop_y[J] = { 2.0, -1.0, 0.5 };
static const double loop_s[J] = { 1.0, 2.0, 0.5 };

static void
loops_closed_form (const double *theta, double *prior, double *jacobian, double *likelihood)
{
  double mu = theta[0], tau = exp (theta[1]);
  const double *th = theta + 2;
  *prior = normal_lpdf (mu, 0, 5) + log (1 / (G_PI * 5 * (1 + (tau / 5) * (tau / 5))))
    - 0.5 * (mu / 10) * (mu / 10);
  *jacobian = theta[1];
  *likelihood = 0;
  for (int j = 0; j < J; j++)
    {
      *prior += normal_lpdf (th[j], mu, tau);
      *likelihood += normal_lpdf (loop_y[j], th[j], loop_s[j]);
      /* z[j] = 2 y[j] ~ normal(2 theta[j], 1) T[-10, ] */
      *likelihood += normal_lpdf (2 * loop_y[j], 2 * th[j], 1) - normal_lccdf (-10, 2 * th[j], 1);
    }
}

static void
test_loops (void)
{
  const Case cs = {
    "data { int J; vector[J] y; vector<lower=0>[J] s; }\n"
    "parameters { real mu; real<lower=0> tau; vector[J] theta; }\n"
    "model {\n"
    "  vector[J] z = 2 * y;\n"
    "  mu ~ normal(0, 5);\n"
    "  tau ~ cauchy(0, 5);\n"
    "  for (j in 1:J) {\n"
    "    theta[j] ~ normal(mu, tau);\n"
    "    y[j] ~ normal(theta[j], s[j]);\n"
    "  }\n"
    "  for (j in 1:J)\n"
    "    z[j] ~ normal(2 * theta[j], 1) T[-10, ];\n"
    "  target += -0.5 * square(mu / 10);\n"
    "}\n",
    "{\"J\": 3, \"y\": [2.0, -1.0, 0.5], \"s\": [1.0, 2.0, 0.5]}", loops_closed_form, 2 + J,
  };
  const double theta[] = { 0.4, log (0.8), 1.1, -0.6, 0.2 };
  check_case (&cs, theta);
}

/* ---- _lp functions ---- */

static void
lp_closed_form (const double *theta, double *prior, double *jacobian, double *likelihood)
{
  double mu = theta[0], sigma = exp (theta[1]);
  *prior = normal_lpdf (mu, 0, 3) + normal_lpdf (theta[2], mu, 1) + normal_lpdf (theta[3], mu, 1)
    + log (1.0) - sigma;
  *jacobian = theta[1];
  *likelihood = 0;
  for (guint n = 0; n < G_N_ELEMENTS (nn_y); n++)
    *likelihood += normal_lpdf (nn_y[n], mu, sigma);
}

/* The terms of obs_lp are likelihood when it is called with data, prior
 * when called with parameters; both_lp passes its own arguments on. */
static void
test_lp_functions (void)
{
  const Case cs = {
    "functions {\n"
    "  void obs_lp(vector v, real m, real sd) {\n"
    "    target += normal_lpdf(v | m, sd);\n"
    "  }\n"
    "  void both_lp(vector v, real m, real sd) {\n"
    "    m ~ normal(0, 3);\n"
    "    obs_lp(v, m, sd);\n"
    "  }\n"
    "}\n"
    "data { int N; vector[N] y; }\n"
    "parameters { real mu; real<lower=0> sigma; vector[2] w; }\n"
    "model {\n"
    "  both_lp(y, mu, sigma);\n"
    "  obs_lp(w, mu, 1);\n"
    "  target += exponential_lpdf(sigma | 1);\n"
    "}\n",
    "{\"N\": 4, \"y\": [0.5, 1.5, -0.3, 2.2]}", lp_closed_form, 4,
  };
  const double theta[] = { 0.3, log (1.7), -0.4, 0.9 };
  check_case (&cs, theta);
}

/* ---- a mixture ---- */

static const double mix_y[] = { -1.2, 0.3, 2.5, 3.1 };

static void
mix_closed_form (const double *theta, double *prior, double *jacobian, double *likelihood)
{
  double m1 = theta[0], m2 = theta[0] + exp (theta[1]);
  *prior = normal_lpdf (m1, 0, 2) + normal_lpdf (m2, 0, 2);
  *jacobian = theta[1];
  *likelihood = 0;
  for (guint n = 0; n < G_N_ELEMENTS (mix_y); n++)
    *likelihood += log (0.3 * exp (normal_lpdf (mix_y[n], m1, 1))
                        + 0.7 * exp (normal_lpdf (mix_y[n], m2, 1)));
}

static void
test_mixture (void)
{
  const Case cs = {
    "data { int N; vector[N] y; }\n"
    "parameters { ordered[2] m; }\n"
    "model {\n"
    "  m ~ normal(0, 2);\n"
    "  for (n in 1:N)\n"
    "    target += log_mix(0.3, normal_lpdf(y[n] | m[1], 1), normal_lpdf(y[n] | m[2], 1));\n"
    "}\n",
    "{\"N\": 4, \"y\": [-1.2, 0.3, 2.5, 3.1]}", mix_closed_form, 2,
  };
  const double theta[] = { 0.1, log (2.0) };
  check_case (&cs, theta);
}

/* ---- the default and the constants ---- */

/* Without a context the model is the joint; under propto the prior drops
 * its own constants only. */
static void
test_default_and_propto (void)
{
  g_autoptr (TildeModel) m = rt_test_model (
    "data { int N; vector[N] y; }\n"
    "parameters { real mu; real<lower=0> sigma; }\n"
    "model {\n"
    "  mu ~ normal(1, 2);\n"
    "  sigma ~ lognormal(0, 1);\n"
    "  y ~ normal(mu, sigma);\n"
    "}\n", "{\"N\": 4, \"y\": [0.5, 1.5, -0.3, 2.2]}");
  const double theta[] = { 0.7, log (1.3) };
  double prior, jac, lik;
  nn_closed_form (theta, &prior, &jac, &lik);
  g_assert_true (rt_test_close (log_density (m, theta, TRUE, NULL), prior + jac + lik, 1e-12));
  tilde_model_set_context (m, TILDE_MODEL_CONTEXT_PRIOR);
  double full = tilde_model_log_density (m, theta, FALSE, TRUE, NULL, NULL);
  double propto = tilde_model_log_density (m, theta, TRUE, TRUE, NULL, NULL);
  /* normal(1, 2) drops -log(2) - log(2 pi) / 2; lognormal(0, 1) -log(2 pi) / 2 */
  g_assert_true (rt_test_close (full - propto, -log (2) - log (2 * G_PI), 1e-12));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/runtime/context/normal-normal", test_normal_normal);
  g_test_add_func ("/runtime/context/loops", test_loops);
  g_test_add_func ("/runtime/context/lp-functions", test_lp_functions);
  g_test_add_func ("/runtime/context/mixture", test_mixture);
  g_test_add_func ("/runtime/context/default-and-propto", test_default_and_propto);
  return g_test_run ();
}
