/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The starting point of an optimisation, chosen as CmdStan chooses one.
 *
 * Parameters named in the init file (CmdStan JSON, constrained values)
 * start there; the others are drawn uniformly from (-radius, radius) on the
 * unconstrained scale (all zero for radius 0). A point is rejected when
 * the log density (every constant, no Jacobian) cannot be evaluated or is
 * not finite, or when its gradient is not finite; then a new random part
 * is drawn, up to 100 times (once when nothing is random). Each rejection
 * is reported through `message` in CmdStan's words.
 */
#pragma once

#include <glib.h>
#include <gsl/gsl_rng.h>

#include "infer/optimize.h"

G_BEGIN_DECLS

#define TILDE_OPTIMIZE_INIT_ATTEMPTS 100

/* Fills `theta` (unconstrained). On failure returns FALSE with the reason
 * in `error` ("Initialization failed.", or why the init file is unusable). */
gboolean tilde_optimize_initial_point (TildeModel              *model,
                                       const char              *init_path,
                                       double                   radius,
                                       gsl_rng                 *rng,
                                       TildeOptimizeMessageFunc message,
                                       gpointer                 user_data,
                                       double                  *theta,
                                       GError                 **error);

G_END_DECLS
