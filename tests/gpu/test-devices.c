/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Devices, --device choices, kernel builds and their cache, and which data
 * the compiler puts on the device. */
#define G_LOG_DOMAIN "tilde-test"

#include <math.h>
#include <string.h>

#include "gpu-test-util.h"
#include "runtime-test-util.h"
#include "gpu/glm.h"
#include "gpu/plan.h"
#include "mir/mir-transform.h"
#include "runtime/math/special.h"

static void
test_list (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) devices = tilde_gpu_devices_list (&error);
  if (!devices)
    {
      g_assert_error (error, TILDE_GPU_ERROR, TILDE_GPU_ERROR_NO_PLATFORM);
      g_test_skip ("no OpenCL platform");
      return;
    }
  g_assert_cmpuint (devices->len, >, 0);
  for (guint i = 0; i < devices->len; i++)
    {
      const TildeGpuDevice *d = g_ptr_array_index (devices, i);
      g_assert_cmpstr (d->name, !=, "");
      g_assert_cmpuint (d->global_mem, >, 0);
      g_assert_cmpuint (d->max_alloc, <=, d->global_mem);
      g_assert_true (g_str_has_prefix (d->version, "OpenCL "));
      g_autofree char *line = tilde_gpu_device_describe (d);
      g_autofree char *index = g_strdup_printf ("opencl:%u:%u ", d->platform_index,
                                                d->device_index);
      g_assert_true (g_str_has_prefix (line, index));
      g_assert_nonnull (strstr (line, d->fp64 ? "fp64: yes" : "fp64: no"));
    }
}

static void
test_choice (void)
{
  static const char *const bad[] = {
    "gpu", "opencl:", "opencl:0", "opencl:0:", "opencl:a:0", "opencl:0:1:2", "opencl:-1:0",
    "OpenCL", "cpu:0",
  };
  TildeDeviceChoice c;
  g_assert_true (tilde_device_choice_parse (NULL, &c, NULL));
  g_assert_false (c.opencl);
  g_assert_true (tilde_device_choice_parse ("cpu", &c, NULL));
  g_assert_false (c.opencl);
  g_assert_true (tilde_device_choice_parse ("opencl", &c, NULL));
  g_assert_true (c.opencl);
  g_assert_cmpint (c.platform, ==, -1);
  g_assert_true (tilde_device_choice_parse ("opencl:2:13", &c, NULL));
  g_assert_true (c.opencl);
  g_assert_cmpint (c.platform, ==, 2);
  g_assert_cmpint (c.device, ==, 13);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_false (tilde_device_choice_parse (bad[i], &c, &error));
      g_assert_error (error, TILDE_GPU_ERROR, TILDE_GPU_ERROR_CHOICE);
      g_assert_nonnull (strstr (error->message, bad[i]));
      g_assert_false (c.opencl);
    }
}

/* A device that is not there is an error naming it, never a crash. */
static void
test_missing_device (void)
{
  g_autoptr (GError) error = NULL;
  TildeDeviceChoice c = { TRUE, 97, 3 };
  g_autoptr (TildeGpuDevice) d = tilde_gpu_device_select (&c, &error);
  g_assert_null (d);
  g_assert_true (g_error_matches (error, TILDE_GPU_ERROR, TILDE_GPU_ERROR_NO_DEVICE)
                 || g_error_matches (error, TILDE_GPU_ERROR, TILDE_GPU_ERROR_NO_PLATFORM));
  if (error->code == TILDE_GPU_ERROR_NO_DEVICE)
    g_assert_nonnull (strstr (error->message, "no OpenCL device 3 on platform 97"));
}

static void
test_build_failure (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  g_autoptr (GError) error = NULL;
  gpointer p = tilde_gpu_context_build (ctx, "a broken kernel",
                                        "__kernel void k (__global double *x) { x[0] = y; }",
                                        NULL, &error);
  g_assert_null (p);
  g_assert_error (error, TILDE_GPU_ERROR, TILDE_GPU_ERROR_BUILD);
  g_assert_nonnull (strstr (error->message, "a broken kernel"));
  /* the compiler's log names the undeclared identifier */
  g_assert_nonnull (strstr (error->message, "y"));
}

static void
test_cache (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  g_autoptr (GError) error = NULL;
  g_autofree char *source = tilde_gpu_glm_source (TILDE_GPU_GLM_POISSON_LOG, 7, 16);
  gboolean cached = TRUE;
  gpointer p = tilde_gpu_context_build (ctx, "a test", source, &cached, &error);
  g_assert_no_error (error);
  g_assert_false (cached);
  tilde_gpu_program_release (p);
  p = tilde_gpu_context_build (ctx, "a test", source, &cached, &error);
  g_assert_no_error (error);
  g_assert_true (cached);
  tilde_gpu_program_release (p);
}

/* A device without enough memory for the data: the GLM refuses them with
 * a memory error before asking the device. */
static void
test_out_of_memory (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  const TildeGpuDevice *d = tilde_gpu_context_device (ctx);
  g_autoptr (GError) error = NULL;
  /* more rows than the largest buffer holds; the host pointer is never read */
  gint32 N = (gint32) MIN ((guint64) G_MAXINT32, d->max_alloc / sizeof (double) + 1);
  gint32 K = d->max_alloc / sizeof (double) + 1 > (guint64) G_MAXINT32 ? 8 : 1;
  static const double dummy[1];
  g_autoptr (TildeGpuGlm) glm = tilde_gpu_glm_new (ctx, TILDE_GPU_GLM_NORMAL_ID, dummy, dummy,
                                                   N, K, &error);
  g_assert_null (glm);
  g_assert_error (error, TILDE_GPU_ERROR, TILDE_GPU_ERROR_MEMORY);
  g_assert_nonnull (strstr (error->message, d->name));
}

/* Two GLMs over one matrix: one device copy, which outlives the GLM that
 * made it, and the same sums as a GLM with its own copy. */
static void
test_shared_matrix (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  enum { N = 300, K = 3 };
  g_autofree double *x = g_new (double, N * K);
  g_autofree double *y = g_new (double, N);
  g_autoptr (GRand) r = g_rand_new_with_seed (5);
  for (gint32 i = 0; i < N * K; i++)
    x[i] = g_rand_double_range (r, -1, 1);
  for (gint32 i = 0; i < N; i++)
    y[i] = g_rand_int_range (r, 0, 4);
  g_autoptr (GError) error = NULL;
  TildeGpuGlm *first = tilde_gpu_glm_new (ctx, TILDE_GPU_GLM_NORMAL_ID, x, y, N, K, &error);
  g_assert_no_error (error);
  g_autoptr (TildeGpuGlm) shared = tilde_gpu_glm_new_sharing (first, TILDE_GPU_GLM_POISSON_LOG,
                                                              y, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (tilde_gpu_glm_device_bytes (shared), ==, N * sizeof (double));
  tilde_gpu_glm_free (first);
  g_autoptr (TildeGpuGlm) own = tilde_gpu_glm_new (ctx, TILDE_GPU_GLM_POISSON_LOG, x, y, N, K,
                                                   &error);
  g_assert_no_error (error);
  const double beta[] = { 0.3, -0.2, 0.1 };
  double a[K + 3], b[K + 3];
  g_assert_true (tilde_gpu_glm_sums (shared, 0.4, beta, a, &error));
  g_assert_true (tilde_gpu_glm_sums (own, 0.4, beta, b, &error));
  g_assert_no_error (error);
  for (gint32 i = 0; i < K + 3; i++)
    g_assert_cmpfloat (a[i], ==, b[i]);
  /* and the sums themselves, from the host */
  double l = 0, d = 0;
  for (gint32 n = 0; n < N; n++)
    {
      double eta = 0.4;
      for (gint32 k = 0; k < K; k++)
        eta += x[k * N + n] * beta[k];
      l += y[n] * eta - exp (eta);
      d += y[n] - exp (eta);
    }
  g_assert_cmpfloat (fabs (a[0] - l), <=, 1e-12 * fabs (l));
  g_assert_cmpfloat (fabs (a[1] - d), <=, 1e-12 * MAX (1, fabs (d)));
  g_assert_cmpfloat (a[2], ==, 0);
}

/* The negative binomial's device lchoose and digamma, one row at a time:
 * a row with x = 0 has eta = alpha, and its extra sums are
 * lchoose (n + phi - 1, n), n eta and digamma (n + phi) - digamma (phi)
 * - L + w - n (1 - w) / phi. lchoose against values computed to 40 digits
 * (lgamma (n + phi) - lgamma (phi) - lgamma (n + 1)), digamma against
 * GSL's psi; small and large phi and n, the digamma's root (1.4616...)
 * and both sides of its recurrence's 10. */
static void
test_neg_binomial_special (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  static const double counts[] = { 0, 1, 3, 9, 17, 250, 40000 };
  static const double phis[] = { 1e-3, 0.05, 0.5, 1.4616321449683623, 3, 9.99, 10, 57.5, 1e4, 1e7 };
  static const double lchoose[][10] = {
    { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 },
    { -6.907755278982137052, -2.995732273553990993, -0.6931471805599453094, 0.3795537188395179689,
      1.098612288668109691, 2.301584592660462151, 2.302585092994045684,
      4.051784947803304756, 9.210340371976182736, 16.11809565095831979 },
    { -8.004868192275512162, -4.020861785462297181, -1.163150809805680863, 0.7303590491633568079,
      2.302585092994045684, 5.390883860887360021, 5.393627546352361537,
      10.41502854536464464, 25.83956162170349278, 46.56252778364687936 },
    { -9.10226276248840886, -5.058925100993275924, -1.684859002208901216, 1.171996457608478179,
      4.007333185232470919, 10.78512629200049498, 10.79179024787011435,
      24.26156290344443281, 70.09483484813595584, 132.2610369785423885 },
    { -9.737588685818587204, -5.661841220611983067, -1.996323497114239485, 1.448867231213623047,
      5.141663556502659843, 14.94454294280774364, 14.95480083078364349,
      37.54198910436583721, 123.0843053996174615, 240.5025662161470675 },
    { -12.42312034165756641, -8.214362130008727451, -3.33359540152249157, 2.671717882335471315,
      10.36173484608326188, 37.03600790866037211, 37.06908302346215799,
      143.6436997109188274, 1171.626793744953391, 2895.481793422841684 },
    { -17.49321699623438289, -13.03568279124522707, -5.870685434472736683, 5.013241945958429486,
      20.50019728406974827, 82.48555357366298157, 82.56901002873123596,
      424.3783227004608065, 25013.09919330342422, 260932.1110066521314 },
  };
  static const double alphas[] = { -3, 0.5, 4 };
  const double x = 0, beta = 0;
  g_autoptr (GError) error = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
    {
      g_autoptr (TildeGpuGlm) glm = tilde_gpu_glm_new (ctx, TILDE_GPU_GLM_NEG_BINOMIAL_2_LOG, &x,
                                                       &counts[i], 1, 1, &error);
      g_assert_no_error (error);
      g_assert_cmpint (tilde_gpu_glm_n_sums (glm, 0), ==, 1 + 3 + 3);
      double n = counts[i];
      for (guint j = 0; j < G_N_ELEMENTS (phis); j++)
        for (guint k = 0; k < G_N_ELEMENTS (alphas); k++)
          {
            double phi = phis[j], eta = alphas[k], sums[7];
            g_assert_true (tilde_gpu_glm_sums_full (glm, eta, &beta, phi, NULL, 0, sums, &error));
            g_assert_no_error (error);
            double L = tilde_log1p_exp (eta - log (phi)), w = tilde_inv_logit (eta - log (phi));
            double lc = lchoose[i][j], dg = tilde_digamma (n + phi) - tilde_digamma (phi);
            double rest = -L + w - n * (1 - w) / phi;
            g_assert_cmpfloat (fabs (sums[4] - lc), <=, 1e-14 * MAX (1, fabs (lc)));
            g_assert_cmpfloat (sums[5], ==, n * eta);
            g_assert_cmpfloat (fabs (sums[6] - (dg + rest)), <=,
                               1e-13 * MAX (1, fabs (tilde_digamma (n + phi))
                                               + fabs (tilde_digamma (phi)) + fabs (L)
                                               + fabs (n * (1 - w) / phi)));
            g_assert_cmpfloat (sums[2], ==, 0);
          }
    }
}

static const char *glm_model =
  "data {\n"
  "  int N;\n"
  "  int K;\n"
  "  @gpu matrix[N, K] X;\n"
  "  matrix[N, K] Z;\n"
  "  vector[N] y;\n"
  "  array[N] int c;\n"
  "  vector[N] w;\n"
  "}\n"
  "parameters {\n"
  "  real alpha;\n"
  "  vector[K] beta;\n"
  "  real<lower=0> sigma;\n"
  "}\n"
  "model {\n"
  "  y ~ normal(X * beta + alpha, sigma);\n"
  "  c ~ poisson_log_glm(Z, alpha, beta);\n"
  "  for (n in 1:N)\n"
  "    w[n] ~ normal(0, sigma);\n"
  "}\n";

static const TildeGpuResidency *
find_var (const TildeGpuPlan *plan, const char *name)
{
  for (guint i = 0; i < plan->vars->len; i++)
    {
      const TildeGpuResidency *r = &g_array_index (plan->vars, TildeGpuResidency, i);
      if (strcmp (r->name, name) == 0)
        return r;
    }
  g_error ("no variable %s", name);
  return NULL;
}

static void
test_residency (void)
{
  MirProgram *lowered = rt_test_mir_from_string (glm_model);
  MirProgram *p = mir_transform_program (lowered);
  g_assert_true (tilde_gpu_program_has_annotations (p));
  for (int use = 0; use < 2; use++)
    {
      /* the normal model with its statistics on the CPU, as a model runs it */
      g_autoptr (TildeGpuPlan) plan = tilde_gpu_plan_new (p, use);
      g_assert_false (find_var (plan, "X")->device);
      g_assert_false (find_var (plan, "y")->device);
      g_assert_false (find_var (plan, "N")->device);
      g_assert_false (find_var (plan, "w")->device);
      /* Z only when the compiler may choose */
      g_assert_cmpint (find_var (plan, "Z")->device, ==, use);
      g_assert_cmpint (find_var (plan, "c")->device, ==, use);
      g_assert_cmpint (find_var (plan, "Z")->chosen, ==, use);
      g_assert_cmpuint (plan->sites->len, ==, use);
      if (use)
        g_assert_cmpint (g_array_index (plan->sites, TildeGpuSite, 0).family, ==,
                         TILDE_GPU_GLM_POISSON_LOG);
      g_autofree char *report = tilde_gpu_plan_report (plan);
      g_assert_nonnull (strstr (report, "matrix[N, K] X: host  // annotated @gpu, but stays on "
                                        "the host: design matrix of normal_lupdf at line "
                                        "16, which the CPU evaluates by its sufficient statistics"));
      g_assert_nonnull (strstr (report, "vector[N] y: host  // outcome of normal_lupdf"));
      g_assert_nonnull (strstr (report, "int N: host"));

      /* and as the normal kernel's tests see it */
      tilde_gpu_plan_set_normal_on_cpu (FALSE);
      g_autoptr (TildeGpuPlan) kernel = tilde_gpu_plan_new (p, use);
      tilde_gpu_plan_set_normal_on_cpu (TRUE);
      g_assert_true (find_var (kernel, "X")->device);
      g_assert_false (find_var (kernel, "X")->chosen);
      g_assert_true (find_var (kernel, "y")->device);
      g_assert_false (find_var (kernel, "w")->device);
      g_assert_cmpint (find_var (kernel, "Z")->device, ==, use);
      g_assert_cmpuint (kernel->sites->len, ==, 1 + use);
      const TildeGpuSite *s = &g_array_index (kernel->sites, TildeGpuSite, 0);
      g_assert_cmpint (s->family, ==, TILDE_GPU_GLM_NORMAL_ID);
      g_assert_true (s->written_as_predictor);
      g_assert_nonnull (s->alpha);
      g_assert_nonnull (s->sigma);
      g_autofree char *kernel_report = tilde_gpu_plan_report (kernel);
      g_assert_nonnull (strstr (kernel_report, "matrix[N, K] X: device  // annotated @gpu"));
    }
  mir_program_free (p);
  mir_program_free (lowered);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gpu/devices/list", test_list);
  g_test_add_func ("/gpu/devices/choice", test_choice);
  g_test_add_func ("/gpu/devices/missing", test_missing_device);
  g_test_add_func ("/gpu/kernel/build-failure", test_build_failure);
  g_test_add_func ("/gpu/kernel/cache", test_cache);
  g_test_add_func ("/gpu/kernel/out-of-memory", test_out_of_memory);
  g_test_add_func ("/gpu/kernel/shared-matrix", test_shared_matrix);
  g_test_add_func ("/gpu/kernel/neg-binomial-special", test_neg_binomial_special);
  g_test_add_func ("/gpu/plan/residency", test_residency);
  return g_test_run ();
}
