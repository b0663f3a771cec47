/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What model.c needs of gpu-call.c: the kernels of one model. */
#pragma once

#include "runtime/exec-private.h"
#include "gpu/context.h"
#include "gpu/plan.h"

G_BEGIN_DECLS

typedef struct RtGpu RtGpu;

/* Kernels that failed while running, for whoever runs the model
 * (tilde_model_take_device_failures): a warning each, taken under lock,
 * since chains evaluate on several threads. */
typedef struct {
  GMutex     lock;
  GPtrArray *warnings;   /* TildeDiagnostic* */
} RtGpuFailures;

/* Reports that `call` (in `stmt`) failed on the device with `error`, once
 * per statement (`failed` its flag), and returns FALSE: the statement runs
 * on the CPU from then on. */
gboolean rt_gpu_failed (RtGpuFailures *failures, gint *failed, const MirExpr *call,
                        const MirStmt *stmt, const GError *error);

/* Switches the GLM statements of `log_prob` (compiled from `prog`) over
 * device data to kernels; the data are read from `globals` (n_globals). */
RtGpu *rt_gpu_attach (const MirProgram *prog, St *log_prob, const TildeValue *globals, int n_globals,
                      TildeGpuContext *ctx, gboolean use_opencl, GPtrArray *diagnostics);
guint  rt_gpu_n_sites (const RtGpu *gpu);
guint  rt_gpu_runs    (const RtGpu *gpu);
/* The failures reported since the last call (a new array, maybe empty). */
GPtrArray *rt_gpu_take_failures (RtGpu *gpu);
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
                               GPtrArray *attached, RtGpuFailures *failures,
                               GPtrArray *diagnostics);
guint  rt_gpu_ew_runs (const RtGpuEwSite *g);
void   rt_gpu_ew_free (RtGpuEwSite *g);
Flow   rt_st_target_gpu_ew (Ev *ev, const St *s);

G_END_DECLS
