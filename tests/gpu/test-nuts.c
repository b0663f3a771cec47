/* SPDX-License-Identifier: GPL-3.0-or-later */
/* NUTS on a GLM, and on a nonlinear regression (an elementwise kernel),
 * whose data live on the OpenCL device gives the posterior of the same run
 * on the CPU. */
#define G_LOG_DOMAIN "tilde-test"

#include <math.h>

#include "gpu-test-util.h"
#include "infer-test-util.h"
#include "runtime/gpu-call.h"

static const char glm_model[] =
  "data {\n"
  "  int<lower=0> N;\n"
  "  int<lower=0> K;\n"
  "  @gpu matrix[N, K] X;\n"
  "  array[N] int c;\n"
  "}\n"
  "parameters {\n"
  "  real alpha;\n"
  "  vector[K] beta;\n"
  "}\n"
  "model {\n"
  "  alpha ~ normal(0, 2);\n"
  "  beta ~ normal(0, 1);\n"
  "  c ~ poisson_log_glm(X, alpha, beta);\n"
  "}\n";

static char *
glm_data (void)
{
  g_autoptr (GRand) r = g_rand_new_with_seed (99);
  const int N = 250, K = 3;
  static const double beta[] = { 0.4, -0.3, 0.2 };
  GString *j = g_string_new (NULL);
  GString *c = g_string_new (NULL);
  g_string_append_printf (j, "{\"N\": %d, \"K\": %d, \"X\": [", N, K);
  for (int n = 0; n < N; n++)
    {
      double eta = 0.5;
      g_string_append (j, n ? ", [" : "[");
      for (int k = 0; k < K; k++)
        {
          double x = g_rand_double_range (r, -1.5, 1.5);
          eta += x * beta[k];
          g_string_append_printf (j, "%s%.6f", k ? ", " : "", x);
        }
      g_string_append (j, "]");
      /* a Poisson draw by inversion */
      double u = g_rand_double (r), p = exp (-exp (eta)), cdf = p;
      int y = 0;
      while (u > cdf && y < 1000)
        {
          y++;
          p *= exp (eta) / y;
          cdf += p;
        }
      g_string_append_printf (c, "%s%d", n ? ", " : "", y);
    }
  g_string_append_printf (j, "], \"c\": [%s]}", c->str);
  g_string_free (c, TRUE);
  return g_string_free (j, FALSE);
}

static const char nonlinear_model[] =
  "data {\n"
  "  int<lower=0> N;\n"
  "  @gpu vector[N] x;\n"
  "  @gpu vector[N] y;\n"
  "}\n"
  "parameters {\n"
  "  real a;\n"
  "  real<lower=0> b;\n"
  "  real<lower=0> sigma;\n"
  "}\n"
  "model {\n"
  "  a ~ normal(0, 1);\n"
  "  b ~ normal(0, 2);\n"
  "  sigma ~ normal(0, 1);\n"
  "  y ~ normal(b * exp(a * x), sigma);\n"
  "}\n";

/* y = 0.8 exp (0.3 x) + noise, uniform noise of standard deviation 0.5 */
static char *
nonlinear_data (void)
{
  g_autoptr (GRand) r = g_rand_new_with_seed (98);
  const int N = 300;
  GString *x = g_string_new (NULL), *y = g_string_new (NULL);
  for (int n = 0; n < N; n++)
    {
      double xn = g_rand_double_range (r, -2, 2);
      double yn = 0.8 * exp (0.3 * xn) + g_rand_double_range (r, -0.866, 0.866);
      g_string_append_printf (x, "%s%.6f", n ? ", " : "", xn);
      g_string_append_printf (y, "%s%.6f", n ? ", " : "", yn);
    }
  char *json = g_strdup_printf ("{\"N\": %d, \"x\": [%s], \"y\": [%s]}", N, x->str, y->str);
  g_string_free (x, TRUE);
  g_string_free (y, TRUE);
  return json;
}

typedef struct {
  const char *name;
  const char *model;
  char     *(*data) (void);
  const char *params[4];
} NutsCase;

static const NutsCase nuts_cases[] = {
  { "poisson-glm-posterior", glm_model, glm_data, { "alpha", "beta.1", "beta.2", "beta.3" } },
  { "nonlinear-normal-posterior", nonlinear_model, nonlinear_data, { "a", "b", "sigma", NULL } },
};

static void
test_posterior (gconstpointer data)
{
  const NutsCase *c = data;
  const char *model = c->model;
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  g_autofree char *json = c->data ();
  g_autoptr (TildeModel) cpu = infer_test_model (model, json);
  g_autoptr (TildeModel) dev = infer_test_model (model, json);
  g_assert_cmpuint (tilde_model_use_device (dev, ctx, FALSE, NULL), ==, 1);
  TildeSampleOptions o;
  const guint chains = 2;
  infer_test_options (&o, chains, 400, 1000, 4321);
  g_autoptr (TildeSampleRun) run_cpu = infer_test_run (cpu, &o);
  g_autoptr (TildeSampleRun) run_dev = infer_test_run (dev, &o);
  g_assert_cmpuint (tilde_model_device_runs (dev), >, 1000);
  const char *const *names = c->params;
  gsize identical = G_MAXSIZE;
  for (guint i = 0; i < G_N_ELEMENTS (c->params) && names[i]; i++)
    {
      gsize per_chain;
      g_autofree double *a = infer_test_draws (run_cpu, infer_test_column (run_cpu, names[i]),
                                               &per_chain);
      g_autofree double *b = infer_test_draws (run_dev, infer_test_column (run_dev, names[i]),
                                               &per_chain);
      InferTestSummary sa, sb;
      infer_test_summarise (a, chains, per_chain, &sa);
      infer_test_summarise (b, chains, per_chain, &sb);
      g_assert_cmpfloat (sa.rhat, <, 1.05);
      g_assert_cmpfloat (sb.rhat, <, 1.05);
      /* the two means differ by less than 4 of their combined standard errors */
      double se = sqrt (sa.mcse * sa.mcse + sb.mcse * sb.mcse);
      g_assert_cmpfloat (fabs (sa.mean - sb.mean), <, 4 * se);
      g_assert_cmpfloat (fabs (sa.sd - sb.sd), <, 0.2 * sa.sd);
      gsize same = 0;
      while (same < per_chain && a[same] == b[same])
        same++;
      identical = MIN (identical, same);
    }
  /* the arithmetic differs in the last bits (sums in another order), so
   * the chains agree draw for draw only until a difference is amplified */
  g_test_message ("first chain: %" G_GSIZE_FORMAT " leading draws identical", identical);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (nuts_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/gpu/nuts/%s", nuts_cases[i].name);
      g_test_add_data_func (path, &nuts_cases[i], test_posterior);
    }
  return g_test_run ();
}
