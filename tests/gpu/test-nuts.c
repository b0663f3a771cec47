/* SPDX-License-Identifier: GPL-3.0-or-later */
/* NUTS on a GLM whose data live on the OpenCL device gives the posterior
 * of the same run on the CPU. */
#define G_LOG_DOMAIN "tilde-test"

#include <math.h>

#include "gpu-test-util.h"
#include "infer-test-util.h"
#include "runtime/gpu-call.h"

static const char *model =
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
data_json (void)
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

static void
test_posterior (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  g_autofree char *json = data_json ();
  g_autoptr (TildeModel) cpu = infer_test_model (model, json);
  g_autoptr (TildeModel) dev = infer_test_model (model, json);
  g_assert_cmpuint (tilde_model_use_device (dev, ctx, FALSE, NULL), ==, 1);
  TildeSampleOptions o;
  const guint chains = 2;
  infer_test_options (&o, chains, 400, 1000, 4321);
  g_autoptr (TildeSampleRun) run_cpu = infer_test_run (cpu, &o);
  g_autoptr (TildeSampleRun) run_dev = infer_test_run (dev, &o);
  g_assert_cmpuint (tilde_model_device_runs (dev), >, 1000);
  static const char *const names[] = { "alpha", "beta.1", "beta.2", "beta.3" };
  gsize identical = G_MAXSIZE;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
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
  g_test_add_func ("/gpu/nuts/poisson-glm-posterior", test_posterior);
  return g_test_run ();
}
