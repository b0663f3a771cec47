/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Warm-up adaptation as Stan does it (stan::mcmc stepsize_adaptation,
 * windowed_adaptation, var_adaptation, covar_adaptation).
 *
 * - The step size follows Nesterov's dual averaging of log(epsilon)
 *   towards an acceptance of delta (0.8), with gamma 0.05, kappa 0.75,
 *   t0 10 and the shrinkage target mu = log(10 epsilon); at the end of
 *   warm-up the step size is exp(x_bar), the averaged iterate.
 * - The metric is estimated in windows: an initial buffer (75
 *   iterations) adapts only the step size, then windows of 25, 50, 100,
 *   ... iterations collect draws (the last one stretched to the terminal
 *   buffer when the next would not fit), then a terminal buffer (50)
 *   adapts only the step size again. At the end of each window the
 *   inverse metric becomes the regularised sample (co)variance
 *   n/(n+5) S + 1e-3 5/(n+5) I, the step size is searched again from the
 *   current one and the dual averaging restarts with mu = log(10 epsilon).
 * - With fewer than 20 warm-up iterations no metric is estimated. When
 *   the three stages do not fit the warm-up they take 15 %, 75 % and
 *   10 % of it, as Stan's message announces. (Stan's own code keeps the
 *   window state it had before the reduction, so that its windows never
 *   end and the metric stays as it started; here the reduced stages are
 *   used as announced.)
 * - The unit metric has nothing to estimate: only the step size adapts.
 *
 * The metric can instead be estimated from the draws and the gradients of
 * the log density at them (TILDE_METRIC_ADAPTATION_GRADIENTS): the
 * affine scaling that minimises the Fisher divergence between the
 * posterior and a standard normal. For the diagonal metric the inverse
 * metric is sqrt (Var[q_i] / Var[d log p / d q_i]); for the dense one it
 * is the geometric mean S # G^-1 of the draws' covariance S and the
 * inverse of the gradients' G (fisher-metric.h), with G's and S's
 * diagonals raised by 1e-3 * 5 / (n + 5) of themselves after n draws. For
 * a normal posterior either is the (co)variance itself, from a handful
 * of draws, where the draws' (co)variance alone needs hundreds. Its
 * schedule:
 * - the metric starts at 1 / |gradient| of the starting point, then the
 *   step size is searched as in Stan;
 * - every warm-up iteration but the last 15 % adds its draw and gradient
 *   to two estimates, a foreground and a background; when the background
 *   holds 10 draws (in the first 30 % of the warm-up) or 80 (after), it
 *   becomes the foreground and a new background starts, so that the
 *   metric, set from the foreground after every iteration, always rests
 *   on the latest 10 to 20 (80 to 160) draws and early draws far from
 *   the posterior fall out (a dense metric, whose estimate costs two
 *   eigen-decompositions, is set every 10 iterations, which in the first
 *   30 % are those of a fresh foreground of 10 draws; it holds about
 *   14 n^2 numbers a chain, against Stan's 4 n^2);
 * - at the start of the last 15 % the metric is fixed, the step size is
 *   searched again and the dual averaging restarts, as at the end of one
 *   of Stan's windows.
 * The step size adapts by dual averaging throughout, as in Stan.
 */
#pragma once

#include <glib.h>
#include <gsl/gsl_rng.h>

#include "infer/metric.h"
#include "infer/nuts.h"

G_BEGIN_DECLS

/* What the metric is estimated from. */
typedef enum {
  TILDE_METRIC_ADAPTATION_STAN,      /* the draws' (co)variance in Stan's windows */
  TILDE_METRIC_ADAPTATION_GRADIENTS, /* the draws' and the gradients' (co)variances */
} TildeMetricAdaptation;

typedef struct {
  double delta, gamma, kappa, t0;
  guint  init_buffer, term_buffer, window;   /* Stan's windows */
  TildeMetricAdaptation metric_adaptation;
} TildeAdaptOptions;

/* CmdStan's defaults: 0.8, 0.05, 0.75, 10; 75, 50, 25; Stan's windows. */
void   tilde_adapt_options_init (TildeAdaptOptions *options);

/* "stan" or "gradients". */
const char *tilde_metric_adaptation_name  (TildeMetricAdaptation adaptation);
/* FALSE for any other text. */
gboolean    tilde_metric_adaptation_parse (const char *text, TildeMetricAdaptation *adaptation);

/* Dual averaging of the log step size. */
typedef struct {
  double delta, gamma, kappa, t0, mu;
  double counter, s_bar, x_bar;
} TildeStepsizeAdaptation;

void   tilde_stepsize_adaptation_init    (TildeStepsizeAdaptation *a, const TildeAdaptOptions *o);
void   tilde_stepsize_adaptation_restart (TildeStepsizeAdaptation *a);
/* Learns from one transition's accept_stat; returns the next step size. */
double tilde_stepsize_adaptation_learn   (TildeStepsizeAdaptation *a, double accept_stat);
/* The adapted step size, exp(x_bar). */
double tilde_stepsize_adaptation_final   (const TildeStepsizeAdaptation *a);

/* The schedule of metric windows over the warm-up iterations 0, 1, ... */
typedef struct {
  guint num_warmup, init_buffer, term_buffer, base_window;
  guint counter, window_size, next_window;
} TildeAdaptWindows;

/* Plans the windows; returns Stan's warning when the warm-up is too short
 * for the stages as given (newly allocated), or NULL. `estimator` names
 * what is estimated in it ("variance"). */
char    *tilde_adapt_windows_init        (TildeAdaptWindows *w, guint num_warmup, guint init_buffer,
                                          guint term_buffer, guint base_window,
                                          const char *estimator);
/* Whether the current iteration's draw goes into the estimate. */
gboolean tilde_adapt_windows_in_window   (const TildeAdaptWindows *w);
/* Whether the current iteration closes a window. */
gboolean tilde_adapt_windows_end_window  (const TildeAdaptWindows *w);
/* Moves to the next iteration; `ended` says the current one closed a
 * window, which plans the next. */
void     tilde_adapt_windows_advance     (TildeAdaptWindows *w, gboolean ended);

/* Welford's running mean and (co)variance. */
typedef struct {
  gsize    n;
  gboolean dense;
  double   count;
  double  *mean, *m2, *delta;
} TildeWelford;

TildeWelford *tilde_welford_new     (gsize n, gboolean dense);
void          tilde_welford_free    (TildeWelford *w);
void          tilde_welford_restart (TildeWelford *w);
void          tilde_welford_add     (TildeWelford *w, const double *x);
/* The regularised estimate into `out` (n or n x n), which holds the
 * current inverse metric: with fewer than two draws that is what gets
 * regularised, as in Stan. */
void          tilde_welford_regularised (const TildeWelford *w, double *out);

/* Everything one chain adapts. */
typedef struct TildeAdapter TildeAdapter;

/* `warning` (may be NULL) receives the windows' warning, if any. */
TildeAdapter *tilde_adapter_new    (TildeMetric *metric, const TildeAdaptOptions *options,
                                    guint num_warmup, double initial_stepsize, char **warning);
void          tilde_adapter_free   (TildeAdapter *adapter);
/* Before the first step size search, with the chain's starting point in
 * `nuts`: the gradients' adaptation sets the metric from its gradient. */
void          tilde_adapter_start  (TildeAdapter *adapter, TildeNuts *nuts);
/* After each warm-up transition. FALSE with `problem` set when the
 * metric or the step size cannot be adapted (Stan's wording). */
gboolean      tilde_adapter_learn  (TildeAdapter *adapter, TildeNuts *nuts, gsl_rng *rng,
                                    double accept_stat, char **problem);
/* At the end of warm-up: the final step size goes to `nuts`. */
void          tilde_adapter_finish (TildeAdapter *adapter, TildeNuts *nuts);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeWelford, tilde_welford_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeAdapter, tilde_adapter_free)

G_END_DECLS
