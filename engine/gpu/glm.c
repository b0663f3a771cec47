/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "gpu/glm.h"
#include "gpu/gpu-cl.h"

#include <math.h>
#include <string.h>

/* Work-groups per evaluation at most: enough to fill a large GPU, and a
 * final reduction that stays one short pass. */
#define MAX_GROUPS 1024
#define LOG_SQRT_TWO_PI 0.91893853320467274178

struct TildeGpuGlm {
  TildeGpuContext  *ctx;
  TildeGpuGlmFamily family;
  gint32            N, K;
  guint             wg, groups, stride;
  cl_mem            x, y, beta, partial, sums;
  cl_program        program;
  cl_kernel         pass, final;
  gboolean          shares_x;   /* x is another GLM's (retained) */
  GMutex            lock;
};

static const char *const family_names[] = {
  "normal_id_glm", "bernoulli_logit_glm", "poisson_log_glm",
};

/* Per observation: from yi and eta, the term l and its derivative d. The
 * Bernoulli's is the CPU's own formula: one exponential for both. */
static const char *const family_terms[] = {
  "      double r = yi - eta;\n"
  "      l = r * r;\n"
  "      d = r;\n",
  "      double sign = 2 * yi - 1, nt = sign * eta;\n"
  "      double e = exp (-fabs (nt));\n"
  "      l = (nt < 0 ? nt : 0) - log1p (e);\n"
  "      d = sign * (nt > 0 ? e : 1) / (1 + e);\n",
  "      double e = exp (eta);\n"
  "      l = yi * eta - e;\n"
  "      d = yi - e;\n",
};

const char *
tilde_gpu_glm_family_name (TildeGpuGlmFamily family)
{
  return family < TILDE_GPU_GLM_N_FAMILIES ? family_names[family] : "?";
}

char *
tilde_gpu_glm_source (TildeGpuGlmFamily family, gint32 K, guint wg)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s,
    "/* %s, K = %d: log density terms and partials in one pass */\n"
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "#define K %d\n"
    "#define WG %u\n"
    "#define KPT %d  /* columns of x^T d per work-item */\n"
    "#define STRIDE (K + 3)\n"
    "\n"
    "static double group_sum (__local double *red, double v)\n"
    "{\n"
    "  const int lid = get_local_id (0);\n"
    "  red[lid] = v;\n"
    "  barrier (CLK_LOCAL_MEM_FENCE);\n"
    "  for (int h = WG / 2; h > 0; h >>= 1)\n"
    "    {\n"
    "      if (lid < h)\n"
    "        red[lid] += red[lid + h];\n"
    "      barrier (CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "  double total = red[0];\n"
    "  barrier (CLK_LOCAL_MEM_FENCE);\n"
    "  return total;\n"
    "}\n"
    "\n"
    "/* x is column-major (N x K): work-items of a group read consecutive\n"
    " * rows of each column, which coalesces on a GPU. */\n"
    "__kernel __attribute__ ((reqd_work_group_size (WG, 1, 1)))\n"
    "void glm_pass (__global const double *x, __global const double *y,\n"
    "               __global const double *beta, const double alpha, const int n,\n"
    "               __global double *partial)\n"
    "{\n"
    "  __local double d_tile[WG];\n"
    "  __local double red[WG];\n"
    "  __local double beta_l[K > 0 ? K : 1];\n"
    "  const int lid = get_local_id (0), grp = get_group_id (0);\n"
    "  const int n_groups = get_num_groups (0);\n"
    "  for (int k = lid; k < K; k += WG)\n"
    "    beta_l[k] = beta[k];\n"
    "  barrier (CLK_LOCAL_MEM_FENCE);\n"
    "  double acc[KPT];\n"
    "  for (int j = 0; j < KPT; j++)\n"
    "    acc[j] = 0;\n"
    "  double l_sum = 0, d_sum = 0, bad = 0;\n"
    "  for (int base = grp * WG; base < n; base += n_groups * WG)\n"
    "    {\n"
    "      const int i = base + lid;\n"
    "      double d = 0;\n"
    "      if (i < n)\n"
    "        {\n"
    "          double eta = alpha;\n"
    "          for (int k = 0; k < K; k++)\n"
    "            eta += x[(size_t) k * n + i] * beta_l[k];\n"
    "          const double yi = y[i];\n"
    "          double l;\n"
    "%s"
    "          if (!isfinite (eta) || !isfinite (l) || !isfinite (d))\n"
    "            bad += 1;\n"
    "          l_sum += l;\n"
    "          d_sum += d;\n"
    "        }\n"
    "      d_tile[lid] = d;\n"
    "      barrier (CLK_LOCAL_MEM_FENCE);\n"
    "      const int rows = min (WG, n - base);\n"
    "      for (int j = 0; j < KPT; j++)\n"
    "        {\n"
    "          const int k = lid + j * WG;\n"
    "          if (k < K)\n"
    "            {\n"
    "              __global const double *col = x + (size_t) k * n + base;\n"
    "              double t = 0;\n"
    "              for (int r = 0; r < rows; r++)\n"
    "                t += d_tile[r] * col[r];\n"
    "              acc[j] += t;\n"
    "            }\n"
    "        }\n"
    "      barrier (CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "  __global double *out = partial + (size_t) grp * STRIDE;\n"
    "  l_sum = group_sum (red, l_sum);\n"
    "  d_sum = group_sum (red, d_sum);\n"
    "  bad = group_sum (red, bad);\n"
    "  if (lid == 0)\n"
    "    {\n"
    "      out[0] = l_sum;\n"
    "      out[1] = d_sum;\n"
    "      out[2] = bad;\n"
    "    }\n"
    "  for (int j = 0; j < KPT; j++)\n"
    "    {\n"
    "      const int k = lid + j * WG;\n"
    "      if (k < K)\n"
    "        out[3 + k] = acc[j];\n"
    "    }\n"
    "}\n"
    "\n"
    "/* The second stage: group c adds up column c of the groups' slices. */\n"
    "__kernel __attribute__ ((reqd_work_group_size (WG, 1, 1)))\n"
    "void glm_final (__global const double *partial, const int n_groups,\n"
    "                __global double *sums)\n"
    "{\n"
    "  __local double red[WG];\n"
    "  const int lid = get_local_id (0), c = get_group_id (0);\n"
    "  double t = 0;\n"
    "  for (int g = lid; g < n_groups; g += WG)\n"
    "    t += partial[(size_t) g * STRIDE + c];\n"
    "  t = group_sum (red, t);\n"
    "  if (lid == 0)\n"
    "    sums[c] = t;\n"
    "}\n",
    family_names[family], K, K, wg, MAX (1, ((int) K + (int) wg - 1) / (int) wg),
    family_terms[family]);
  return g_string_free (s, FALSE);
}

/* The work-group size: 64, or the device's largest power of two below it. */
static guint
pick_wg (const TildeGpuDevice *d)
{
  size_t max = 0;
  clGetDeviceInfo (d->device_id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max, &max, NULL);
  guint wg = 64;
  while (wg > 1 && max && wg > max)
    wg /= 2;
  return wg;
}

static cl_mem
buffer (TildeGpuGlm *g, cl_mem_flags flags, gsize bytes, const void *host, GError **error)
{
  cl_int rc = CL_SUCCESS;
  const TildeGpuDevice *d = tilde_gpu_context_device (g->ctx);
  if (d->max_alloc && bytes > d->max_alloc)
    {
      g_set_error (error, TILDE_GPU_ERROR, TILDE_GPU_ERROR_MEMORY,
                   "The OpenCL device '%s' cannot hold a buffer of %.1f MiB (its largest is "
                   "%.1f MiB)", d->name, bytes / 1048576.0, d->max_alloc / 1048576.0);
      return NULL;
    }
  cl_mem m = clCreateBuffer (tilde_gpu_context_cl_context (g->ctx),
                             flags | (host ? CL_MEM_COPY_HOST_PTR : 0), MAX (bytes, 8),
                             host ? (void *) host : NULL, &rc);
  if (rc != CL_SUCCESS)
    {
      tilde_gpu_set_cl_error (error, rc, "allocating device memory");
      return NULL;
    }
  return m;
}

static gboolean
make_kernels (TildeGpuGlm *g, GError **error)
{
  g_autofree char *source = tilde_gpu_glm_source (g->family, g->K, g->wg);
  g_autofree char *what = g_strdup_printf ("%s (K = %d)", family_names[g->family], g->K);
  g->program = tilde_gpu_context_build (g->ctx, what, source, NULL, error);
  if (!g->program)
    return FALSE;
  cl_int rc = CL_SUCCESS;
  g->pass = clCreateKernel (g->program, "glm_pass", &rc);
  if (rc == CL_SUCCESS)
    g->final = clCreateKernel (g->program, "glm_final", &rc);
  if (rc != CL_SUCCESS)
    {
      tilde_gpu_set_cl_error (error, rc, "creating the kernels");
      return FALSE;
    }
  return TRUE;
}

/* One launch while the model is prepared: some drivers (PoCL among them)
 * finish compiling a kernel for its work-group size only when it first
 * runs, which would otherwise land on the first gradient. */
static gboolean
warm_up (TildeGpuGlm *g, GError **error)
{
  if (g->N == 0)
    return TRUE;
  double *beta = g_new0 (double, MAX (g->K, 1));
  double *sums = g_new0 (double, g->stride);
  gboolean ok = tilde_gpu_glm_sums (g, 0, beta, sums, error);
  g_free (beta);
  g_free (sums);
  return ok;
}

/* x_host is copied unless `shared` (a GLM over the same matrix) lends its x. */
static TildeGpuGlm *
glm_make (TildeGpuContext *ctx, TildeGpuGlmFamily family, const double *x_host,
          const TildeGpuGlm *shared, const double *y, gint32 N, gint32 K, GError **error)
{
  g_return_val_if_fail (family < TILDE_GPU_GLM_N_FAMILIES && N >= 0 && K >= 0, NULL);
  TildeGpuGlm *g = g_new0 (TildeGpuGlm, 1);
  g->ctx = tilde_gpu_context_ref (ctx);
  g->family = family;
  g->N = N;
  g->K = K;
  g_mutex_init (&g->lock);
  g->wg = pick_wg (tilde_gpu_context_device (ctx));
  g->groups = CLAMP (((guint) N + g->wg - 1) / g->wg, 1, MAX_GROUPS);
  g->stride = (guint) K + 3;
  gsize nk = (gsize) N * (gsize) K;
  if (shared)
    {
      clRetainMemObject (shared->x);
      g->x = shared->x;
      g->shares_x = TRUE;
    }
  if ((!g->x && !(g->x = buffer (g, CL_MEM_READ_ONLY, nk * sizeof (double), nk ? x_host : NULL,
                                 error)))
      || !(g->y = buffer (g, CL_MEM_READ_ONLY, (gsize) N * sizeof (double), N ? y : NULL, error))
      || !(g->beta = buffer (g, CL_MEM_READ_ONLY, (gsize) K * sizeof (double), NULL, error))
      || !(g->partial = buffer (g, CL_MEM_READ_WRITE,
                                (gsize) g->groups * g->stride * sizeof (double), NULL, error))
      || !(g->sums = buffer (g, CL_MEM_WRITE_ONLY, g->stride * sizeof (double), NULL, error))
      || !make_kernels (g, error) || !warm_up (g, error))
    {
      tilde_gpu_glm_free (g);
      return NULL;
    }
  return g;
}

TildeGpuGlm *
tilde_gpu_glm_new (TildeGpuContext *ctx, TildeGpuGlmFamily family, const double *x,
                   const double *y, gint32 N, gint32 K, GError **error)
{
  return glm_make (ctx, family, x, NULL, y, N, K, error);
}

TildeGpuGlm *
tilde_gpu_glm_new_sharing (TildeGpuGlm *same_x, TildeGpuGlmFamily family, const double *y,
                           GError **error)
{
  return glm_make (same_x->ctx, family, NULL, same_x, y, same_x->N, same_x->K, error);
}

void
tilde_gpu_glm_free (TildeGpuGlm *g)
{
  if (!g)
    return;
  if (g->pass)
    clReleaseKernel (g->pass);
  if (g->final)
    clReleaseKernel (g->final);
  if (g->program)
    clReleaseProgram (g->program);
  cl_mem mems[] = { g->x, g->y, g->beta, g->partial, g->sums };
  for (guint i = 0; i < G_N_ELEMENTS (mems); i++)
    if (mems[i])
      clReleaseMemObject (mems[i]);
  g_mutex_clear (&g->lock);
  tilde_gpu_context_unref (g->ctx);
  g_free (g);
}

gint32
tilde_gpu_glm_rows (const TildeGpuGlm *g)
{
  return g->N;
}

gint32
tilde_gpu_glm_cols (const TildeGpuGlm *g)
{
  return g->K;
}

guint64
tilde_gpu_glm_device_bytes (const TildeGpuGlm *g)
{
  return ((g->shares_x ? 0 : (guint64) g->N * (guint64) g->K) + (guint64) g->N) * sizeof (double);
}

static cl_int
enqueue (TildeGpuGlm *g, cl_command_queue q, double alpha, const double *beta, double *sums)
{
  cl_int rc = CL_SUCCESS;
  cl_int n = g->N, n_groups = (cl_int) g->groups;
  if (g->K)
    rc = clEnqueueWriteBuffer (q, g->beta, CL_FALSE, 0, (gsize) g->K * sizeof (double), beta,
                               0, NULL, NULL);
  rc |= clSetKernelArg (g->pass, 0, sizeof (cl_mem), &g->x);
  rc |= clSetKernelArg (g->pass, 1, sizeof (cl_mem), &g->y);
  rc |= clSetKernelArg (g->pass, 2, sizeof (cl_mem), &g->beta);
  rc |= clSetKernelArg (g->pass, 3, sizeof (double), &alpha);
  rc |= clSetKernelArg (g->pass, 4, sizeof (cl_int), &n);
  rc |= clSetKernelArg (g->pass, 5, sizeof (cl_mem), &g->partial);
  rc |= clSetKernelArg (g->final, 0, sizeof (cl_mem), &g->partial);
  rc |= clSetKernelArg (g->final, 1, sizeof (cl_int), &n_groups);
  rc |= clSetKernelArg (g->final, 2, sizeof (cl_mem), &g->sums);
  if (rc != CL_SUCCESS)
    return rc;
  size_t local = g->wg, global = (size_t) g->groups * g->wg;
  rc = clEnqueueNDRangeKernel (q, g->pass, 1, NULL, &global, &local, 0, NULL, NULL);
  if (rc != CL_SUCCESS)
    return rc;
  global = (size_t) g->stride * g->wg;
  rc = clEnqueueNDRangeKernel (q, g->final, 1, NULL, &global, &local, 0, NULL, NULL);
  if (rc != CL_SUCCESS)
    return rc;
  return clEnqueueReadBuffer (q, g->sums, CL_TRUE, 0, g->stride * sizeof (double), sums,
                              0, NULL, NULL);
}

gboolean
tilde_gpu_glm_sums (TildeGpuGlm *g, double alpha, const double *beta, double *sums,
                    GError **error)
{
  if (g->N == 0)
    {
      memset (sums, 0, g->stride * sizeof (double));
      return TRUE;
    }
  /* the kernels' arguments and buffers are the GLM's; the queue the context's */
  g_mutex_lock (&g->lock);
  tilde_gpu_context_lock (g->ctx);
  cl_int rc = enqueue (g, tilde_gpu_context_queue (g->ctx), alpha, beta, sums);
  tilde_gpu_context_unlock (g->ctx);
  g_mutex_unlock (&g->lock);
  if (rc != CL_SUCCESS)
    {
      tilde_gpu_set_cl_error (error, rc, "running a kernel");
      return FALSE;
    }
  return TRUE;
}

void
tilde_gpu_glm_finish (TildeGpuGlmFamily family, const double *sums, gint32 N, gint32 K,
                      double sigma, gboolean keep_const, gboolean keep_sigma,
                      double lgamma_sum, TildeGpuGlmValue *v, double *d_beta)
{
  double scale = 1;
  v->d_sigma = 0;
  switch (family)
    {
    case TILDE_GPU_GLM_NORMAL_ID:
      {
        double inv_s = 1 / sigma, sq = sums[0] * inv_s * inv_s;
        scale = inv_s * inv_s;
        v->logp = -0.5 * sq;
        if (keep_sigma)
          v->logp -= N * log (sigma);
        if (keep_const)
          v->logp -= N * LOG_SQRT_TWO_PI;
        v->d_sigma = -N * inv_s + sq * inv_s;
        break;
      }
    case TILDE_GPU_GLM_BERNOULLI_LOGIT:
      v->logp = sums[0];
      break;
    case TILDE_GPU_GLM_POISSON_LOG:
      v->logp = sums[0] - (keep_const ? lgamma_sum : 0);
      break;
    default:
      g_assert_not_reached ();
    }
  v->d_alpha = sums[1] * scale;
  for (gint32 k = 0; k < K; k++)
    d_beta[k] = sums[3 + k] * scale;
}
