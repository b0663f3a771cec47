/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The eigenvalues and eigenvectors of a general real matrix, as Stan
 * computes them. */
#pragma once

#include <complex.h>
#include <glib.h>

G_BEGIN_DECLS

/* The eigenvalues of the n x n column-major matrix a into (re[k], im[k]),
 * in the order of the diagonal of its real Schur form as the classical
 * Francis double-shift iteration (EISPACK's hqr, which Eigen's RealSchur
 * and so Stan follow) leaves it: the matrix scaled by its largest entry
 * and reduced to Hessenberg form without balancing, deflation at the
 * bottom, a conjugate pair with its positive imaginary part first, a real
 * pair with the eigenvalue nearer the block's upper diagonal entry first.
 * With `vectors` (n x n, column-major; NULL for none), the eigenvectors in
 * the same order: back-substitution on the Schur form, each of unit
 * length, a conjugate pair's as conjugates. FALSE when the iteration does
 * not converge or a is not finite. */
gboolean rt_real_eigen (const double *a, int n, double *re, double *im,
                        double complex *vectors);

G_END_DECLS
