/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/gpu-call-private.h"
#include "runtime/normal-stats.h"
#include "gpu/elementwise.h"

#include <math.h>
#include <string.h>

struct RtGpuEwSite {
  TildeGpuEwSite site;
  TildeGpuEw    *ew;
  StFn           cpu_fn;     /* the statement as compiled for the CPU */
  const Ex      *scalars[TILDE_GPU_EW_MAX_SCALARS];
  const Ex      *sigma;      /* the normal's */
  gboolean       drop;       /* normal_lupdf */
  gint           failed;     /* the device failed once: the CPU from then on */
  RtGpuFailures *failures;   /* where that is reported */
  gint           runs;
};

static void
warn (GPtrArray *diagnostics, const TildeGpuEwSite *site, const char *message)
{
  if (!diagnostics)
    return;
  g_autofree char *text = g_strdup_printf ("%s at line %d runs on the CPU: %s",
                                           site->call->u.call.fun.name,
                                           site->stmt->span.begin_line, message);
  g_ptr_array_add (diagnostics, tilde_diagnostic_new (TILDE_SEVERITY_WARNING, TILDE_DIAG_WARNING,
                                                      NULL, 0, 0, 0, 0, text));
}

/* The vectors' host values, all of one length (else the CPU path raises
 * its size error); -1 when one is not a data vector there. */
static gint32
vector_values (const TildeGpuEwSite *site, const St *s, const TildeValue *globals, int n_globals,
               const gboolean *chosen, const double **out)
{
  gint32 N = -1;
  for (guint v = 0; v < site->prog.n_vectors; v++)
    {
      const TildeValue *x = rt_global_value (rt_ex_find (s->e, site->vectors[v]), globals,
                                             n_globals);
      if (!x || (x->kind != TILDE_VALUE_VECTOR && x->kind != TILDE_VALUE_ROW_VECTOR))
        return -1;
      gint32 n = tilde_value_flat_size (x);
      if ((N >= 0 && n != N) || (chosen[v] && n < TILDE_GPU_AUTO_MIN_ELEMENTS))
        return -1;
      N = n;
      out[v] = x->u.d;
    }
  return N;
}

RtGpuEwSite *
rt_gpu_ew_attach (const TildeGpuEwSite *site, St *s, const TildeValue *globals, int n_globals,
                  TildeGpuContext *ctx, const gboolean *chosen, GPtrArray *attached,
                  RtGpuFailures *failures, GPtrArray *diagnostics)
{
  if (s->fn != rt_st_target && s->fn != rt_st_target_fused && s->fn != rt_st_target_normal_stats)
    return NULL;
  const TildeGpuEwProgram *p = &site->prog;
  const Ex *scalars[TILDE_GPU_EW_MAX_SCALARS];
  for (guint j = 0; j < p->n_scalars; j++)
    if (!(scalars[j] = rt_ex_find (s->e, site->scalars[j])))
      return NULL;
  const Ex *sigma = rt_ex_find (s->e, site->sigma);
  if (site->sigma && !sigma)
    return NULL;
  const double *vectors[TILDE_GPU_EW_MAX_VECTORS];
  gint32 N = vector_values (site, s, globals, n_globals, chosen, vectors);
  if (N < 0)
    return NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *what = tilde_gpu_plan_ew_what (site);
  TildeGpuEw *others[64];
  guint n_others = 0;
  for (guint i = 0; i < attached->len && n_others < G_N_ELEMENTS (others); i++)
    others[n_others++] = ((RtGpuEwSite *) g_ptr_array_index (attached, i))->ew;
  TildeGpuEw *ew = tilde_gpu_ew_new (ctx, p, what, vectors, N, others, n_others, &error);
  if (!ew)
    {
      warn (diagnostics, site, error->message);
      return NULL;
    }
  RtGpuEwSite *g = g_new0 (RtGpuEwSite, 1);
  g->site = *site;
  g->ew = ew;
  g->cpu_fn = s->fn;
  g->failures = failures;
  memcpy (g->scalars, scalars, sizeof (Ex *) * p->n_scalars);
  g->sigma = sigma;
  const MirFun *f = &site->call->u.call.fun;
  g->drop = f->propto || g_str_has_suffix (f->name, "_lupdf");
  s->gpu = g;
  s->fn = rt_st_target_gpu_ew;
  return g;
}

guint
rt_gpu_ew_runs (const RtGpuEwSite *g)
{
  return (guint) g_atomic_int_get (&g->runs);
}

void
rt_gpu_ew_free (RtGpuEwSite *g)
{
  if (!g)
    return;
  tilde_gpu_ew_free (g->ew);
  g_free (g);
}

/* ---- evaluation ---- */

static gboolean
scalar_value (const TildeValue *v)
{
  return v->kind == TILDE_VALUE_REAL || v->kind == TILDE_VALUE_INT;
}

static gboolean
device_failed (RtGpuEwSite *g, const GError *error)
{
  return rt_gpu_failed (g->failures, &g->failed, g->site.call, g->site.stmt, error);
}

static gboolean
all_finite (const double *x, guint n)
{
  for (guint i = 0; i < n; i++)
    if (!isfinite (x[i]))
      return FALSE;
  return TRUE;
}

/* The kernel's value, or FALSE for the CPU path to take over: no rows,
 * nothing autodiff, a sigma the density refuses, a term or partial that is
 * not finite anywhere. */
static gboolean
run_kernel (Ev *ev, RtGpuEwSite *g, TildeValue *out)
{
  const TildeGpuEwProgram *p = &g->site.prog;
  gint32 N = tilde_gpu_ew_rows (g->ew);
  TildeValue vals[TILDE_GPU_EW_MAX_SCALARS], sg = tilde_value_real (1);
  double x[TILDE_GPU_EW_MAX_SCALARS];
  gboolean any_ad = FALSE;
  if (N == 0)
    return FALSE;
  for (guint j = 0; j < p->n_scalars; j++)
    {
      rt_eval (ev, g->scalars[j], &vals[j]);
      if (!scalar_value (&vals[j]) || (vals[j].ad && p->tangent[j] < 0))
        return FALSE;
      x[j] = rt_scalar (&ev->cx, &vals[j]);
      any_ad |= vals[j].ad;
    }
  if (g->sigma)
    {
      rt_eval (ev, g->sigma, &sg);
      if (!scalar_value (&sg))
        return FALSE;
    }
  double sigma = rt_scalar (&ev->cx, &sg);
  if (!(sigma > 0 && isfinite (sigma)) || !(any_ad || sg.ad))
    return FALSE;
  double *sums = rt_alloc_d (&ev->cx, tilde_gpu_ew_n_sums (p));
  g_autoptr (GError) error = NULL;
  if (!tilde_gpu_ew_sums (g->ew, x, sums, &error))
    return device_failed (g, error);
  if (sums[1] != 0)
    return FALSE;
  gboolean drop = g->drop && ev->cx.propto;
  double *d = rt_alloc_d (&ev->cx, p->n_tangents + 1);
  TildeGpuEwValue v;
  tilde_gpu_ew_finish (p, sums, N, g->site.scale, sigma, !drop, !drop || sg.ad, &v, d);
  d[p->n_tangents] = v.d_sigma;
  if (!isfinite (v.logp) || !all_finite (d, p->n_tangents + 1))
    return FALSE;
  AdOperand ops[TILDE_GPU_EW_MAX_SCALARS + 1];
  guint n = 0;
  for (guint j = 0; j < p->n_scalars; j++)
    if (vals[j].ad)
      ops[n++] = rt_operand (&vals[j], &d[p->tangent[j]]);
  if (sg.ad)
    ops[n++] = rt_operand (&sg, &d[p->n_tangents]);
  *out = rt_reduce (&ev->cx, v.logp, n, ops);
  g_atomic_int_inc (&g->runs);
  return TRUE;
}

Flow
rt_st_target_gpu_ew (Ev *ev, const St *s)
{
  RtGpuEwSite *g = s->gpu;
  if (!rt_term_counts (ev, s))
    return FLOW_NEXT;
  TildeValue v;
  if (g_atomic_int_get (&g->failed) || !run_kernel (ev, g, &v))
    return g->cpu_fn (ev, s);
  rt_add_term (ev, &v);
  return FLOW_NEXT;
}
