/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "infer/bfgs.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "infer/lbfgs.h"

struct TildeQnMinimizer {
  TildeObjective    *objective;
  TildeQnOptions     options;
  gsize              n;
  /* k is the current iterate, k_1 the one before */
  double            *x_k, *x_k1, *g_k, *g_k1, *p_k, *p_k1;
  double             f_k, f_k1;
  double             alpha, alpha0, alpha_k1;
  int                iteration;
  const char        *note;
  double            *h_dense;   /* BFGS: n x n inverse Hessian */
  TildeLbfgsHistory *history;   /* L-BFGS */
  double            *s, *y, *hy;
};

static const char NOTE_RESET[] = "LS failed, Hessian reset";

void
tilde_qn_options_init (TildeQnOptions *o)
{
  o->init_alpha = 1e-3;
  o->tol_obj = 1e-12;
  o->tol_rel_obj = 1e4;
  o->tol_grad = 1e-8;
  o->tol_rel_grad = 1e7;
  o->tol_param = 1e-8;
  o->max_iterations = 2000;
  o->history_size = 0;
  tilde_line_search_options_init (&o->line_search);
}

TildeQnMinimizer *
tilde_qn_new (TildeObjective *objective, const TildeQnOptions *options)
{
  TildeQnMinimizer *qn = g_new0 (TildeQnMinimizer, 1);
  gsize n = objective->n, m = MAX (n, 1);

  qn->objective = objective;
  qn->options = *options;
  qn->n = n;
  qn->x_k = g_new0 (double, m);
  qn->x_k1 = g_new0 (double, m);
  qn->g_k = g_new0 (double, m);
  qn->g_k1 = g_new0 (double, m);
  qn->p_k = g_new0 (double, m);
  qn->p_k1 = g_new0 (double, m);
  qn->s = g_new0 (double, m);
  qn->y = g_new0 (double, m);
  qn->hy = g_new0 (double, m);
  if (options->history_size > 0)
    qn->history = tilde_lbfgs_history_new (n, options->history_size);
  else
    qn->h_dense = g_new0 (double, m * m);
  qn->note = "";
  return qn;
}

void
tilde_qn_free (TildeQnMinimizer *qn)
{
  if (qn == NULL)
    return;
  g_free (qn->x_k);
  g_free (qn->x_k1);
  g_free (qn->g_k);
  g_free (qn->g_k1);
  g_free (qn->p_k);
  g_free (qn->p_k1);
  g_free (qn->s);
  g_free (qn->y);
  g_free (qn->hy);
  g_free (qn->h_dense);
  tilde_lbfgs_history_free (qn->history);
  g_free (qn);
}

static double
dot (const double *a, const double *b, gsize n)
{
  double s = 0.0;
  for (gsize i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

static void
swap (double **a, double **b)
{
  double *t = *a;
  *a = *b;
  *b = t;
}

gboolean
tilde_qn_initialize (TildeQnMinimizer *qn, const double *x0)
{
  memcpy (qn->x_k, x0, sizeof (double) * qn->n);
  if (!tilde_objective_eval (qn->objective, qn->x_k, &qn->f_k, qn->g_k))
    return FALSE;
  for (gsize i = 0; i < qn->n; i++)
    qn->p_k[i] = -qn->g_k[i];
  qn->iteration = 0;
  qn->note = "";
  return TRUE;
}

/* H <- (I - rho s y') H (I - rho y s') + rho s s', expanded so that it
 * costs O(n^2): H - rho (s (Hy)' + (Hy) s') + (rho^2 y'Hy + rho) s s'. */
static void
dense_update (TildeQnMinimizer *qn, const double *s, const double *y, double rho)
{
  gsize n = qn->n;
  double *h = qn->h_dense, *hy = qn->hy, yhy, ss_factor;

  for (gsize i = 0; i < n; i++)
    hy[i] = dot (h + i * n, y, n);
  yhy = dot (y, hy, n);
  ss_factor = rho * rho * yhy + rho;
  for (gsize i = 0; i < n; i++)
    for (gsize j = 0; j < n; j++)
      h[i * n + j] += -rho * (s[i] * hy[j] + hy[i] * s[j]) + ss_factor * s[i] * s[j];
}

/* Updates the approximation with the last step; after a reset it starts
 * from the scaled identity and the scale is returned. */
static double
approximation_update (TildeQnMinimizer *qn, gboolean reset)
{
  gsize n = qn->n;
  double sy, yy, scale = 1.0;

  if (qn->history)
    return tilde_lbfgs_history_update (qn->history, qn->y, qn->s, reset);
  sy = dot (qn->y, qn->s, n);
  yy = dot (qn->y, qn->y, n);
  if (reset)
    {
      scale = yy / sy;
      memset (qn->h_dense, 0, sizeof (double) * n * n);
      for (gsize i = 0; i < n; i++)
        qn->h_dense[i * n + i] = 1.0 / scale;
    }
  dense_update (qn, qn->s, qn->y, 1.0 / sy);
  return scale;
}

static void
search_direction (TildeQnMinimizer *qn)
{
  gsize n = qn->n;

  if (qn->history)
    {
      tilde_lbfgs_history_direction (qn->history, qn->g_k, qn->p_k);
      return;
    }
  for (gsize i = 0; i < n; i++)
    qn->p_k[i] = -dot (qn->h_dense + i * n, qn->g_k, n);
}

/* Runs the line search from x_k along p_k, the result landing in the k_1
 * slots; after a failure with the approximation, retries once from the
 * steepest descent direction. Returns the reset state used (0 none, 1 the
 * first iteration's, 2 after a failure) or -1 when nothing worked. */
static int
search (TildeQnMinimizer *qn)
{
  int reset = qn->iteration == 1 ? 1 : 0;

  for (;;)
    {
      if (reset)
        for (gsize i = 0; i < qn->n; i++)
          qn->p_k[i] = -qn->g_k[i];
      if (qn->iteration > 1 && reset != 2)
        qn->alpha = MIN (1.0, 1.01 * tilde_cubic_interp (dot (qn->g_k1, qn->p_k1, qn->n),
                                                         qn->alpha_k1, qn->f_k - qn->f_k1,
                                                         dot (qn->g_k, qn->p_k1, qn->n),
                                                         qn->options.line_search.min_alpha, 1.0));
      else
        qn->alpha = qn->options.init_alpha;
      qn->alpha0 = qn->alpha;
      if (tilde_wolfe_line_search (qn->objective, &qn->options.line_search, &qn->alpha,
                                   qn->x_k1, &qn->f_k1, qn->g_k1, qn->p_k,
                                   qn->x_k, qn->f_k, qn->g_k))
        return reset;
      if (reset)
        return -1;
      reset = 2;
      qn->note = NOTE_RESET;
    }
}

static TildeQnStatus
convergence (const TildeQnMinimizer *qn, double grad_norm, double step_norm)
{
  const TildeQnOptions *o = &qn->options;
  double change = fabs (qn->f_k1 - qn->f_k);
  double rel_change = change / MAX (fabs (qn->f_k1), MAX (fabs (qn->f_k), 1.0));
  double rel_grad = -dot (qn->p_k, qn->g_k, qn->n) / MAX (fabs (qn->f_k), 1.0);

  if (change < o->tol_obj)
    return TILDE_QN_ABS_F;
  if (grad_norm < o->tol_grad)
    return TILDE_QN_ABS_GRAD;
  if (step_norm < o->tol_param)
    return TILDE_QN_ABS_X;
  if (qn->iteration >= o->max_iterations)
    return TILDE_QN_MAX_ITER;
  if (rel_change < o->tol_rel_obj * DBL_EPSILON)
    return TILDE_QN_REL_F;
  if (rel_grad < o->tol_rel_grad * DBL_EPSILON)
    return TILDE_QN_REL_GRAD;
  return TILDE_QN_CONTINUE;
}

TildeQnStatus
tilde_qn_step (TildeQnMinimizer *qn)
{
  gsize n = qn->n;
  double tmp;
  int reset;

  qn->iteration++;
  qn->note = "";
  reset = search (qn);
  if (reset < 0)
    return TILDE_QN_LINE_SEARCH_FAILED;

  /* the new point becomes the current one */
  tmp = qn->f_k;
  qn->f_k = qn->f_k1;
  qn->f_k1 = tmp;
  swap (&qn->x_k, &qn->x_k1);
  swap (&qn->g_k, &qn->g_k1);
  swap (&qn->p_k, &qn->p_k1);
  for (gsize i = 0; i < n; i++)
    {
      qn->s[i] = qn->x_k[i] - qn->x_k1[i];
      qn->y[i] = qn->g_k[i] - qn->g_k1[i];
    }

  if (reset)
    {
      /* so that the next step's cubic guess sees the scaled problem */
      double scale = approximation_update (qn, TRUE);
      for (gsize i = 0; i < n; i++)
        qn->p_k1[i] /= scale;
      qn->alpha_k1 = qn->alpha * scale;
    }
  else
    {
      approximation_update (qn, FALSE);
      qn->alpha_k1 = qn->alpha;
    }
  search_direction (qn);
  return convergence (qn, sqrt (dot (qn->g_k, qn->g_k, n)), sqrt (dot (qn->s, qn->s, n)));
}

const double *
tilde_qn_x (const TildeQnMinimizer *qn)
{
  return qn->x_k;
}

const double *
tilde_qn_gradient (const TildeQnMinimizer *qn)
{
  return qn->g_k;
}

double
tilde_qn_f (const TildeQnMinimizer *qn)
{
  return qn->f_k;
}

double
tilde_qn_gradient_norm (const TildeQnMinimizer *qn)
{
  return sqrt (dot (qn->g_k, qn->g_k, qn->n));
}

double
tilde_qn_step_size (const TildeQnMinimizer *qn)
{
  return sqrt (dot (qn->p_k1, qn->p_k1, qn->n)) * qn->alpha_k1;
}

double
tilde_qn_alpha (const TildeQnMinimizer *qn)
{
  return qn->alpha;
}

double
tilde_qn_alpha0 (const TildeQnMinimizer *qn)
{
  return qn->alpha0;
}

int
tilde_qn_iteration (const TildeQnMinimizer *qn)
{
  return qn->iteration;
}

const char *
tilde_qn_note (const TildeQnMinimizer *qn)
{
  return qn->note;
}

const char *
tilde_qn_status_message (TildeQnStatus status)
{
  switch (status)
    {
    case TILDE_QN_CONTINUE:
      return "Successful step completed";
    case TILDE_QN_ABS_F:
      return "Convergence detected: absolute change in objective function was below tolerance";
    case TILDE_QN_REL_F:
      return "Convergence detected: relative change in objective function was below tolerance";
    case TILDE_QN_ABS_GRAD:
      return "Convergence detected: gradient norm is below tolerance";
    case TILDE_QN_REL_GRAD:
      return "Convergence detected: relative gradient magnitude is below tolerance";
    case TILDE_QN_ABS_X:
      return "Convergence detected: absolute parameter change was below tolerance";
    case TILDE_QN_MAX_ITER:
      return "Maximum number of iterations hit, may not be at an optima";
    case TILDE_QN_LINE_SEARCH_FAILED:
      return "Line search failed to achieve a sufficient decrease, no more progress can be made";
    }
  return "Unknown termination code";
}
