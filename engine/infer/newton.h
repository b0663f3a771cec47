/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Stan's Newton method, and Hessians by finite differences of gradients.
 *
 * A Newton step takes the Hessian of the objective at x, replaces each of
 * its eigenvalues by its absolute value (floored at sqrt(eps) times the
 * largest, and at sqrt(eps)) so that the step always goes downhill, and
 * tries the full step, then half of it, a quarter, ... until the objective
 * does not rise (down to a factor of 1e-50, below which x stays).
 *
 * The Hessian there is Stan's: central differences of the gradient at
 * +-1e-3 and +-2e-3 along each coordinate (a fourth-order stencil),
 * symmetrised. (Stan's own code multiplies by the step where it should
 * divide, a known slip that makes its Newton steps start a million times
 * too long; here the stencil is scaled as the formula says.)
 */
#pragma once

#include <glib.h>

#include "infer/linesearch.h"

G_BEGIN_DECLS

/* The Hessian (n x n, row-major) with the fourth-order stencil above, and
 * f and its gradient at x (either may be NULL). FALSE when the function
 * cannot be evaluated at x or at a perturbed point. */
gboolean tilde_hessian_stencil (TildeObjective *objective, const double *x, double *hessian,
                                double *f, double *gradient);
/* The Hessian by plain central differences of the gradient, the step for
 * coordinate i being cbrt(eps) max(1, |x_i|), symmetrised: what Stan's
 * Laplace approximation uses. */
gboolean tilde_hessian_central (TildeObjective *objective, const double *x, double *hessian);

/* d = -(V |L|^-1 V') g for the eigendecomposition V L V' of `hessian`,
 * |L| floored as above: a descent direction for any symmetric Hessian. */
void     tilde_newton_direction (const double *hessian, const double *gradient, gsize n,
                                 double *direction);

typedef enum {
  TILDE_NEWTON_MOVED,      /* x moved to a point no higher than before */
  TILDE_NEWTON_STAYED,     /* no step factor down to 1e-50 helped */
  TILDE_NEWTON_FAILED,     /* no Hessian at x */
} TildeNewtonResult;

/* One step from x (updated in place); *f gets the objective there. */
TildeNewtonResult tilde_newton_step (TildeObjective *objective, double *x, double *f);

G_END_DECLS
