/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "gpu/elementwise.h"
#include "gpu/gpu-cl.h"

#include <math.h>
#include <string.h>

/* As glm.c: enough groups to fill a large GPU, a final pass that stays short. */
#define MAX_GROUPS 1024
#define LOG_SQRT_TWO_PI 0.91893853320467274178

struct TildeGpuEw {
  TildeGpuContext  *ctx;
  TildeGpuEwProgram prog;
  gint32            N;
  guint             wg, groups, stride;
  cl_mem            vec[TILDE_GPU_EW_MAX_VECTORS];
  const double     *host[TILDE_GPU_EW_MAX_VECTORS];    /* the storage each was copied from */
  gboolean          shared[TILDE_GPU_EW_MAX_VECTORS];  /* another's (retained) */
  cl_mem            sc, partial, sums;
  cl_program        program;
  cl_kernel         pass, final;
  GMutex            lock;
};

static gboolean
is_lse (const TildeGpuEwProgram *p)
{
  return p->reduction == TILDE_GPU_EW_LOG_SUM_EXP;
}

/* Where the partials start in a slice (and in the sums). */
static guint
first_partial (const TildeGpuEwProgram *p)
{
  return is_lse (p) ? 3 : 2;
}

guint
tilde_gpu_ew_n_sums (const TildeGpuEwProgram *p)
{
  return first_partial (p) + p->n_tangents;
}

/* ---- the source ---- */

static guint
n_operands (TildeGpuEwOp op)
{
  switch (op)
    {
    case TILDE_GPU_EW_VECTOR:
    case TILDE_GPU_EW_SCALAR:
    case TILDE_GPU_EW_CONST:
      return 0;
    case TILDE_GPU_EW_ADD:
    case TILDE_GPU_EW_SUB:
    case TILDE_GPU_EW_MUL:
    case TILDE_GPU_EW_DIV:
    case TILDE_GPU_EW_POW:
      return 2;
    case TILDE_GPU_EW_FMA:
      return 3;
    default:
      return 1;
    }
}

/* The value of a unary instruction from its operand a (and v, its value
 * once computed) and the derivative, as runtime/math/functions.c has
 * them. */
static void
unary_code (TildeGpuEwOp op, const char **value, const char **deriv)
{
  static const struct {
    TildeGpuEwOp op;
    const char  *value, *deriv;
  } table[] = {
    { TILDE_GPU_EW_NEG, "-a", "-1" },
    { TILDE_GPU_EW_EXP, "exp (a)", "v" },
    { TILDE_GPU_EW_LOG, "log (a)", "1 / a" },
    { TILDE_GPU_EW_LOG1P, "log1p (a)", "1 / (1 + a)" },
    { TILDE_GPU_EW_EXPM1, "expm1 (a)", "v + 1" },
    { TILDE_GPU_EW_SQUARE, "a * a", "2 * a" },
    { TILDE_GPU_EW_SQRT, "sqrt (a)", "0.5 / v" },
    { TILDE_GPU_EW_INV, "1 / a", "-1 / (a * a)" },
    { TILDE_GPU_EW_INV_LOGIT, "inv_logit (a)", "v * (1 - v)" },
    { TILDE_GPU_EW_LOG1P_EXP, "log1p_exp (a)", "inv_logit (a)" },
    { TILDE_GPU_EW_LOG_INV_LOGIT, "log_inv_logit (a)", "1 - inv_logit (a)" },
    { TILDE_GPU_EW_FABS, "fabs (a)", "a > 0 ? 1 : a < 0 ? -1 : 0" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (table); i++)
    if (table[i].op == op)
      {
        *value = table[i].value;
        *deriv = table[i].deriv;
        return;
      }
  g_assert_not_reached ();
}

/* Writes `text` with a, b, c, v standing for the values of operands and
 * of the instruction itself (single letters not part of a longer name). */
static void
append_subst (GString *s, const char *text, const TildeGpuEwIns *in, guint k)
{
  for (const char *c = text; *c; c++)
    {
      gboolean alone = (c == text || (!g_ascii_isalnum (c[-1]) && c[-1] != '_'))
        && !g_ascii_isalnum (c[1]) && c[1] != '_';
      if (alone && (*c == 'a' || *c == 'b' || *c == 'c' || *c == 'v'))
        g_string_append_printf (s, "v%u", *c == 'a' ? in->a : *c == 'b' ? in->b
                                          : *c == 'c' ? in->c : k);
      else
        g_string_append_c (s, *c);
    }
}

static void
append_const (GString *s, double k)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (buf, sizeof buf, "%.17g", k);
  g_string_append_printf (s, "(%s)", buf);
}

/* The instruction's value and its tangents along the scalars it depends
 * on (dep[k], a bit per tangent): tK_p = its derivative along p. */
static void
append_instruction (GString *s, const TildeGpuEwProgram *p, guint k, const guint32 *dep)
{
  const TildeGpuEwIns *in = &p->ins[k];
  static const char *const binary_value[] = {
    [TILDE_GPU_EW_ADD] = "a + b", [TILDE_GPU_EW_SUB] = "a - b", [TILDE_GPU_EW_MUL] = "a * b",
    [TILDE_GPU_EW_DIV] = "a / b", [TILDE_GPU_EW_POW] = "pow (a, b)",
  };
  /* the partials in a and b, as runtime/math/arith.c's */
  static const char *const binary_deriv[][2] = {
    [TILDE_GPU_EW_ADD] = { "1", "1" }, [TILDE_GPU_EW_SUB] = { "1", "-1" },
    [TILDE_GPU_EW_MUL] = { "b", "a" }, [TILDE_GPU_EW_DIV] = { "1 / b", "-a / (b * b)" },
    [TILDE_GPU_EW_POW] = { "b == 0 ? 0 : b * pow (a, b - 1)", "a == 0 ? 0 : v * log (a)" },
  };
  const char *derivs[3] = { NULL };
  guint n = n_operands (in->op);
  g_string_append_printf (s, "      const double v%u = ", k);
  switch (in->op)
    {
    case TILDE_GPU_EW_VECTOR:
      g_string_append_printf (s, "d%u[i];\n", in->leaf);
      break;
    case TILDE_GPU_EW_SCALAR:
      g_string_append_printf (s, "s%u;\n", in->leaf);
      break;
    case TILDE_GPU_EW_CONST:
      append_const (s, in->k);
      g_string_append (s, ";\n");
      break;
    case TILDE_GPU_EW_FMA:
      append_subst (s, "fma (a, b, c);\n", in, k);
      derivs[0] = "b";
      derivs[1] = "a";
      derivs[2] = "1";
      break;
    case TILDE_GPU_EW_ADD:
    case TILDE_GPU_EW_SUB:
    case TILDE_GPU_EW_MUL:
    case TILDE_GPU_EW_DIV:
    case TILDE_GPU_EW_POW:
      append_subst (s, binary_value[in->op], in, k);
      g_string_append (s, ";\n");
      derivs[0] = binary_deriv[in->op][0];
      derivs[1] = binary_deriv[in->op][1];
      break;
    default:
      {
        const char *value = NULL;
        unary_code (in->op, &value, &derivs[0]);
        append_subst (s, value, in, k);
        g_string_append (s, ";\n");
      }
    }
  if (in->op == TILDE_GPU_EW_SCALAR && p->tangent[in->leaf] >= 0)
    {
      g_string_append_printf (s, "      const double t%u_%d = 1;\n", k, p->tangent[in->leaf]);
      return;
    }
  if (!dep[k])
    return;
  const guint8 ops[3] = { in->a, in->b, in->c };
  for (guint j = 0; j < n; j++)
    if (dep[ops[j]])
      {
        g_string_append_printf (s, "      const double d%u_%u = ", k, j);
        append_subst (s, derivs[j], in, k);
        g_string_append (s, ";\n");
      }
  for (guint t = 0; t < p->n_tangents; t++)
    {
      if (!(dep[k] & (1u << t)))
        continue;
      g_string_append_printf (s, "      const double t%u_%u =", k, t);
      gboolean first = TRUE;
      for (guint j = 0; j < n; j++)
        if (dep[ops[j]] & (1u << t))
          {
            g_string_append_printf (s, "%s d%u_%u * t%u_%u", first ? "" : " +", k, j, ops[j], t);
            first = FALSE;
          }
      g_string_append (s, ";\n");
    }
}

/* The scalars each instruction depends on. */
static void
dependencies (const TildeGpuEwProgram *p, guint32 *dep)
{
  for (guint k = 0; k < p->n_ins; k++)
    {
      const TildeGpuEwIns *in = &p->ins[k];
      guint n = n_operands (in->op);
      dep[k] = 0;
      if (in->op == TILDE_GPU_EW_SCALAR && p->tangent[in->leaf] >= 0)
        dep[k] = 1u << p->tangent[in->leaf];
      if (n > 0)
        dep[k] |= dep[in->a];
      if (n > 1)
        dep[k] |= dep[in->b];
      if (n > 2)
        dep[k] |= dep[in->c];
    }
}

static gboolean
uses (const TildeGpuEwProgram *p, TildeGpuEwOp op)
{
  for (guint k = 0; k < p->n_ins; k++)
    if (p->ins[k].op == op)
      return TRUE;
  return FALSE;
}

static const char *const reduction_names[] = {
  "sum", "dot_self", "log_sum_exp", "normal",
};

static void
append_header (GString *s, const TildeGpuEwProgram *p, guint wg)
{
  g_string_append_printf (s,
    "/* %s of an elementwise expression: %u vectors, %u scalars (%u autodiff);\n"
    " * per item the term and its partials in one pass */\n"
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "#define WG %u\n"
    "#define P %u     /* partials: the autodiff scalars */\n"
    "#define PP (P > 0 ? P : 1)\n"
    "#define FIRST %u /* where the partials start in a slice */\n"
    "#define STRIDE (FIRST + P)\n"
    "\n",
    reduction_names[p->reduction], p->n_vectors, p->n_scalars, p->n_tangents, wg,
    p->n_tangents, first_partial (p));
  /* runtime/math/special.c's, branch for branch */
  if (uses (p, TILDE_GPU_EW_INV_LOGIT) || uses (p, TILDE_GPU_EW_LOG1P_EXP)
      || uses (p, TILDE_GPU_EW_LOG_INV_LOGIT))
    g_string_append (s,
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
      "\n");
  if (uses (p, TILDE_GPU_EW_LOG1P_EXP))
    g_string_append (s,
      "static double log1p_exp (double a)\n"
      "{\n"
      "  return a > 0 ? a + log1p (exp (-a)) : log1p (exp (a));\n"
      "}\n"
      "\n");
  if (uses (p, TILDE_GPU_EW_LOG_INV_LOGIT))
    g_string_append (s,
      "static double log_inv_logit (double u)\n"
      "{\n"
      "  return u < 0 ? u - log1p (exp (u)) : -log1p (exp (-u));\n"
      "}\n"
      "\n");
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
  if (is_lse (p))
    g_string_append (s,
      "/* log_sum_exp as (m, s, g): the largest term, the sum of exp (l - m)\n"
      " * and of exp (l - m) dl; two such combine by rescaling to the larger m. */\n"
      "static void lse_add (double *m, double *s, double *g, double mk, double sk,\n"
      "                     const double *gk)\n"
      "{\n"
      "  if (mk == -INFINITY)\n"
      "    return;\n"
      "  if (mk > *m)\n"
      "    {\n"
      "      const double r = exp (*m - mk);\n"
      "      *s = *s * r + sk;\n"
      "      for (int p = 0; p < P; p++)\n"
      "        g[p] = g[p] * r + gk[p];\n"
      "      *m = mk;\n"
      "    }\n"
      "  else\n"
      "    {\n"
      "      const double e = exp (mk - *m);\n"
      "      *s += sk * e;\n"
      "      for (int p = 0; p < P; p++)\n"
      "        g[p] += gk[p] * e;\n"
      "    }\n"
      "}\n"
      "\n"
      "/* The group's (m, s, g) and flag into out: a tree in local memory. */\n"
      "static void lse_group (double m, double s, const double *g, double bad,\n"
      "                       __local double *red, __local double *red_m,\n"
      "                       __local double *red_s, __local double *red_g,\n"
      "                       __global double *out)\n"
      "{\n"
      "  const int lid = get_local_id (0);\n"
      "  bad = group_sum (red, bad);\n"
      "  red_m[lid] = m;\n"
      "  red_s[lid] = s;\n"
      "  for (int p = 0; p < P; p++)\n"
      "    red_g[p * WG + lid] = g[p];\n"
      "  barrier (CLK_LOCAL_MEM_FENCE);\n"
      "  for (int h = WG / 2; h > 0; h >>= 1)\n"
      "    {\n"
      "      if (lid < h)\n"
      "        {\n"
      "          double mm = red_m[lid], ss = red_s[lid], gg[PP], go[PP];\n"
      "          for (int p = 0; p < P; p++)\n"
      "            {\n"
      "              gg[p] = red_g[p * WG + lid];\n"
      "              go[p] = red_g[p * WG + lid + h];\n"
      "            }\n"
      "          lse_add (&mm, &ss, gg, red_m[lid + h], red_s[lid + h], go);\n"
      "          red_m[lid] = mm;\n"
      "          red_s[lid] = ss;\n"
      "          for (int p = 0; p < P; p++)\n"
      "            red_g[p * WG + lid] = gg[p];\n"
      "        }\n"
      "      barrier (CLK_LOCAL_MEM_FENCE);\n"
      "    }\n"
      "  if (lid == 0)\n"
      "    {\n"
      "      out[0] = red_m[0];\n"
      "      out[1] = bad;\n"
      "      out[2] = red_s[0];\n"
      "      for (int p = 0; p < P; p++)\n"
      "        out[3 + p] = red_g[p * WG];\n"
      "    }\n"
      "}\n"
      "\n");
}

/* The item's term l and its partials dl<p> from E (the last instruction). */
static void
append_term (GString *s, const TildeGpuEwProgram *p, const guint32 *dep)
{
  guint r = p->n_ins - 1;
  switch (p->reduction)
    {
    case TILDE_GPU_EW_SUM:
    case TILDE_GPU_EW_LOG_SUM_EXP:
      g_string_append_printf (s, "      const double l = v%u;\n", r);
      break;
    case TILDE_GPU_EW_DOT_SELF:
      g_string_append_printf (s, "      const double l = v%u * v%u;\n", r, r);
      break;
    case TILDE_GPU_EW_NORMAL:
      g_string_append_printf (s, "      const double res = d%d[i] - v%u, l = res * res;\n",
                              p->y, r);
      break;
    }
  for (guint t = 0; t < p->n_tangents; t++)
    {
      g_string_append_printf (s, "      const double dl%u = ", t);
      if (!(dep[r] & (1u << t)))
        g_string_append (s, "0;\n");
      else if (p->reduction == TILDE_GPU_EW_DOT_SELF)
        g_string_append_printf (s, "2 * v%u * t%u_%u;\n", r, r, t);
      else if (p->reduction == TILDE_GPU_EW_NORMAL)
        g_string_append_printf (s, "res * t%u_%u;\n", r, t);
      else
        g_string_append_printf (s, "t%u_%u;\n", r, t);
    }
  g_string_append (s, "      const int ok = isfinite (l)");
  for (guint t = 0; t < p->n_tangents; t++)
    g_string_append_printf (s, " && isfinite (dl%u)", t);
  g_string_append (s, ";\n");
}

static void
append_pass (GString *s, const TildeGpuEwProgram *p)
{
  guint32 dep[TILDE_GPU_EW_MAX_INS];
  dependencies (p, dep);
  g_string_append (s,
    "/* Item i runs the program at row i of the vectors (consecutive items\n"
    " * read consecutive rows, which coalesces); a group's slice of `partial`\n"
    " * is its sum of the terms, the flag and the partials. */\n"
    "__kernel __attribute__ ((reqd_work_group_size (WG, 1, 1)))\n"
    "void ew_pass (");
  for (guint v = 0; v < p->n_vectors; v++)
    g_string_append_printf (s, "__global const double *d%u, ", v);
  g_string_append (s,
    "__global const double *sc,\n"
    "              const int n, __global double *partial)\n"
    "{\n"
    "  __local double red[WG];\n");
  if (is_lse (p))
    g_string_append (s, "  __local double red_m[WG], red_s[WG], red_g[PP * WG];\n");
  g_string_append (s,
    "  const int lid = get_local_id (0), grp = get_group_id (0);\n"
    "  const int step = get_num_groups (0) * WG;\n");
  for (guint j = 0; j < p->n_scalars; j++)
    g_string_append_printf (s, "  const double s%u = sc[%u];\n", j, j);
  g_string_append (s,
    "  double l_sum = 0, bad = 0, g[PP];\n"
    "  for (int q = 0; q < PP; q++)\n"
    "    g[q] = 0;\n");
  if (is_lse (p))
    g_string_append (s, "  double m = -INFINITY;\n");
  g_string_append (s,
    "  for (int i = grp * WG + lid; i < n; i += step)\n"
    "    {\n");
  for (guint k = 0; k < p->n_ins; k++)
    append_instruction (s, p, k, dep);
  append_term (s, p, dep);
  g_string_append (s,
    "      if (!ok)\n"
    "        {\n"
    "          bad += 1;\n"
    "          continue;\n"
    "        }\n");
  if (is_lse (p))
    {
      g_string_append (s, "      double dl[PP];\n");
      for (guint t = 0; t < p->n_tangents; t++)
        g_string_append_printf (s, "      dl[%u] = dl%u;\n", t, t);
      g_string_append (s, "      lse_add (&m, &l_sum, g, l, 1, dl);\n");
    }
  else
    {
      g_string_append (s, "      l_sum += l;\n");
      for (guint t = 0; t < p->n_tangents; t++)
        g_string_append_printf (s, "      g[%u] += dl%u;\n", t, t);
    }
  g_string_append (s,
    "    }\n"
    "  __global double *out = partial + (size_t) grp * STRIDE;\n");
  if (is_lse (p))
    g_string_append (s, "  lse_group (m, l_sum, g, bad, red, red_m, red_s, red_g, out);\n");
  else
    g_string_append (s,
      "  l_sum = group_sum (red, l_sum);\n"
      "  bad = group_sum (red, bad);\n"
      "  for (int q = 0; q < P; q++)\n"
      "    g[q] = group_sum (red, g[q]);\n"
      "  if (lid == 0)\n"
      "    {\n"
      "      out[0] = l_sum;\n"
      "      out[1] = bad;\n"
      "      for (int q = 0; q < P; q++)\n"
      "        out[FIRST + q] = g[q];\n"
      "    }\n");
  g_string_append (s, "}\n\n");
}

static void
append_final (GString *s, const TildeGpuEwProgram *p)
{
  if (!is_lse (p))
    {
      g_string_append (s,
        "/* The second stage: group c adds up column c of the groups' slices. */\n"
        "__kernel __attribute__ ((reqd_work_group_size (WG, 1, 1)))\n"
        "void ew_final (__global const double *partial, const int n_groups,\n"
        "               __global double *sums)\n"
        "{\n"
        "  __local double red[WG];\n"
        "  const int lid = get_local_id (0), c = get_group_id (0);\n"
        "  double t = 0;\n"
        "  for (int k = lid; k < n_groups; k += WG)\n"
        "    t += partial[(size_t) k * STRIDE + c];\n"
        "  t = group_sum (red, t);\n"
        "  if (lid == 0)\n"
        "    sums[c] = t;\n"
        "}\n");
      return;
    }
  g_string_append (s,
    "/* The second stage, one group: the slices' (m, s, g) combined. */\n"
    "__kernel __attribute__ ((reqd_work_group_size (WG, 1, 1)))\n"
    "void ew_final (__global const double *partial, const int n_groups,\n"
    "               __global double *sums)\n"
    "{\n"
    "  __local double red[WG], red_m[WG], red_s[WG], red_g[PP * WG];\n"
    "  const int lid = get_local_id (0);\n"
    "  double m = -INFINITY, s = 0, bad = 0, g[PP], gk[PP];\n"
    "  for (int q = 0; q < PP; q++)\n"
    "    g[q] = 0;\n"
    "  for (int k = lid; k < n_groups; k += WG)\n"
    "    {\n"
    "      __global const double *slice = partial + (size_t) k * STRIDE;\n"
    "      bad += slice[1];\n"
    "      for (int q = 0; q < P; q++)\n"
    "        gk[q] = slice[FIRST + q];\n"
    "      lse_add (&m, &s, g, slice[0], slice[2], gk);\n"
    "    }\n"
    "  lse_group (m, s, g, bad, red, red_m, red_s, red_g, sums);\n"
    "}\n");
}

char *
tilde_gpu_ew_source (const TildeGpuEwProgram *p, guint wg)
{
  g_return_val_if_fail (p->n_ins > 0 && p->n_tangents <= 32, NULL);
  GString *s = g_string_new (NULL);
  append_header (s, p, wg);
  append_pass (s, p);
  append_final (s, p);
  return g_string_free (s, FALSE);
}

/* ---- the device ---- */

static guint
pick_wg (const TildeGpuDevice *d)
{
  size_t max = 0;
  clGetDeviceInfo (d->device_id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max, &max, NULL);
  guint wg = TILDE_GPU_EW_WG;
  while (wg > 1 && max && wg > max)
    wg /= 2;
  return wg;
}

static cl_mem
buffer (TildeGpuEw *ew, cl_mem_flags flags, gsize bytes, const void *host, GError **error)
{
  const TildeGpuDevice *d = tilde_gpu_context_device (ew->ctx);
  if (d->max_alloc && bytes > d->max_alloc)
    {
      g_set_error (error, TILDE_GPU_ERROR, TILDE_GPU_ERROR_MEMORY,
                   "The OpenCL device '%s' cannot hold a buffer of %.1f MiB (its largest is "
                   "%.1f MiB)", d->name, bytes / 1048576.0, d->max_alloc / 1048576.0);
      return NULL;
    }
  cl_int rc = CL_SUCCESS;
  cl_mem m = clCreateBuffer (tilde_gpu_context_cl_context (ew->ctx),
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
make_kernels (TildeGpuEw *ew, const char *what, GError **error)
{
  g_autofree char *source = tilde_gpu_ew_source (&ew->prog, ew->wg);
  ew->program = tilde_gpu_context_build (ew->ctx, what, source, NULL, error);
  if (!ew->program)
    return FALSE;
  cl_int rc = CL_SUCCESS;
  ew->pass = clCreateKernel (ew->program, "ew_pass", &rc);
  if (rc == CL_SUCCESS)
    ew->final = clCreateKernel (ew->program, "ew_final", &rc);
  if (rc != CL_SUCCESS)
    {
      tilde_gpu_set_cl_error (error, rc, "creating the kernels");
      return FALSE;
    }
  return TRUE;
}

/* One launch while the model is prepared (PoCL finishes compiling a kernel
 * at its first launch), as glm.c does. */
static gboolean
warm_up (TildeGpuEw *ew, GError **error)
{
  if (ew->N == 0)
    return TRUE;
  double scalars[TILDE_GPU_EW_MAX_SCALARS] = { 0 };
  double sums[3 + 32];
  return tilde_gpu_ew_sums (ew, scalars, sums, error);
}

/* The device copy of `host` another kernel on the same context holds. */
static cl_mem
copy_of (TildeGpuContext *ctx, const double *host, gint32 N, TildeGpuEw *const *others,
         guint n_others)
{
  for (guint i = 0; i < n_others; i++)
    for (guint v = 0; others[i]->ctx == ctx && others[i]->N == N
                      && v < others[i]->prog.n_vectors; v++)
      if (others[i]->host[v] == host)
        return others[i]->vec[v];
  return NULL;
}

TildeGpuEw *
tilde_gpu_ew_new (TildeGpuContext *ctx, const TildeGpuEwProgram *prog, const char *what,
                  const double *const *vectors, gint32 N, TildeGpuEw *const *others,
                  guint n_others, GError **error)
{
  g_return_val_if_fail (N >= 0 && prog->n_vectors <= TILDE_GPU_EW_MAX_VECTORS
                        && prog->n_scalars <= TILDE_GPU_EW_MAX_SCALARS, NULL);
  TildeGpuEw *ew = g_new0 (TildeGpuEw, 1);
  ew->ctx = tilde_gpu_context_ref (ctx);
  ew->prog = *prog;
  ew->N = N;
  g_mutex_init (&ew->lock);
  ew->wg = pick_wg (tilde_gpu_context_device (ctx));
  ew->groups = CLAMP (((guint) N + ew->wg - 1) / ew->wg, 1, MAX_GROUPS);
  ew->stride = tilde_gpu_ew_n_sums (prog);
  gsize bytes = (gsize) N * sizeof (double);
  gboolean ok = TRUE;
  for (guint v = 0; v < prog->n_vectors && ok; v++)
    {
      ew->host[v] = vectors[v];
      if (N > 0 && (ew->vec[v] = copy_of (ctx, vectors[v], N, others, n_others)))
        {
          clRetainMemObject (ew->vec[v]);
          ew->shared[v] = TRUE;
          continue;
        }
      ok = (ew->vec[v] = buffer (ew, CL_MEM_READ_ONLY, bytes, N ? vectors[v] : NULL, error))
        != NULL;
    }
  if (!ok
      || !(ew->sc = buffer (ew, CL_MEM_READ_ONLY,
                            MAX (prog->n_scalars, 1) * sizeof (double), NULL, error))
      || !(ew->partial = buffer (ew, CL_MEM_READ_WRITE,
                                 (gsize) ew->groups * ew->stride * sizeof (double), NULL, error))
      || !(ew->sums = buffer (ew, CL_MEM_WRITE_ONLY, ew->stride * sizeof (double), NULL, error))
      || !make_kernels (ew, what, error) || !warm_up (ew, error))
    {
      tilde_gpu_ew_free (ew);
      return NULL;
    }
  return ew;
}

void
tilde_gpu_ew_free (TildeGpuEw *ew)
{
  if (!ew)
    return;
  if (ew->pass)
    clReleaseKernel (ew->pass);
  if (ew->final)
    clReleaseKernel (ew->final);
  if (ew->program)
    clReleaseProgram (ew->program);
  for (guint v = 0; v < TILDE_GPU_EW_MAX_VECTORS; v++)
    if (ew->vec[v])
      clReleaseMemObject (ew->vec[v]);
  cl_mem mems[] = { ew->sc, ew->partial, ew->sums };
  for (guint i = 0; i < G_N_ELEMENTS (mems); i++)
    if (mems[i])
      clReleaseMemObject (mems[i]);
  g_mutex_clear (&ew->lock);
  tilde_gpu_context_unref (ew->ctx);
  g_free (ew);
}

gint32
tilde_gpu_ew_rows (const TildeGpuEw *ew)
{
  return ew->N;
}

guint64
tilde_gpu_ew_device_bytes (const TildeGpuEw *ew)
{
  guint64 n = 0;
  for (guint v = 0; v < ew->prog.n_vectors; v++)
    n += ew->shared[v] ? 0 : (guint64) ew->N * sizeof (double);
  return n;
}

static cl_int
enqueue (TildeGpuEw *ew, cl_command_queue q, const double *scalars, double *sums)
{
  cl_int rc = CL_SUCCESS, n = ew->N, n_groups = (cl_int) ew->groups;
  guint arg = 0;
  if (ew->prog.n_scalars)
    rc = clEnqueueWriteBuffer (q, ew->sc, CL_FALSE, 0, ew->prog.n_scalars * sizeof (double),
                               scalars, 0, NULL, NULL);
  for (guint v = 0; v < ew->prog.n_vectors; v++)
    rc |= clSetKernelArg (ew->pass, arg++, sizeof (cl_mem), &ew->vec[v]);
  rc |= clSetKernelArg (ew->pass, arg++, sizeof (cl_mem), &ew->sc);
  rc |= clSetKernelArg (ew->pass, arg++, sizeof (cl_int), &n);
  rc |= clSetKernelArg (ew->pass, arg++, sizeof (cl_mem), &ew->partial);
  rc |= clSetKernelArg (ew->final, 0, sizeof (cl_mem), &ew->partial);
  rc |= clSetKernelArg (ew->final, 1, sizeof (cl_int), &n_groups);
  rc |= clSetKernelArg (ew->final, 2, sizeof (cl_mem), &ew->sums);
  if (rc != CL_SUCCESS)
    return rc;
  size_t local = ew->wg, global = (size_t) ew->groups * ew->wg;
  rc = clEnqueueNDRangeKernel (q, ew->pass, 1, NULL, &global, &local, 0, NULL, NULL);
  if (rc != CL_SUCCESS)
    return rc;
  /* a group per column of the slices; log_sum_exp's combine is one group */
  global = (size_t) (is_lse (&ew->prog) ? 1 : ew->stride) * ew->wg;
  rc = clEnqueueNDRangeKernel (q, ew->final, 1, NULL, &global, &local, 0, NULL, NULL);
  if (rc != CL_SUCCESS)
    return rc;
  rc = clEnqueueReadBuffer (q, ew->sums, CL_TRUE, 0, ew->stride * sizeof (double), sums,
                            0, NULL, NULL);
  if (rc == CL_SUCCESS)
    tilde_gpu_context_count_copies (ew->ctx, ew->prog.n_scalars * sizeof (double),
                                    ew->stride * sizeof (double));
  return rc;
}

gboolean
tilde_gpu_ew_sums (TildeGpuEw *ew, const double *scalars, double *sums, GError **error)
{
  if (ew->N == 0)
    {
      memset (sums, 0, ew->stride * sizeof (double));
      if (is_lse (&ew->prog))
        sums[0] = -INFINITY;
      return TRUE;
    }
  g_mutex_lock (&ew->lock);
  tilde_gpu_context_lock (ew->ctx);
  cl_int rc = tilde_gpu_context_run_allowed (ew->ctx);
  if (rc == CL_SUCCESS)
    rc = enqueue (ew, tilde_gpu_context_queue (ew->ctx), scalars, sums);
  tilde_gpu_context_unlock (ew->ctx);
  g_mutex_unlock (&ew->lock);
  if (rc != CL_SUCCESS)
    {
      tilde_gpu_set_cl_error (error, rc, "running a kernel");
      return FALSE;
    }
  return TRUE;
}

void
tilde_gpu_ew_finish (const TildeGpuEwProgram *p, const double *sums, gint32 N, double scale,
                     double sigma, gboolean keep_const, gboolean keep_sigma,
                     TildeGpuEwValue *v, double *d_scalars)
{
  const double *g = sums + first_partial (p);
  double f = scale;
  v->d_sigma = 0;
  switch (p->reduction)
    {
    case TILDE_GPU_EW_SUM:
    case TILDE_GPU_EW_DOT_SELF:
      v->logp = scale * sums[0];
      break;
    case TILDE_GPU_EW_LOG_SUM_EXP:
      v->logp = scale * (sums[0] + log (sums[2]));
      f = scale / sums[2];
      break;
    case TILDE_GPU_EW_NORMAL:
      {
        double inv = 1 / sigma, sq = sums[0] * inv * inv;
        v->logp = -0.5 * sq;
        if (keep_sigma)
          v->logp -= N * log (sigma);
        if (keep_const)
          v->logp -= N * LOG_SQRT_TWO_PI;
        v->d_sigma = -N * inv + sq * inv;
        f = inv * inv;
        break;
      }
    }
  for (guint t = 0; t < p->n_tangents; t++)
    d_scalars[t] = f * g[t];
}
