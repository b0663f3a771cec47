/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The limited-memory inverse Hessian of L-BFGS, as Stan keeps it: the last
 * `capacity` pairs of steps s and gradient changes y, and the initial
 * scaling gamma = s'y / y'y of the newest pair. The search direction
 * comes from the two-loop recursion.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct TildeLbfgsHistory TildeLbfgsHistory;

TildeLbfgsHistory *tilde_lbfgs_history_new  (gsize n, gsize capacity);
void               tilde_lbfgs_history_free (TildeLbfgsHistory *history);

/* Adds the pair (y, s); with `reset` the older pairs are forgotten first.
 * Returns y'y / s'y after a reset (the scale of the initial Hessian, which
 * the minimiser uses to predict the next step), 1 otherwise. */
double tilde_lbfgs_history_update    (TildeLbfgsHistory *history, const double *y,
                                      const double *s, gboolean reset);
/* p = -H g with the approximation H the pairs define. */
void   tilde_lbfgs_history_direction (TildeLbfgsHistory *history, const double *g,
                                      double *p);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeLbfgsHistory, tilde_lbfgs_history_free)

G_END_DECLS
