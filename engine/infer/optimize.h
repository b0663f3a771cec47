/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Finding a posterior mode as CmdStan's optimize method does.
 *
 * The objective is the log density with the constants that `~` statements
 * drop left out (Stan's propto), and with the log Jacobian of the
 * constraining transforms only when `jacobian` is set: without it the
 * mode is that of the model as written, on the constrained scale; with it
 * the mode on the unconstrained scale (what a Laplace approximation wants).
 * The `lp__` reported is that objective, as CmdStan reports it.
 *
 * L-BFGS (the default) and BFGS are Stan's quasi-Newton minimiser
 * (infer/bfgs.h) with CmdStan's tolerances; Newton is Stan's Newton
 * method (infer/newton.h), which stops when the log density changes by
 * 1e-8 or less. Progress goes to a message callback in CmdStan's words
 * ("Initial log joint probability = ...", the iteration table, the
 * termination message), and the rows CmdStan would write to its output
 * file go to a row callback: the last point, or with `save_iterations`
 * the starting point and every iterate.
 */
#pragma once

#include <gio/gio.h>

#include "runtime/model.h"

G_BEGIN_DECLS

typedef enum {
  TILDE_OPTIMIZE_LBFGS,
  TILDE_OPTIMIZE_BFGS,
  TILDE_OPTIMIZE_NEWTON,
} TildeOptimizeAlgorithm;

typedef struct {
  TildeOptimizeAlgorithm algorithm;
  gboolean jacobian;
  int      iter;             /* 2000 */
  gboolean save_iterations;
  int      refresh;          /* 100: a table line every this many iterations; 0 none */
  double   init_alpha;       /* 0.001 */
  double   tol_obj;          /* 1e-12 */
  double   tol_rel_obj;      /* 1e4 */
  double   tol_grad;         /* 1e-8 */
  double   tol_rel_grad;     /* 1e7 */
  double   tol_param;        /* 1e-8 */
  int      history_size;     /* 5, L-BFGS only */
} TildeOptimizeOptions;

/* CmdStan's defaults. */
void        tilde_optimize_options_init (TildeOptimizeOptions *options);
/* "lbfgs", "bfgs", "newton" */
const char *tilde_optimize_algorithm_name (TildeOptimizeAlgorithm algorithm);
gboolean    tilde_optimize_algorithm_from_name (const char *name, TildeOptimizeAlgorithm *algorithm);

/* One line of console output, without its newline. */
typedef void     (*TildeOptimizeMessageFunc) (const char *line, gpointer user_data);
/* One output row: lp__ and the point on the unconstrained scale. FALSE
 * stops the run (the row could not be written). */
typedef gboolean (*TildeOptimizeRowFunc) (double lp, const double *theta, gpointer user_data);

typedef struct {
  TildeOptimizeMessageFunc message;     /* may be NULL */
  TildeOptimizeRowFunc     row;         /* may be NULL */
  gpointer                 user_data;
  GCancellable            *cancellable; /* may be NULL; checked every iteration */
} TildeOptimizeCallbacks;

typedef enum {
  TILDE_OPTIMIZE_NORMAL,      /* "Optimization terminated normally" */
  TILDE_OPTIMIZE_ERROR,       /* a line search failed, or no Hessian could be had */
  TILDE_OPTIMIZE_CANCELLED,
  TILDE_OPTIMIZE_WRITE_FAILED,
} TildeOptimizeOutcome;

typedef struct {
  TildeOptimizeOutcome outcome;
  int      code;          /* (L-)BFGS: Stan's termination code (infer/bfgs.h) */
  char    *message;       /* why it stopped, in Stan's words */
  double   lp;            /* at the last point */
  double  *theta;         /* the last point, unconstrained */
  int      iterations;
  guint64  gradient_evaluations;
} TildeOptimizeResult;

void     tilde_optimize_result_clear (TildeOptimizeResult *result);

/* Optimises from `theta0` (unconstrained, already checked: see
 * tilde_init_find_with in init.h, without the Jacobian). Returns TRUE when the run terminated normally. */
gboolean tilde_optimize_run (TildeModel                   *model,
                             const double                 *theta0,
                             const TildeOptimizeOptions   *options,
                             const TildeOptimizeCallbacks *callbacks,
                             TildeOptimizeResult          *result);

G_END_DECLS
