/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The kernel sources generated without a device (the IR viewer's OpenCL
 * stage): the same text --debug-opencl prints when a device builds them,
 * and the stage that shows them. */
#define G_LOG_DOMAIN "tilde-test"

#include <string.h>

#include "gpu-test-util.h"
#include "runtime-test-util.h"
#include "gpu/glm.h"
#include "gpu/plan.h"
#include "mir/mir-transform.h"
#include "mir/passes/pipeline.h"
#include "runtime/gpu-call.h"
#include "worker/mir-stages.h"

static const char *glm_model =
  "data {\n"
  "  int<lower=0> N;\n"
  "  @gpu matrix[N, 2] X;\n"
  "  @gpu matrix[N, 3] Z;\n"
  "  array[N] int c;\n"
  "  array[N] int b;\n"
  "}\n"
  "parameters {\n"
  "  real alpha;\n"
  "  vector[2] beta;\n"
  "  vector[3] gamma;\n"
  "}\n"
  "model {\n"
  "  c ~ poisson_log(X * beta + alpha);\n"
  "  b ~ bernoulli_logit_glm(Z, alpha, gamma);\n"
  "}\n";

static char *
glm_data (void)
{
  GString *x = g_string_new (NULL), *z = g_string_new (NULL), *c = g_string_new (NULL),
          *b = g_string_new (NULL);
  for (int n = 0; n < 30; n++)
    {
      const char *sep = n ? ", " : "";
      g_string_append_printf (x, "%s[%.2f, %.2f]", sep, (n % 7) / 7.0, (n % 5) / 5.0 - 0.4);
      g_string_append_printf (z, "%s[%.2f, %.2f, %.2f]", sep, (n % 3) / 3.0, (n % 4) / 4.0,
                              (n % 6) / 6.0);
      g_string_append_printf (c, "%s%d", sep, n % 4);
      g_string_append_printf (b, "%s%d", sep, n % 2);
    }
  char *data = g_strdup_printf ("{\"N\": 30, \"X\": [%s], \"Z\": [%s], \"c\": [%s], \"b\": [%s]}",
                                x->str, z->str, c->str, b->str);
  g_string_free (x, TRUE);
  g_string_free (z, TRUE);
  g_string_free (c, TRUE);
  g_string_free (b, TRUE);
  return data;
}

/* As the CLI's --debug-opencl prints each source. */
static void
capture_source (const char *what, const char *source, gpointer user_data)
{
  g_string_append_printf (user_data, "// OpenCL kernel for %s\n%s\n", what, source);
}

static TildeGpuPlan *
plan_at_o0 (const char *source, MirProgram **program)
{
  g_autoptr (MirProgram) lowered = rt_test_mir_from_string (source);
  g_autoptr (MirProgram) transformed = mir_transform_program (lowered);
  *program = mir_pipeline_run (transformed, MIR_OPT_O0, NULL);
  return tilde_gpu_plan_new (*program, FALSE);
}

/* What a device builds for each statement, text for text. */
static void
test_matches_debug_opencl (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  g_autofree char *data = glm_data ();
  g_autoptr (TildeModel) model = rt_test_model (glm_model, data);
  g_autoptr (GString) built = g_string_new (NULL);
  tilde_gpu_context_set_source_func (ctx, capture_source, built);
  g_autoptr (GPtrArray) diagnostics = tilde_diagnostic_list_new ();
  g_assert_cmpuint (tilde_model_use_device (model, ctx, FALSE, diagnostics), ==, 2);

  /* the device's work-group size, as the build chose it */
  const char *wg_line = strstr (built->str, "\n#define WG ");
  g_assert_nonnull (wg_line);
  guint wg = (guint) g_ascii_strtoull (wg_line + strlen ("\n#define WG "), NULL, 10);
  g_assert_cmpuint (wg, >, 0);

  MirProgram *program = NULL;
  g_autoptr (TildeGpuPlan) plan = plan_at_o0 (glm_model, &program);
  g_autoptr (GString) generated = g_string_new (NULL);
  g_assert_cmpuint (plan->sites->len, ==, 2);
  for (guint i = 0; i < plan->sites->len; i++)
    {
      const TildeGpuSite *site = &g_array_index (plan->sites, TildeGpuSite, i);
      g_autofree char *kernel = tilde_gpu_plan_site_kernel (plan, site, wg);
      g_string_append (generated, kernel);
    }
  g_assert_cmpstr (generated->str, ==, built->str);
  g_assert_nonnull (strstr (built->str, "// OpenCL kernel for poisson_log_glm (K = 2)\n"));
  g_assert_nonnull (strstr (built->str, "// OpenCL kernel for bernoulli_logit_glm (K = 3)\n"));
  tilde_gpu_plan_free (g_steal_pointer (&plan));
  mir_program_free (program);
}

/* Without a device: K from the declaration, or left to the data with the
 * rest of the source unchanged. */
static void
test_without_device (void)
{
  static const char *model =
    "data {\n"
    "  int<lower=0> N;\n"
    "  int<lower=0> K;\n"
    "  @gpu matrix[N, K] X;\n"
    "  @gpu matrix[N, 4] W;\n"
    "  vector[N] y;\n"
    "  vector[N] v;\n"
    "}\n"
    "parameters {\n"
    "  real alpha;\n"
    "  vector[K] beta;\n"
    "  vector[4] delta;\n"
    "  real<lower=0> sigma;\n"
    "}\n"
    "model {\n"
    "  y ~ normal_id_glm(X, alpha, beta, sigma);\n"
    "  v ~ normal_id_glm(W, alpha, delta, sigma);\n"
    "}\n";
  MirProgram *program = NULL;
  /* the normal kernel's text, which a model runs only with the statistics off */
  tilde_gpu_plan_set_normal_on_cpu (FALSE);
  g_autoptr (TildeGpuPlan) plan = plan_at_o0 (model, &program);
  tilde_gpu_plan_set_normal_on_cpu (TRUE);
  g_assert_cmpuint (plan->sites->len, ==, 2);
  const TildeGpuSite *by_data = &g_array_index (plan->sites, TildeGpuSite, 0);
  const TildeGpuSite *literal = &g_array_index (plan->sites, TildeGpuSite, 1);
  g_assert_cmpint (tilde_gpu_plan_site_columns (plan, by_data), ==, -1);
  g_assert_cmpint (tilde_gpu_plan_site_columns (plan, literal), ==, 4);

  g_autofree char *four = tilde_gpu_plan_site_kernel (plan, literal, 64);
  g_autofree char *source = tilde_gpu_glm_source (TILDE_GPU_GLM_NORMAL_ID, 4, 64);
  g_autofree char *expected = g_strdup_printf ("// OpenCL kernel for normal_id_glm (K = 4)\n%s\n",
                                               source);
  g_assert_cmpstr (four, ==, expected);

  g_autofree char *open = tilde_gpu_plan_site_kernel (plan, by_data, 64);
  g_assert_true (g_str_has_prefix (open, "// OpenCL kernel for normal_id_glm (K = the columns of "
                                         "X, from the data)\n"));
  g_assert_null (strstr (open, "\n#define K "));
  g_assert_nonnull (strstr (open, "\n#define WG 64\n"));
  /* past the lines that fix K, the kernels are the same text */
  const char *body_open = strstr (open, "\n#define NX ");
  const char *body_four = strstr (four, "\n#define NX ");
  g_assert_nonnull (body_open);
  g_assert_nonnull (body_four);
  g_assert_cmpstr (body_open, ==, body_four);
  tilde_gpu_plan_free (g_steal_pointer (&plan));
  mir_program_free (program);
}

/* The kernel before the data fix K is the real one once K is defined:
 * every family builds with K given ahead of it. */
static void
test_for_data_builds (void)
{
  g_autoptr (TildeGpuContext) ctx = gpu_test_context ();
  if (!ctx)
    return;
  for (int f = 0; f < TILDE_GPU_GLM_N_FAMILIES; f++)
    {
      g_autofree char *source = tilde_gpu_glm_source_for_data (f, "X", 64);
      g_autofree char *with_k = g_strconcat ("#define K 70\n", source, NULL);
      g_autoptr (GError) error = NULL;
      gpointer program = tilde_gpu_context_build (ctx, "test", with_k, NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (program);
      tilde_gpu_program_release (program);
    }
}

static const TildeMirStages *
stages_of (const char *source, gboolean use_opencl, TildeMirStages **out)
{
  g_autoptr (TildeCheckResult) check = tilde_frontend_check_buffer ("model.stan", NULL, source,
                                                                    -1, NULL);
  *out = tilde_mir_stages_new_full (check, MIR_OPT_O1, use_opencl, NULL);
  g_assert_nonnull (*out);
  return *out;
}

/* The compile job's OpenCL stage: the plan's lines, then the kernels, each
 * kernel line pointing at its statement. */
static void
test_stage (void)
{
  g_autoptr (TildeMirStages) stages = NULL;
  stages_of (glm_model, FALSE, &stages);
  const TildeMirText *t = &stages->stages[TILDE_MIR_STAGE_OPENCL];
  g_assert_cmpuint (stages->opencl_kernels, ==, 2);
  /* --debug-mem-patterns' lines, in its order */
  g_assert_true (g_str_has_prefix (t->text, "// int N: host  // not annotated @gpu and read by "
                                            "no kernel\n"));
  g_assert_nonnull (strstr (t->text, "\n// matrix[N, 2] X: device  // annotated @gpu; design "
                                     "matrix of poisson_log_lupmf at line 14, run as a kernel\n"));
  g_assert_nonnull (strstr (t->text, "\n// OpenCL kernel for poisson_log_glm (K = 2)\n"));
  g_assert_nonnull (strstr (t->text, "__kernel"));
  g_auto (GStrv) lines = g_strsplit (t->text, "\n", -1);
  g_assert_cmpuint (t->n_lines, ==, g_strv_length (lines) - 1);
  for (guint i = 0; i < t->n_lines; i++)
    if (g_str_has_prefix (lines[i], "// OpenCL kernel for poisson_log_glm"))
      g_assert_cmpint (t->sources[i].line, ==, 14);
    else if (g_str_has_prefix (lines[i], "// OpenCL kernel for bernoulli_logit_glm"))
      g_assert_cmpint (t->sources[i].line, ==, 15);
    else if (g_str_has_prefix (lines[i], "// matrix"))
      g_assert_cmpint (t->sources[i].line, ==, 0);
}

/* Nothing for a device: no text, and which matrix @gpu would put there. */
static void
test_stage_without_device_data (void)
{
  static const char *plain =
    "data {\n"
    "  int<lower=0> N;\n"
    "  matrix[N, 2] X;\n"
    "  array[N] int c;\n"
    "}\n"
    "parameters {\n"
    "  real alpha;\n"
    "  vector[2] beta;\n"
    "}\n"
    "model {\n"
    "  c ~ poisson_log_glm(X, alpha, beta);\n"
    "}\n";
  g_autoptr (TildeMirStages) stages = NULL;
  stages_of (plain, FALSE, &stages);
  g_assert_cmpuint (stages->opencl_kernels, ==, 0);
  g_assert_cmpstr (stages->stages[TILDE_MIR_STAGE_OPENCL].text, ==, "");
  g_assert_cmpstr (stages->opencl_candidate, ==, "X");
  g_assert_cmpstr (stages->opencl_candidate_call, ==, "poisson_log_glm_lupmf");
  g_assert_cmpint (stages->opencl_candidate_line, ==, 11);

  /* as --use-opencl: chosen without the annotation */
  g_autoptr (TildeMirStages) chosen = NULL;
  stages_of (plain, TRUE, &chosen);
  g_assert_cmpuint (chosen->opencl_kernels, ==, 1);
  g_assert_nonnull (strstr (chosen->stages[TILDE_MIR_STAGE_OPENCL].text,
                            "// matrix[N, 2] X: device  // --use-opencl: design matrix of "
                            "poisson_log_glm_lupmf at line 11"));
  g_assert_null (chosen->opencl_candidate);

  g_autoptr (TildeMirStages) none = NULL;
  stages_of ("parameters {\n  real mu;\n}\nmodel {\n  mu ~ normal(0, 1);\n}\n", FALSE, &none);
  g_assert_cmpuint (none->opencl_kernels, ==, 0);
  g_assert_null (none->opencl_candidate);
  g_assert_false (none->opencl_candidate_elementwise);
}

/* An elementwise density over vectors of which one is annotated: the
 * candidate names the other. */
static void
test_stage_elementwise_candidate (void)
{
  static const char *half =
    "data {\n"
    "  int<lower=0> N;\n"
    "  @gpu vector[N] x;\n"
    "  vector[N] y;\n"
    "}\n"
    "parameters {\n"
    "  real a;\n"
    "  real b;\n"
    "  real<lower=0> sigma;\n"
    "}\n"
    "model {\n"
    "  y ~ normal(a + b * exp(x), sigma);\n"
    "}\n";
  g_autoptr (TildeMirStages) stages = NULL;
  stages_of (half, FALSE, &stages);
  g_assert_cmpuint (stages->opencl_kernels, ==, 0);
  g_assert_cmpstr (stages->opencl_candidate, ==, "y");
  g_assert_cmpstr (stages->opencl_candidate_call, ==, "normal_lupdf");
  g_assert_cmpint (stages->opencl_candidate_line, ==, 12);
  g_assert_true (stages->opencl_candidate_elementwise);

  g_autofree char *neither = g_strdup (half);
  memcpy (strstr (neither, "@gpu"), "    ", 4);
  g_autoptr (TildeMirStages) plain = NULL;
  stages_of (neither, FALSE, &plain);
  g_assert_cmpuint (plain->opencl_kernels, ==, 0);
  g_assert_cmpstr (plain->opencl_candidate, ==, "y, x");
  g_assert_true (plain->opencl_candidate_elementwise);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gpu/kernel-text/matches-debug-opencl", test_matches_debug_opencl);
  g_test_add_func ("/gpu/kernel-text/without-device", test_without_device);
  g_test_add_func ("/gpu/kernel-text/for-data-builds", test_for_data_builds);
  g_test_add_func ("/gpu/kernel-text/stage", test_stage);
  g_test_add_func ("/gpu/kernel-text/stage-without-device-data", test_stage_without_device_data);
  g_test_add_func ("/gpu/kernel-text/stage-elementwise-candidate", test_stage_elementwise_candidate);
  return g_test_run ();
}
