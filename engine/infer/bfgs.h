/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Stan's quasi-Newton minimiser, with either a dense inverse Hessian (BFGS)
 * or a limited history of updates (L-BFGS).
 *
 * Each step searches along p = -H g with the Wolfe line search; the first
 * step (and one after a failed search) starts from the steepest descent
 * direction and `init_alpha`, later ones from the minimum of the cubic
 * through the last two points (at most 1). When a search fails with the
 * approximation, H is reset and the search tried once more; a failure
 * after a reset ends the run. After a reset H is scaled by s'y / y'y.
 *
 * Convergence is tested after each step, in this order, each against its
 * tolerance (eps the machine epsilon):
 *   |f_k - f_k-1| < tol_obj                                   TILDE_QN_ABS_F
 *   ||g_k|| < tol_grad                                        TILDE_QN_ABS_GRAD
 *   ||x_k - x_k-1|| < tol_param                               TILDE_QN_ABS_X
 *   k >= max_iterations                                       TILDE_QN_MAX_ITER
 *   |f_k - f_k-1| / max(|f_k-1|, |f_k|, 1) < tol_rel_obj eps  TILDE_QN_REL_F
 *   g_k' H_k g_k / max(|f_k|, 1) < tol_rel_grad eps           TILDE_QN_REL_GRAD
 * where H_k is the inverse Hessian approximation after the update.
 */
#pragma once

#include <glib.h>

#include "infer/linesearch.h"

G_BEGIN_DECLS

/* Stan's termination codes: 0 continues, positive ends normally,
 * negative is an error. */
typedef enum {
  TILDE_QN_LINE_SEARCH_FAILED = -1,
  TILDE_QN_CONTINUE           = 0,
  TILDE_QN_ABS_X              = 10,
  TILDE_QN_ABS_F              = 20,
  TILDE_QN_REL_F              = 21,
  TILDE_QN_ABS_GRAD           = 30,
  TILDE_QN_REL_GRAD           = 31,
  TILDE_QN_MAX_ITER           = 40,
} TildeQnStatus;

typedef struct {
  double init_alpha;     /* 0.001 */
  double tol_obj;        /* 1e-12 */
  double tol_rel_obj;    /* 1e4, times the machine epsilon */
  double tol_grad;       /* 1e-8 */
  double tol_rel_grad;   /* 1e7, times the machine epsilon */
  double tol_param;      /* 1e-8 */
  int    max_iterations; /* 2000 */
  gsize  history_size;   /* 0: dense BFGS; otherwise L-BFGS with this many pairs */
  TildeLineSearchOptions line_search;
} TildeQnOptions;

typedef struct TildeQnMinimizer TildeQnMinimizer;

/* CmdStan's defaults, for dense BFGS. */
void              tilde_qn_options_init (TildeQnOptions *options);

/* The objective must outlive the minimiser. */
TildeQnMinimizer *tilde_qn_new  (TildeObjective *objective, const TildeQnOptions *options);
void              tilde_qn_free (TildeQnMinimizer *qn);

/* Starts at x0; FALSE when the function cannot be evaluated there. */
gboolean          tilde_qn_initialize (TildeQnMinimizer *qn, const double *x0);
/* One iteration; TILDE_QN_CONTINUE until the run ends. */
TildeQnStatus     tilde_qn_step (TildeQnMinimizer *qn);

const double     *tilde_qn_x (const TildeQnMinimizer *qn);
const double     *tilde_qn_gradient (const TildeQnMinimizer *qn);
double            tilde_qn_f (const TildeQnMinimizer *qn);
double            tilde_qn_gradient_norm (const TildeQnMinimizer *qn);
/* The length of the last step. */
double            tilde_qn_step_size (const TildeQnMinimizer *qn);
/* The step factor the last line search took and the one it started from. */
double            tilde_qn_alpha (const TildeQnMinimizer *qn);
double            tilde_qn_alpha0 (const TildeQnMinimizer *qn);
int               tilde_qn_iteration (const TildeQnMinimizer *qn);
/* "" or what was unusual in the last step ("LS failed, Hessian reset"). */
const char       *tilde_qn_note (const TildeQnMinimizer *qn);

/* Stan's words for a termination code ("Convergence detected: relative
 * gradient magnitude is below tolerance"). */
const char       *tilde_qn_status_message (TildeQnStatus status);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeQnMinimizer, tilde_qn_free)

G_END_DECLS
