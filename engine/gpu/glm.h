/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Generalised linear models on an OpenCL device: a generated kernel per
 * family and number of predictors that computes, in one pass over the
 * device-resident data, the sums the log density and its partials need.
 *
 * The data (x column-major, N x K, and y) are copied to the device once,
 * when the GLM is made, and stay there for as long as it lives. Per
 * evaluation only alpha and beta go to the device and K + 3 sums come
 * back: with eta = alpha + x * beta and, per observation, the family's
 * term l(y, eta) and its derivative d = dl/deta,
 *
 *   sums[0] = sum l, sums[1] = sum d, sums[2] = the number of
 *   observations whose eta or l is not finite, sums[3 + k] = (x^T d)[k].
 *
 * Per family, l and d are:
 *   normal_id_glm        (y - eta)^2 and y - eta (sigma is applied after)
 *   bernoulli_logit_glm  log inv_logit ((2y - 1) eta) and its derivative
 *   poisson_log_glm      y eta - exp (eta) and y - exp (eta)
 *
 * The kernel reduces in two stages: each work-group sums its rows into
 * one slice of a partials buffer (x^T d from the group's derivatives kept
 * in local memory), then a second kernel adds the slices up.
 */
#pragma once

#include <glib.h>

#include "gpu/context.h"

G_BEGIN_DECLS

typedef enum {
  TILDE_GPU_GLM_NORMAL_ID,
  TILDE_GPU_GLM_BERNOULLI_LOGIT,
  TILDE_GPU_GLM_POISSON_LOG,
  TILDE_GPU_GLM_N_FAMILIES
} TildeGpuGlmFamily;

/* "normal_id_glm", ... */
const char *tilde_gpu_glm_family_name (TildeGpuGlmFamily family);

/* The OpenCL C source of the kernels for `family` with K predictors and
 * work-groups of `wg` items (a power of two). */
char       *tilde_gpu_glm_source (TildeGpuGlmFamily family, gint32 K, guint wg);

typedef struct TildeGpuGlm TildeGpuGlm;

/* Copies x (column-major, N x K) and y (N values) to the device and
 * builds the kernels. NULL with a TILDE_GPU_ERROR (out of memory, a build
 * failure) when the device cannot take them. N may be 0. */
TildeGpuGlm *tilde_gpu_glm_new  (TildeGpuContext *ctx, TildeGpuGlmFamily family,
                                 const double *x, const double *y, gint32 N, gint32 K,
                                 GError **error);
/* Another GLM over the same x (on the device once), with its own family and
 * outcome. */
TildeGpuGlm *tilde_gpu_glm_new_sharing (TildeGpuGlm *same_x, TildeGpuGlmFamily family,
                                        const double *y, GError **error);
void         tilde_gpu_glm_free (TildeGpuGlm *glm);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeGpuGlm, tilde_gpu_glm_free)

gint32       tilde_gpu_glm_rows (const TildeGpuGlm *glm);
gint32       tilde_gpu_glm_cols (const TildeGpuGlm *glm);
/* Bytes of device memory its data take (x not counted when shared). */
guint64      tilde_gpu_glm_device_bytes (const TildeGpuGlm *glm);

/* The K + 3 sums above at (alpha, beta); FALSE with a TILDE_GPU_ERROR
 * when the device fails. Safe to call from several threads. */
gboolean     tilde_gpu_glm_sums (TildeGpuGlm *glm, double alpha, const double *beta,
                                 double *sums, GError **error);

/* The log density and its partials from the sums, as the CPU densities
 * compute them: `keep_const` keeps the terms that depend on neither the
 * parameters nor sigma (-N log sqrt (2 pi) for the normal; the Poisson's
 * -sum lgamma (y + 1), which the caller passes in `lgamma_sum`),
 * `keep_sigma` the normal's -N log sigma. d_beta receives K partials. */
typedef struct {
  double logp;
  double d_alpha;
  double d_sigma;
} TildeGpuGlmValue;

void         tilde_gpu_glm_finish (TildeGpuGlmFamily family, const double *sums, gint32 N,
                                   gint32 K, double sigma, gboolean keep_const,
                                   gboolean keep_sigma, double lgamma_sum,
                                   TildeGpuGlmValue *value, double *d_beta);

G_END_DECLS
