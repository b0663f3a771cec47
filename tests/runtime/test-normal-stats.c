/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Normal linear models over data by their sufficient statistics: each
 * model is prepared twice, with the statistics and with every statement
 * run as written, and the two must agree on the log density and its
 * gradient in every propto/Jacobian mode, and on the error and its message
 * when an evaluation fails. The data are made hard for the statistics:
 * predictors far from zero (means of 10 to 50) and a residual scale of
 * 0.05 against an outcome near 100, so that the sums the density is made
 * of cancel in all but a few of their digits. Gradients are also checked
 * against finite differences.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <math.h>
#include <string.h>

#include "runtime/exec-private.h"
#include "runtime-test-util.h"
#include "mir/mir-transform.h"
#include "mir/passes/pipeline.h"

#define N 400
#define K 4

static TildeModel *
prepare (const char *source, const char *data, gboolean fused)
{
  g_autoptr (MirProgram) lowered = rt_test_mir_from_string (source);
  g_autoptr (MirProgram) transformed = mir_transform_program (lowered);
  g_autoptr (MirProgram) prog = mir_pipeline_run (transformed, MIR_OPT_O1, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeJsonData) d = tilde_json_data_new_from_string (data, -1, &error);
  g_assert_no_error (error);
  g_autoptr (GPtrArray) diags = tilde_diagnostic_list_new ();
  rt_compiler_set_fused (fused);
  TildeModel *m = tilde_model_new (prog, d, diags);
  rt_compiler_set_fused (TRUE);
  if (!m)
    g_error ("%s", ((TildeDiagnostic *) g_ptr_array_index (diags, 0))->message);
  return m;
}

/* Data with a known truth: y = 100 + X b + noise of sd 0.05. */
static char *
make_data (gboolean with_nan)
{
  GString *s = g_string_new ("{\"N\": 400, \"K\": 4, \"X\": [");
  double y[N];
  guint32 state = 12345;
  for (int i = 0; i < N; i++)
    {
      double row[K], eta = 100;
      for (int j = 0; j < K; j++)
        {
          state = state * 1664525u + 1013904223u;
          double u = (state >> 8) / 16777216.0;
          row[j] = 10 * (j + 1) + 3 * (u - 0.5) * (j + 1);
          eta += (0.5 - 0.3 * j) * row[j];
        }
      state = state * 1664525u + 1013904223u;
      y[i] = eta + 0.05 * ((state >> 8) / 16777216.0 - 0.5) * 3.4;
      g_string_append_printf (s, "%s[%.17g, %.17g, %.17g, %.17g]", i ? ", " : "", row[0], row[1],
                              row[2], row[3]);
    }
  g_string_append (s, "], \"y\": [");
  for (int i = 0; i < N; i++)
    {
      if (with_nan && i == 7)
        g_string_append (s, ", \"NaN\"");
      else
        g_string_append_printf (s, "%s%.17g", i ? ", " : "", y[i]);
    }
  g_string_append (s, "], \"s_data\": 0.07}");
  return g_string_free (s, FALSE);
}

static double
max_abs (const double *g, gsize n)
{
  double m = 0;
  for (gsize i = 0; i < n; i++)
    m = fmax (m, fabs (g[i]));
  return m;
}

/* Both succeed with the same value and gradient, or both fail alike; TRUE
 * when they succeeded. The log density to 1e-11 of its size, each partial
 * to 1e-9 of the largest (the sums of the statistics cancel where the
 * residuals are small, and the gradient is zero at the mode). */
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
        g_error ("%s: %s fails alone: %s", name, ef ? "the statistics" : "the general form",
                 (ef ? ef : eg)->message);
      g_assert_cmpint (ef->kind, ==, eg->kind);
      g_assert_cmpstr (ef->message, ==, eg->message);
      return FALSE;
    }
  if (!rt_test_close (lf, lg, 1e-11))
    g_error ("%s: log density %.17g, the general form %.17g", name, lf, lg);
  double scale = fmax (max_abs (gg, P), 1);
  for (gsize i = 0; i < P; i++)
    if (fabs (gf[i] - gg[i]) > 1e-9 * scale)
      g_error ("%s: gradient[%" G_GSIZE_FORMAT "] %.17g, the general form %.17g", name, i,
               gf[i], gg[i]);
  return TRUE;
}

static void
check_fd (const char *name, TildeModel *m, const double *theta)
{
  gsize P = tilde_model_num_params_unconstrained (m);
  g_autofree double *g = g_new (double, P);
  g_autofree double *t = g_memdup2 (theta, sizeof (double) * P);
  tilde_model_log_density (m, theta, FALSE, TRUE, g, NULL);
  double scale = fmax (max_abs (g, P), 1);
  for (gsize i = 0; i < P; i++)
    {
      double h = 1e-6 * fmax (1, fabs (theta[i])), lp[2];
      for (int s = 0; s < 2; s++)
        {
          t[i] = theta[i] + (s ? h : -h);
          lp[s] = tilde_model_log_density (m, t, FALSE, TRUE, NULL, NULL);
        }
      t[i] = theta[i];
      double fd = (lp[1] - lp[0]) / (2 * h);
      if (fabs (g[i] - fd) > 1e-5 * scale)
        g_error ("%s: gradient[%" G_GSIZE_FORMAT "] %.12g, finite differences %.12g", name, i,
                 g[i], fd);
    }
}

typedef struct {
  const char *name;
  const char *model;     /* the parameters and model blocks */
  guint       attached;  /* statements by statistics */
} Case;

static const char *const data_block =
  "data { int N; int K; matrix[N, K] X; vector[N] y; real<lower=0> s_data; }\n";

static void
test_case (gconstpointer p)
{
  const Case *c = p;
  g_autofree char *data = make_data (FALSE);
  g_autofree char *source = g_strconcat (data_block, c->model, NULL);
  g_autoptr (TildeModel) f = prepare (source, data, TRUE);
  g_autoptr (TildeModel) g = prepare (source, data, FALSE);
  g_assert_cmpuint (rt_model_count_normal_stats (f), ==, c->attached);
  g_assert_cmpuint (rt_model_count_normal_stats (g), ==, 0);
  gsize P = tilde_model_num_params_unconstrained (f);
  g_autofree double *theta = g_new (double, P);
  /* near the truth (alpha 100, b = 0.5, 0.2, -0.1, -0.4, log sigma of
   * 0.05), where the residuals are smallest, and away from it */
  static const double truth[] = { 100, 0.5, 0.2, -0.1, -0.4, -3.0 };
  for (int k = 0; k < 4; k++)
    {
      for (gsize i = 0; i < P; i++)
        theta[i] = (i < G_N_ELEMENTS (truth) ? truth[i] : 0.3)
          + (k == 0 ? 0 : 0.01 * k * sin (1.7 * (double) i + k));
      for (int mode = 0; mode < 4; mode++)
        g_assert_true (agree (c->name, f, g, theta, mode & 1, mode & 2));
      check_fd (c->name, f, theta);
    }
}

static const Case cases[] = {
  { "normal-id-glm",
    "parameters { real alpha; vector[K] b; real<lower=0> sigma; }\n"
    "model { target += normal_id_glm_lpdf(y | X, alpha, b, sigma); }\n", 1 },
  { "sampling-statement",
    "parameters { real alpha; vector[K] b; real<lower=0> sigma; }\n"
    "model { y ~ normal_id_glm(X, alpha, b, sigma); }\n", 1 },
  { "written-as-predictor",
    "parameters { real alpha; vector[K] b; real<lower=0> sigma; }\n"
    "model { y ~ normal(X * b + alpha, sigma); }\n", 1 },
  { "intercept-first",
    "parameters { real alpha; vector[K] b; real<lower=0> sigma; }\n"
    "model { target += normal_lupdf(y | alpha + X * b, sigma); }\n", 1 },
  { "data-scale",
    "parameters { real alpha; vector[K] b; }\n"
    "model { y ~ normal_id_glm(X, alpha, b, s_data); }\n", 1 },
  { "data-intercept",
    "parameters { vector[K] b; real<lower=0> sigma; }\n"
    "model { y ~ normal_id_glm(X, 100, b, sigma); }\n", 1 },
  { "in-a-branch",
    "parameters { real alpha; vector[K] b; real<lower=0> sigma; }\n"
    "model { if (N > 0) { target += normal_id_glm_lpdf(y | X, alpha, b, sigma); } }\n", 1 },
  { "transformed-data",
    "transformed data { matrix[N, K] Xc = X; for (k in 1:K) Xc[:, k] = X[:, k] - mean(X[:, k]); }\n"
    "parameters { real alpha; vector[K] b; real<lower=0> sigma; }\n"
    "model { y ~ normal_id_glm(Xc, alpha, b, sigma); }\n", 1 },
  /* left as written: X is a local, sigma a vector */
  { "local-matrix",
    "parameters { real alpha; vector[K] b; real<lower=0> sigma; }\n"
    "model { matrix[N, K] Z = X; Z[1, 1] = 20; y ~ normal_id_glm(Z, alpha, b, sigma); }\n", 0 },
  { "vector-scale",
    "parameters { real alpha; vector[K] b; real<lower=0> sigma; }\n"
    "model { y ~ normal_id_glm(X, alpha, b, rep_vector(sigma, N)); }\n", 0 },
};

/* A scale out of its domain and a NaN in the data: the general path's
 * errors. */
static void
test_errors (void)
{
  g_autofree char *data = make_data (FALSE);
  g_autofree char *source = g_strconcat (data_block,
    "parameters { real alpha; vector[K] b; real sigma; }\n"
    "model { y ~ normal_id_glm(X, alpha, b, sigma); }\n", NULL);
  g_autoptr (TildeModel) f = prepare (source, data, TRUE);
  g_autoptr (TildeModel) g = prepare (source, data, FALSE);
  g_assert_cmpuint (rt_model_count_normal_stats (f), ==, 1);
  double theta[6] = { 100, 0.5, 0.2, -0.1, -0.4, -0.5 };
  for (int mode = 0; mode < 4; mode++)
    g_assert_false (agree ("negative-scale", f, g, theta, mode & 1, mode & 2));
  theta[5] = 0.05;
  theta[1] = INFINITY;
  g_assert_false (agree ("infinite-coefficient", f, g, theta, TRUE, TRUE));

  g_autofree char *bad = make_data (TRUE);
  g_autoptr (TildeModel) fn = prepare (source, bad, TRUE);
  g_autoptr (TildeModel) gn = prepare (source, bad, FALSE);
  g_assert_cmpuint (rt_model_count_normal_stats (fn), ==, 0);
  theta[1] = 0.5;
  g_assert_false (agree ("nan-outcome", fn, gn, theta, TRUE, TRUE));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/runtime/normal-stats/%s", cases[i].name);
      g_test_add_data_func (path, &cases[i], test_case);
    }
  g_test_add_func ("/runtime/normal-stats/errors", test_errors);
  return g_test_run ();
}
