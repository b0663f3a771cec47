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
 *   neg_binomial_2_log_glm  with the scalar phi (`aux`) and
 *                        L = log (1 + exp (eta) / phi): -phi L - y (log phi + L)
 *                        and its derivative; three more sums follow x^T d:
 *                        sum lchoose (y + phi - 1, y), sum y eta, and d/dphi,
 *                        sum digamma (y + phi) - digamma (phi) - L + w -
 *                        y (1 - w) / phi with w = exp (eta) / (exp (eta) + phi)
 *   ordered_logistic_glm log (F (eta - c[y-1]) - F (eta - c[y])) with the
 *                        logistic F, cut points c (n_cuts of them, passed
 *                        per evaluation; alpha is 0), and its derivative;
 *                        after x^T d come the n_cuts partials of c. An
 *                        outcome outside 1..n_cuts + 1 counts as not finite.
 *   categorical_logit_glm  with C categories (passed as n_cuts, alpha's C
 *                        values as the cut points, beta K x C column-major):
 *                        eta[y] - log_sum_exp (eta) with eta = alpha +
 *                        x[i,] beta; the sums are l, 0, the flag, then
 *                        d alpha (C) and d beta (K x C, column-major). An
 *                        outcome outside 1..C counts as not finite.
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
  TILDE_GPU_GLM_NEG_BINOMIAL_2_LOG,
  TILDE_GPU_GLM_ORDERED_LOGISTIC,
  TILDE_GPU_GLM_CATEGORICAL_LOGIT,
  TILDE_GPU_GLM_N_FAMILIES
} TildeGpuGlmFamily;

/* "normal_id_glm", ... */
const char *tilde_gpu_glm_family_name (TildeGpuGlmFamily family);

/* The OpenCL C source of the kernels for `family` with K predictors and
 * work-groups of `wg` items (a power of two). */
char       *tilde_gpu_glm_source (TildeGpuGlmFamily family, gint32 K, guint wg);
/* The same source before the data fix K (the columns of the design matrix
 * `x_name`): a comment stands where `#define K` goes and KPT is written in
 * K. For showing, not for building. */
char       *tilde_gpu_glm_source_for_data (TildeGpuGlmFamily family, const char *x_name,
                                           guint wg);

/* Items per work-group, unless the device takes fewer. */
#define TILDE_GPU_GLM_WG 64

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
/* The same with the family's scalar (phi) and cut points (the ordinal's;
 * NULL and 0 for the others), into tilde_gpu_glm_n_sums (n_cuts) sums. */
gboolean     tilde_gpu_glm_sums_full (TildeGpuGlm *glm, double alpha, const double *beta,
                                      double aux, const double *cuts, gint32 n_cuts,
                                      double *sums, GError **error);
gint32       tilde_gpu_glm_n_sums (const TildeGpuGlm *glm, gint32 n_cuts);
/* The most categories the categorical's kernel takes (its derivatives
 * wait in local memory). */
gint32       tilde_gpu_glm_max_categories (const TildeGpuGlm *glm);

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

/* neg_binomial_2_log_glm's value and partials (d_sigma is d/dphi) from
 * its sums: the keep_ flags say which of the density's terms count (the
 * lchoose term, y eta, the rest, as the CPU density keeps them under
 * propto), `constant` what the GLM adds to them. */
void         tilde_gpu_glm_finish_neg_binomial (const double *sums, gint32 K,
                                                gboolean keep_phi,
                                                gboolean keep_eta, gboolean keep_both,
                                                double constant, TildeGpuGlmValue *value,
                                                double *d_beta);

G_END_DECLS
