/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The algebraic solvers, on GSL's multiroots with the Jacobian from nested
 * sweeps: solve_powell and algebra_solver on the hybrid Powell method
 * (hybridsj), solve_newton and algebra_solver_newton on the globally
 * convergent Newton method (gnewton, a line search like KINSOL's). The
 * iteration stops when a step is relatively smaller than the tolerance
 * (Powell's relative_tolerance; for Newton the smaller of scaling_step and
 * 1e-10) or the function vanishes; the root is then accepted when the norm of f is within the
 * function tolerance, as Stan requires.
 *
 * The derivative of the root x with respect to the parameters theta
 * (the trailing arguments' variables) follows from the implicit function
 * theorem: f (x (theta), theta) = 0 gives dx/dtheta = -J_x^-1 J_theta.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/hof/hof-private.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multiroots.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#define CX (&ev->cx)

typedef struct {
  Ev         *ev;
  const char *name;
  RtCallback  cb;
  gboolean    old;        /* algebra_solver*: f (x, y, dat, dat_int) */
  int         N;
  double     *f, *jac;    /* scratch: f (N), J (N x (N + params)) */
  gboolean    failed;
  gint32      bad_size;
  gsl_multiroot_fdfsolver *solver;
} Alg;

static gboolean
eval_f (Alg *a, const double *x, gboolean with_jac, gboolean params)
{
  TildeValue lead = { .kind = TILDE_VALUE_VECTOR, .rows = a->N, .cols = 1 };
  lead.u.d = (double *) x;
  static const gboolean diff[1] = { TRUE };
  gint32 n;
  if (!rt_callback_eval (&a->cb, &lead, 1, with_jac ? diff : NULL, params, a->f, a->N, &n,
                         with_jac ? a->jac : NULL))
    {
      a->failed = TRUE;
      return FALSE;
    }
  if (n != a->N)
    {
      a->bad_size = n;
      return FALSE;
    }
  return TRUE;
}

static int
alg_f (const gsl_vector *x, void *p, gsl_vector *f)
{
  Alg *a = p;
  if (!eval_f (a, x->data, FALSE, FALSE))
    return GSL_EBADFUNC;
  for (int i = 0; i < a->N; i++)
    gsl_vector_set (f, (size_t) i, a->f[i]);
  return GSL_SUCCESS;
}

static int
alg_df (const gsl_vector *x, void *p, gsl_matrix *J)
{
  Alg *a = p;
  if (!eval_f (a, x->data, TRUE, FALSE))
    return GSL_EBADFUNC;
  for (int i = 0; i < a->N; i++)
    for (int j = 0; j < a->N; j++)
      gsl_matrix_set (J, (size_t) i, (size_t) j, a->jac[i * a->N + j]);
  return GSL_SUCCESS;
}

static int
alg_fdf (const gsl_vector *x, void *p, gsl_vector *f, gsl_matrix *J)
{
  Alg *a = p;
  if (!eval_f (a, x->data, TRUE, FALSE))
    return GSL_EBADFUNC;
  for (int i = 0; i < a->N; i++)
    {
      gsl_vector_set (f, (size_t) i, a->f[i]);
      for (int j = 0; j < a->N; j++)
        gsl_matrix_set (J, (size_t) i, (size_t) j, a->jac[i * a->N + j]);
    }
  return GSL_SUCCESS;
}

static void
alg_free (Alg *a)
{
  rt_callback_clear (&a->cb);
  g_clear_pointer (&a->solver, gsl_multiroot_fdfsolver_free);
}

G_GNUC_NORETURN static void
alg_fail_user (Alg *a)
{
  Ev *ev = a->ev;
  gboolean user = a->failed;
  gint32 bad = a->bad_size;
  alg_free (a);
  if (user)
    rt_callback_reraise (&a->cb);
  rt_raise (CX, TILDE_MODEL_ERROR_INDEX, "%s: size of the algebraic system's output (%d) and "
            "size of the vector of unknowns, x, (%d) must match in size", a->name, bad, a->N);
}

static void
check_positive (Ev *ev, const char *what, double x)
{
  if (!(x > 0) || !isfinite (x))
    rt_domain_error (CX, what, x, "positive");
}

void
rt_ex_algebra (Ev *ev, const Ex *e, TildeValue *out)
{
  gboolean newton = e->op & 1, old = (e->op & 2) != 0, tol = (e->op & 4) != 0;
  int n_args = e->n_kids;
  TildeValue *args = tilde_arena_alloc (CX->arena, sizeof (TildeValue) * (gsize) MAX (n_args, 1));
  for (int i = 0; i < n_args; i++)
    rt_eval (ev, e->kids[i], &args[i]);
  CX->fn_name = e->name;
  const TildeValue *guess = &args[0];
  int N = tilde_value_flat_size (guess);
  double step_tol = newton ? 1e-3 : 1e-10, f_tol = 1e-6;
  gint32 max_steps = 200;
  const TildeValue *rest;
  int n_rest;
  if (old)
    {
      /* algebra_solver (f, x, y, dat, dat_int [, rel_tol, f_tol, max_steps]) */
      rest = args + 1;
      n_rest = 3;
      if (n_args > 4)
        {
          step_tol = rt_scalar (CX, &args[4]);
          f_tol = rt_scalar (CX, &args[5]);
          max_steps = (gint32) fmin (rt_scalar (CX, &args[6]), G_MAXINT32);
        }
    }
  else
    {
      int fixed = tol ? 4 : 1;
      if (tol)
        {
          step_tol = rt_scalar (CX, &args[1]);
          f_tol = rt_scalar (CX, &args[2]);
          max_steps = rt_int (CX, &args[3]);
        }
      rest = args + fixed;
      n_rest = n_args - fixed;
    }
  check_positive (ev, newton ? "scaling_step_size" : "relative_tolerance", step_tol);
  check_positive (ev, "function_tolerance", f_tol);
  if (max_steps <= 0)
    rt_domain_error (CX, "max_num_steps", max_steps, "positive");
  if (N == 0)
    rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: initial guess has size 0, but must have a "
              "non-zero size", CX->fn_name);
  const double *x0 = rt_values (CX, guess);
  for (int i = 0; i < N; i++)
    if (!isfinite (x0[i]))
      rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: initial guess[%d] is %g, but must be finite!",
                CX->fn_name, i + 1, x0[i]);
  for (int i = 0; i < n_rest; i++)
    rt_hof_check_finite (CX, old ? (i == 0 ? "parameter vector" : "continuous data")
                         : "parameter and data", &rest[i]);
  gsl_set_error_handler_off ();

  Alg *a = tilde_arena_alloc0 (CX->arena, sizeof (Alg));
  a->ev = ev;
  a->name = e->name;
  a->old = old;
  a->N = N;
  a->bad_size = -1;
  rt_callback_init (&a->cb, ev, e, rest, n_rest);
  gint32 K = rt_callback_n_params (&a->cb);
  a->f = rt_alloc_d (CX, (gsize) N);
  a->jac = rt_alloc_d (CX, (gsize) N * (gsize) (N + K));
  gsl_multiroot_function_fdf fdf = { alg_f, alg_df, alg_fdf, (size_t) N, a };
  a->solver = gsl_multiroot_fdfsolver_alloc (newton ? gsl_multiroot_fdfsolver_gnewton
                                             : gsl_multiroot_fdfsolver_hybridsj, (size_t) N);
  gsl_vector_const_view start = gsl_vector_const_view_array (x0, (size_t) N);
  int status = gsl_multiroot_fdfsolver_set (a->solver, &fdf, &start.vector);
  gint32 iter = 0;
  gboolean converged = FALSE;
  /* Newton converges fast enough near a root that the few steps past the
   * scaling step's accuracy cost little and give the gradient its digits */
  double delta_tol = newton ? fmin (step_tol, 1e-10) : step_tol;
  while (status == GSL_SUCCESS && iter < max_steps)
    {
      if (gsl_multiroot_test_residual (a->solver->f, 0) == GSL_SUCCESS)
        {
          converged = TRUE;
          break;
        }
      iter++;
      status = gsl_multiroot_fdfsolver_iterate (a->solver);
      if (status == GSL_SUCCESS
          && gsl_multiroot_test_delta (a->solver->dx, a->solver->x, 0, delta_tol) == GSL_SUCCESS)
        converged = TRUE;
      if (converged)
        break;
    }
  if (a->failed || a->bad_size >= 0)
    alg_fail_user (a);
  double *x = rt_alloc_d (CX, (gsize) N);
  memcpy (x, a->solver->x->data, sizeof (double) * (gsize) N);
  double norm = 0;
  for (int i = 0; i < N; i++)
    norm += a->solver->f->data[i] * a->solver->f->data[i];
  norm = sqrt (norm);
  /* the Jacobians at the root, for the implicit function theorem */
  gboolean jac_ok = TRUE;
  if (K > 0 && (converged || norm <= f_tol))
    jac_ok = eval_f (a, x, TRUE, TRUE);
  if (!jac_ok)
    alg_fail_user (a);
  alg_free (a);
  if (!converged && iter >= max_steps && !(norm <= f_tol))
    rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: max number of iterations: %d exceeded.",
              e->name, max_steps);
  if (!(norm <= f_tol))
    rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: the norm of the algebraic function is: %g but "
              "should be lower than the function tolerance: %g. Consider decreasing the "
              "relative tolerance and increasing max_num_steps.", e->name, norm, f_tol);
  if (K == 0)
    {
      TildeValue r = rt_new_data (CX, TILDE_VALUE_VECTOR, N, 1);
      memcpy (r.u.d, x, sizeof (double) * (gsize) N);
      *out = r;
      return;
    }
  /* dx/dtheta = -J_x^-1 J_theta: J (N x (N + K), row-major) split */
  int n_in = N + K;
  double *jx = rt_alloc_d (CX, (gsize) N * (gsize) N);
  double *jt = rt_alloc_d (CX, (gsize) N * (gsize) K);
  for (int i = 0; i < N; i++)
    {
      for (int j = 0; j < N; j++)
        jx[i + j * N] = a->jac[i * n_in + j];
      for (int k = 0; k < K; k++)
        jt[i + k * N] = -a->jac[i * n_in + N + k];
    }
  int *piv = tilde_arena_alloc (CX->arena, sizeof (int) * (gsize) N);
  if (LAPACKE_dgesv (LAPACK_COL_MAJOR, N, K, jx, N, piv, jt, N) != 0)
    rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: the Jacobian of the algebraic system is "
              "singular at the root", e->name);
  TildeValue r = { .kind = TILDE_VALUE_VECTOR, .ad = 1, .rows = N, .cols = 1 };
  r.idx = tilde_arena_alloc (CX->arena, sizeof (gint32) * (gsize) N);
  for (int i = 0; i < N; i++)
    {
      double *p = rt_alloc_d (CX, (gsize) K);
      for (int k = 0; k < K; k++)
        p[k] = jt[i + k * N];
      AdOperand op = { .idx = a->cb.param_ids, .n = K, .partial = p };
      r.idx[i] = rt_reduce (CX, x[i], 1, &op).start;
    }
  *out = r;
}
