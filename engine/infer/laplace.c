/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "infer/laplace.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_randist.h>

#include "infer/newton.h"

typedef struct {
  TildeModel *model;
  gboolean    jacobian;
  gsize       n;
  char       *problem;
} Density;

static gboolean
negative_log_density (const double *x, double *f, double *gradient, gpointer user_data)
{
  Density *d = user_data;
  g_autoptr (TildeModelError) error = NULL;
  double lp = tilde_model_log_density (d->model, x, TRUE, d->jacobian, gradient, &error);

  if (error != NULL)
    {
      if (d->problem == NULL)
        d->problem = tilde_model_error_describe (error);
      return FALSE;
    }
  *f = -lp;
  for (gsize i = 0; i < d->n; i++)
    gradient[i] = -gradient[i];
  return TRUE;
}

gboolean
tilde_laplace_hessian (TildeModel *model, const double *theta, gboolean jacobian, double *hessian,
                       GError **error)
{
  Density d = { model, jacobian, tilde_model_num_params_unconstrained (model), NULL };
  TildeObjective objective = { .n = d.n, .func = negative_log_density, .user_data = &d };
  gboolean ok = tilde_hessian_central (&objective, theta, hessian);

  if (!ok)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                 "The Hessian at the mode could not be computed: %s",
                 d.problem ? d.problem : "the log density or its gradient is not finite near the mode");
  else
    for (gsize i = 0; i < d.n * d.n; i++)
      hessian[i] = -hessian[i];
  g_free (d.problem);
  return ok;
}

static void
say (TildeOptimizeMessageFunc message, gpointer user_data, const char *format, ...)
  G_GNUC_PRINTF (3, 4);

static void
say (TildeOptimizeMessageFunc message, gpointer user_data, const char *format, ...)
{
  g_autofree char *line = NULL;
  va_list ap;

  if (message == NULL)
    return;
  va_start (ap, format);
  line = g_strdup_vprintf (format, ap);
  va_end (ap);
  message (line, user_data);
}

/* The lower Cholesky factor of -H in place (gsl keeps it in the lower
 * triangle); FALSE when -H is not positive definite. */
static gboolean
factor_negative_hessian (gsl_matrix *m)
{
  gsl_error_handler_t *saved = gsl_set_error_handler_off ();
  int status;

  gsl_matrix_scale (m, -1.0);
  status = gsl_linalg_cholesky_decomp1 (m);
  gsl_set_error_handler (saved);
  return status == GSL_SUCCESS;
}

typedef struct {
  TildeModel *model;
  gboolean    jacobian;
  gsize       n, n_out;
  gsl_rng    *rng;
  const double *mode;
  const double *hessian;
  double     *row;
  double     *diff;
} Drawer;

/* log_p__, log_q__ and the outputs of the draw at theta. */
static void
fill_row (Drawer *d, const double *theta, TildeOptimizeMessageFunc message, gpointer user_data)
{
  g_autoptr (TildeModelError) lp_error = NULL;
  g_autoptr (TildeModelError) out_error = NULL;
  double log_p, quad = 0.0;

  log_p = tilde_model_log_density (d->model, theta, TRUE, d->jacobian, NULL, &lp_error);
  if (lp_error != NULL)
    {
      g_autofree char *described = tilde_model_error_describe (lp_error);
      say (message, user_data, "%s", described);
      log_p = -INFINITY;
    }
  for (gsize i = 0; i < d->n; i++)
    d->diff[i] = theta[i] - d->mode[i];
  for (gsize i = 0; i < d->n; i++)
    for (gsize j = 0; j < d->n; j++)
      quad += d->diff[i] * d->hessian[i * d->n + j] * d->diff[j];
  d->row[0] = log_p;
  d->row[1] = 0.5 * quad;
  if (!tilde_model_constrain (d->model, theta, TRUE, TRUE, d->rng, d->row + 2, &out_error))
    {
      g_autofree char *described = tilde_model_error_describe (out_error);
      say (message, user_data, "%s", described);
      for (gsize k = 0; k < d->n_out; k++)
        d->row[2 + k] = NAN;
    }
}

gboolean
tilde_laplace_sample (TildeModel *model, const double *mode, gboolean jacobian, int draws,
                      int refresh, gsl_rng *rng, TildeLaplaceDrawFunc draw,
                      TildeOptimizeMessageFunc message, gpointer user_data,
                      GCancellable *cancellable, GError **error)
{
  gsize n = tilde_model_num_params_unconstrained (model), m = MAX (n, 1);
  gsize n_out = tilde_model_num_outputs (model, TRUE, TRUE);
  g_autofree double *hessian = g_new0 (double, m * m);
  g_autofree double *row = g_new0 (double, 2 + n_out);
  g_autofree double *diff = g_new0 (double, m);
  g_autofree double *theta = g_new0 (double, m);
  gsl_matrix *factor = gsl_matrix_alloc (m, m);
  gsl_vector *z = gsl_vector_alloc (m);
  Drawer d = { model, jacobian, n, n_out, rng, mode, NULL, row, diff };
  gboolean ok = TRUE;

  if (refresh > 0)
    say (message, user_data, "Calculating Hessian");
  if (!tilde_laplace_hessian (model, mode, jacobian, hessian, error))
    {
      ok = FALSE;
      goto out;
    }
  d.hessian = hessian;
  if (refresh > 0)
    say (message, user_data, "Calculating inverse of Cholesky factor");
  gsl_matrix_set_identity (factor);
  if (n > 0)
    memcpy (factor->data, hessian, sizeof (double) * n * n);
  if (n > 0 && !factor_negative_hessian (factor))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                           "The negative Hessian at the mode is not positive definite: the mode "
                           "is not a maximum, or the posterior is improper there");
      ok = FALSE;
      goto out;
    }
  if (refresh > 0)
    say (message, user_data, "Generating draws");
  for (int k = 0; k < draws && ok; k++)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          ok = FALSE;
          break;
        }
      if (refresh > 0 && k % refresh == 0)
        say (message, user_data, "iteration: %d", k);
      for (gsize i = 0; i < n; i++)
        gsl_vector_set (z, i, gsl_ran_gaussian (rng, 1.0));
      /* L' u = z gives u with covariance (L L')^-1 = (-H)^-1 */
      if (n > 0)
        gsl_blas_dtrsv (CblasLower, CblasTrans, CblasNonUnit, factor, z);
      for (gsize i = 0; i < n; i++)
        theta[i] = mode[i] + gsl_vector_get (z, i);
      fill_row (&d, theta, message, user_data);
      if (draw != NULL && !draw (row, 2 + n_out, theta, user_data))
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                               "The Laplace draws could not be written");
          ok = FALSE;
        }
    }
out:
  gsl_vector_free (z);
  gsl_matrix_free (factor);
  return ok;
}
