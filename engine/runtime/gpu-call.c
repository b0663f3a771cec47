/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/gpu-call.h"
#include "runtime/gpu-call-private.h"
#include "runtime/normal-stats.h"
#include "gpu/plan.h"

#include <math.h>
#include <string.h>

/* One GLM statement run by a kernel. */
typedef struct {
  TildeGpuSite site;
  TildeGpuGlm *glm;
  const double *x_data;      /* the design matrix's host storage, which identifies it */
  StFn         cpu_fn;       /* the statement as compiled for the CPU */
  const Ex    *alpha, *beta, *sigma;   /* alpha and sigma (or phi) may be NULL */
  const Ex    *cuts;         /* the ordinal's cut points */
  gboolean     drop;         /* an _lupdf/_lupmf call */
  gboolean     glm_constants;  /* Stan's neg_binomial_2_log_glm (see runtime/dist) */
  double       lgamma_sum;   /* poisson, negative binomial: sum lgamma (y + 1) */
  gint         failed;       /* the device failed once: the CPU from then on */
  RtGpuFailures *failures;   /* where that is reported */
  gint         runs;         /* evaluations the kernel made */
} RtGpuSite;

struct RtGpu {
  GPtrArray *sites;          /* RtGpuSite* */
  GPtrArray *ew_sites;       /* RtGpuEwSite* */
  RtGpuFailures failures;
};

static St *
find_st (St *s, const MirStmt *mir)
{
  if (!s)
    return NULL;
  if (s->mir == mir)
    return s;
  for (int i = 0; i < s->n_body; i++)
    {
      St *found = find_st (s->body[i], mir);
      if (found)
        return found;
    }
  St *found = find_st (s->then_s, mir);
  return found ? found : find_st (s->else_s, mir);
}

/* As the compiler decides it: the optimiser's calls carry it in the name. */
static gboolean
is_unnormalised (const MirFun *f)
{
  return f->propto || g_str_has_suffix (f->name, "_lupdf") || g_str_has_suffix (f->name, "_lupmf");
}

static void
warn (GPtrArray *diagnostics, const TildeGpuSite *site, const char *message)
{
  if (!diagnostics)
    return;
  g_autofree char *text = g_strdup_printf ("%s at line %d runs on the CPU: %s",
                                           site->call->u.call.fun.name,
                                           site->stmt->span.begin_line, message);
  g_ptr_array_add (diagnostics, tilde_diagnostic_new (TILDE_SEVERITY_WARNING, TILDE_DIAG_WARNING,
                                                      NULL, 0, 0, 0, 0, text));
}

/* The outcome as doubles; FALSE when a value lies outside what the density
 * accepts (the CPU path then raises its own error at every evaluation). */
static gboolean
outcome_values (const TildeGpuSite *site, const TildeValue *y, double *out, double *lgamma_sum)
{
  *lgamma_sum = 0;
  for (gint32 i = 0; i < y->rows; i++)
    {
      double v = y->kind == TILDE_VALUE_VECTOR ? y->u.d[i] : y->u.iv[i];
      gboolean counts = site->family == TILDE_GPU_GLM_POISSON_LOG
        || site->family == TILDE_GPU_GLM_NEG_BINOMIAL_2_LOG;
      /* the ordinal's and the categorical's upper bound is known at each
       * evaluation, where the kernel checks it */
      if ((site->family == TILDE_GPU_GLM_BERNOULLI_LOGIT && v != 0 && v != 1)
          || (counts && !(v >= 0))
          || ((site->family == TILDE_GPU_GLM_ORDERED_LOGISTIC
               || site->family == TILDE_GPU_GLM_CATEGORICAL_LOGIT) && !(v >= 1)))
        return FALSE;
      if (counts)
        *lgamma_sum += lgamma (v + 1);
      out[i] = v;
    }
  return TRUE;
}

/* An attached site over the same design matrix (its device copy is shared). */
static TildeGpuGlm *
same_matrix (GPtrArray *sites, const TildeValue *x)
{
  for (guint i = 0; i < sites->len; i++)
    {
      RtGpuSite *g = g_ptr_array_index (sites, i);
      if (g->x_data == x->u.d)
        return g->glm;
    }
  return NULL;
}

static RtGpuSite *
attach_site (const TildeGpuSite *site, St *s, const TildeValue *globals, int n_globals,
             TildeGpuContext *ctx, gboolean chosen, GPtrArray *sites, RtGpuFailures *failures,
             GPtrArray *diagnostics)
{
  if (s->fn != rt_st_target && s->fn != rt_st_target_fused && s->fn != rt_st_target_normal_stats)
    return NULL;
  const TildeValue *x = rt_global_value (rt_ex_find (s->e, site->x), globals, n_globals);
  const TildeValue *y = rt_global_value (rt_ex_find (s->e, site->y), globals, n_globals);
  const Ex *beta = rt_ex_find (s->e, site->beta);
  const Ex *alpha = rt_ex_find (s->e, site->alpha), *sigma = rt_ex_find (s->e, site->sigma);
  const Ex *cuts = rt_ex_find (s->e, site->cuts);
  if (!x || !y || x->kind != TILDE_VALUE_MATRIX || !beta || (site->alpha && !alpha)
      || (site->sigma && !sigma) || (site->cuts && !cuts))
    return NULL;
  /* sizes that do not agree are the CPU path's error to raise */
  if (y->rows != x->rows || (y->kind != TILDE_VALUE_VECTOR && y->kind != TILDE_VALUE_ARRAY))
    return NULL;
  if (chosen && (gint64) x->rows * x->cols < TILDE_GPU_AUTO_MIN_ELEMENTS)
    return NULL;
  double lgamma_sum = 0;
  double *yd = g_new (double, MAX (y->rows, 1));
  if (!outcome_values (site, y, yd, &lgamma_sum))
    {
      g_free (yd);
      return NULL;
    }
  g_autoptr (GError) error = NULL;
  TildeGpuGlm *other = same_matrix (sites, x);
  TildeGpuGlm *glm = other ? tilde_gpu_glm_new_sharing (other, site->family, yd, &error)
                           : tilde_gpu_glm_new (ctx, site->family, x->u.d, yd, x->rows, x->cols,
                                                &error);
  g_free (yd);
  if (!glm)
    {
      warn (diagnostics, site, error->message);
      return NULL;
    }
  RtGpuSite *g = g_new0 (RtGpuSite, 1);
  g->site = *site;
  g->glm = glm;
  g->x_data = x->u.d;
  g->cpu_fn = s->fn;
  g->failures = failures;
  g->alpha = alpha;
  g->beta = beta;
  g->sigma = sigma;
  g->cuts = cuts;
  g->drop = is_unnormalised (&site->call->u.call.fun);
  g->glm_constants = site->family == TILDE_GPU_GLM_NEG_BINOMIAL_2_LOG
    && !site->written_as_predictor && !site->call->u.call.fun.rewritten;
  g->lgamma_sum = lgamma_sum;
  s->gpu = g;
  s->fn = rt_st_target_gpu;
  return g;
}

static gboolean
chosen_not_annotated (const TildeGpuPlan *plan, const char *x)
{
  for (guint i = 0; i < plan->vars->len; i++)
    {
      const TildeGpuResidency *r = &g_array_index (plan->vars, TildeGpuResidency, i);
      if (strcmp (r->name, x) == 0)
        return r->chosen;
    }
  return FALSE;
}

RtGpu *
rt_gpu_attach (const MirProgram *prog, St *log_prob, const TildeValue *globals, int n_globals,
               TildeGpuContext *ctx, gboolean use_opencl, GPtrArray *diagnostics)
{
  RtGpu *gpu = g_new0 (RtGpu, 1);
  gpu->sites = g_ptr_array_new ();
  gpu->ew_sites = g_ptr_array_new ();
  g_mutex_init (&gpu->failures.lock);
  gpu->failures.warnings = tilde_diagnostic_list_new ();
  g_autoptr (TildeGpuPlan) plan = tilde_gpu_plan_new (prog, use_opencl);
  for (guint i = 0; i < plan->sites->len; i++)
    {
      const TildeGpuSite *site = &g_array_index (plan->sites, TildeGpuSite, i);
      St *s = find_st (log_prob, site->stmt);
      RtGpuSite *g = s && !s->gpu
        ? attach_site (site, s, globals, n_globals, ctx,
                       chosen_not_annotated (plan, site->x->u.var.name), gpu->sites,
                       &gpu->failures, diagnostics)
        : NULL;
      if (g)
        g_ptr_array_add (gpu->sites, g);
    }
  for (guint i = 0; i < plan->ew_sites->len; i++)
    {
      const TildeGpuEwSite *site = &g_array_index (plan->ew_sites, TildeGpuEwSite, i);
      St *s = find_st (log_prob, site->stmt);
      gboolean chosen[TILDE_GPU_EW_MAX_VECTORS];
      for (guint v = 0; v < site->prog.n_vectors; v++)
        chosen[v] = chosen_not_annotated (plan, site->vectors[v]->u.var.name);
      RtGpuEwSite *g = s && !s->gpu
        ? rt_gpu_ew_attach (site, s, globals, n_globals, ctx, chosen, gpu->ew_sites,
                            &gpu->failures, diagnostics)
        : NULL;
      if (g)
        g_ptr_array_add (gpu->ew_sites, g);
    }
  /* the normal models the plan keeps on the CPU, where @gpu or
   * --use-opencl asked for the device: say why they stay */
  for (guint i = 0; i < plan->cpu_sites->len; i++)
    {
      const TildeGpuSite *site = &g_array_index (plan->cpu_sites, TildeGpuSite, i);
      St *s = find_st (log_prob, site->stmt);
      const TildeValue *x = s ? rt_global_value (rt_ex_find (s->e, site->x), globals, n_globals)
                              : NULL;
      gboolean asked = tilde_gpu_variable_is_annotated (prog, site->x->u.var.name)
        || (use_opencl && x && (gint64) x->rows * x->cols >= TILDE_GPU_AUTO_MIN_ELEMENTS);
      if (s && s->fn == rt_st_target_normal_stats && asked)
        warn (diagnostics, site, "its sufficient statistics make a gradient K^2 multiply-adds "
              "with no pass over the design matrix, faster than a kernel's pass over the data");
    }
  return gpu;
}

guint
rt_gpu_n_sites (const RtGpu *gpu)
{
  return gpu ? gpu->sites->len + gpu->ew_sites->len : 0;
}

guint
rt_gpu_runs (const RtGpu *gpu)
{
  guint n = 0;
  for (guint i = 0; gpu && i < gpu->sites->len; i++)
    n += (guint) g_atomic_int_get (&((RtGpuSite *) g_ptr_array_index (gpu->sites, i))->runs);
  for (guint i = 0; gpu && i < gpu->ew_sites->len; i++)
    n += rt_gpu_ew_runs (g_ptr_array_index (gpu->ew_sites, i));
  return n;
}

GPtrArray *
rt_gpu_take_failures (RtGpu *gpu)
{
  GPtrArray *fresh = tilde_diagnostic_list_new ();
  if (!gpu)
    return fresh;
  g_mutex_lock (&gpu->failures.lock);
  GPtrArray *taken = gpu->failures.warnings;
  gpu->failures.warnings = fresh;
  g_mutex_unlock (&gpu->failures.lock);
  return taken;
}

void
rt_gpu_free (RtGpu *gpu)
{
  if (!gpu)
    return;
  for (guint i = 0; i < gpu->sites->len; i++)
    {
      RtGpuSite *g = g_ptr_array_index (gpu->sites, i);
      tilde_gpu_glm_free (g->glm);
      g_free (g);
    }
  g_ptr_array_unref (gpu->sites);
  for (guint i = 0; i < gpu->ew_sites->len; i++)
    rt_gpu_ew_free (g_ptr_array_index (gpu->ew_sites, i));
  g_ptr_array_unref (gpu->ew_sites);
  g_ptr_array_unref (gpu->failures.warnings);
  g_mutex_clear (&gpu->failures.lock);
  g_free (gpu);
}

/* ---- evaluation ---- */

static gboolean
scalar_value (const TildeValue *v)
{
  return v->kind == TILDE_VALUE_REAL || v->kind == TILDE_VALUE_INT;
}

/* Cut points the CPU density accepts: at least one, increasing, finite
 * (otherwise it raises its error). */
static gboolean
cuts_fit (const double *c, gint32 n)
{
  if (n < 1 || !isfinite (c[0]) || !isfinite (c[n - 1]))
    return FALSE;
  for (gint32 i = 1; i < n; i++)
    if (!(c[i] > c[i - 1]))
      return FALSE;
  return TRUE;
}

/* neg_binomial_2_log_glm's value from its sums, keeping what the CPU
 * density keeps under propto, plus what Stan's GLM adds (runtime/dist). */
static void
finish_neg_binomial (RtGpuSite *g, const double *sums, gint32 N, gint32 K, double phi,
                     gboolean drop, gboolean eta_ad, gboolean phi_ad, TildeGpuGlmValue *v,
                     double *d_beta)
{
  double constant = 0;
  if (drop && g->glm_constants)
    constant = phi_ad ? g->lgamma_sum : -N * phi * log (phi);
  tilde_gpu_glm_finish_neg_binomial (sums, K, !drop || phi_ad, !drop || eta_ad, TRUE, constant,
                                     v, d_beta);
}

gboolean
rt_gpu_failed (RtGpuFailures *failures, gint *failed, const MirExpr *call, const MirStmt *stmt,
               const GError *error)
{
  if (!g_atomic_int_compare_and_exchange (failed, 0, 1))
    return FALSE;
  const TildeSpan *span = &stmt->span;
  g_autofree char *text = g_strdup_printf ("%s at line %d failed on the OpenCL device: %s; "
                                           "it runs on the CPU from now on",
                                           call->u.call.fun.name, span->begin_line,
                                           error->message);
  TildeDiagnostic *d = tilde_diagnostic_new (TILDE_SEVERITY_WARNING, TILDE_DIAG_RUNTIME, NULL,
                                             span->begin_line, span->begin_column,
                                             span->end_line, span->end_column, text);
  g_mutex_lock (&failures->lock);
  g_ptr_array_add (failures->warnings, d);
  g_mutex_unlock (&failures->lock);
  return FALSE;
}

/* Reported once; the statement stays on the CPU from then on. */
static gboolean
device_failed (RtGpuSite *g, const GError *error)
{
  return rt_gpu_failed (g->failures, &g->failed, g->site.call, g->site.stmt, error);
}

/* categorical_logit_glm: alpha a vector of C, beta K x C; sizes that do
 * not agree are the CPU path's error. */
static gboolean
run_categorical (Ev *ev, RtGpuSite *g, TildeValue *out)
{
  TildeValue a, b;
  rt_eval (ev, g->alpha, &a);
  rt_eval (ev, g->beta, &b);
  gint32 N = tilde_gpu_glm_rows (g->glm), K = tilde_gpu_glm_cols (g->glm);
  if (N == 0 || !(a.ad || b.ad) || a.kind != TILDE_VALUE_VECTOR || b.kind != TILDE_VALUE_MATRIX
      || b.rows != K || b.cols != tilde_value_flat_size (&a) || b.cols < 1
      || b.cols > tilde_gpu_glm_max_categories (g->glm))
    return FALSE;
  gint32 C = b.cols;
  double *sums = rt_alloc_d (&ev->cx, (gsize) tilde_gpu_glm_n_sums (g->glm, C));
  g_autoptr (GError) error = NULL;
  if (!tilde_gpu_glm_sums_full (g->glm, 0, rt_values (&ev->cx, &b), 0, rt_values (&ev->cx, &a),
                                C, sums, &error))
    return device_failed (g, error);
  if (sums[2] != 0 || !isfinite (sums[0]))
    return FALSE;
  AdOperand ops[2];
  guint n = 0;
  if (a.ad)
    ops[n++] = rt_operand (&a, sums + 3);
  if (b.ad)
    ops[n++] = rt_operand (&b, sums + 3 + C);
  *out = rt_reduce (&ev->cx, sums[0], n, ops);
  g_atomic_int_inc (&g->runs);
  return TRUE;
}

/* The kernel's value, or FALSE for the CPU path to take over. */
static gboolean
run_kernel (Ev *ev, RtGpuSite *g, TildeValue *out)
{
  if (g->site.family == TILDE_GPU_GLM_CATEGORICAL_LOGIT)
    return run_categorical (ev, g, out);
  TildeValue a = tilde_value_real (0), b, sg = tilde_value_real (1), c = tilde_value_real (0);
  if (g->alpha)
    rt_eval (ev, g->alpha, &a);
  rt_eval (ev, g->beta, &b);
  if (g->sigma)
    rt_eval (ev, g->sigma, &sg);
  if (g->cuts)
    rt_eval (ev, g->cuts, &c);
  gint32 N = tilde_gpu_glm_rows (g->glm), K = tilde_gpu_glm_cols (g->glm);
  gboolean any_ad = a.ad || b.ad || sg.ad || c.ad;
  if (N == 0 || !any_ad || !scalar_value (&a) || !scalar_value (&sg)
      || b.kind != TILDE_VALUE_VECTOR || tilde_value_flat_size (&b) != K)
    return FALSE;
  double alpha = rt_scalar (&ev->cx, &a), sigma = rt_scalar (&ev->cx, &sg);
  if (g->sigma && !(sigma > 0 && isfinite (sigma)))
    return FALSE;
  const double *cuts = NULL;
  gint32 n_cuts = 0;
  if (g->cuts)
    {
      if (c.kind != TILDE_VALUE_VECTOR)
        return FALSE;
      n_cuts = tilde_value_flat_size (&c);
      cuts = rt_values (&ev->cx, &c);
      if (!cuts_fit (cuts, n_cuts))
        return FALSE;
    }
  const double *beta = rt_values (&ev->cx, &b);
  double *sums = rt_alloc_d (&ev->cx, (gsize) tilde_gpu_glm_n_sums (g->glm, n_cuts));
  g_autoptr (GError) error = NULL;
  if (!tilde_gpu_glm_sums_full (g->glm, alpha, beta, sigma, cuts, n_cuts, sums, &error))
    return device_failed (g, error);
  if (sums[2] != 0)
    return FALSE;
  gboolean drop = g->drop && ev->cx.propto;
  double *d_beta = rt_alloc_d (&ev->cx, (gsize) K);
  double *d_scalars = rt_alloc_d (&ev->cx, 2);
  TildeGpuGlmValue v;
  if (g->site.family == TILDE_GPU_GLM_NEG_BINOMIAL_2_LOG)
    finish_neg_binomial (g, sums, N, K, sigma, drop, a.ad || b.ad, sg.ad, &v, d_beta);
  else
    tilde_gpu_glm_finish (g->site.family, sums, N, K, sigma, !drop, !drop || sg.ad,
                          g->lgamma_sum, &v, d_beta);
  if (!isfinite (v.logp))
    return FALSE;
  d_scalars[0] = v.d_alpha;
  d_scalars[1] = v.d_sigma;
  AdOperand ops[4];
  guint n = 0;
  if (a.ad)
    ops[n++] = rt_operand (&a, &d_scalars[0]);
  if (b.ad)
    ops[n++] = rt_operand (&b, d_beta);
  if (sg.ad)
    ops[n++] = rt_operand (&sg, &d_scalars[1]);
  if (c.ad)
    ops[n++] = rt_operand (&c, sums + tilde_gpu_glm_n_sums (g->glm, 0));
  *out = rt_reduce (&ev->cx, v.logp, n, ops);
  g_atomic_int_inc (&g->runs);
  return TRUE;
}

Flow
rt_st_target_gpu (Ev *ev, const St *s)
{
  RtGpuSite *g = s->gpu;
  if (!rt_term_counts (ev, s))
    return FLOW_NEXT;
  TildeValue v;
  if (g_atomic_int_get (&g->failed) || !run_kernel (ev, g, &v))
    return g->cpu_fn (ev, s);
  rt_add_term (ev, &v);
  return FLOW_NEXT;
}
