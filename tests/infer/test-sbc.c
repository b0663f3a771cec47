/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Simulation-based calibration (Talts et al. 2018): draw parameters from
 * the prior, data from the model, sample the posterior; the rank of the
 * true value among the posterior draws is then uniform when the sampler
 * is right. Each model: 200 replications of 99 draws (990 thinned by 10,
 * nearly independent), ranks 0..99 in 10 bins, a chi-square test on 9
 * degrees of freedom at p = 0.001 (27.88).
 */
#define G_LOG_DOMAIN "tilde-test"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <string.h>

#include "infer-test-util.h"
#include "mir/mir-lower.h"
#include "tilde-frontend.h"

#define REPLICATIONS 200
#define DRAWS 99
#define BINS 10
#define CHI2_9_P001 27.877

typedef struct {
  const char  *source;
  const char  *names[2];        /* the parameters ranked */
  /* draws the truth into theta and returns the data as JSON */
  char       *(*simulate) (gsl_rng *rng, double *theta);
} Sbc;

static char *
normal_mean (gsl_rng *rng, double *theta)
{
  GString *s = g_string_new ("{\"y\": [");
  theta[0] = gsl_ran_gaussian (rng, 1.0);
  for (int i = 0; i < 5; i++)
    g_string_append_printf (s, "%s%.17g", i ? ", " : "", theta[0] + gsl_ran_gaussian (rng, 1.0));
  g_string_append (s, "]}");
  return g_string_free (s, FALSE);
}

static char *
beta_binomial (gsl_rng *rng, double *theta)
{
  theta[0] = gsl_ran_beta (rng, 2, 2);
  return g_strdup_printf ("{\"y\": %u}", gsl_ran_binomial (rng, theta[0], 10));
}

static char *
normal_scale (gsl_rng *rng, double *theta)
{
  GString *s = g_string_new ("{\"y\": [");
  theta[0] = gsl_ran_gaussian (rng, 1.0);
  theta[1] = gsl_ran_lognormal (rng, 0, 0.5);
  for (int i = 0; i < 10; i++)
    g_string_append_printf (s, "%s%.17g", i ? ", " : "", theta[0] + gsl_ran_gaussian (rng, theta[1]));
  g_string_append (s, "]}");
  return g_string_free (s, FALSE);
}

static const Sbc cases[] = {
  { "data { vector[5] y; }\n"
    "parameters { real mu; }\n"
    "model { mu ~ normal(0, 1); y ~ normal(mu, 1); }\n",
    { "mu", NULL }, normal_mean },
  { "data { int y; }\n"
    "parameters { real<lower=0, upper=1> theta; }\n"
    "model { theta ~ beta(2, 2); y ~ binomial(10, theta); }\n",
    { "theta", NULL }, beta_binomial },
  { "data { vector[10] y; }\n"
    "parameters { real mu; real<lower=0> sigma; }\n"
    "model { mu ~ normal(0, 1); sigma ~ lognormal(0, 0.5); y ~ normal(mu, sigma); }\n",
    { "mu", "sigma" }, normal_scale },
};

static double
chi_square (const guint *counts)
{
  double expected = (double) REPLICATIONS / BINS, x = 0;
  for (int b = 0; b < BINS; b++)
    x += (counts[b] - expected) * (counts[b] - expected) / expected;
  return x;
}

static void
check_sbc (gconstpointer data)
{
  const Sbc *sbc = data;
  g_autoptr(TildeCheckResult) check = tilde_frontend_check_buffer ("sbc.stan", NULL, sbc->source, -1, NULL);
  MirProgram *program;
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  guint counts[2][BINS] = { { 0 } };

  g_assert_false (tilde_check_result_has_errors (check));
  program = mir_lower_program (tilde_check_result_get_program (check));
  gsl_rng_set (rng, 20241122);
  for (int r = 0; r < REPLICATIONS; r++)
    {
      double theta[2];
      g_autofree char *json = sbc->simulate (rng, theta);
      g_autoptr(TildeJsonData) y = tilde_json_data_new_from_string (json, -1, NULL);
      g_autoptr(GPtrArray) diagnostics = tilde_diagnostic_list_new ();
      g_autoptr(TildeModel) model = tilde_model_new (program, y, diagnostics);
      g_autoptr(TildeSampleRun) run = NULL;
      TildeSampleOptions o;

      g_assert_nonnull (model);
      infer_test_options (&o, 1, 500, DRAWS * 10, 1000 + (guint64) r);
      o.thin = 10;
      run = infer_test_run (model, &o);
      for (int k = 0; k < 2 && sbc->names[k]; k++)
        {
          gsize per_chain;
          g_autofree double *x = infer_test_draws (run, infer_test_column (run, sbc->names[k]), &per_chain);
          guint rank = 0;
          g_assert_cmpuint (per_chain, ==, DRAWS);
          for (gsize i = 0; i < per_chain; i++)
            rank += x[i] < theta[k];
          counts[k][rank * BINS / (DRAWS + 1)]++;
        }
    }
  for (int k = 0; k < 2 && sbc->names[k]; k++)
    {
      double x = chi_square (counts[k]);
      g_test_message ("%s: chi-square %.2f", sbc->names[k], x);
      g_assert_cmpfloat (x, <, CHI2_9_P001);
    }
  mir_program_free (program);
  gsl_rng_free (rng);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/infer/sbc/normal-mean", &cases[0], check_sbc);
  g_test_add_data_func ("/infer/sbc/beta-binomial", &cases[1], check_sbc);
  g_test_add_data_func ("/infer/sbc/normal-mean-and-scale", &cases[2], check_sbc);
  return g_test_run ();
}
