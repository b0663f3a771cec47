/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The same model on the CPU and on the OpenCL device: log density and
 * gradient on random inputs, edge sizes, and the errors of bad values.
 *
 * "Relative difference" is normwise: |a - b| <= 1e-12 max (1, |a|) for the
 * log density and max_i |g_i - h_i| <= 1e-12 max (1, max_i |g_i|) for the
 * gradient (a component near zero after cancellation keeps the absolute
 * error of the sum it came from). */
#define G_LOG_DOMAIN "tilde-test"

#include <math.h>
#include <string.h>

#include "gpu-test-util.h"
#include "runtime-test-util.h"
#include "runtime/exec-private.h"
#include "runtime/gpu-call.h"
#include "gpu/plan.h"

#define TOL 1e-12

typedef struct {
  const char *name;
  const char *statement;
} Family;

static const Family families[] = {
  { "normal_id_glm", "y ~ normal_id_glm(X, alpha, beta, sigma);" },
  { "normal-predictor", "y ~ normal(X * beta + alpha, sigma);" },
  { "normal-sigma-data", "y ~ normal_id_glm(X, alpha, beta, s);" },
  { "normal-lpdf", "target += normal_id_glm_lpdf(y | X, alpha, beta, sigma);" },
  { "bernoulli_logit_glm", "b ~ bernoulli_logit_glm(X, alpha, beta);" },
  { "bernoulli-predictor", "b ~ bernoulli_logit(alpha + X * beta);" },
  { "poisson_log_glm", "c ~ poisson_log_glm(X, alpha, beta);" },
  { "poisson-lpmf", "target += poisson_log_glm_lpmf(c | X, alpha, beta);" },
  { "poisson-no-intercept", "c ~ poisson_log(X * beta);" },
  /* 9 */
  { "neg_binomial_2_log_glm", "c ~ neg_binomial_2_log_glm(X, alpha, beta, sigma);" },
  { "neg-binomial-phi-data", "c ~ neg_binomial_2_log_glm(X, alpha, beta, s);" },
  { "neg-binomial-predictor", "c ~ neg_binomial_2_log(X * beta + alpha, sigma);" },
  { "neg-binomial-lpmf", "target += neg_binomial_2_log_glm_lpmf(c | X, alpha, beta, sigma);" },
  { "neg-binomial-lupmf", "target += neg_binomial_2_log_glm_lupmf(c | X, alpha, beta, s);" },
  /* 14 */
  { "ordered_logistic_glm", "o ~ ordered_logistic_glm(X, beta, cuts);" },
  { "ordered-cuts-data", "o ~ ordered_logistic_glm(X, beta, dc);" },
  { "ordered-lpmf", "target += ordered_logistic_glm_lpmf(o | X, beta, cuts);" },
  /* 17 */
  { "categorical_logit_glm", "o ~ categorical_logit_glm(X, calpha, cbeta);" },
  { "categorical-alpha-data", "o ~ categorical_logit_glm(X, dca, cbeta);" },
  { "categorical-lpmf", "target += categorical_logit_glm_lpmf(o | X, calpha, cbeta);" },
};

static char *
model_source (const Family *f)
{
  return g_strdup_printf ("data {\n"
                          "  int<lower=0> N;\n"
                          "  int<lower=0> K;\n"
                          "  @gpu matrix[N, K] X;\n"
                          "  vector[N] y;\n"
                          "  array[N] int b;\n"
                          "  array[N] int c;\n"
                          "  real s;\n"
                          "  int<lower=2> C;\n"
                          "  array[N] int o;\n"
                          "  vector[C - 1] dc;\n"
                          "  vector[C] dca;\n"
                          "}\n"
                          "parameters {\n"
                          "  real alpha;\n"
                          "  vector[K] beta;\n"
                          "  real<lower=0> sigma;\n"
                          "  ordered[C - 1] cuts;\n"
                          "  vector[C] calpha;\n"
                          "  matrix[K, C] cbeta;\n"
                          "}\n"
                          "model {\n"
                          "  %s\n"
                          "}\n", f->statement);
}

static void
append_real (GString *s, double x)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  if (isnan (x))
    g_string_append (s, "\"NaN\"");
  else if (isinf (x))
    g_string_append (s, x > 0 ? "\"Inf\"" : "\"-Inf\"");
  else
    g_string_append (s, g_ascii_dtostr (buf, sizeof buf, x));
}

/* Random data: x standard normal, y about a linear predictor, C = 4
 * ordered categories; `poison` (may be NULL) names a value to put at row
 * N / 2: "X" (Inf), "y" (NaN), "b" (2), "c" (-1), "o" (0 or "o5": 5), or
 * "dc" (cut points out of order). */
static char *
data_json (GRand *r, gint32 N, gint32 K, double s, const char *poison)
{
  GString *j = g_string_new (NULL);
  g_string_append_printf (j, "{\"N\": %d, \"K\": %d, \"s\": ", N, K);
  append_real (j, s);
  g_string_append (j, ", \"X\": [");
  double *eta = g_new0 (double, MAX (N, 1));
  for (gint32 n = 0; n < N; n++)
    {
      g_string_append (j, n ? ", [" : "[");
      for (gint32 k = 0; k < K; k++)
        {
          double x = g_rand_double_range (r, -1.7, 1.7);
          if (poison && !strcmp (poison, "X") && n == N / 2 && k == K - 1)
            x = INFINITY;
          eta[n] += x * 0.5 / sqrt (K);
          if (k)
            g_string_append (j, ", ");
          append_real (j, x);
        }
      g_string_append (j, "]");
    }
  static const char *const vars[] = { "y", "b", "c", "o" };
  for (guint v = 0; v < 4; v++)
    {
      g_string_append_printf (j, "], \"%s\": [", vars[v]);
      for (gint32 n = 0; n < N; n++)
        {
          gboolean bad = poison && !strcmp (poison, vars[v]) && n == N / 2;
          if (n)
            g_string_append (j, ", ");
          if (v == 0)
            append_real (j, bad ? NAN : eta[n] + g_rand_double_range (r, -1, 1));
          else if (v == 1)
            g_string_append_printf (j, "%d", bad ? 2 : g_rand_double (r) < 1 / (1 + exp (-eta[n])));
          else if (v == 2)
            g_string_append_printf (j, "%d", bad ? -1 : g_rand_int_range (r, 0, isfinite (eta[n])
                                                               ? 1 + (int) (3 * exp (eta[n])) : 2));
          else
            g_string_append_printf (j, "%d", poison && !strcmp (poison, "o5") && n == N / 2 ? 5
                                             : bad ? 0 : g_rand_int_range (r, 1, 5));
        }
    }
  g_string_append_printf (j, "], \"C\": 4, \"dca\": [0.3, -0.2, 0.1, 0.5], \"dc\": [%s]}",
                          poison && !strcmp (poison, "dc") ? "-1, 0.7, 0.2" : "-1, 0.2, 1.5");
  g_free (eta);
  return g_string_free (j, FALSE);
}

typedef struct {
  TildeModel *cpu, *dev;
  gsize       n;
} Pair;

static gboolean
pair_new_at (Pair *p, TildeGpuContext *ctx, const Family *f, const char *json, guint expected,
             MirOptLevel level)
{
  g_autofree char *source = model_source (f);
  p->cpu = rt_test_model_at (source, json, level);
  p->dev = rt_test_model_at (source, json, level);
  g_autoptr (GPtrArray) diagnostics = tilde_diagnostic_list_new ();
  guint n = tilde_model_use_device (p->dev, ctx, FALSE, diagnostics);
  g_assert_cmpuint (diagnostics->len, ==, 0);
  g_assert_cmpuint (n, ==, expected);
  p->n = tilde_model_num_params_unconstrained (p->cpu);
  return TRUE;
}

static gboolean
pair_new (Pair *p, TildeGpuContext *ctx, const Family *f, const char *json, guint expected)
{
  return pair_new_at (p, ctx, f, json, expected, MIR_OPT_O0);
}

static void
pair_clear (Pair *p)
{
  tilde_model_free (p->cpu);
  tilde_model_free (p->dev);
}

static double
max_abs (const double *x, gsize n)
{
  double m = 0;
  for (gsize i = 0; i < n; i++)
    if (isfinite (x[i]))
      m = MAX (m, fabs (x[i]));
  return m;
}

/* Both models at theta: the same value and gradient, or the same error. */
static void
compare_at (Pair *p, const double *theta, gboolean propto)
{
  g_autofree double *g_cpu = g_new0 (double, p->n);
  g_autofree double *g_dev = g_new0 (double, p->n);
  g_autoptr (TildeModelError) e_cpu = NULL;
  g_autoptr (TildeModelError) e_dev = NULL;
  double lp_cpu = tilde_model_log_density (p->cpu, theta, propto, TRUE, g_cpu, &e_cpu);
  double lp_dev = tilde_model_log_density (p->dev, theta, propto, TRUE, g_dev, &e_dev);
  if (e_cpu || e_dev)
    {
      g_assert_nonnull (e_cpu);
      g_assert_nonnull (e_dev);
      g_assert_cmpint (e_cpu->kind, ==, e_dev->kind);
      g_assert_cmpstr (e_cpu->message, ==, e_dev->message);
      return;
    }
  if (!isfinite (lp_cpu))
    {
      g_assert_cmpfloat (lp_cpu, ==, lp_dev);
      return;
    }
  g_assert_cmpfloat (fabs (lp_cpu - lp_dev), <=, TOL * MAX (1, fabs (lp_cpu)));
  double scale = MAX (1, max_abs (g_cpu, p->n));
  for (gsize i = 0; i < p->n; i++)
    if (isfinite (g_cpu[i]))
      g_assert_cmpfloat (fabs (g_cpu[i] - g_dev[i]), <=, TOL * scale);
    else
      g_assert_true (isnan (g_cpu[i]) ? isnan (g_dev[i]) : g_cpu[i] == g_dev[i]);
}

static void
random_theta (GRand *r, double *theta, gsize n)
{
  for (gsize i = 0; i < n; i++)
    theta[i] = g_rand_double_range (r, -0.8, 0.8);
}

static void
check_family (gconstpointer data)
{
  const Family *f = data;
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  static const gint32 rows[] = { 1, 37, 1000, 4099, 0 };
  static const gint32 cols[] = { 1, 5, 70 };
  g_autoptr (GRand) r = g_rand_new_with_seed (20261122);
  for (guint a = 0; a < G_N_ELEMENTS (rows); a++)
    for (guint b = 0; b < G_N_ELEMENTS (cols); b++)
      {
        g_autofree char *json = data_json (r, rows[a], cols[b], 1.3, NULL);
        Pair p;
        pair_new (&p, ctx, f, json, 1);
        g_autofree double *theta = g_new0 (double, p.n);
        for (int trial = 0; trial < 3; trial++)
          {
            random_theta (r, theta, p.n);
            compare_at (&p, theta, FALSE);
            compare_at (&p, theta, TRUE);
          }
        /* the kernel ran, except with no rows, where the CPU path does */
        g_assert_cmpuint (tilde_model_device_runs (p.dev), ==, rows[a] ? 6 : 0);
        pair_clear (&p);
      }
}

/* The optimiser writes GLMs of its own (normal of a linear predictor
 * becomes normal_id_glm, named _lupdf but not marked propto): the device
 * keeps and drops the constants the CPU does. */
static void
test_optimised (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  static const MirOptLevel levels[] = { MIR_OPT_O1, MIR_OPT_EXPERIMENTAL };
  g_autoptr (GRand) r = g_rand_new_with_seed (3);
  for (guint l = 0; l < G_N_ELEMENTS (levels); l++)
    for (guint i = 0; i < G_N_ELEMENTS (families); i++)
      {
        g_autofree char *json = data_json (r, 500, 4, 1.3, NULL);
        Pair p;
        pair_new_at (&p, ctx, &families[i], json, 1, levels[l]);
        g_autofree double *theta = g_new0 (double, p.n);
        random_theta (r, theta, p.n);
        compare_at (&p, theta, FALSE);
        compare_at (&p, theta, TRUE);
        g_assert_cmpuint (tilde_model_device_runs (p.dev), ==, 2);
        pair_clear (&p);
      }
}

/* Bad values raise the CPU path's own errors (or give its values). */
static void
test_domain_errors (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  static const struct {
    guint       family;
    const char *poison;
    double      s;
    guint       on_device;
    gboolean    raises;
  } cases[] = {
    { 0, "X", 1, 1, TRUE },        /* an infinite predictor: the location is not finite */
    { 1, "X", 1, 1, TRUE },
    { 0, "y", 1, 1, TRUE },        /* a NaN outcome */
    { 2, NULL, -1, 1, TRUE },      /* a negative scale */
    { 2, NULL, NAN, 1, TRUE },
    { 4, "b", 1, 0, TRUE },        /* an outcome outside {0, 1}: not put on the device */
    /* an infinite logit or log rate is no error for these densities: the
     * value is the CPU's -inf or its limit */
    { 4, "X", 1, 1, FALSE },
    { 6, "X", 1, 1, FALSE },
    { 9, "X", 1, 1, TRUE },        /* the negative binomial's log location is not finite */
    { 10, NULL, -1, 1, TRUE },     /* phi negative, NaN, infinite */
    { 10, NULL, NAN, 1, TRUE },
    { 13, NULL, INFINITY, 1, TRUE },
    { 9, "c", 1, 0, TRUE },        /* a negative count: not put on the device */
    { 14, "X", 1, 1, TRUE },       /* the ordinal's location is not finite */
    { 14, "o", 1, 0, TRUE },       /* a category of 0: not put on the device */
    { 14, "o5", 1, 1, TRUE },      /* a category above the cut points' size + 1 */
    { 15, "dc", 1, 1, TRUE },      /* cut points out of order */
    { 17, "X", 1, 1, TRUE },       /* the categorical's logits are not finite */
    { 17, "o", 1, 0, TRUE },       /* a category of 0: not put on the device */
    { 18, "o5", 1, 1, TRUE },      /* a category above C */
  };
  g_autoptr (GRand) r = g_rand_new_with_seed (7);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *json = data_json (r, 300, 4, cases[i].s, cases[i].poison);
      Pair p;
      pair_new (&p, ctx, &families[cases[i].family], json, cases[i].on_device);
      g_autofree double *theta = g_new0 (double, p.n);
      random_theta (r, theta, p.n);
      g_autoptr (TildeModelError) e = NULL;
      tilde_model_log_density (p.dev, theta, FALSE, TRUE, NULL, &e);
      g_assert_cmpint (e != NULL, ==, cases[i].raises);
      if (e)
        g_assert_cmpint (e->kind, ==, TILDE_MODEL_ERROR_DOMAIN);
      compare_at (&p, theta, FALSE);
      compare_at (&p, theta, TRUE);
      g_assert_cmpuint (tilde_model_device_runs (p.dev), ==, 0);
      pair_clear (&p);
    }
}

/* A device lost while running: the kernel's run fails, the statement
 * gives the CPU path's value from then on (the device back or not), and
 * one warning placed at the statement says so, taken once. */
static void
test_device_lost (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  g_autoptr (GRand) r = g_rand_new_with_seed (11);
  g_autofree char *json = data_json (r, 300, 4, 1, NULL);
  Pair p;
  pair_new (&p, ctx, &families[0], json, 1);
  g_autofree double *theta = g_new0 (double, p.n);
  random_theta (r, theta, p.n);
  compare_at (&p, theta, FALSE);
  guint runs = tilde_model_device_runs (p.dev);
  g_assert_cmpuint (runs, >, 0);
  g_autoptr (GPtrArray) none = tilde_model_take_device_failures (p.dev);
  g_assert_cmpuint (none->len, ==, 0);

  tilde_gpu_context_fail_after (ctx, 0);
  compare_at (&p, theta, FALSE);
  compare_at (&p, theta, TRUE);
  g_autoptr (GPtrArray) lost = tilde_model_take_device_failures (p.dev);
  g_assert_cmpuint (lost->len, ==, 1);
  const TildeDiagnostic *d = g_ptr_array_index (lost, 0);
  g_assert_cmpint (d->severity, ==, TILDE_SEVERITY_WARNING);
  /* the statement's line in model_source */
  g_assert_cmpint (d->begin_line, ==, 23);
  g_assert_nonnull (strstr (d->message, "normal_id_glm"));
  g_assert_nonnull (strstr (d->message, "at line 23 failed on the OpenCL device"));
  g_assert_nonnull (strstr (d->message, "CL_DEVICE_NOT_AVAILABLE"));
  g_assert_nonnull (strstr (d->message, "it runs on the CPU from now on"));
  g_autoptr (GPtrArray) again = tilde_model_take_device_failures (p.dev);
  g_assert_cmpuint (again->len, ==, 0);

  tilde_gpu_context_fail_after (ctx, G_MAXUINT);
  compare_at (&p, theta, FALSE);
  g_assert_cmpuint (tilde_model_device_runs (p.dev), ==, runs);
  g_autoptr (GPtrArray) after = tilde_model_take_device_failures (p.dev);
  g_assert_cmpuint (after->len, ==, 0);
  pair_clear (&p);
}

/* An exp that overflows: -inf, as on the CPU. */
static void
test_overflow (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  g_autoptr (GRand) r = g_rand_new_with_seed (11);
  g_autofree char *json = data_json (r, 100, 2, 1, NULL);
  Pair p;
  pair_new (&p, ctx, &families[6], json, 1);
  g_autofree double *theta = g_new0 (double, p.n);
  theta[0] = 800;
  compare_at (&p, theta, FALSE);
  pair_clear (&p);
}

/* As a model runs it, a normal linear model over data stays on the CPU by
 * its sufficient statistics: nothing moves, no kernel runs, and since X is
 * annotated @gpu a warning says why. */
static void
test_normal_by_statistics (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  g_autoptr (GRand) r = g_rand_new_with_seed (20261124);
  g_autofree char *json = data_json (r, 1000, 5, 1.3, NULL);
  tilde_gpu_plan_set_normal_on_cpu (TRUE);
  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *source = model_source (&families[i]);
      TildeModel *m = rt_test_model_at (source, json, MIR_OPT_O0);
      g_autoptr (GPtrArray) diagnostics = tilde_diagnostic_list_new ();
      g_assert_cmpuint (tilde_model_use_device (m, ctx, FALSE, diagnostics), ==, 0);
      g_assert_cmpuint (diagnostics->len, ==, 1);
      const TildeDiagnostic *d = g_ptr_array_index (diagnostics, 0);
      g_assert_nonnull (strstr (d->message, "runs on the CPU: its sufficient statistics"));
      gsize n = tilde_model_num_params_unconstrained (m);
      g_autofree double *theta = g_new0 (double, n);
      g_autofree double *grad = g_new0 (double, n);
      random_theta (r, theta, n);
      g_assert_true (isfinite (tilde_model_log_density (m, theta, TRUE, TRUE, grad, NULL)));
      g_assert_cmpuint (tilde_model_device_runs (m), ==, 0);
      g_assert_cmpuint (rt_model_count_normal_stats (m), ==, 1);
      tilde_model_free (m);
    }
  tilde_gpu_plan_set_normal_on_cpu (FALSE);
}

/* Per gradient only parameter-sized data cross the bus: the bytes copied
 * per kernel run are the same for 37 rows as for 4099, and bounded by the
 * parameters the kernel takes and the sums it gives back. */
static void
test_copies_per_gradient (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  static const guint chosen[] = { 4, 6, 9, 14, 17 };
  const gint32 K = 5;
  g_autoptr (GRand) r = g_rand_new_with_seed (20261124);
  for (guint c = 0; c < G_N_ELEMENTS (chosen); c++)
    {
      guint64 per_run[2][2];
      static const gint32 rows[] = { 37, 4099 };
      for (guint a = 0; a < G_N_ELEMENTS (rows); a++)
        {
          g_autofree char *json = data_json (r, rows[a], K, 1.3, NULL);
          Pair p;
          pair_new (&p, ctx, &families[chosen[c]], json, 1);
          g_autofree double *theta = g_new0 (double, p.n);
          g_autofree double *grad = g_new0 (double, p.n);
          guint64 dev0, host0, dev1, host1;
          guint runs0 = tilde_model_device_runs (p.dev);
          tilde_gpu_context_copied (ctx, &dev0, &host0);
          for (int trial = 0; trial < 4; trial++)
            {
              random_theta (r, theta, p.n);
              tilde_model_log_density (p.dev, theta, TRUE, TRUE, grad, NULL);
            }
          tilde_gpu_context_copied (ctx, &dev1, &host1);
          guint runs = tilde_model_device_runs (p.dev) - runs0;
          g_assert_cmpuint (runs, ==, 4);
          per_run[a][0] = (dev1 - dev0) / runs;
          per_run[a][1] = (host1 - host0) / runs;
          g_assert_cmpuint ((dev1 - dev0) % runs, ==, 0);
          /* at most every parameter over, and a few sums more back */
          g_assert_cmpuint (per_run[a][0], >=, K * sizeof (double));
          g_assert_cmpuint (per_run[a][0], <=, p.n * sizeof (double));
          g_assert_cmpuint (per_run[a][1], <=, (p.n + 8) * sizeof (double));
          pair_clear (&p);
        }
      g_assert_cmpuint (per_run[0][0], ==, per_run[1][0]);
      g_assert_cmpuint (per_run[0][1], ==, per_run[1][1]);
      /* bernoulli_logit_glm: beta over (alpha is a kernel argument); back
       * the sum of the terms, the sum of d, the flag and x^T d */
      if (chosen[c] == 4)
        {
          g_assert_cmpuint (per_run[0][0], ==, K * sizeof (double));
          g_assert_cmpuint (per_run[0][1], ==, (K + 3) * sizeof (double));
        }
    }
}

/* Chains on several threads evaluate one device model at once: each
 * evaluation's arguments, buffers and launches are its own while it runs,
 * and every thread gets the numbers of one thread alone. */
static void
test_threads_share_the_device (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  static const guint chosen[] = { 4, 9, 14, 17 };
  g_autoptr (GRand) r = g_rand_new_with_seed (20261124);
  for (guint c = 0; c < G_N_ELEMENTS (chosen); c++)
    {
      g_autofree char *json = data_json (r, 4099, 7, 1.3, NULL);
      Pair p;
      pair_new (&p, ctx, &families[chosen[c]], json, 1);
      guint runs = tilde_model_device_runs (p.dev);
      g_assert_true (gpu_test_threads_agree (p.dev, r, p.n));
      g_assert_cmpuint (tilde_model_device_runs (p.dev) - runs, ==, GPU_TEST_THREAD_RUNS);
      pair_clear (&p);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* the normal kernel is what these tests check: the normal models go to
   * the device as the other families do */
  tilde_gpu_plan_set_normal_on_cpu (FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (families); i++)
    {
      g_autofree char *path = g_strdup_printf ("/gpu/parity/%s", families[i].name);
      g_test_add_data_func (path, &families[i], check_family);
    }
  g_test_add_func ("/gpu/parity/normal-by-statistics", test_normal_by_statistics);
  g_test_add_func ("/gpu/parity/copies-per-gradient", test_copies_per_gradient);
  g_test_add_func ("/gpu/parity/threads-share-the-device", test_threads_share_the_device);
  g_test_add_func ("/gpu/parity/optimised", test_optimised);
  g_test_add_func ("/gpu/parity/domain-errors", test_domain_errors);
  g_test_add_func ("/gpu/parity/overflow", test_overflow);
  g_test_add_func ("/gpu/parity/device-lost", test_device_lost);
  return g_test_run ();
}
