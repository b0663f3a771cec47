/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The function a minimiser works on, and Stan's line search along a
 * descent direction.
 *
 * The line search is the one Stan's BFGS and L-BFGS use: steps grow
 * tenfold from the first guess until the strong Wolfe conditions hold or
 * a minimum is bracketed, and a bracket is then narrowed by cubic
 * interpolation (with bisection every fifth try). A point where the
 * function cannot be evaluated halves the step towards the last good one.
 * Its one quirk is kept: the sufficient-decrease test while the step grows
 * compares against the first guess of the step, not the current one.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* f(x) and its gradient; FALSE when they cannot be computed there. */
typedef gboolean (*TildeObjectiveFunc) (const double *x, double *f, double *gradient,
                                        gpointer user_data);

typedef struct {
  gsize              n;
  TildeObjectiveFunc func;
  gpointer           user_data;
  guint64            evaluations;   /* counts every call made through it */
} TildeObjective;

/* Evaluates, counting the call; FALSE also when f or any partial is not
 * finite. */
gboolean tilde_objective_eval (TildeObjective *objective, const double *x, double *f,
                               double *gradient);

typedef struct {
  double c1;            /* sufficient decrease, 1e-4 */
  double c2;            /* curvature, 0.9 */
  double min_alpha;     /* 1e-12: the lower end of the first bracket */
  int    max_iterations;/* 20 growing steps */
  int    max_restarts;  /* 10 halvings after failed evaluations in a row */
} TildeLineSearchOptions;

void   tilde_line_search_options_init (TildeLineSearchOptions *options);

/* The minimiser over [lo, hi] of the cubic through (0, 0) with slope df0
 * and (x1, f1) with slope df1. */
double tilde_cubic_interp (double df0, double x1, double f1, double df1, double lo, double hi);

/* Searches from x0 (value f0, gradient g0) along the descent direction p,
 * starting with the step *alpha. On success returns TRUE with the step in
 * *alpha and the point, value and gradient there in x1, f1, g1. */
gboolean tilde_wolfe_line_search (TildeObjective               *objective,
                                  const TildeLineSearchOptions *options,
                                  double                       *alpha,
                                  double                       *x1,
                                  double                       *f1,
                                  double                       *g1,
                                  const double                 *p,
                                  const double                 *x0,
                                  double                        f0,
                                  const double                 *g0);

G_END_DECLS
