/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Draws from the Laplace approximation at a mode, as CmdStan's laplace
 * method makes them: a normal distribution on the unconstrained scale,
 * centred at the mode, whose covariance is the inverse of the negative
 * Hessian of the log density there (constants of `~` statements dropped,
 * the Jacobian included when `jacobian` is set). The Hessian comes from
 * central differences of the gradient (infer/newton.h).
 *
 * Each draw is theta = mode + L^-T z with z standard normal and L the
 * Cholesky factor of -H. Its row holds log_p__ (the log density at theta,
 * -inf where the model cannot be evaluated), log_q__ (the approximation's
 * log density up to a constant, -(theta - mode)' (-H) (theta - mode) / 2),
 * then the constrained parameters, transformed parameters and generated
 * quantities (NaN where the model fails to produce them).
 */
#pragma once

#include <gio/gio.h>
#include <gsl/gsl_rng.h>

#include "infer/optimize.h"

G_BEGIN_DECLS

/* The Hessian of the log density at `theta` (n x n, row-major). */
gboolean tilde_laplace_hessian (TildeModel *model, const double *theta, gboolean jacobian,
                                double *hessian, GError **error);

/* One draw: its row (2 + tilde_model_num_outputs (model, TRUE, TRUE)
 * values) and the point on the unconstrained scale. FALSE stops. */
typedef gboolean (*TildeLaplaceDrawFunc) (const double *row, gsize n_row, const double *theta,
                                          gpointer user_data);

/* Makes `draws` draws. `refresh` > 0 reports progress through `message`
 * every that many draws, as CmdStan does. FALSE with `error` set when the
 * negative Hessian is not positive definite or the run was stopped. */
gboolean tilde_laplace_sample (TildeModel              *model,
                               const double            *mode,
                               gboolean                 jacobian,
                               int                      draws,
                               int                      refresh,
                               gsl_rng                 *rng,
                               TildeLaplaceDrawFunc     draw,
                               TildeOptimizeMessageFunc message,
                               gpointer                 user_data,
                               GCancellable            *cancellable,
                               GError                 **error);

G_END_DECLS
