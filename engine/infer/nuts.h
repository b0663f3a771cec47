/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The No-U-Turn sampler as Stan runs it (stan::mcmc::base_nuts): one
 * transition draws a momentum, then doubles a trajectory of leapfrog
 * steps in random directions until the generalised U-turn criterion
 * fails (checked across the whole trajectory, each merged subtree, and
 * the boundaries between merged subtrees), a step diverges (the energy
 * error exceeds 1000) or the tree reaches its maximum depth.
 *
 * The draw is taken by multinomial sampling over the trajectory: each new
 * subtree replaces the current draw with probability min(1, W_new / W_old)
 * at the top level (biased progressive sampling) and uniformly by weight
 * within subtrees. accept_stat is the mean over the leapfrog steps of
 * min(1, exp(H0 - H)).
 *
 * One TildeNuts belongs to one chain and is used from one thread at a
 * time. Its storage grows only when a tree gets deeper than any before
 * it; otherwise a transition allocates nothing.
 */
#pragma once

#include <glib.h>
#include <gsl/gsl_rng.h>

#include "infer/metric.h"
#include "runtime/model.h"

G_BEGIN_DECLS

typedef struct {
  double   lp;            /* log density at the draw: propto, with the Jacobian */
  double   accept_stat;
  double   stepsize;
  guint    treedepth;
  guint    n_leapfrog;
  gboolean divergent;
  double   energy;        /* the Hamiltonian at the draw */
} TildeNutsStats;

/* Called when the model raises an error at a proposed point, which is
 * then rejected (its energy is infinite, so the step counts as divergent).
 * A fatal error (fatal_error()) is not a rejection: it ends the trajectory
 * the same way and is kept for tilde_nuts_get_fatal_error. */
typedef void (*TildeNutsRejectFunc) (const TildeModelError *error, gpointer user_data);

typedef struct TildeNuts TildeNuts;

/* A sampler of `model` with `metric` (borrowed: the caller may change the
 * metric between transitions) and trees of at most `max_depth` >= 1. The
 * step size starts at 1. */
TildeNuts     *tilde_nuts_new  (TildeModel *model, TildeMetric *metric, guint max_depth);
void           tilde_nuts_free (TildeNuts *nuts);

/* The current point: unconstrained position, its log density and gradient. */
void           tilde_nuts_set_point    (TildeNuts *nuts, const double *q, double lp,
                                        const double *gradient);
const double  *tilde_nuts_get_position (const TildeNuts *nuts);
double         tilde_nuts_get_lp       (const TildeNuts *nuts);
/* The gradient of the log density at the current point. */
const double  *tilde_nuts_get_gradient (const TildeNuts *nuts);

void           tilde_nuts_set_stepsize (TildeNuts *nuts, double stepsize);
double         tilde_nuts_get_stepsize (const TildeNuts *nuts);
/* The energy error beyond which a step is divergent (1000 by default). */
void           tilde_nuts_set_max_delta_h (TildeNuts *nuts, double max_delta_h);

void           tilde_nuts_set_reject_func (TildeNuts *nuts, TildeNutsRejectFunc func,
                                           gpointer user_data);
/* With timing on, the seconds spent inside tilde_model_log_density are
 * estimated (tilde_nuts_get_density_seconds): every seventh evaluation
 * is timed, so that reading the clock costs little beside a cheap model. */
void           tilde_nuts_set_timing   (TildeNuts *nuts, gboolean timing);

/* One transition from the current point, which becomes the draw. */
void           tilde_nuts_transition   (TildeNuts *nuts, gsl_rng *rng, TildeNutsStats *stats);
/* The same with the initial momentum given (`rng` then only chooses
 * directions and draws), for checking a trajectory by hand. */
void           tilde_nuts_transition_from (TildeNuts *nuts, gsl_rng *rng, const double *momentum,
                                           TildeNutsStats *stats);

/* Stan's heuristic for a first step size: from the current one, double
 * (or halve) it until one leapfrog step from the current point with a
 * fresh momentum crosses an acceptance of 0.8. FALSE with `problem` set
 * (Stan's wording) when the step size runs off to 1e7 or to 0. */
gboolean       tilde_nuts_init_stepsize (TildeNuts *nuts, gsl_rng *rng, char **problem);

/* The message of the first fatal model error, or NULL: after one, the
 * chain must stop. */
const char    *tilde_nuts_get_fatal_error (const TildeNuts *nuts);

/* Gradient evaluations so far, and the seconds inside the log density
 * (with timing on: the timed evaluations' seconds scaled to all). */
guint64        tilde_nuts_get_gradient_count  (const TildeNuts *nuts);
double         tilde_nuts_get_density_seconds (const TildeNuts *nuts);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeNuts, tilde_nuts_free)

G_END_DECLS
