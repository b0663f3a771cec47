/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What model.c needs of gpu-call.c: the kernels of one model. */
#pragma once

#include "runtime/exec-private.h"
#include "gpu/context.h"
#include "gpu/plan.h"

G_BEGIN_DECLS

typedef struct RtGpu RtGpu;

/* Switches the GLM statements of `log_prob` (compiled from `prog`) over
 * device data to kernels; the data are read from `globals` (n_globals). */
RtGpu *rt_gpu_attach (const MirProgram *prog, St *log_prob, const TildeValue *globals, int n_globals,
                      TildeGpuContext *ctx, gboolean use_opencl, GPtrArray *diagnostics);
guint  rt_gpu_n_sites (const RtGpu *gpu);
guint  rt_gpu_runs    (const RtGpu *gpu);
void   rt_gpu_free    (RtGpu *gpu);

/* A statement run by a kernel (St.gpu is its site). */
Flow   rt_st_target_gpu (Ev *ev, const St *s);

/* gpu-call-elementwise.c: a reduction of an elementwise expression run by
 * its kernel. Attaching switches `s` (the statement compiled from
 * site->stmt) to it, or leaves it alone (NULL, with a warning when the
 * device refused it); `chosen` (per vector) marks the vectors put there by
 * --use-opencl, which must be large enough. Vectors that the sites in
 * `attached` (RtGpuEwSite*) already hold on the device are shared. */
typedef struct RtGpuEwSite RtGpuEwSite;
RtGpuEwSite *rt_gpu_ew_attach (const TildeGpuEwSite *site, St *s, const TildeValue *globals,
                               int n_globals, TildeGpuContext *ctx, const gboolean *chosen,
                               GPtrArray *attached, GPtrArray *diagnostics);
guint  rt_gpu_ew_runs (const RtGpuEwSite *g);
void   rt_gpu_ew_free (RtGpuEwSite *g);
Flow   rt_st_target_gpu_ew (Ev *ev, const St *s);

G_END_DECLS
