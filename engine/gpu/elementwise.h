/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Reductions of elementwise expressions over device data, as one generated
 * kernel: `target += R(E)` with R sum, dot_self or log_sum_exp, and
 * `y ~ normal(E, sigma)`, where E is elementwise arithmetic and elementary
 * functions of N-element data vectors, scalars and literals.
 *
 * E is a short straight-line program (TildeGpuEwProgram) whose leaves are
 * the vectors (read at item i), the scalars (the same for every item,
 * sent per evaluation) and constants. The kernel runs it forward at each
 * item with the tangents of the P autodiff scalars (forward mode: each
 * instruction's value and its derivative along each scalar it depends on),
 * forms the item's term and its P partials, and reduces them: per
 * work-group in local memory into one slice of a partials buffer, then a
 * second kernel adds (or, for log_sum_exp, combines) the slices. Per
 * evaluation the scalars go to the device and a few sums come back:
 *
 *   sum, dot_self, normal:  sums[0] = sum l, sums[1] = the items whose l
 *                           or a partial is not finite, sums[2 + p] = the
 *                           partials along scalar p
 *   log_sum_exp:            sums[0] = max l, sums[1] the flag,
 *                           sums[2] = sum exp (l - max), sums[3 + p] =
 *                           sum exp (l - max) dl/dp
 *
 * with l = E (sum, log_sum_exp), E^2 (dot_self) or (y - E)^2 (normal, y
 * one of the vectors; sigma is applied on the host).
 */
#pragma once

#include <glib.h>

#include "gpu/context.h"

G_BEGIN_DECLS

typedef enum {
  TILDE_GPU_EW_SUM,
  TILDE_GPU_EW_DOT_SELF,
  TILDE_GPU_EW_LOG_SUM_EXP,
  TILDE_GPU_EW_NORMAL,
} TildeGpuEwReduction;

typedef enum {
  TILDE_GPU_EW_VECTOR,     /* leaf: vector `leaf` at item i */
  TILDE_GPU_EW_SCALAR,     /* leaf: scalar `leaf` */
  TILDE_GPU_EW_CONST,      /* leaf: the literal k */
  TILDE_GPU_EW_ADD,
  TILDE_GPU_EW_SUB,
  TILDE_GPU_EW_MUL,
  TILDE_GPU_EW_DIV,
  TILDE_GPU_EW_POW,
  TILDE_GPU_EW_FMA,        /* a * b + c */
  TILDE_GPU_EW_NEG,
  TILDE_GPU_EW_EXP,
  TILDE_GPU_EW_LOG,
  TILDE_GPU_EW_LOG1P,
  TILDE_GPU_EW_EXPM1,
  TILDE_GPU_EW_SQUARE,
  TILDE_GPU_EW_SQRT,
  TILDE_GPU_EW_INV,
  TILDE_GPU_EW_INV_LOGIT,
  TILDE_GPU_EW_LOG1P_EXP,
  TILDE_GPU_EW_LOG_INV_LOGIT,
  TILDE_GPU_EW_FABS,
} TildeGpuEwOp;

#define TILDE_GPU_EW_MAX_INS     64
#define TILDE_GPU_EW_MAX_VECTORS 8
#define TILDE_GPU_EW_MAX_SCALARS 16

typedef struct {
  TildeGpuEwOp op;
  guint8       a, b, c;    /* the instructions it reads */
  guint8       leaf;       /* VECTOR, SCALAR: which */
  double       k;          /* CONST */
} TildeGpuEwIns;

/* What a kernel computes; the last instruction is E. */
typedef struct {
  TildeGpuEwReduction reduction;
  guint               n_ins;
  TildeGpuEwIns       ins[TILDE_GPU_EW_MAX_INS];
  guint               n_vectors, n_scalars;
  gint8               tangent[TILDE_GPU_EW_MAX_SCALARS];  /* scalar -> p, or -1 (data) */
  guint               n_tangents;                        /* P */
  gint                y;                                 /* NORMAL: the outcome's vector */
} TildeGpuEwProgram;

/* The OpenCL C source of the two kernels, for work-groups of `wg` items. */
char  *tilde_gpu_ew_source (const TildeGpuEwProgram *prog, guint wg);
/* The number of sums a launch gives back (above). */
guint  tilde_gpu_ew_n_sums (const TildeGpuEwProgram *prog);

/* Items per work-group, unless the device takes fewer. */
#define TILDE_GPU_EW_WG 64

typedef struct TildeGpuEw TildeGpuEw;

/* Copies the program's vectors (N values each, N may be 0) to the device
 * and builds the kernels (`what` names them for --debug-opencl and build
 * errors). A vector whose host storage one of `others` (n_others of them,
 * on the same context) already holds is shared rather than copied again.
 * NULL with a TILDE_GPU_ERROR when the device cannot take them. */
TildeGpuEw *tilde_gpu_ew_new  (TildeGpuContext *ctx, const TildeGpuEwProgram *prog,
                               const char *what, const double *const *vectors, gint32 N,
                               TildeGpuEw *const *others, guint n_others, GError **error);
void        tilde_gpu_ew_free (TildeGpuEw *ew);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeGpuEw, tilde_gpu_ew_free)

gint32      tilde_gpu_ew_rows (const TildeGpuEw *ew);
/* Bytes of device memory its vectors take (shared ones not counted). */
guint64     tilde_gpu_ew_device_bytes (const TildeGpuEw *ew);

/* The sums at the scalars' values (n_scalars of them); FALSE with a
 * TILDE_GPU_ERROR when the device fails. Safe to call from several
 * threads. */
gboolean    tilde_gpu_ew_sums (TildeGpuEw *ew, const double *scalars, double *sums,
                               GError **error);

/* The value and its partials along the P tangents from the sums, times
 * `scale`: R(E) for the reductions; for the normal, the log density with
 * scale sigma, keeping the constant -N log sqrt (2 pi) and -N log sigma
 * as asked (d_sigma receives its partial). */
typedef struct {
  double  logp;
  double  d_sigma;
} TildeGpuEwValue;

void        tilde_gpu_ew_finish (const TildeGpuEwProgram *prog, const double *sums, gint32 N,
                                 double scale, double sigma, gboolean keep_const,
                                 gboolean keep_sigma, TildeGpuEwValue *value, double *d_scalars);

G_END_DECLS
