/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The dense inverse metric that minimises the Fisher divergence between a
 * posterior and a normal: given the covariance S of draws and the
 * covariance G of the log density's gradients at them, the symmetric
 * positive definite M^-1 with M^-1 G M^-1 = S, which is the geometric
 * mean S # G^-1 = G^-1/2 (G^1/2 S G^1/2)^1/2 G^-1/2. For a normal posterior
 * of covariance C, S = C and G = C^-1, so M^-1 = C from any n + 1 draws in
 * general position; for a diagonal S and G it is sqrt (S_ii / G_ii), the
 * diagonal estimate.
 *
 * Eigen-decompositions by LAPACK (dsyevd), products by BLAS; the work
 * space is allocated once, with the estimator.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct TildeFisherMetric TildeFisherMetric;

TildeFisherMetric *tilde_fisher_metric_new  (gsize n);
void               tilde_fisher_metric_free (TildeFisherMetric *fisher);

/* `s` and `g`: n x n, row-major, symmetric (any common positive factor
 * cancels). Writes M^-1 to `out` (n x n). Eigenvalues below 1e-12 of the
 * largest are raised to it. FALSE, `out` untouched, when `g` or the middle
 * product has no positive eigenvalue or LAPACK fails. */
gboolean           tilde_fisher_metric_solve (TildeFisherMetric *fisher, const double *s,
                                              const double *g, double *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeFisherMetric, tilde_fisher_metric_free)

G_END_DECLS
