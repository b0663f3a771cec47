/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "infer/optimize.h"

#include <math.h>
#include <string.h>

#include "infer/bfgs.h"
#include "infer/newton.h"

/* Newton stops when the log density moves by no more than this. */
#define NEWTON_TOLERANCE 1e-8
#define NEWTON_NO_HESSIAN "The Hessian could not be computed: the log density cannot be " \
                          "evaluated near the current point"

void
tilde_optimize_options_init (TildeOptimizeOptions *o)
{
  o->algorithm = TILDE_OPTIMIZE_LBFGS;
  o->jacobian = FALSE;
  o->iter = 2000;
  o->save_iterations = FALSE;
  o->refresh = 100;
  o->init_alpha = 1e-3;
  o->tol_obj = 1e-12;
  o->tol_rel_obj = 1e4;
  o->tol_grad = 1e-8;
  o->tol_rel_grad = 1e7;
  o->tol_param = 1e-8;
  o->history_size = 5;
}

static const char *const algorithm_names[] = { "lbfgs", "bfgs", "newton" };

const char *
tilde_optimize_algorithm_name (TildeOptimizeAlgorithm algorithm)
{
  g_return_val_if_fail ((guint) algorithm < G_N_ELEMENTS (algorithm_names), NULL);
  return algorithm_names[algorithm];
}

gboolean
tilde_optimize_algorithm_from_name (const char *name, TildeOptimizeAlgorithm *algorithm)
{
  for (guint i = 0; i < G_N_ELEMENTS (algorithm_names); i++)
    if (g_strcmp0 (name, algorithm_names[i]) == 0)
      {
        *algorithm = (TildeOptimizeAlgorithm) i;
        return TRUE;
      }
  return FALSE;
}

void
tilde_optimize_result_clear (TildeOptimizeResult *result)
{
  g_clear_pointer (&result->message, g_free);
  g_clear_pointer (&result->theta, g_free);
}

/* The minimisers see -lp; what the model says while they probe is kept
 * and printed after the iteration's line, as CmdStan does. */
typedef struct {
  TildeModel                   *model;
  gboolean                      jacobian;
  gsize                         n;
  GString                      *said;
  const TildeOptimizeCallbacks *callbacks;
} Run;

static gboolean
negative_log_density (const double *x, double *f, double *gradient, gpointer user_data)
{
  Run *run = user_data;
  g_autoptr (TildeModelError) error = NULL;
  double lp = tilde_model_log_density (run->model, x, TRUE, run->jacobian, gradient, &error);

  if (error != NULL)
    {
      g_autofree char *described = tilde_model_error_describe (error);
      g_string_append_printf (run->said, "%s\n", described);
      return FALSE;
    }
  for (gsize i = 0; i < run->n; i++)
    {
      if (!isfinite (gradient[i]))
        {
          g_string_append (run->said, "Error evaluating model log probability: Non-finite gradient.\n");
          return FALSE;
        }
      gradient[i] = -gradient[i];
    }
  *f = -lp;
  if (!isfinite (*f))
    {
      g_string_append (run->said, "Error evaluating model log probability: Non-finite function evaluation.\n");
      return FALSE;
    }
  return TRUE;
}

static void
say (const Run *run, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
say (const Run *run, const char *format, ...)
{
  g_autofree char *line = NULL;
  va_list ap;

  if (run->callbacks->message == NULL)
    return;
  va_start (ap, format);
  line = g_strdup_vprintf (format, ap);
  va_end (ap);
  run->callbacks->message (line, run->callbacks->user_data);
}

/* Hands on what the model said, line by line. */
static void
flush_said (Run *run)
{
  g_auto (GStrv) lines = NULL;

  if (run->said->len == 0)
    return;
  if (run->said->str[run->said->len - 1] == '\n')
    g_string_truncate (run->said, run->said->len - 1);
  lines = g_strsplit (run->said->str, "\n", -1);
  for (char **l = lines; *l; l++)
    say (run, "%s", *l);
  g_string_truncate (run->said, 0);
}

static gboolean
emit_row (const Run *run, double lp, const double *theta)
{
  return run->callbacks->row == NULL
         || run->callbacks->row (lp, theta, run->callbacks->user_data);
}

static gboolean
cancelled (const Run *run)
{
  return g_cancellable_is_cancelled (run->callbacks->cancellable);
}

static void
finish (TildeOptimizeResult *result, TildeOptimizeOutcome outcome, const char *message,
        double lp, const double *theta, gsize n)
{
  result->outcome = outcome;
  result->message = g_strdup (message);
  result->lp = lp;
  result->theta = g_memdup2 (theta, sizeof (double) * MAX (n, 1));
}

static gboolean
table_line_due (int iteration, int refresh)
{
  return refresh > 0 && (iteration == 0 || (iteration + 1) % refresh == 0);
}

static void
say_table_row (const Run *run, const TildeQnMinimizer *qn, double lp, guint64 evaluations)
{
  say (run, " %7d  %12g  %12g  %12g  %10.4g  %10.4g  %7" G_GUINT64_FORMAT "  %s ",
       tilde_qn_iteration (qn), lp, tilde_qn_step_size (qn), tilde_qn_gradient_norm (qn),
       tilde_qn_alpha (qn), tilde_qn_alpha0 (qn), evaluations, tilde_qn_note (qn));
}

static gboolean
run_quasi_newton (Run *run, TildeObjective *objective, const double *theta0,
                  const TildeOptimizeOptions *options, TildeOptimizeResult *result)
{
  TildeQnOptions qn_options;
  g_autoptr (TildeQnMinimizer) qn = NULL;
  TildeQnStatus status = TILDE_QN_CONTINUE;
  double lp;

  tilde_qn_options_init (&qn_options);
  qn_options.init_alpha = options->init_alpha;
  qn_options.tol_obj = options->tol_obj;
  qn_options.tol_rel_obj = options->tol_rel_obj;
  qn_options.tol_grad = options->tol_grad;
  qn_options.tol_rel_grad = options->tol_rel_grad;
  qn_options.tol_param = options->tol_param;
  qn_options.max_iterations = options->iter;
  qn_options.history_size = options->algorithm == TILDE_OPTIMIZE_LBFGS
                            ? (gsize) MAX (options->history_size, 1) : 0;
  qn = tilde_qn_new (objective, &qn_options);
  if (!tilde_qn_initialize (qn, theta0))
    {
      flush_said (run);
      finish (result, TILDE_OPTIMIZE_ERROR, "Error evaluating initial BFGS point.", NAN, theta0,
              run->n);
      return FALSE;
    }
  lp = -tilde_qn_f (qn);
  say (run, "Initial log joint probability = %g", lp);
  flush_said (run);
  if (options->save_iterations && !emit_row (run, lp, tilde_qn_x (qn)))
    goto write_failed;

  while (status == TILDE_QN_CONTINUE)
    {
      if (cancelled (run))
        {
          finish (result, TILDE_OPTIMIZE_CANCELLED, "Optimization cancelled", lp, tilde_qn_x (qn),
                  run->n);
          result->iterations = tilde_qn_iteration (qn);
          return FALSE;
        }
      if (table_line_due (tilde_qn_iteration (qn), options->refresh))
        say (run, "    Iter      log prob        ||dx||      ||grad||       alpha      alpha0"
                  "  # evals  Notes ");
      status = tilde_qn_step (qn);
      lp = -tilde_qn_f (qn);
      if (options->refresh > 0
          && (status != TILDE_QN_CONTINUE || tilde_qn_note (qn)[0] != '\0'
              || table_line_due (tilde_qn_iteration (qn), options->refresh)))
        say_table_row (run, qn, lp, objective->evaluations);
      flush_said (run);
      if (options->save_iterations && !emit_row (run, lp, tilde_qn_x (qn)))
        goto write_failed;
    }
  if (!options->save_iterations && !emit_row (run, lp, tilde_qn_x (qn)))
    goto write_failed;

  say (run, status > 0 ? "Optimization terminated normally: " : "Optimization terminated with error: ");
  say (run, "  %s", tilde_qn_status_message (status));
  finish (result, status > 0 ? TILDE_OPTIMIZE_NORMAL : TILDE_OPTIMIZE_ERROR,
          tilde_qn_status_message (status), lp, tilde_qn_x (qn), run->n);
  result->code = status;
  result->iterations = tilde_qn_iteration (qn);
  return status > 0;

write_failed:
  finish (result, TILDE_OPTIMIZE_WRITE_FAILED, "The output could not be written", lp,
          tilde_qn_x (qn), run->n);
  result->iterations = tilde_qn_iteration (qn);
  return FALSE;
}

static gboolean
run_newton (Run *run, TildeObjective *objective, const double *theta0,
            const TildeOptimizeOptions *options, TildeOptimizeResult *result)
{
  g_autofree double *x = g_memdup2 (theta0, sizeof (double) * MAX (run->n, 1));
  g_autoptr (TildeModelError) error = NULL;
  gboolean converged = FALSE;
  double lp, f;
  int m;

  /* CmdStan reports the starting point's density with every constant */
  lp = tilde_model_log_density (run->model, x, FALSE, run->jacobian, NULL, &error);
  if (error != NULL || !isfinite (lp))
    lp = -INFINITY;
  say (run, "Initial log joint probability = %g", lp);

  for (m = 0; m < options->iter && !converged; m++)
    {
      double last_lp = lp;

      if (options->save_iterations && !emit_row (run, lp, x))
        goto write_failed;
      if (cancelled (run))
        {
          finish (result, TILDE_OPTIMIZE_CANCELLED, "Optimization cancelled", lp, x, run->n);
          result->iterations = m;
          return FALSE;
        }
      if (tilde_newton_step (objective, x, &f) == TILDE_NEWTON_FAILED)
        {
          flush_said (run);
          say (run, "Optimization terminated with error: ");
          say (run, "  %s", NEWTON_NO_HESSIAN);
          finish (result, TILDE_OPTIMIZE_ERROR, NEWTON_NO_HESSIAN, lp, x, run->n);
          result->iterations = m;
          return FALSE;
        }
      /* trial steps that fail are part of how Newton works: not news */
      g_string_truncate (run->said, 0);
      lp = -f;
      say (run, "Iteration %2d. Log joint probability = %10g. Improved by %g.", m + 1, lp,
           lp - last_lp);
      converged = fabs (lp - last_lp) <= NEWTON_TOLERANCE;
    }
  if (!emit_row (run, lp, x))
    goto write_failed;
  finish (result, TILDE_OPTIMIZE_NORMAL,
          converged ? "Convergence detected: the log density changed by 1e-08 or less"
                    : "Maximum number of iterations hit, may not be at an optima", lp, x, run->n);
  result->iterations = m;
  return TRUE;

write_failed:
  finish (result, TILDE_OPTIMIZE_WRITE_FAILED, "The output could not be written", lp, x, run->n);
  result->iterations = m;
  return FALSE;
}

gboolean
tilde_optimize_run (TildeModel *model, const double *theta0, const TildeOptimizeOptions *options,
                    const TildeOptimizeCallbacks *callbacks, TildeOptimizeResult *result)
{
  static const TildeOptimizeCallbacks none = { 0 };
  Run run = {
    .model = model,
    .jacobian = options->jacobian,
    .n = tilde_model_num_params_unconstrained (model),
    .said = g_string_new (NULL),
    .callbacks = callbacks ? callbacks : &none,
  };
  TildeObjective objective = { .n = run.n, .func = negative_log_density, .user_data = &run };
  gboolean ok;

  memset (result, 0, sizeof *result);
  if (options->algorithm == TILDE_OPTIMIZE_NEWTON)
    ok = run_newton (&run, &objective, theta0, options, result);
  else
    ok = run_quasi_newton (&run, &objective, theta0, options, result);
  result->gradient_evaluations = objective.evaluations;
  g_string_free (run.said, TRUE);
  return ok;
}
