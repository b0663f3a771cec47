/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reductions of elementwise expressions over device data: the same model
 * on the CPU and on the OpenCL device, for each reduction and function,
 * on random inputs, edge sizes and values that are not finite; which
 * statements the plan puts on the device; the kernel text without a
 * device against what the device builds.
 *
 * "Relative difference" is normwise, as in test-parity.c: |a - b| <= 1e-12
 * max (1, |a|) for the log density and max_i |g_i - h_i| <= 1e-12 max (1,
 * max_i |g_i|) for the gradient. */
#define G_LOG_DOMAIN "tilde-test"

#include <math.h>
#include <string.h>

#include "gpu-test-util.h"
#include "runtime-test-util.h"
#include "gpu/elementwise.h"
#include "gpu/plan.h"
#include "mir/mir-transform.h"
#include "mir/passes/pipeline.h"
#include "runtime/gpu-call.h"
#include "worker/mir-stages.h"

#define TOL 1e-12

typedef struct {
  const char *name;
  const char *statement;
} Case;

/* x, y: about standard normal; z: positive; s: a positive data scalar */
static const Case cases[] = {
  { "sum-exp", "target += sum(exp(a * x) .* y);" },
  { "dot_self", "target += -0.5 * dot_self((y - a * x) / b);" },
  { "log_sum_exp", "target += log_sum_exp(a * x - square(y) / b);" },
  { "negated-sum", "target += -sum(log1p_exp(a + b * x));" },
  { "scaled-right", "target += sum(y - a * x) * 2.5;" },
  { "log", "target += sum(log(z) * a - b * z);" },
  { "log1p", "target += sum(log1p(b * z));" },
  { "expm1", "target += sum(expm1(a * x) ./ (1 + z));" },
  { "sqrt", "target += sum(sqrt(b + z) * a);" },
  { "inv", "target += sum(inv(b + z) * a);" },
  { "inv_logit", "target += sum(y .* inv_logit(a + b .* x));" },
  { "log_inv_logit", "target += sum(log_inv_logit(a * x + b));" },
  { "abs", "target += -sum(abs(y - a * x) / b);" },
  { "pow", "target += sum(pow(z, b) + (a * z) .^ 2);" },
  { "fma", "target += sum(fma(a, x, b) .* y);" },
  { "square-minus", "target += -dot_self(-a + (+x) - b * square(y));" },
  { "data-scalars", "target += sum(s * exp(a * x) - x / N);" },
  { "transformed-parameter", "target += log_sum_exp(c * x - z);" },
  { "elements", "target += sum(exp(t[1] * x) * t[2] - t[1] * y);" },
  { "int-arithmetic", "target += -dot_self(y - a * x / (N + 1) - t[N - N + 2]);" },
  { "normal", "y ~ normal(exp(a * x) + b, b);" },
  { "normal-sigma-data", "y ~ normal(a + b * x, s);" },
  { "normal-lpdf", "target += normal_lpdf(y | a * x - z, b);" },
  { "normal-lupdf", "target += normal_lupdf(y | a * x, b);" },
};

static char *
model_source (const char *statement)
{
  return g_strdup_printf ("data {\n"
                          "  int<lower=0> N;\n"
                          "  @gpu vector[N] x;\n"
                          "  @gpu vector[N] y;\n"
                          "  @gpu vector[N] z;\n"
                          "  real s;\n"
                          "}\n"
                          "parameters {\n"
                          "  real a;\n"
                          "  real<lower=0> b;\n"
                          "  vector[2] t;\n"
                          "}\n"
                          "transformed parameters {\n"
                          "  real c = a * b;\n"
                          "}\n"
                          "model {\n"
                          "  %s\n"
                          "}\n", statement);
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

/* Random data; `poison` (may be NULL) puts `bad` at row N / 2 of that
 * vector. */
static char *
data_json (GRand *r, gint32 N, double s, const char *poison, double bad)
{
  GString *j = g_string_new (NULL);
  g_string_append_printf (j, "{\"N\": %d, \"s\": ", N);
  append_real (j, s);
  static const char *const vars[] = { "x", "y", "z" };
  for (guint v = 0; v < G_N_ELEMENTS (vars); v++)
    {
      g_string_append_printf (j, ", \"%s\": [", vars[v]);
      for (gint32 n = 0; n < N; n++)
        {
          double value = v == 2 ? g_rand_double_range (r, 0.1, 3) : g_rand_double_range (r, -2, 2);
          if (poison && !strcmp (poison, vars[v]) && n == N / 2)
            value = bad;
          if (n)
            g_string_append (j, ", ");
          append_real (j, value);
        }
      g_string_append (j, "]");
    }
  g_string_append (j, "}");
  return g_string_free (j, FALSE);
}

typedef struct {
  TildeModel *cpu, *dev;
  gsize       n;
} Pair;

static void
pair_new (Pair *p, TildeGpuContext *ctx, const char *statement, const char *json,
          guint expected, MirOptLevel level)
{
  g_autofree char *source = model_source (statement);
  p->cpu = rt_test_model_at (source, json, level);
  p->dev = rt_test_model_at (source, json, level);
  g_autoptr (GPtrArray) diagnostics = tilde_diagnostic_list_new ();
  guint n = tilde_model_use_device (p->dev, ctx, FALSE, diagnostics);
  g_assert_cmpuint (diagnostics->len, ==, 0);
  g_assert_cmpuint (n, ==, expected);
  p->n = tilde_model_num_params_unconstrained (p->cpu);
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

static gboolean
same_double (double a, double b)
{
  return isnan (a) ? isnan (b) : a == b;
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
      g_assert_true (same_double (lp_cpu, lp_dev));
      return;
    }
  g_assert_cmpfloat (fabs (lp_cpu - lp_dev), <=, TOL * MAX (1, fabs (lp_cpu)));
  double scale = MAX (1, max_abs (g_cpu, p->n));
  for (gsize i = 0; i < p->n; i++)
    if (isfinite (g_cpu[i]))
      g_assert_cmpfloat (fabs (g_cpu[i] - g_dev[i]), <=, TOL * scale);
    else
      g_assert_true (same_double (g_cpu[i], g_dev[i]));
}

static void
random_theta (GRand *r, double *theta, gsize n)
{
  for (gsize i = 0; i < n; i++)
    theta[i] = g_rand_double_range (r, -0.8, 0.8);
}

/* N = 0 (the CPU path runs), 1, sizes that are not a multiple of the
 * work-group size, and one above the most groups a launch takes (so that
 * items run several rows). */
static void
check_case (gconstpointer data)
{
  const Case *c = data;
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  static const gint32 rows[] = { 0, 1, 37, 1000, 4099, 70001 };
  g_autoptr (GRand) r = g_rand_new_with_seed (20261122);
  for (guint a = 0; a < G_N_ELEMENTS (rows); a++)
    {
      g_autofree char *json = data_json (r, rows[a], 1.3, NULL, 0);
      Pair p;
      pair_new (&p, ctx, c->statement, json, 1, MIR_OPT_O0);
      g_autofree double *theta = g_new0 (double, p.n);
      for (int trial = 0; trial < 3; trial++)
        {
          random_theta (r, theta, p.n);
          compare_at (&p, theta, FALSE);
          compare_at (&p, theta, TRUE);
        }
      g_assert_cmpuint (tilde_model_device_runs (p.dev), ==, rows[a] ? 6 : 0);
      pair_clear (&p);
    }
}

/* Chains on several threads at once: a sum, log_sum_exp and the normal
 * give each thread the numbers of one thread alone. */
static void
test_threads_share_the_device (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  static const guint chosen[] = { 0, 2, 20 };
  g_autoptr (GRand) r = g_rand_new_with_seed (20261124);
  for (guint c = 0; c < G_N_ELEMENTS (chosen); c++)
    {
      g_autofree char *json = data_json (r, 4099, 1.3, NULL, 0);
      Pair p;
      pair_new (&p, ctx, cases[chosen[c]].statement, json, 1, MIR_OPT_O0);
      guint runs = tilde_model_device_runs (p.dev);
      g_assert_true (gpu_test_threads_agree (p.dev, r, p.n));
      g_assert_cmpuint (tilde_model_device_runs (p.dev) - runs, ==, GPU_TEST_THREAD_RUNS);
      pair_clear (&p);
    }
}

/* The optimiser's forms (folded literals, fma) run on the device too. */
static void
test_optimised (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  static const MirOptLevel levels[] = { MIR_OPT_O1, MIR_OPT_EXPERIMENTAL };
  g_autoptr (GRand) r = g_rand_new_with_seed (3);
  for (guint l = 0; l < G_N_ELEMENTS (levels); l++)
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        g_autofree char *json = data_json (r, 500, 1.3, NULL, 0);
        Pair p;
        pair_new (&p, ctx, cases[i].statement, json, 1, levels[l]);
        g_autofree double *theta = g_new0 (double, p.n);
        random_theta (r, theta, p.n);
        compare_at (&p, theta, FALSE);
        compare_at (&p, theta, TRUE);
        g_assert_cmpuint (tilde_model_device_runs (p.dev), ==, 2);
        pair_clear (&p);
      }
}

/* Values that are not finite, or that the density refuses: the CPU path
 * runs the statement and its value or error is the result. */
static void
test_not_finite (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  static const struct {
    const char *statement;
    const char *poison;
    double      bad, s;
    gboolean    raises;
  } bad_cases[] = {
    /* NaN or infinite terms: no error, the CPU's NaN or infinity */
    { "target += sum(log(y) * a);", NULL, 0, 1, FALSE },
    { "target += sum(exp(a * x) .* y);", "x", INFINITY, 1, FALSE },
    { "target += log_sum_exp(a * x);", "x", NAN, 1, FALSE },
    { "target += log_sum_exp(a * x - log(z));", "z", 0, 1, FALSE },
    { "target += dot_self(sqrt(z) * a);", "z", -1, 1, FALSE },
    /* the normal's errors: a NaN outcome, an infinite location, a
     * scale that is not positive; an infinite scale is no error (Stan
     * asks only that it be positive), the value is -inf */
    { "y ~ normal(a * x, b);", "y", NAN, 1, TRUE },
    { "y ~ normal(a * x, b);", "x", INFINITY, 1, TRUE },
    { "y ~ normal(a * x + b, s);", NULL, 0, -1, TRUE },
    { "y ~ normal(a * x + b, s);", NULL, 0, NAN, TRUE },
    { "y ~ normal(a * x + b, s);", NULL, 0, INFINITY, FALSE },
  };
  g_autoptr (GRand) r = g_rand_new_with_seed (7);
  for (guint i = 0; i < G_N_ELEMENTS (bad_cases); i++)
    {
      g_autofree char *json = data_json (r, 300, bad_cases[i].s, bad_cases[i].poison,
                                         bad_cases[i].bad);
      Pair p;
      pair_new (&p, ctx, bad_cases[i].statement, json, 1, MIR_OPT_O0);
      g_autofree double *theta = g_new0 (double, p.n);
      random_theta (r, theta, p.n);
      g_autoptr (TildeModelError) e = NULL;
      tilde_model_log_density (p.dev, theta, FALSE, TRUE, NULL, &e);
      g_assert_cmpint (e != NULL, ==, bad_cases[i].raises);
      if (e)
        g_assert_cmpint (e->kind, ==, TILDE_MODEL_ERROR_DOMAIN);
      compare_at (&p, theta, FALSE);
      compare_at (&p, theta, TRUE);
      g_assert_cmpuint (tilde_model_device_runs (p.dev), ==, 0);
      pair_clear (&p);
    }
}

/* Vectors of different lengths: not put on the device; the CPU path raises
 * its size error. */
static void
test_sizes_disagree (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  static const char *model =
    "data {\n"
    "  int N;\n"
    "  @gpu vector[N] x;\n"
    "  @gpu vector[N + 1] w;\n"
    "}\n"
    "parameters {\n"
    "  real a;\n"
    "}\n"
    "model {\n"
    "  target += sum(a * x + w);\n"
    "}\n";
  g_autoptr (TildeModel) m = rt_test_model (model, "{\"N\": 3, \"x\": [1, 2, 3], "
                                                   "\"w\": [1, 2, 3, 4]}");
  g_assert_cmpuint (tilde_model_use_device (m, ctx, FALSE, NULL), ==, 0);
  double theta = 0.5;
  g_autoptr (TildeModelError) e = NULL;
  tilde_model_log_density (m, &theta, FALSE, TRUE, NULL, &e);
  g_assert_nonnull (e);
  g_assert_cmpint (e->kind, ==, TILDE_MODEL_ERROR_INDEX);
}

/* With --use-opencl, vectors not annotated go to the device when they are
 * large enough. */
static void
test_use_opencl (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  static const char *model =
    "data {\n"
    "  int N;\n"
    "  vector[N] x;\n"
    "  vector[N] y;\n"
    "  real s;\n"
    "  vector[N] z;\n"
    "}\n"
    "parameters {\n"
    "  real a;\n"
    "}\n"
    "model {\n"
    "  target += sum(y .* log1p_exp(a * x));\n"
    "}\n";
  static const struct {
    gint32 N;
    guint  on_device;
  } sizes[] = { { TILDE_GPU_AUTO_MIN_ELEMENTS - 1, 0 }, { TILDE_GPU_AUTO_MIN_ELEMENTS, 1 } };
  g_autoptr (GRand) r = g_rand_new_with_seed (13);
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autofree char *json = data_json (r, sizes[i].N, 1, NULL, 0);
      Pair p = { rt_test_model (model, json), rt_test_model (model, json), 1 };
      g_assert_cmpuint (tilde_model_use_device (p.dev, ctx, FALSE, NULL), ==, 0);
      tilde_model_free (p.dev);
      p.dev = rt_test_model (model, json);
      g_assert_cmpuint (tilde_model_use_device (p.dev, ctx, TRUE, NULL), ==, sizes[i].on_device);
      double theta = 0.3;
      compare_at (&p, &theta, FALSE);
      g_assert_cmpuint (tilde_model_device_runs (p.dev), ==, sizes[i].on_device);
      pair_clear (&p);
    }
}

/* Two statements over the same vectors (which they share on the device):
 * the sum of their terms, as on the CPU. */
static void
test_two_statements (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  g_autoptr (GRand) r = g_rand_new_with_seed (17);
  g_autofree char *json = data_json (r, 2000, 1, NULL, 0);
  Pair p;
  pair_new (&p, ctx, "target += sum(exp(a * x) .* y);\n  y ~ normal(a * x + t[1], b);", json, 2,
            MIR_OPT_O0);
  g_autofree double *theta = g_new0 (double, p.n);
  random_theta (r, theta, p.n);
  compare_at (&p, theta, FALSE);
  compare_at (&p, theta, TRUE);
  g_assert_cmpuint (tilde_model_device_runs (p.dev), ==, 4);
  pair_clear (&p);
}

/* Two kernels over the same host vector share its device copy; the sums
 * of sum (s0 * x) against the host's: s0 sum x and sum x. */
static void
test_shared_vectors (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  TildeGpuEwProgram prog = { .reduction = TILDE_GPU_EW_SUM, .n_ins = 3, .n_vectors = 1,
                             .n_scalars = 1, .n_tangents = 1 };
  prog.ins[0] = (TildeGpuEwIns) { .op = TILDE_GPU_EW_VECTOR, .leaf = 0 };
  prog.ins[1] = (TildeGpuEwIns) { .op = TILDE_GPU_EW_SCALAR, .leaf = 0 };
  prog.ins[2] = (TildeGpuEwIns) { .op = TILDE_GPU_EW_MUL, .a = 0, .b = 1 };
  prog.tangent[0] = 0;
  enum { N = 5000 };
  static double x[N];
  double total = 0;
  for (int i = 0; i < N; i++)
    total += x[i] = 1.0 / (i + 1);
  const double *vectors[] = { x };
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeGpuEw) first = tilde_gpu_ew_new (ctx, &prog, "first", vectors, N, NULL, 0,
                                                   &error);
  g_assert_no_error (error);
  TildeGpuEw *others[] = { first };
  g_autoptr (TildeGpuEw) second = tilde_gpu_ew_new (ctx, &prog, "second", vectors, N, others, 1,
                                                    &error);
  g_assert_no_error (error);
  g_assert_cmpuint (tilde_gpu_ew_device_bytes (first), ==, N * sizeof (double));
  g_assert_cmpuint (tilde_gpu_ew_device_bytes (second), ==, 0);
  g_assert_cmpuint (tilde_gpu_ew_n_sums (&prog), ==, 3);
  /* the second still works once the first is gone */
  g_clear_pointer (&first, tilde_gpu_ew_free);
  const double s0 = 2.5;
  double sums[3];
  g_assert_true (tilde_gpu_ew_sums (second, &s0, sums, &error));
  g_assert_cmpfloat (fabs (sums[0] - s0 * total), <=, 1e-13 * s0 * total);
  g_assert_cmpfloat (sums[1], ==, 0);
  g_assert_cmpfloat (fabs (sums[2] - total), <=, 1e-13 * total);
}

/* ---- the plan, without a device ---- */

static TildeGpuPlan *
plan_at (const char *source, MirOptLevel level, gboolean use_opencl, MirProgram **program)
{
  g_autoptr (MirProgram) lowered = rt_test_mir_from_string (source);
  g_autoptr (MirProgram) transformed = mir_transform_program (lowered);
  *program = mir_pipeline_run (transformed, level, NULL);
  return tilde_gpu_plan_new (*program, use_opencl);
}

static guint
ew_sites_of (const char *statement, gboolean use_opencl)
{
  g_autofree char *source = g_strdup_printf ("data {\n"
                                             "  int N;\n"
                                             "  @gpu vector[N] x;\n"
                                             "  vector[N] w;\n"
                                             "}\n"
                                             "parameters {\n"
                                             "  real a;\n"
                                             "  vector[N] v;\n"
                                             "}\n"
                                             "model {\n"
                                             "  %s\n"
                                             "}\n", statement);
  MirProgram *program = NULL;
  TildeGpuPlan *plan = plan_at (source, MIR_OPT_O0, use_opencl, &program);
  guint n = plan->ew_sites->len;
  tilde_gpu_plan_free (plan);
  mir_program_free (program);
  return n;
}

static void
test_plan (void)
{
  g_assert_cmpuint (ew_sites_of ("target += sum(exp(a * x));", FALSE), ==, 1);
  g_assert_cmpuint (ew_sites_of ("target += 3 * log_sum_exp(a * x);", FALSE), ==, 1);
  /* in a loop or a branch */
  g_assert_cmpuint (ew_sites_of ("for (n in 1:2) target += sum(exp(a * x));", FALSE), ==, 0);
  g_assert_cmpuint (ew_sites_of ("if (N > 2) target += sum(exp(a * x));", FALSE), ==, 0);
  /* a parameter vector, though its elements are scalars */
  g_assert_cmpuint (ew_sites_of ("target += sum(v .* x);", FALSE), ==, 0);
  g_assert_cmpuint (ew_sites_of ("target += sum(exp(v[1] * x) + v[N - 1]);", FALSE), ==, 1);
  /* an element at an index a function computes; integer division */
  g_assert_cmpuint (ew_sites_of ("target += sum(exp(v[size(v)] * x));", FALSE), ==, 0);
  g_assert_cmpuint (ew_sites_of ("target += sum(exp(a * x) / (N %/% 2));", FALSE), ==, 0);
  /* a function the kernels do not have */
  g_assert_cmpuint (ew_sites_of ("target += sum(lgamma(a * x));", FALSE), ==, 0);
  /* a scale that is not a literal, a reduction the kernels do not have */
  g_assert_cmpuint (ew_sites_of ("target += a * sum(exp(a * x));", FALSE), ==, 0);
  g_assert_cmpuint (ew_sites_of ("target += prod(exp(a * x));", FALSE), ==, 0);
  /* nothing depends on a parameter */
  g_assert_cmpuint (ew_sites_of ("target += sum(exp(x));", FALSE), ==, 0);
  /* a vector not on the device, unless --use-opencl chooses it */
  g_assert_cmpuint (ew_sites_of ("target += sum(exp(a * w) + x);", FALSE), ==, 0);
  g_assert_cmpuint (ew_sites_of ("target += sum(exp(a * w) + x);", TRUE), ==, 1);
  /* a local vector of the model block, data or not, has no device copy */
  g_assert_cmpuint (ew_sites_of ("vector[N] u = 2 * x;\n  target += sum(exp(a * u) + x);", TRUE),
                    ==, 0);
  /* a product of two vectors is no elementwise product */
  g_assert_cmpuint (ew_sites_of ("target += sum(x * (a * x'));", FALSE), ==, 0);
}

static void
test_plan_report (void)
{
  static const char *model =
    "data {\n"
    "  int N;\n"
    "  @gpu vector[N] x;\n"
    "  @gpu vector[N] y;\n"
    "  vector[N] w;\n"
    "}\n"
    "parameters {\n"
    "  real a;\n"
    "}\n"
    "model {\n"
    "  target += sum(exp(a * x));\n"
    "  target += sum(a * y + w);\n"
    "}\n";
  MirProgram *program = NULL;
  TildeGpuPlan *plan = plan_at (model, MIR_OPT_O0, FALSE, &program);
  g_autofree char *report = tilde_gpu_plan_report (plan);
  g_assert_cmpuint (plan->ew_sites->len, ==, 1);
  g_assert_nonnull (strstr (report, "vector[N] x: device  // annotated @gpu; read by the "
                                    "elementwise kernel of sum at line 11\n"));
  g_assert_nonnull (strstr (report, "vector[N] y: host  // annotated @gpu, but the elementwise "
                                    "kernel of sum at line 12 also reads vectors on the host"));
  g_assert_nonnull (strstr (report, "vector[N] w: host  // read by the elementwise kernel of sum "
                                    "at line 12; not annotated @gpu (--use-opencl would choose "
                                    "it)\n"));
  tilde_gpu_plan_free (plan);
  mir_program_free (program);
}

/* As the CLI's --debug-opencl prints each source. */
static void
capture_source (const char *what, const char *source, gpointer user_data)
{
  g_string_append_printf (user_data, "// OpenCL kernel for %s\n%s\n", what, source);
}

/* The text without a device is what the device builds. */
static void
test_kernel_text (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  g_autofree char *source = model_source ("target += log_sum_exp(a * x - z);\n"
                                          "  y ~ normal(inv_logit(a + b * x), b);");
  g_autoptr (GRand) r = g_rand_new_with_seed (5);
  g_autofree char *json = data_json (r, 100, 1, NULL, 0);
  g_autoptr (TildeModel) model = rt_test_model (source, json);
  g_autoptr (GString) built = g_string_new (NULL);
  tilde_gpu_context_set_source_func (ctx, capture_source, built);
  g_assert_cmpuint (tilde_model_use_device (model, ctx, FALSE, NULL), ==, 2);
  const char *wg_line = strstr (built->str, "\n#define WG ");
  g_assert_nonnull (wg_line);
  guint wg = (guint) g_ascii_strtoull (wg_line + strlen ("\n#define WG "), NULL, 10);

  MirProgram *program = NULL;
  TildeGpuPlan *plan = plan_at (source, MIR_OPT_O0, FALSE, &program);
  g_autoptr (GString) generated = g_string_new (NULL);
  for (guint i = 0; i < plan->ew_sites->len; i++)
    {
      g_autofree char *kernel = tilde_gpu_plan_ew_kernel (
        plan, &g_array_index (plan->ew_sites, TildeGpuEwSite, i), wg);
      g_string_append (generated, kernel);
    }
  g_assert_cmpstr (generated->str, ==, built->str);
  g_assert_nonnull (strstr (built->str, "// OpenCL kernel for log_sum_exp of an elementwise "
                                        "expression (line 17)\n"));
  g_assert_nonnull (strstr (built->str, "// OpenCL kernel for normal_lupdf of an elementwise "
                                        "expression (line 18)\n"));
  tilde_gpu_plan_free (plan);
  mir_program_free (program);
}

/* The IR viewer's OpenCL stage shows the kernel, its lines pointing at
 * the statement. */
static void
test_stage (void)
{
  g_autofree char *source = model_source ("target += sum(exp(a * x) .* y);");
  g_autoptr (TildeCheckResult) check = tilde_frontend_check_buffer ("model.stan", NULL, source,
                                                                    -1, NULL);
  g_autoptr (TildeMirStages) stages = tilde_mir_stages_new_full (check, MIR_OPT_O1, FALSE, NULL);
  g_assert_nonnull (stages);
  const TildeMirText *t = &stages->stages[TILDE_MIR_STAGE_OPENCL];
  g_assert_cmpuint (stages->opencl_kernels, ==, 1);
  g_assert_nonnull (strstr (t->text, "\n// vector[N] x: device  // annotated @gpu; read by the "
                                     "elementwise kernel of sum at line 17\n"));
  g_assert_nonnull (strstr (t->text, "\n// OpenCL kernel for sum of an elementwise expression "
                                     "(line 17)\n"));
  g_auto (GStrv) lines = g_strsplit (t->text, "\n", -1);
  g_assert_cmpuint (t->n_lines, ==, g_strv_length (lines) - 1);
  guint kernel_lines = 0;
  for (guint i = 0; i < t->n_lines; i++)
    if (g_str_has_prefix (lines[i], "__kernel"))
      {
        g_assert_cmpint (t->sources[i].line, ==, 17);
        kernel_lines++;
      }
  g_assert_cmpuint (kernel_lines, ==, 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/gpu/elementwise/%s", cases[i].name);
      g_test_add_data_func (path, &cases[i], check_case);
    }
  g_test_add_func ("/gpu/elementwise/threads-share-the-device", test_threads_share_the_device);
  g_test_add_func ("/gpu/elementwise/optimised", test_optimised);
  g_test_add_func ("/gpu/elementwise/not-finite", test_not_finite);
  g_test_add_func ("/gpu/elementwise/sizes-disagree", test_sizes_disagree);
  g_test_add_func ("/gpu/elementwise/use-opencl", test_use_opencl);
  g_test_add_func ("/gpu/elementwise/shared-vectors", test_shared_vectors);
  g_test_add_func ("/gpu/elementwise/two-statements", test_two_statements);
  g_test_add_func ("/gpu/elementwise/plan", test_plan);
  g_test_add_func ("/gpu/elementwise/plan-report", test_plan_report);
  g_test_add_func ("/gpu/elementwise/kernel-text", test_kernel_text);
  g_test_add_func ("/gpu/elementwise/stage", test_stage);
  return g_test_run ();
}
