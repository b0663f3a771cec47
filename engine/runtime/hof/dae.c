/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * dae and dae_tol: F (t, y, y') = 0 for DAEs of index one whose algebraic
 * variables are the components whose derivatives F does not read (the
 * columns of dF/dy' that are zero at the initial point), and for implicit
 * ODEs (no such column). GSL has no DAE solver, so the system is reduced
 * to an ODE in the differential variables y_d: given t and y_d, Newton's
 * method solves F = 0 for y_d' and the algebraic variables y_a (the
 * Jacobian M = [dF/dy_d' dF/dy_a] of that system is invertible exactly
 * when the index is one), and GSL's BDF method integrates y_d' = g (t,
 * y_d). IDAS, which Stan uses, integrates the DAE itself; the solutions
 * agree to the tolerances.
 *
 * Gradients come from forward sensitivities of the reduced system: for a
 * sensitivity s = dy/dp, F_y s + F_y' s' + F_p = 0 gives [s_d'; s_a] =
 * -M^-1 (F_y_d s_d + F_p), integrated with the states. The initial
 * state's differential components have sensitivity columns; its algebraic
 * components and yp0 only start the Newton iterations (a consistent
 * initial state determines them).
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/hof/hof-private.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#define CX (&ev->cx)
#define NEWTON_STEPS 50

typedef struct {
  Ev         *ev;
  const char *name;
  RtCallback  cb;
  int         N, nd, na;
  int        *dif, *alg;   /* the differential and algebraic components */
  int         n_y0, n_par, K;
  double     *y, *yp;      /* the last solution: where Newton starts */
  double     *f, *jac;     /* F and its derivatives: rows of (t, y (N), y' (N), p) */
  double     *M;           /* LU of [dF/dy_d' dF/dy_a] at the last solution */
  int        *piv;
  gboolean    failed;
  gint32      bad_size;
  gboolean    no_root;
  double      t_fail;
  gsl_odeiv2_driver *driver;
} Dae;

static int
n_in (const Dae *d, gboolean params)
{
  return 1 + 2 * d->N + (params ? d->n_par : 0);
}

/* F at (t, y, yp) with its derivatives. */
static gboolean
eval_f (Dae *d, double t, gboolean params)
{
  TildeValue lead[3];
  tilde_value_set_real (&lead[0], t);
  lead[1] = (TildeValue) { .kind = TILDE_VALUE_VECTOR, .rows = d->N, .cols = 1 };
  lead[1].u.d = d->y;
  lead[2] = lead[1];
  lead[2].u.d = d->yp;
  static const gboolean diff[3] = { TRUE, TRUE, TRUE };
  gint32 n;
  if (!rt_callback_eval (&d->cb, lead, 3, diff, params, d->f, d->N, &n, d->jac))
    {
      d->failed = TRUE;
      return FALSE;
    }
  if (n != d->N)
    {
      d->bad_size = n;
      return FALSE;
    }
  return TRUE;
}

/* M = [dF/dy_d' dF/dy_a] from the last evaluation, factorised. */
static gboolean
factor_m (Dae *d, gboolean params)
{
  int N = d->N, w = n_in (d, params);
  for (int i = 0; i < N; i++)
    {
      for (int j = 0; j < d->nd; j++)
        d->M[i + j * N] = d->jac[i * w + 1 + N + d->dif[j]];
      for (int j = 0; j < d->na; j++)
        d->M[i + (d->nd + j) * N] = d->jac[i * w + 1 + d->alg[j]];
    }
  return LAPACKE_dgetrf (LAPACK_COL_MAJOR, N, N, d->M, N, d->piv) == 0;
}

/* Solves F (t, y, y') = 0 for y_d' and y_a, y_d given (in d->y); leaves
 * F's derivatives at the solution in d->jac and M factorised. */
static gboolean
solve_algebraic (Dae *d, double t, gboolean params)
{
  int N = d->N;
  double *r = g_newa (double, N);
  for (int it = 0; it < NEWTON_STEPS; it++)
    {
      if (!eval_f (d, t, FALSE) || !factor_m (d, FALSE))
        break;
      for (int i = 0; i < N; i++)
        r[i] = -d->f[i];
      LAPACKE_dgetrs (LAPACK_COL_MAJOR, 'N', N, 1, d->M, N, d->piv, r, N);
      double step = 0, size = 0;
      for (int j = 0; j < d->nd; j++)
        {
          d->yp[d->dif[j]] += r[j];
          step = fmax (step, fabs (r[j]));
          size = fmax (size, fabs (d->yp[d->dif[j]]));
        }
      for (int j = 0; j < d->na; j++)
        {
          d->y[d->alg[j]] += r[d->nd + j];
          step = fmax (step, fabs (r[d->nd + j]));
          size = fmax (size, fabs (d->y[d->alg[j]]));
        }
      if (step <= 1e-13 * (1 + size))
        /* the derivatives at the solution, parameters included */
        return eval_f (d, t, params) && factor_m (d, params);
    }
  if (!d->failed && d->bad_size < 0)
    {
      d->no_root = TRUE;
      d->t_fail = t;
    }
  return FALSE;
}

/* [s_d'; s_a] for each sensitivity column, from s_d (nd x K). */
static void
sensitivities (Dae *d, const double *sd, double *out, gboolean params)
{
  int N = d->N, w = n_in (d, params);
  for (int k = 0; k < d->K; k++)
    {
      double *v = out + (gsize) k * N;
      for (int i = 0; i < N; i++)
        {
          const double *row = d->jac + (gsize) i * w;
          double acc = 0;
          for (int j = 0; j < d->nd; j++)
            acc += row[1 + d->dif[j]] * sd[k * d->nd + j];
          if (k >= d->n_y0)
            acc += row[1 + 2 * N + (k - d->n_y0)];
          v[i] = -acc;
        }
      LAPACKE_dgetrs (LAPACK_COL_MAJOR, 'N', N, 1, d->M, N, d->piv, v, N);
    }
}

static void
set_state (Dae *d, const double *z)
{
  for (int j = 0; j < d->nd; j++)
    d->y[d->dif[j]] = z[j];
}

static int
rhs (double t, const double z[], double dz[], void *p)
{
  Dae *d = p;
  set_state (d, z);
  if (!solve_algebraic (d, t, d->K > 0))
    return GSL_EBADFUNC;
  for (int j = 0; j < d->nd; j++)
    dz[j] = d->yp[d->dif[j]];
  if (d->K > 0)
    {
      double *s = g_newa (double, (gsize) d->N * d->K);
      sensitivities (d, z + d->nd, s, TRUE);
      for (int k = 0; k < d->K; k++)
        for (int j = 0; j < d->nd; j++)
          dz[d->nd + k * d->nd + j] = s[k * d->N + j];
    }
  return GSL_SUCCESS;
}

static int
jacobian (double t, const double z[], double *dfdy, double dfdt[], void *p)
{
  Dae *d = p;
  int nd = d->nd, N = d->N, M = nd * (1 + d->K);
  set_state (d, z);
  if (!solve_algebraic (d, t, FALSE))
    return GSL_EBADFUNC;
  /* dg/dy_d = -M^-1 F_y_d and dg/dt = -M^-1 F_t (their first nd rows),
   * block-diagonal over the sensitivities */
  int w = n_in (d, FALSE);
  double *b = g_newa (double, (gsize) N * (nd + 1));
  for (int i = 0; i < N; i++)
    {
      for (int j = 0; j < nd; j++)
        b[i + j * N] = -d->jac[i * w + 1 + d->dif[j]];
      b[i + nd * N] = -d->jac[i * w];
    }
  LAPACKE_dgetrs (LAPACK_COL_MAJOR, 'N', N, nd + 1, d->M, N, d->piv, b, N);
  memset (dfdy, 0, sizeof (double) * (gsize) M * (gsize) M);
  memset (dfdt, 0, sizeof (double) * (gsize) M);
  for (int blk = 0; blk <= d->K; blk++)
    for (int i = 0; i < nd; i++)
      for (int j = 0; j < nd; j++)
        dfdy[(gsize) (blk * nd + i) * (gsize) M + (gsize) (blk * nd + j)] = b[i + j * N];
  for (int i = 0; i < nd; i++)
    dfdt[i] = b[i + nd * N];
  return GSL_SUCCESS;
}

static void
dae_free (Dae *d)
{
  rt_callback_clear (&d->cb);
  g_clear_pointer (&d->driver, gsl_odeiv2_driver_free);
}

G_GNUC_NORETURN static void
dae_fail (Dae *d, int status, double t_next)
{
  Ev *ev = d->ev;
  gboolean user = d->failed, no_root = d->no_root;
  gint32 bad = d->bad_size;
  dae_free (d);
  if (user)
    rt_callback_reraise (&d->cb);
  if (bad >= 0)
    rt_raise (CX, TILDE_MODEL_ERROR_INDEX, "%s: residual (%d) and states (%d) must match in size",
              d->name, bad, d->N);
  if (no_root)
    rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: the residual's algebraic equations have no "
              "solution near the state at time %g (is the DAE of index one?)", d->name,
              d->t_fail);
  if (status == GSL_EMAXITER)
    rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: Failed to integrate to next output time (%g) "
              "in less than max_num_steps steps", d->name, t_next);
  rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: the solver failed before time %g (%s)", d->name,
            t_next, gsl_strerror (status));
}

static void
check_finite (Ev *ev, const char *what, const double *x, int n)
{
  for (int i = 0; i < n; i++)
    if (!isfinite (x[i]))
      rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: %s[%d] is %g, but must be finite!",
                CX->fn_name, what, i + 1, x[i]);
}

void
rt_ex_dae (Ev *ev, const Ex *e, TildeValue *out)
{
  gboolean tol = e->op == 1;
  int n_args = e->n_kids, n_fixed = tol ? 7 : 4;
  TildeValue *args = tilde_arena_alloc (CX->arena, sizeof (TildeValue) * (gsize) MAX (n_args, 1));
  for (int i = 0; i < n_args; i++)
    rt_eval (ev, e->kids[i], &args[i]);
  CX->fn_name = e->name;
  const TildeValue *yy0 = &args[0], *yp0 = &args[1];
  int N = tilde_value_flat_size (yy0);
  double rtol = 1e-10, atol = 1e-10;
  gint32 max_steps = 100000000;
  if (tol)
    {
      rtol = rt_scalar (CX, &args[4]);
      atol = rt_scalar (CX, &args[5]);
      max_steps = rt_int (CX, &args[6]);
    }
  if (!(rtol > 0) || !isfinite (rtol))
    rt_domain_error (CX, "relative_tolerance", rtol, "positive finite");
  if (!(atol > 0) || !isfinite (atol))
    rt_domain_error (CX, "absolute_tolerance", atol, "positive finite");
  if (max_steps <= 0)
    rt_domain_error (CX, "max_num_steps", max_steps, "positive");
  if (N == 0)
    rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: initial state has size 0, but must have a "
              "non-zero size", CX->fn_name);
  rt_check_size (CX, "initial state and initial derivatives", tilde_value_flat_size (yp0), N);
  const double *y0x = rt_values (CX, yy0), *yp0x = rt_values (CX, yp0);
  check_finite (ev, "initial state", y0x, N);
  check_finite (ev, "initial state derivative", yp0x, N);
  double t0 = rt_scalar (CX, &args[2]);
  int T = tilde_value_flat_size (&args[3]);
  const double *ts = rt_values (CX, &args[3]);
  if (!isfinite (t0))
    rt_domain_error (CX, "initial time", t0, "finite");
  check_finite (ev, "times", ts, T);
  if (T == 0)
    rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: times has size 0, but must have a non-zero "
              "size", CX->fn_name);
  for (int i = 1; i < T; i++)
    if (ts[i] < ts[i - 1])
      rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: times is not a valid sorted vector. The "
                "element at %d is %g, but should be greater than or equal to the previous "
                "element, %g", CX->fn_name, i + 1, ts[i], ts[i - 1]);
  if (!(t0 < ts[0]))
    rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: initial time is %g, but must be less than %g",
              CX->fn_name, t0, ts[0]);
  for (int i = n_fixed; i < n_args; i++)
    rt_hof_check_finite (CX, "DAE parameters and data", &args[i]);
  gsl_set_error_handler_off ();

  Dae *d = tilde_arena_alloc0 (CX->arena, sizeof (Dae));
  d->ev = ev;
  d->name = e->name;
  d->N = N;
  d->bad_size = -1;
  rt_callback_init (&d->cb, ev, e, args + n_fixed, n_args - n_fixed);
  d->n_par = rt_callback_n_params (&d->cb);
  d->y = rt_alloc_d (CX, (gsize) N);
  d->yp = rt_alloc_d (CX, (gsize) N);
  memcpy (d->y, y0x, sizeof (double) * (gsize) N);
  memcpy (d->yp, yp0x, sizeof (double) * (gsize) N);
  d->f = rt_alloc_d (CX, (gsize) N);
  d->jac = rt_alloc_d (CX, (gsize) N * (gsize) n_in (d, TRUE));
  d->M = rt_alloc_d (CX, (gsize) N * (gsize) N);
  d->piv = tilde_arena_alloc (CX->arena, sizeof (int) * (gsize) N);
  d->dif = tilde_arena_alloc (CX->arena, sizeof (int) * (gsize) N);
  d->alg = tilde_arena_alloc (CX->arena, sizeof (int) * (gsize) N);
  /* the algebraic variables: F does not read their derivatives */
  if (!eval_f (d, t0, FALSE))
    dae_fail (d, GSL_EBADFUNC, ts[0]);
  for (int j = 0; j < N; j++)
    {
      gboolean reads = FALSE;
      for (int i = 0; i < N; i++)
        reads |= d->jac[i * n_in (d, FALSE) + 1 + N + j] != 0;
      if (reads)
        d->dif[d->nd++] = j;
      else
        d->alg[d->na++] = j;
    }
  if (d->nd == 0)
    {
      dae_free (d);
      rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: the residual reads no derivative: the system "
                "is algebraic", CX->fn_name);
    }
  d->n_y0 = yy0->ad ? d->nd : 0;
  d->K = d->n_y0 + d->n_par;
  int nd = d->nd, K = d->K, M = nd * (1 + K);
  double *z = rt_alloc_d (CX, (gsize) M);
  memset (z, 0, sizeof (double) * (gsize) M);
  for (int j = 0; j < nd; j++)
    z[j] = y0x[d->dif[j]];
  for (int j = 0; j < d->n_y0; j++)
    z[nd + j * nd + j] = 1;
  gsl_odeiv2_system sys = { rhs, jacobian, (size_t) M, d };
  double h0 = 1e-6 * fmax (ts[T - 1] - t0, 1e-300);
  d->driver = gsl_odeiv2_driver_alloc_y_new (&sys, gsl_odeiv2_step_msbdf, h0, atol, rtol);
  gsl_odeiv2_driver_set_nmax (d->driver, (unsigned long) max_steps);

  /* the full state and its sensitivities at each output time */
  double *ys = rt_alloc_d (CX, (gsize) N * T), *ss = rt_alloc_d (CX, (gsize) N * K * T + 1);
  double *sa = rt_alloc_d (CX, (gsize) d->na);
  double t = t0;
  for (int j = 0; j < T; j++)
    {
      if (ts[j] > t)
        {
          int status = gsl_odeiv2_driver_apply (d->driver, &t, ts[j], z);
          if (status != GSL_SUCCESS || d->failed || d->bad_size >= 0 || d->no_root)
            dae_fail (d, status, ts[j]);
        }
      set_state (d, z);
      if (!solve_algebraic (d, ts[j], K > 0))
        dae_fail (d, GSL_EBADFUNC, ts[j]);
      memcpy (ys + (gsize) j * N, d->y, sizeof (double) * (gsize) N);
      if (K > 0)
        {
          /* s_d from the integration, s_a from the algebraic equations */
          double *s = ss + (gsize) j * N * K;
          sensitivities (d, z + nd, s, TRUE);
          for (int k = 0; k < K; k++)
            {
              double *col = s + (gsize) k * N;
              for (int q = 0; q < d->na; q++)
                sa[q] = col[nd + q];
              for (int q = 0; q < nd; q++)
                col[d->dif[q]] = z[nd + k * nd + q];
              for (int q = 0; q < d->na; q++)
                col[d->alg[q]] = sa[q];
            }
        }
    }
  gint32 *sens_ids = tilde_arena_alloc (CX->arena, sizeof (gint32) * (gsize) MAX (K, 1));
  for (int j = 0; j < d->n_y0; j++)
    sens_ids[j] = tilde_value_var (yy0, d->dif[j]);
  if (d->n_par)
    memcpy (sens_ids + d->n_y0, d->cb.param_ids, sizeof (gint32) * (gsize) d->n_par);
  dae_free (d);

  TildeValue r = { .kind = TILDE_VALUE_ARRAY, .elem = TILDE_VALUE_VECTOR, .rows = T, .cols = 1 };
  r.u.elems = tilde_arena_alloc (CX->arena, sizeof (TildeValue) * (gsize) T);
  for (int j = 0; j < T; j++)
    {
      TildeValue *v = &r.u.elems[j];
      if (K == 0)
        {
          *v = rt_new_data (CX, TILDE_VALUE_VECTOR, N, 1);
          memcpy (v->u.d, ys + (gsize) j * N, sizeof (double) * (gsize) N);
          continue;
        }
      *v = (TildeValue) { .kind = TILDE_VALUE_VECTOR, .ad = 1, .rows = N, .cols = 1 };
      v->idx = tilde_arena_alloc (CX->arena, sizeof (gint32) * (gsize) N);
      for (int i = 0; i < N; i++)
        {
          double *p = rt_alloc_d (CX, (gsize) K);
          for (int k = 0; k < K; k++)
            p[k] = ss[(gsize) j * N * K + (gsize) k * N + i];
          AdOperand op = { .idx = sens_ids, .n = K, .partial = p };
          v->idx[i] = rt_reduce (CX, ys[(gsize) j * N + i], 1, &op).start;
        }
    }
  *out = r;
}
