/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Gradient evaluations per second of the GLMs and of reductions of
 * elementwise expressions, on the CPU path and with the data on the OpenCL
 * device, side by side.
 *
 *   bench-gpu [--big] [--device opencl:P:D] [--family NAME]... [--rows N]
 *
 * GLMs: N = 10^4 and 10^5 (and 10^6 with --big), K = 10 and 100.
 * Elementwise models: N = 10^4, 10^5 and 10^6. The data are made in
 * transformed data (deterministic, no data file to read); the same
 * prepared model is timed on the CPU, then put on the device and timed
 * again, its log density and gradient compared with the CPU's, with the
 * bytes its launches copied per gradient. The normal GLM stays on the CPU
 * by its sufficient statistics; a second row times it without them, the
 * CPU path's pass over X against the normal kernel.
 */
#define G_LOG_DOMAIN "tilde-bench"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilde-frontend.h"
#include "gpu/context.h"
#include "mir/mir-lower.h"
#include "mir/mir-transform.h"
#include "runtime/gpu-call.h"
#include "gpu/plan.h"
#include "runtime/normal-stats.h"
#include "runtime/model.h"

static const struct {
  const char *name;
  const char *statement;
} families[] = {
  { "normal_id_glm", "y ~ normal_id_glm(X, alpha, beta, sigma);" },
  { "bernoulli_logit_glm", "b ~ bernoulli_logit_glm(X, alpha, beta);" },
  { "poisson_log_glm", "c ~ poisson_log_glm(X, alpha, beta);" },
  { "neg_binomial_2_log_glm", "c ~ neg_binomial_2_log_glm(X, alpha, beta, sigma);" },
  { "ordered_logistic_glm", "o ~ ordered_logistic_glm(X, beta, cuts);" },
  { "categorical_logit_glm", "o ~ categorical_logit_glm(X, calpha, cbeta);" },
};

/* Reductions of elementwise expressions over two @gpu vectors. */
static const struct {
  const char *name;
  const char *statement;
} elementwise[] = {
  { "normal-exp-decay", "y ~ normal(alpha * exp(-beta * x) + gamma, sigma);" },
  { "log_sum_exp", "target += log_sum_exp(alpha * x + beta * y);" },
};

static char *
elementwise_source (const char *statement)
{
  return g_strdup_printf (
    "data {\n"
    "  int<lower=1> N;\n"
    "  int<lower=1> K;\n"
    "}\n"
    "transformed data {\n"
    "  @gpu vector[N] x;\n"
    "  @gpu vector[N] y;\n"
    "  for (n in 1:N) {\n"
    "    x[n] = 1.5 + sin(n * 0.7);\n"
    "    y[n] = 1.5 * exp(-0.8 * x[n]) + 0.3 + 0.1 * sin(n * 2.1);\n"
    "  }\n"
    "}\n"
    "parameters {\n"
    "  real alpha;\n"
    "  real beta;\n"
    "  real gamma;\n"
    "  real<lower=0> sigma;\n"
    "}\n"
    "model {\n"
    "  %s\n"
    "}\n", statement);
}

static char *
source_for (const char *statement)
{
  return g_strdup_printf (
    "data {\n"
    "  int<lower=1> N;\n"
    "  int<lower=1> K;\n"
    "}\n"
    "transformed data {\n"
    "  @gpu matrix[N, K] X;\n"
    "  vector[N] y;\n"
    "  array[N] int b;\n"
    "  array[N] int c;\n"
    "  array[N] int o;\n"
    "  for (k in 1:K)\n"
    "    for (n in 1:N)\n"
    "      X[n, k] = sin(n * 0.7 + k * 1.3);\n"
    "  {\n"
    "    vector[N] eta = X * rep_vector(0.3 / sqrt(K), K);\n"
    "    for (n in 1:N) {\n"
    "      y[n] = eta[n] + sin(n * 2.1);\n"
    "      b[n] = sin(n * 1.7) < eta[n];\n"
    "      c[n] = n %% 3 + (eta[n] > 0);\n"
    "      o[n] = 1 + n %% 4;\n"
    "    }\n"
    "  }\n"
    "}\n"
    "parameters {\n"
    "  real alpha;\n"
    "  vector[K] beta;\n"
    "  real<lower=0> sigma;\n"
    "  ordered[3] cuts;\n"
    "  vector[4] calpha;\n"
    "  matrix[K, 4] cbeta;\n"
    "}\n"
    "model {\n"
    "  %s\n"
    "}\n", statement);
}

static TildeModel *
prepare (const char *source, gint32 N, gint32 K)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeCheckResult) result = tilde_frontend_check_buffer ("bench.stan", NULL, source,
                                                                    -1, NULL);
  g_assert (!tilde_check_result_has_errors (result));
  g_autofree char *json = g_strdup_printf ("{\"N\": %d, \"K\": %d}", N, K);
  g_autoptr (TildeJsonData) data = tilde_json_data_new_from_string (json, -1, &error);
  g_assert_no_error (error);
  MirProgram *lowered = mir_lower_program (tilde_check_result_get_program (result));
  g_autoptr (GPtrArray) diagnostics = tilde_diagnostic_list_new ();
  TildeModel *m = tilde_model_new (lowered, data, diagnostics);
  mir_program_free (lowered);
  g_assert (m != NULL);
  return m;
}

/* Gradients per second over at least `seconds` (and 3 evaluations). */
static double
rate (TildeModel *m, const double *theta, double *lp, double *grad, double seconds)
{
  /* a first evaluation outside the timing: caches warm, lazy work done */
  tilde_model_log_density (m, theta, TRUE, TRUE, grad, NULL);
  gint64 start = g_get_monotonic_time (), now;
  guint n = 0;
  do
    {
      g_autoptr (TildeModelError) error = NULL;
      *lp = tilde_model_log_density (m, theta, TRUE, TRUE, grad, &error);
      g_assert (error == NULL);
      n++;
      now = g_get_monotonic_time ();
    }
  while (n < 3 || now - start < seconds * 1e6);
  return n / ((now - start) / 1e6);
}

/* One row of a table: K < 0 leaves its column out (K is then 1). With
 * `one_pass`, the normal model without its sufficient statistics: the CPU
 * path makes a pass over X per gradient (X * beta, then X^T d) and the
 * device runs the normal kernel. */
static void
bench_row (TildeGpuContext *ctx, const char *name, const char *source, gint32 N, gint32 K,
           gboolean one_pass)
{
  rt_normal_stats_set_enabled (!one_pass);
  g_autoptr (TildeModel) m = prepare (source, N, MAX (K, 1));
  rt_normal_stats_set_enabled (TRUE);
  g_autofree char *k_column = K >= 0 ? g_strdup_printf (" %d |", K) : g_strdup ("");
  gsize n = tilde_model_num_params_unconstrained (m);
  g_autofree double *theta = g_new (double, n);
  g_autofree double *g_cpu = g_new (double, n);
  g_autofree double *g_dev = g_new (double, n);
  for (gsize i = 0; i < n; i++)
    theta[i] = 0.1 * sin (i + 1.0);
  double lp_cpu, lp_dev;
  double r_cpu = rate (m, theta, &lp_cpu, g_cpu, 2.0);
  g_autoptr (GPtrArray) diagnostics = tilde_diagnostic_list_new ();
  tilde_gpu_plan_set_normal_on_cpu (!one_pass);
  guint moved = tilde_model_use_device (m, ctx, FALSE, diagnostics);
  tilde_gpu_plan_set_normal_on_cpu (TRUE);
  if (moved != 1)
    {
      const char *why = diagnostics->len
        ? ((TildeDiagnostic *) g_ptr_array_index (diagnostics, 0))->message : "stays on the CPU";
      printf ("| %s | %d |%s %.1f | (%s) | | | |\n", name, N, k_column, r_cpu,
              strstr (why, "sufficient statistics") ? "stays on the CPU: sufficient statistics"
                                                    : why);
      return;
    }
  guint64 dev0, host0, dev1, host1;
  guint runs0 = tilde_model_device_runs (m);
  tilde_gpu_context_copied (ctx, &dev0, &host0);
  double r_dev = rate (m, theta, &lp_dev, g_dev, 2.0);
  tilde_gpu_context_copied (ctx, &dev1, &host1);
  guint runs = tilde_model_device_runs (m) - runs0;
  double diff = fabs (lp_cpu - lp_dev) / MAX (1, fabs (lp_cpu)), scale = 1;
  int worst = -1;   /* the log density, or the gradient's element */
  for (gsize i = 0; i < n; i++)
    scale = MAX (scale, fabs (g_cpu[i]));
  for (gsize i = 0; i < n; i++)
    if (fabs (g_cpu[i] - g_dev[i]) / scale > diff)
      {
        diff = fabs (g_cpu[i] - g_dev[i]) / scale;
        worst = (int) i;
      }
  if (worst < 0)
    fprintf (stderr, "%s N=%d K=%d: largest difference in the log density, %.17g vs %.17g\n",
             name, N, K, lp_cpu, lp_dev);
  else
    fprintf (stderr, "%s N=%d K=%d: largest difference in gradient[%d], %.17g vs %.17g "
             "(largest element %.3g)\n", name, N, K, worst, g_cpu[worst], g_dev[worst], scale);
  printf ("| %s | %d |%s %.1f | %.1f | %.2fx | %.1e | %.0f / %.0f |\n", name, N, k_column, r_cpu,
          r_dev, r_dev / r_cpu, diff, (double) (dev1 - dev0) / MAX (runs, 1),
          (double) (host1 - host0) / MAX (runs, 1));
  fflush (stdout);
}

int
main (int argc, char **argv)
{
  gboolean big = FALSE;
  gint32 only_rows = 0;   /* --rows N: that N alone */
  const char *device_text = "opencl";
  g_autoptr (GPtrArray) only = g_ptr_array_new ();
  for (int i = 1; i < argc; i++)
    if (!strcmp (argv[i], "--big"))
      big = TRUE;
    else if (!strcmp (argv[i], "--device") && i + 1 < argc)
      device_text = argv[++i];
    else if (!strcmp (argv[i], "--family") && i + 1 < argc)
      g_ptr_array_add (only, argv[++i]);
    else if (!strcmp (argv[i], "--rows") && i + 1 < argc)
      only_rows = atoi (argv[++i]);
  g_autoptr (GError) error = NULL;
  TildeDeviceChoice choice;
  if (!tilde_device_choice_parse (device_text, &choice, &error) || !choice.opencl)
    {
      fprintf (stderr, "bench-gpu: %s\n", error ? error->message : "an OpenCL device is needed");
      return 1;
    }
  g_autoptr (TildeGpuDevice) device = tilde_gpu_device_select (&choice, &error);
  g_autoptr (TildeGpuContext) ctx = device ? tilde_gpu_context_new (device, &error) : NULL;
  if (!ctx)
    {
      /* no device: nothing to compare, which is no failure of the benchmark */
      printf ("bench-gpu: %s\n", error->message);
      return 0;
    }
  g_autofree char *line = tilde_gpu_device_describe (device);
  printf ("device: %s\n\n", line);
  printf ("| model | N | K | CPU grad/s | OpenCL grad/s | OpenCL / CPU | max rel. diff "
          "| bytes to / from the device per gradient |\n");
  printf ("|---|---:|---:|---:|---:|---:|---:|---:|\n");
  static const gint32 rows[] = { 10000, 100000, 1000000 };
  static const gint32 cols[] = { 10, 100 };
  for (guint f = 0; f < G_N_ELEMENTS (families); f++)
    for (guint a = 0; a < G_N_ELEMENTS (rows) - !big; a++)
      for (guint b = 0; b < G_N_ELEMENTS (cols); b++)
        {
          if ((only->len && !g_ptr_array_find_with_equal_func (only, families[f].name,
                                                               g_str_equal, NULL))
              || (only_rows && rows[a] != only_rows))
            continue;
          g_autofree char *source = source_for (families[f].statement);
          bench_row (ctx, families[f].name, source, rows[a], cols[b], FALSE);
          if (f == 0)
            bench_row (ctx, "normal_id_glm, a pass over X", source, rows[a], cols[b], TRUE);
        }
  printf ("\n| model | N | CPU grad/s | OpenCL grad/s | OpenCL / CPU | max rel. diff "
          "| bytes to / from the device per gradient |\n");
  printf ("|---|---:|---:|---:|---:|---:|---:|\n");
  for (guint f = 0; f < G_N_ELEMENTS (elementwise); f++)
    for (guint a = 0; a < G_N_ELEMENTS (rows); a++)
      {
        if ((only->len && !g_ptr_array_find_with_equal_func (only, elementwise[f].name,
                                                             g_str_equal, NULL))
            || (only_rows && rows[a] != only_rows))
          continue;
        g_autofree char *source = elementwise_source (elementwise[f].statement);
        bench_row (ctx, elementwise[f].name, source, rows[a], -1, FALSE);
      }
  return 0;
}
