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
  guint             wg, groups, stride;   /* stride: the sums without cut points */
  cl_mem            x, y, beta, partial, sums, cuts;
  gint32            n_cuts;     /* the ordinal's cut points the buffers hold */
  gint32            n_cats;     /* the categorical's categories the buffers hold */
  guint64           local_mem;  /* the device's local memory in bytes */
  cl_program        program;
  cl_kernel         pass, final;
  gboolean          shares_x;   /* x is another GLM's (retained) */
  GMutex            lock;
};

static const char *const family_names[] = {
  "normal_id_glm", "bernoulli_logit_glm", "poisson_log_glm", "neg_binomial_2_log_glm",
  "ordered_logistic_glm", "categorical_logit_glm",
};

/* Per observation: from yi, eta and the family's scalar `aux`, the term l
 * and its derivative d (and the families' extra terms). The formulas are
 * the CPU densities' own (runtime/dist): the Bernoulli's one exponential
 * for both, the negative binomial's log1p_exp and inv_logit with their
 * branches, the ordinal's three cases. */
static const char *const family_terms[] = {
  "          double r = yi - eta;\n"
  "          l = r * r;\n"
  "          d = r;\n",
  "          double sign = 2 * yi - 1, nt = sign * eta;\n"
  "          double e = exp (-fabs (nt));\n"
  "          l = (nt < 0 ? nt : 0) - log1p (e);\n"
  "          d = sign * (nt > 0 ? e : 1) / (1 + e);\n",
  "          double e = exp (eta);\n"
  "          l = yi * eta - e;\n"
  "          d = yi - e;\n",
  "          /* aux is phi; ex[0] the lchoose term, ex[1] n eta, ex[2] the\n"
  "           * row's d/dphi (as the CPU: a digamma difference per row, which\n"
  "           * is 0 for y = 0, rather than one large difference of sums) */\n"
  "          const double lphi = log (aux), t = eta - lphi;\n"
  "          const double L = log1p_exp (t), w = inv_logit (t);\n"
  "          ex[0] = lchoose_nb (yi, aux);\n"
  "          ex[1] = yi * eta;\n"
  "          ex[2] = digamma_pos (yi + aux) - digamma_aux - L + w - yi * (1 - w) / aux;\n"
  "          l = -aux * L - yi * (lphi + L);\n"
  "          d = yi - (yi + aux) * w;\n",
  "          /* y in 1..n_cuts + 1; outside it the host's CPU path raises */\n"
  "          const int c = (int) yi;\n"
  "          if (c < 1 || c > n_cuts + 1 || c != yi)\n"
  "            {\n"
  "              l = NAN;\n"
  "              d = 0;\n"
  "            }\n"
  "          else\n"
  "            {\n"
  "              const double u = c == 1 ? INFINITY : eta - cuts[c - 2];\n"
  "              const double v = c == n_cuts + 1 ? -INFINITY : eta - cuts[c - 1];\n"
  "              ordinal_logistic (u, v, &l, &hi, &lo);\n"
  "              d = hi + lo;\n"
  "            }\n",
};

/* Extra per-row sums (summed like l) and whether the cut points' partials
 * are gathered. */
static const int family_extras[] = { 0, 0, 0, 3, 0, 0 };

/* Device versions of runtime/math/special.c's functions, branch for
 * branch, and a digamma for positive arguments (recurrence up to 10, then
 * the asymptotic series to x^-14: below 1e-16 relative, as GSL's). */
static const char device_functions[] =
  "static double inv_logit (double u)\n"
  "{\n"
  "  if (u < 0)\n"
  "    {\n"
  "      double e = exp (u);\n"
  "      if (u < log (DBL_EPSILON))\n"
  "        return e;\n"
  "      return e / (1 + e);\n"
  "    }\n"
  "  return 1 / (1 + exp (-u));\n"
  "}\n"
  "\n"
  "static double log1p_exp (double a)\n"
  "{\n"
  "  return a > 0 ? a + log1p (exp (-a)) : log1p (exp (a));\n"
  "}\n"
  "\n"
  "static double log_inv_logit (double u)\n"
  "{\n"
  "  return u < 0 ? u - log1p (exp (u)) : -log1p (exp (-u));\n"
  "}\n"
  "\n"
  "static double log1m_inv_logit (double u)\n"
  "{\n"
  "  return u > 0 ? -u - log1p (exp (-u)) : -log1p (exp (u));\n"
  "}\n"
  "\n"
  "static double log1m_exp (double a)\n"
  "{\n"
  "  if (a > 0)\n"
  "    return NAN;\n"
  "  return a > -0.693147 ? log (-expm1 (a)) : log1p (-exp (a));\n"
  "}\n"
  "\n"
  "static double digamma_pos (double x)\n"
  "{\n"
  "  double r = 0;\n"
  "  while (x < 10)\n"
  "    {\n"
  "      r -= 1 / x;\n"
  "      x += 1;\n"
  "    }\n"
  "  const double f = 1 / (x * x);\n"
  "  const double t = f * (-1.0 / 12 + f * (1.0 / 120 + f * (-1.0 / 252 + f * (1.0 / 240\n"
  "                   + f * (-1.0 / 132 + f * (691.0 / 32760 + f * (-1.0 / 12)))))));\n"
  "  return r + log (x) - 0.5 / x + t;\n"
  "}\n"
  "\n"
  "/* lgamma (x) - ((x - 1/2) log x - x + log sqrt (2 pi)) for x >= 10 */\n"
  "static double stirling_rest (double x)\n"
  "{\n"
  "  const double f = 1 / (x * x);\n"
  "  return (1.0 / 12 + f * (-1.0 / 360 + f * (1.0 / 1260 + f * (-1.0 / 1680 + f * (1.0 / 1188\n"
  "          + f * (-691.0 / 360360 + f * (1.0 / 156))))))) / x;\n"
  "}\n"
  "\n"
  "/* lgamma (a + d) - lgamma (a) for a, a + d >= 10, without the\n"
  " * cancellation of the difference */\n"
  "static double lgamma_step (double a, double d)\n"
  "{\n"
  "  return (a - 0.5) * log1p (d / a) + d * log (a + d) - d\n"
  "    + stirling_rest (a + d) - stirling_rest (a);\n"
  "}\n"
  "\n"
  "/* lchoose (n + phi - 1, n) = lgamma (n + phi) - lgamma (phi) - lgamma (n + 1),\n"
  " * the two largest lgammas taken together so that they do not cancel */\n"
  "static double lchoose_nb (double n, double phi)\n"
  "{\n"
  "  if (n == 0)\n"
  "    return 0;\n"
  "  /* step from the larger argument, subtract the smaller's lgamma */\n"
  "  if (phi >= 10 && phi >= n + 1)\n"
  "    return lgamma_step (phi, n) - lgamma (n + 1);\n"
  "  if (n + 1 >= 10 && n + phi >= 10)\n"
  "    return lgamma_step (n + 1, phi - 1) - lgamma (phi);\n"
  "  return lgamma (n + phi) - lgamma (phi) - lgamma (n + 1);\n"
  "}\n"
  "\n"
  "/* log (F (u) - F (v)) of the logistic F for u > v, and its derivatives\n"
  " * in u and v */\n"
  "static void ordinal_logistic (double u, double v, double *l, double *hi, double *lo)\n"
  "{\n"
  "  *hi = 0;\n"
  "  *lo = 0;\n"
  "  if (u == INFINITY)\n"
  "    {\n"
  "      *l = log1m_inv_logit (v);\n"
  "      *lo = -inv_logit (v);\n"
  "      return;\n"
  "    }\n"
  "  if (v == -INFINITY)\n"
  "    {\n"
  "      *l = log_inv_logit (u);\n"
  "      *hi = inv_logit (-u);\n"
  "      return;\n"
  "    }\n"
  "  const double dd = v - u, e = exp (dd);\n"
  "  *l = log_inv_logit (u) + log1m_exp (dd) + log1m_inv_logit (v);\n"
  "  *hi = inv_logit (-u) + e / -expm1 (dd);\n"
  "  *lo = -e / -expm1 (dd) - inv_logit (v);\n"
  "}\n"
  "\n";

const char *
tilde_gpu_glm_family_name (TildeGpuGlmFamily family)
{
  return family < TILDE_GPU_GLM_N_FAMILIES ? family_names[family] : "?";
}

static gboolean
ordinal (TildeGpuGlmFamily family)
{
  return family == TILDE_GPU_GLM_ORDERED_LOGISTIC;
}

static gboolean
categorical (TildeGpuGlmFamily family)
{
  return family == TILDE_GPU_GLM_CATEGORICAL_LOGIT;
}

/* categorical_logit_glm: item i takes row i's C logits (alpha, in `cuts`,
 * plus x[i,] beta with beta K x C column-major), their log_sum_exp as the
 * CPU takes it (the largest, then the sum of exponentials), the term
 * eta[y] - lse and the C derivatives [c = y] - softmax[c], which wait in
 * local memory (WG x C, `g_tile`) while the group adds them into its slice:
 * l, 0, the flag, then d alpha (C) and d beta (K x C, column-major). Item j
 * owns slots j, j + WG, ... of the slice. */
static const char categorical_pass[] =
  "__kernel __attribute__ ((reqd_work_group_size (WG, 1, 1)))\n"
  "void glm_pass (__global const double *x, __global const double *y,\n"
  "               __global const double *beta, const double alpha, const int n,\n"
  "               __global double *partial, const int stride, const double aux,\n"
  "               __global const double *cuts, const int n_cuts,\n"
  "               __local double *g_tile)\n"
  "{\n"
  "  __local double red[WG];\n"
  "  const int lid = get_local_id (0), grp = get_group_id (0);\n"
  "  const int n_groups = get_num_groups (0), C = n_cuts, slots = C * (K + 1);\n"
  "  __global double *out = partial + (size_t) grp * stride;\n"
  "  for (int j = lid; j < slots; j += WG)\n"
  "    out[3 + j] = 0;\n"
  "  double l_sum = 0, bad = 0;\n"
  "  for (int base = grp * WG; base < n; base += n_groups * WG)\n"
  "    {\n"
  "      const int i = base + lid;\n"
  "      int ok = 0;\n"
  "      if (i < n)\n"
  "        {\n"
  "          double m = -INFINITY;\n"
  "          for (int c = 0; c < C; c++)\n"
  "            {\n"
  "              double e = 0;\n"
  "              for (int k = 0; k < K; k++)\n"
  "                e += x[(size_t) k * n + i] * beta[k + c * K];\n"
  "              e += cuts[c];\n"
  "              g_tile[c * WG + lid] = e;\n"
  "              m = fmax (m, e);\n"
  "            }\n"
  "          double s = 0;\n"
  "          for (int c = 0; c < C; c++)\n"
  "            s += exp (g_tile[c * WG + lid] - m);\n"
  "          const double lse = m + log (s), yi = y[i];\n"
  "          const int yc = (int) yi;\n"
  "          ok = isfinite (lse) && yc >= 1 && yc <= C && yc == yi;\n"
  "          if (ok)\n"
  "            {\n"
  "              l_sum += g_tile[(yc - 1) * WG + lid] - lse;\n"
  "              for (int c = 0; c < C; c++)\n"
  "                g_tile[c * WG + lid] = (c == yc - 1) - exp (g_tile[c * WG + lid] - lse);\n"
  "            }\n"
  "          else\n"
  "            bad += 1;\n"
  "        }\n"
  "      if (!ok)\n"
  "        for (int c = 0; c < C; c++)\n"
  "          g_tile[c * WG + lid] = 0;\n"
  "      barrier (CLK_LOCAL_MEM_FENCE);\n"
  "      const int rows = min (WG, n - base);\n"
  "      for (int j = lid; j < slots; j += WG)\n"
  "        {\n"
  "          double t = 0;\n"
  "          if (j < C)\n"
  "            for (int r = 0; r < rows; r++)\n"
  "              t += g_tile[j * WG + r];\n"
  "          else\n"
  "            {\n"
  "              const int k = (j - C) % (K > 0 ? K : 1), c = (j - C) / (K > 0 ? K : 1);\n"
  "              __global const double *col = x + (size_t) k * n + base;\n"
  "              for (int r = 0; r < rows; r++)\n"
  "                t += g_tile[c * WG + r] * col[r];\n"
  "            }\n"
  "          out[3 + j] += t;\n"
  "        }\n"
  "      barrier (CLK_LOCAL_MEM_FENCE);\n"
  "    }\n"
  "  l_sum = group_sum (red, l_sum);\n"
  "  bad = group_sum (red, bad);\n"
  "  if (lid == 0)\n"
  "    {\n"
  "      out[0] = l_sum;\n"
  "      out[1] = 0;\n"
  "      out[2] = bad;\n"
  "    }\n"
  "}\n"
  "\n";

static void append_pass (GString *s, TildeGpuGlmFamily family);

/* The lines that fix K and the work-group size; with K < 0, K is left to
 * the data: a comment says where it comes from and KPT is written in K. */
static void
append_header (GString *s, TildeGpuGlmFamily family, gint32 K, const char *x_name, guint wg)
{
  if (K >= 0)
    g_string_append_printf (s,
      "/* %s, K = %d: log density terms and partials in one pass */\n"
      "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
      "#define K %d\n"
      "#define WG %u\n"
      "#define KPT %d  /* columns of x^T d per work-item */\n",
      family_names[family], K, K, wg, MAX (1, ((int) K + (int) wg - 1) / (int) wg));
  else
    g_string_append_printf (s,
      "/* %s, K = the columns of %s: log density terms and partials in one pass */\n"
      "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
      "/* #define K, the number of columns of %s, is written here once the data are known */\n"
      "#define WG %u\n"
      "#define KPT ((K + WG - 1) / WG > 1 ? (K + WG - 1) / WG : 1)  /* columns of x^T d per "
      "work-item */\n",
      family_names[family], x_name, x_name, wg);
  g_string_append_printf (s,
    "#define NX %d   /* the family's extra sums */\n"
    "#define ORDINAL %d  /* partials of the cut points */\n"
    "\n",
    family_extras[family], ordinal (family));
}

static char *
glm_source (TildeGpuGlmFamily family, gint32 K, const char *x_name, guint wg)
{
  GString *s = g_string_new (NULL);
  append_header (s, family, K, x_name, wg);
  g_string_append (s, device_functions);
  g_string_append (s,
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
    "\n");
  if (categorical (family))
    g_string_append (s, categorical_pass);
  else
    append_pass (s, family);
  g_string_append (s,
    "/* The second stage: group c adds up column c of the groups' slices. */\n"
    "__kernel __attribute__ ((reqd_work_group_size (WG, 1, 1)))\n"
    "void glm_final (__global const double *partial, const int n_groups, const int stride,\n"
    "                __global double *sums)\n"
    "{\n"
    "  __local double red[WG];\n"
    "  const int lid = get_local_id (0), c = get_group_id (0);\n"
    "  double t = 0;\n"
    "  for (int g = lid; g < n_groups; g += WG)\n"
    "    t += partial[(size_t) g * stride + c];\n"
    "  t = group_sum (red, t);\n"
    "  if (lid == 0)\n"
    "    sums[c] = t;\n"
    "}\n");
  return g_string_free (s, FALSE);
}

char *
tilde_gpu_glm_source (TildeGpuGlmFamily family, gint32 K, guint wg)
{
  g_return_val_if_fail (K >= 0, NULL);
  return glm_source (family, K, NULL, wg);
}

char *
tilde_gpu_glm_source_for_data (TildeGpuGlmFamily family, const char *x_name, guint wg)
{
  return glm_source (family, -1, x_name, wg);
}

/* glm_pass of the families with one linear predictor */
static void
append_pass (GString *s, TildeGpuGlmFamily family)
{
  g_string_append (s,
    "/* x is column-major (N x K): work-items of a group read consecutive\n"
    " * rows of each column, which coalesces on a GPU. A group's slice of\n"
    " * `partial` is l, d, the flag, x^T d, the NX extra sums, then the\n"
    " * n_cuts partials of the cut points. */\n"
    "__kernel __attribute__ ((reqd_work_group_size (WG, 1, 1)))\n"
    "void glm_pass (__global const double *x, __global const double *y,\n"
    "               __global const double *beta, const double alpha, const int n,\n"
    "               __global double *partial, const int stride, const double aux,\n"
    "               __global const double *cuts, const int n_cuts)\n"
    "{\n"
    "  __local double d_tile[WG];\n"
    "  __local double red[WG];\n"
    "  __local double beta_l[K > 0 ? K : 1];\n"
    "#if ORDINAL\n"
    "  __local double hi_tile[WG], lo_tile[WG];\n"
    "  __local int y_tile[WG];\n"
    "#endif\n"
    "  const int lid = get_local_id (0), grp = get_group_id (0);\n"
    "  const int n_groups = get_num_groups (0);\n"
    "  __global double *out = partial + (size_t) grp * stride;\n"
    "  for (int k = lid; k < K; k += WG)\n"
    "    beta_l[k] = beta[k];\n"
    "#if ORDINAL\n"
    "  for (int j = lid; j < n_cuts; j += WG)\n"
    "    out[3 + K + NX + j] = 0;\n"
    "#endif\n"
    "  barrier (CLK_LOCAL_MEM_FENCE);\n"
    "  double acc[KPT];\n"
    "  for (int j = 0; j < KPT; j++)\n"
    "    acc[j] = 0;\n"
    "  double l_sum = 0, d_sum = 0, bad = 0;\n"
    "  double ex_sum[NX > 0 ? NX : 1];\n"
    "#if NX\n"
    "  const double digamma_aux = digamma_pos (aux);\n"
    "#endif\n"
    "  for (int j = 0; j < NX; j++)\n"
    "    ex_sum[j] = 0;\n"
    "  for (int base = grp * WG; base < n; base += n_groups * WG)\n"
    "    {\n"
    "      const int i = base + lid;\n"
    "      double d = 0, hi = 0, lo = 0;\n"
    "      int yc = 0;\n"
    "      if (i < n)\n"
    "        {\n"
    "          double eta = alpha;\n"
    "          for (int k = 0; k < K; k++)\n"
    "            eta += x[(size_t) k * n + i] * beta_l[k];\n"
    "          const double yi = y[i];\n"
    "          double l, ex[NX > 0 ? NX : 1];\n");
  g_string_append (s, family_terms[family]);
  g_string_append (s,
    "          int finite = isfinite (eta) && isfinite (l) && isfinite (d);\n"
    "          for (int j = 0; j < NX; j++)\n"
    "            {\n"
    "              finite = finite && isfinite (ex[j]);\n"
    "              ex_sum[j] += ex[j];\n"
    "            }\n"
    "          if (!finite)\n"
    "            bad += 1;\n"
    "          l_sum += l;\n"
    "          d_sum += d;\n"
    "          yc = (int) yi;\n"
    "        }\n"
    "      d_tile[lid] = d;\n"
    "#if ORDINAL\n"
    "      hi_tile[lid] = hi;\n"
    "      lo_tile[lid] = lo;\n"
    "      y_tile[lid] = yc;\n"
    "#endif\n"
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
    "#if ORDINAL\n"
    "      /* cut point j takes -hi of the rows with y = j + 2 and -lo of\n"
    "       * those with y = j + 1; item j owns its slot of the slice */\n"
    "      for (int j = lid; j < n_cuts; j += WG)\n"
    "        {\n"
    "          double t = 0;\n"
    "          for (int r = 0; r < rows; r++)\n"
    "            {\n"
    "              if (y_tile[r] == j + 2)\n"
    "                t -= hi_tile[r];\n"
    "              else if (y_tile[r] == j + 1)\n"
    "                t -= lo_tile[r];\n"
    "            }\n"
    "          out[3 + K + NX + j] += t;\n"
    "        }\n"
    "#endif\n"
    "      barrier (CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "  l_sum = group_sum (red, l_sum);\n"
    "  d_sum = group_sum (red, d_sum);\n"
    "  bad = group_sum (red, bad);\n"
    "  for (int j = 0; j < NX; j++)\n"
    "    ex_sum[j] = group_sum (red, ex_sum[j]);\n"
    "  if (lid == 0)\n"
    "    {\n"
    "      out[0] = l_sum;\n"
    "      out[1] = d_sum;\n"
    "      out[2] = bad;\n"
    "      for (int j = 0; j < NX; j++)\n"
    "        out[3 + K + j] = ex_sum[j];\n"
    "    }\n"
    "  for (int j = 0; j < KPT; j++)\n"
    "    {\n"
    "      const int k = lid + j * WG;\n"
    "      if (k < K)\n"
    "        out[3 + k] = acc[j];\n"
    "    }\n"
    "}\n"
    "\n");
}

/* The work-group size: 64, or the device's largest power of two below it. */
static guint
pick_wg (const TildeGpuDevice *d)
{
  size_t max = 0;
  clGetDeviceInfo (d->device_id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max, &max, NULL);
  guint wg = TILDE_GPU_GLM_WG;
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
  gint32 n_cuts = ordinal (g->family) || categorical (g->family) ? 1 : 0;
  double *sums = g_new0 (double, tilde_gpu_glm_n_sums (g, n_cuts));
  const double cut = 0;
  gboolean ok = tilde_gpu_glm_sums_full (g, 0, beta, 1, &cut, n_cuts, sums, error);
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
  /* the categorical's partials are all per category, added per evaluation */
  g->stride = 3 + (categorical (family) ? 0 : (guint) K + (guint) family_extras[family]);
  clGetDeviceInfo (tilde_gpu_context_device (ctx)->device_id, CL_DEVICE_LOCAL_MEM_SIZE,
                   sizeof g->local_mem, &g->local_mem, NULL);
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
      || !(g->cuts = buffer (g, CL_MEM_READ_ONLY, sizeof (double), NULL, error))
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
  cl_mem mems[] = { g->x, g->y, g->beta, g->partial, g->sums, g->cuts };
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

/* Buffers for the partials and values known only per evaluation: the
 * ordinal's cut points (their size is its number of categories, minus
 * one), the categorical's C categories (alpha, and beta K x C). `n_vals`
 * values go in `cuts`, `n_dyn` partials follow the fixed ones. */
static cl_int
fit_buffers (TildeGpuGlm *g, gint32 n_vals, gint32 n_dyn)
{
  if (n_vals <= g->n_cuts)
    return CL_SUCCESS;
  cl_context c = tilde_gpu_context_cl_context (g->ctx);
  gsize stride = g->stride + (gsize) n_dyn, n_beta = (gsize) MAX (g->K, 1) * (gsize) n_vals;
  cl_mem m[4] = { NULL };
  cl_int rc = CL_SUCCESS;
  m[0] = clCreateBuffer (c, CL_MEM_READ_WRITE, g->groups * stride * sizeof (double), NULL, &rc);
  if (rc == CL_SUCCESS)
    m[1] = clCreateBuffer (c, CL_MEM_WRITE_ONLY, stride * sizeof (double), NULL, &rc);
  if (rc == CL_SUCCESS)
    m[2] = clCreateBuffer (c, CL_MEM_READ_ONLY, (gsize) n_vals * sizeof (double), NULL, &rc);
  if (rc == CL_SUCCESS && categorical (g->family))
    m[3] = clCreateBuffer (c, CL_MEM_READ_ONLY, n_beta * sizeof (double), NULL, &rc);
  if (rc != CL_SUCCESS)
    {
      for (guint i = 0; i < G_N_ELEMENTS (m); i++)
        if (m[i])
          clReleaseMemObject (m[i]);
      return rc;
    }
  clReleaseMemObject (g->partial);
  clReleaseMemObject (g->sums);
  clReleaseMemObject (g->cuts);
  g->partial = m[0];
  g->sums = m[1];
  g->cuts = m[2];
  if (m[3])
    {
      clReleaseMemObject (g->beta);
      g->beta = m[3];
    }
  g->n_cuts = n_vals;
  return CL_SUCCESS;
}

static cl_int
enqueue (TildeGpuGlm *g, cl_command_queue q, double alpha, const double *beta, double aux,
         const double *cuts, gint32 n_cuts, double *sums)
{
  gboolean cat = categorical (g->family);
  gint32 n_dyn = cat ? n_cuts * (g->K + 1) : n_cuts;
  gsize n_beta = (gsize) g->K * (gsize) (cat ? n_cuts : 1);
  cl_int rc = fit_buffers (g, n_cuts, n_dyn);
  cl_int n = g->N, n_groups = (cl_int) g->groups, nc = n_cuts;
  cl_int stride = (cl_int) g->stride + n_dyn;
  if (rc != CL_SUCCESS)
    return rc;
  if (n_beta)
    rc = clEnqueueWriteBuffer (q, g->beta, CL_FALSE, 0, n_beta * sizeof (double), beta,
                               0, NULL, NULL);
  if (n_cuts)
    rc |= clEnqueueWriteBuffer (q, g->cuts, CL_FALSE, 0, (gsize) n_cuts * sizeof (double), cuts,
                                0, NULL, NULL);
  rc |= clSetKernelArg (g->pass, 0, sizeof (cl_mem), &g->x);
  rc |= clSetKernelArg (g->pass, 1, sizeof (cl_mem), &g->y);
  rc |= clSetKernelArg (g->pass, 2, sizeof (cl_mem), &g->beta);
  rc |= clSetKernelArg (g->pass, 3, sizeof (double), &alpha);
  rc |= clSetKernelArg (g->pass, 4, sizeof (cl_int), &n);
  rc |= clSetKernelArg (g->pass, 5, sizeof (cl_mem), &g->partial);
  rc |= clSetKernelArg (g->pass, 6, sizeof (cl_int), &stride);
  rc |= clSetKernelArg (g->pass, 7, sizeof (double), &aux);
  rc |= clSetKernelArg (g->pass, 8, sizeof (cl_mem), &g->cuts);
  rc |= clSetKernelArg (g->pass, 9, sizeof (cl_int), &nc);
  if (cat)
    rc |= clSetKernelArg (g->pass, 10, (gsize) g->wg * (gsize) n_cuts * sizeof (double), NULL);
  rc |= clSetKernelArg (g->final, 0, sizeof (cl_mem), &g->partial);
  rc |= clSetKernelArg (g->final, 1, sizeof (cl_int), &n_groups);
  rc |= clSetKernelArg (g->final, 2, sizeof (cl_int), &stride);
  rc |= clSetKernelArg (g->final, 3, sizeof (cl_mem), &g->sums);
  if (rc != CL_SUCCESS)
    return rc;
  size_t local = g->wg, global = (size_t) g->groups * g->wg;
  rc = clEnqueueNDRangeKernel (q, g->pass, 1, NULL, &global, &local, 0, NULL, NULL);
  if (rc != CL_SUCCESS)
    return rc;
  global = (size_t) stride * g->wg;
  rc = clEnqueueNDRangeKernel (q, g->final, 1, NULL, &global, &local, 0, NULL, NULL);
  if (rc != CL_SUCCESS)
    return rc;
  rc = clEnqueueReadBuffer (q, g->sums, CL_TRUE, 0, (gsize) stride * sizeof (double), sums,
                            0, NULL, NULL);
  if (rc == CL_SUCCESS)
    tilde_gpu_context_count_copies (g->ctx, (n_beta + (gsize) n_cuts) * sizeof (double),
                                    (gsize) stride * sizeof (double));
  return rc;
}

gint32
tilde_gpu_glm_n_sums (const TildeGpuGlm *g, gint32 n_cuts)
{
  return (gint32) g->stride + (categorical (g->family) ? n_cuts * (g->K + 1) : n_cuts);
}

gint32
tilde_gpu_glm_max_categories (const TildeGpuGlm *g)
{
  /* g_tile, next to the group's reduction buffer */
  guint64 bytes = (guint64) g->wg * sizeof (double);
  return g->local_mem > bytes ? (gint32) MIN ((g->local_mem - bytes) / bytes, G_MAXINT16) : 0;
}

gboolean
tilde_gpu_glm_sums (TildeGpuGlm *g, double alpha, const double *beta, double *sums,
                    GError **error)
{
  return tilde_gpu_glm_sums_full (g, alpha, beta, 0, NULL, 0, sums, error);
}

gboolean
tilde_gpu_glm_sums_full (TildeGpuGlm *g, double alpha, const double *beta, double aux,
                         const double *cuts, gint32 n_cuts, double *sums, GError **error)
{
  g_return_val_if_fail (n_cuts == 0 || ordinal (g->family) || categorical (g->family), FALSE);
  if (g->N == 0)
    {
      memset (sums, 0, (gsize) tilde_gpu_glm_n_sums (g, n_cuts) * sizeof (double));
      return TRUE;
    }
  /* the kernels' arguments and buffers are the GLM's; the queue the context's */
  g_mutex_lock (&g->lock);
  tilde_gpu_context_lock (g->ctx);
  cl_int rc = tilde_gpu_context_run_allowed (g->ctx);
  if (rc == CL_SUCCESS)
    rc = enqueue (g, tilde_gpu_context_queue (g->ctx), alpha, beta, aux, cuts, n_cuts, sums);
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
    case TILDE_GPU_GLM_ORDERED_LOGISTIC:
      v->logp = sums[0];
      break;
    default:
      g_assert_not_reached ();
    }
  v->d_alpha = sums[1] * scale;
  for (gint32 k = 0; k < K; k++)
    d_beta[k] = sums[3 + k] * scale;
}

void
tilde_gpu_glm_finish_neg_binomial (const double *sums, gint32 K, gboolean keep_phi,
                                   gboolean keep_eta, gboolean keep_both,
                                   double constant, TildeGpuGlmValue *v, double *d_beta)
{
  const double *ex = sums + 3 + K;
  v->logp = (keep_phi ? ex[0] : 0) + (keep_eta ? ex[1] : 0) + (keep_both ? sums[0] : 0)
    + constant;
  v->d_alpha = sums[1];
  v->d_sigma = ex[2];
  for (gint32 k = 0; k < K; k++)
    d_beta[k] = sums[3 + k];
}
