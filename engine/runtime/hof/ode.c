/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The ODE solvers, on GSL's odeiv2: ode_rk45 on the Prince-Dormand 8(9)
 * pair, ode_ckrk on Cash-Karp, ode_adams on the multistep Adams method and
 * ode_bdf on the multistep BDF method (with the Jacobian of the user's
 * function from nested sweeps); the _tol forms and the old
 * integrate_ode_* functions likewise. ode_adjoint_tol_ctl solves forward
 * with the solver its solver_f names (Adams or BDF) and its forward
 * tolerances; its result and gradient are those of the adjoint method,
 * reached another way.
 *
 * Gradients come from forward sensitivities: the system is solved
 * together with S = dy/dp for every autodiff input p (the initial state,
 * the parameters among the trailing arguments, the initial time),
 * dS/dt = J_y S + J_p, S(t0) = I for the initial state, 0 for the
 * parameters and -f(t0, y0) for the initial time; an output time that is
 * a variable gets f(t, y(t)). Error control covers the sensitivities too.
 * BDF's Newton iteration uses the block-diagonal Jacobian that leaves out
 * the second derivatives, as CVODES does for sensitivities.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/hof/hof-private.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <math.h>
#include <string.h>

#define CX (&ev->cx)

typedef struct {
  Ev         *ev;
  const char *name;
  RtCallback  cb;
  gboolean    old;         /* integrate_ode_*: states are arrays */
  int         N;           /* states */
  int         K;           /* sensitivity columns: initial state, parameters, initial time */
  int         n_y0, n_par, n_t0;
  double     *f, *jac;     /* scratch: f (N), its Jacobian (N x (1 + N + n_par)) */
  gboolean    failed;      /* the user's function raised an error */
  gint32      bad_size;    /* the size f returned, when not N */
  gsl_odeiv2_driver *driver;
} Ode;

/* ---- the system ---- */

static void
state_value (Ode *o, const double *y, TildeValue *v)
{
  *v = (TildeValue) { .kind = o->old ? TILDE_VALUE_ARRAY : TILDE_VALUE_VECTOR,
                      .elem = o->old ? TILDE_VALUE_REAL : 0, .rows = o->N, .cols = 1 };
  v->u.d = (double *) y;
}

/* f (t, y) and, with `with_jac`, its derivatives in t, y and the
 * parameters (when `params`): o->jac[i * n_in + j], inputs (t, y, p). */
static gboolean
eval_f (Ode *o, double t, const double *y, gboolean with_jac, gboolean params)
{
  TildeValue lead[2];
  tilde_value_set_real (&lead[0], t);
  state_value (o, y, &lead[1]);
  static const gboolean diff[2] = { TRUE, TRUE };
  gint32 n;
  if (!rt_callback_eval (&o->cb, lead, 2, with_jac ? diff : NULL, with_jac && params, o->f, o->N,
                         &n, with_jac ? o->jac : NULL))
    {
      o->failed = TRUE;
      return FALSE;
    }
  if (n != o->N)
    {
      o->bad_size = n;
      return FALSE;
    }
  return TRUE;
}

static int
rhs (double t, const double z[], double dz[], void *p)
{
  Ode *o = p;
  int N = o->N;
  if (o->K == 0)
    {
      if (!eval_f (o, t, z, FALSE, FALSE))
        return GSL_EBADFUNC;
      memcpy (dz, o->f, sizeof (double) * (gsize) N);
      return GSL_SUCCESS;
    }
  if (!eval_f (o, t, z, TRUE, o->n_par > 0))
    return GSL_EBADFUNC;
  int n_in = 1 + N + (o->n_par > 0 ? o->n_par : 0);
  memcpy (dz, o->f, sizeof (double) * (gsize) N);
  for (int k = 0; k < o->K; k++)
    {
      const double *s = z + N + k * N;
      double *ds = dz + N + k * N;
      for (int i = 0; i < N; i++)
        {
          const double *row = o->jac + (gsize) i * (gsize) n_in;
          double acc = 0;
          for (int j = 0; j < N; j++)
            acc += row[1 + j] * s[j];
          if (k >= o->n_y0 && k < o->n_y0 + o->n_par)
            acc += row[1 + N + (k - o->n_y0)];
          ds[i] = acc;
        }
    }
  return GSL_SUCCESS;
}

static int
jacobian (double t, const double z[], double *dfdy, double dfdt[], void *p)
{
  Ode *o = p;
  int N = o->N, M = N * (1 + o->K);
  if (!eval_f (o, t, z, TRUE, FALSE))
    return GSL_EBADFUNC;
  int n_in = 1 + N;
  memset (dfdy, 0, sizeof (double) * (gsize) M * (gsize) M);
  memset (dfdt, 0, sizeof (double) * (gsize) M);
  for (int b = 0; b <= o->K; b++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        dfdy[(gsize) (b * N + i) * (gsize) M + (gsize) (b * N + j)] = o->jac[i * n_in + 1 + j];
  for (int i = 0; i < N; i++)
    dfdt[i] = o->jac[i * n_in];
  return GSL_SUCCESS;
}

/* ---- checks ---- */

static void
check_finite_all (Ev *ev, const char *what, const double *x, int n)
{
  for (int i = 0; i < n; i++)
    if (!isfinite (x[i]))
      rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: %s[%d] is %g, but must be finite!",
                CX->fn_name, what, i + 1, x[i]);
}

static void
check_times (Ev *ev, double t0, const double *ts, int n)
{
  if (!isfinite (t0))
    rt_domain_error (CX, "initial time", t0, "finite");
  check_finite_all (ev, "times", ts, n);
  if (n == 0)
    rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: times has size 0, but must have a non-zero "
              "size", CX->fn_name);
  for (int i = 1; i < n; i++)
    if (ts[i] < ts[i - 1])
      rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: times is not a valid sorted vector. The "
                "element at %d is %g, but should be greater than or equal to the previous "
                "element, %g", CX->fn_name, i + 1, ts[i], ts[i - 1]);
  if (!(t0 < ts[0]))
    rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: initial time is %g, but must be less than %g",
              CX->fn_name, t0, ts[0]);
}

static void
check_positive_finite (Ev *ev, const char *what, double x)
{
  if (!(x > 0) || !isfinite (x))
    rt_domain_error (CX, what, x, "positive finite");
}

static void
check_positive_int (Ev *ev, const char *what, int x)
{
  if (x <= 0)
    rt_domain_error (CX, what, x, "positive");
}

/* ---- the solve ---- */

static void
ode_free (Ode *o)
{
  rt_callback_clear (&o->cb);
  g_clear_pointer (&o->driver, gsl_odeiv2_driver_free);
}

/* After a failed solve: the user's error, or the solver's. */
G_GNUC_NORETURN static void
ode_fail (Ode *o, int status, double t_next, gint32 max_steps)
{
  Ev *ev = o->ev;
  gboolean user = o->failed;
  gint32 bad = o->bad_size;
  ode_free (o);
  if (user)
    rt_callback_reraise (&o->cb);
  if (bad >= 0)
    rt_raise (CX, TILDE_MODEL_ERROR_INDEX, "%s: dy_dt (%d) and states (%d) must match in size",
              o->name, bad, o->N);
  if (status == GSL_EMAXITER)
    rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: Failed to integrate to next output time (%g) "
              "in less than max_num_steps steps", o->name, t_next);
  rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: the solver failed before time %g (%s; maximum "
            "number of steps %d)", o->name, t_next, gsl_strerror (status), max_steps);
}

/* The values of ts and their variables. */
typedef struct {
  int           n;
  const double *t;
} Times;

void
rt_ex_ode (Ev *ev, const Ex *e, TildeValue *out)
{
  int method = e->op & 15, form = e->op >> 4;
  int n_args = e->n_kids;
  TildeValue *args = tilde_arena_alloc (CX->arena, sizeof (TildeValue) * (gsize) MAX (n_args, 1));
  for (int i = 0; i < n_args; i++)
    rt_eval (ev, e->kids[i], &args[i]);
  CX->fn_name = e->name;
  const TildeValue *y0 = &args[0], *t0v = &args[1], *tsv = &args[2];
  int N = tilde_value_flat_size (y0);
  double rtol, atol;
  gint32 max_steps;
  const double *atol_vec = NULL;
  int n_fixed;
  switch (form)
    {
    case FORM_TOL:
      rtol = rt_scalar (CX, &args[3]);
      atol = rt_scalar (CX, &args[4]);
      max_steps = rt_int (CX, &args[5]);
      n_fixed = 6;
      break;
    case FORM_ADJOINT:
      {
        rtol = rt_scalar (CX, &args[3]);
        atol_vec = rt_values (CX, &args[4]);
        check_positive_finite (ev, "relative_tolerance_forward", rtol);
        rt_check_size (CX, "absolute_tolerance_forward and the initial state",
                       tilde_value_flat_size (&args[4]), N);
        for (int i = 0; i < N; i++)
          check_positive_finite (ev, "absolute_tolerance_forward", atol_vec[i]);
        check_positive_finite (ev, "relative_tolerance_backward", rt_scalar (CX, &args[5]));
        rt_check_size (CX, "absolute_tolerance_backward and the initial state",
                       tilde_value_flat_size (&args[6]), N);
        const double *ab = rt_values (CX, &args[6]);
        for (int i = 0; i < N; i++)
          check_positive_finite (ev, "absolute_tolerance_backward", ab[i]);
        check_positive_finite (ev, "relative_tolerance_quadrature", rt_scalar (CX, &args[7]));
        check_positive_finite (ev, "absolute_tolerance_quadrature", rt_scalar (CX, &args[8]));
        max_steps = rt_int (CX, &args[9]);
        check_positive_int (ev, "num_steps_between_checkpoints", rt_int (CX, &args[10]));
        int interp = rt_int (CX, &args[11]), sf = rt_int (CX, &args[12]);
        int sb = rt_int (CX, &args[13]);
        if (interp != 1 && interp != 2)
          rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: interpolation_polynomial is %d, but must "
                    "be 1 or 2", CX->fn_name, interp);
        if (sf != 1 && sf != 2)
          rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: solver_forward is %d, but must be 1 or 2",
                    CX->fn_name, sf);
        if (sb != 1 && sb != 2)
          rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: solver_backward is %d, but must be 1 or 2",
                    CX->fn_name, sb);
        method = sf == 1 ? ODE_ADAMS : ODE_BDF;
        atol = 1;
        n_fixed = 14;
        break;
      }
    case FORM_OLD:
      n_fixed = 3;
      if (n_args > 6)
        {
          rtol = rt_scalar (CX, &args[6]);
          atol = rt_scalar (CX, &args[7]);
          /* the old signature takes it as a real */
          max_steps = (gint32) fmin (rt_scalar (CX, &args[8]), G_MAXINT32);
          break;
        }
      /* fall through */
    default:
      if (form != FORM_OLD)
        n_fixed = 3;
      gboolean rk = method == ODE_RK45 || method == ODE_CKRK;
      rtol = rk ? 1e-6 : 1e-10;
      atol = rk ? 1e-6 : 1e-10;
      max_steps = rk ? 1000000 : 100000000;
      break;
    }
  check_positive_finite (ev, "relative_tolerance", rtol);
  check_positive_finite (ev, "absolute_tolerance", atol);
  check_positive_int (ev, "max_num_steps", max_steps);
  const double *y0x = rt_values (CX, y0);
  if (N == 0)
    rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "%s: initial state has size 0, but must have a "
              "non-zero size", CX->fn_name);
  check_finite_all (ev, "initial state", y0x, N);
  double t0 = rt_scalar (CX, t0v);
  Times ts = { tilde_value_flat_size (tsv), rt_values (CX, tsv) };
  check_times (ev, t0, ts.t, ts.n);
  /* the arguments passed on: the variadic ones, or theta, x_r, x_i */
  const TildeValue *rest = form == FORM_OLD ? args + 3 : args + n_fixed;
  int n_rest = form == FORM_OLD ? 3 : n_args - n_fixed;
  for (int i = 0; i < n_rest; i++)
    rt_hof_check_finite (CX, form == FORM_OLD ? (i == 0 ? "parameter vector" : "continuous data")
                         : "ode parameters and data", &rest[i]);
  gsl_set_error_handler_off ();

  Ode *o = tilde_arena_alloc0 (CX->arena, sizeof (Ode));
  o->ev = ev;
  o->name = e->name;
  o->old = form == FORM_OLD;
  o->N = N;
  o->bad_size = -1;
  rt_callback_init (&o->cb, ev, e, rest, n_rest);
  o->n_y0 = y0->ad ? N : 0;
  o->n_par = rt_callback_n_params (&o->cb);
  o->n_t0 = t0v->ad ? 1 : 0;
  o->K = o->n_y0 + o->n_par + o->n_t0;
  int K = o->K, M = N * (1 + K);
  o->f = rt_alloc_d (CX, (gsize) N);
  o->jac = rt_alloc_d (CX, (gsize) N * (gsize) (1 + N + o->n_par));
  double *z = rt_alloc_d (CX, (gsize) M);
  memset (z, 0, sizeof (double) * (gsize) M);
  memcpy (z, y0x, sizeof (double) * (gsize) N);
  for (int i = 0; i < o->n_y0; i++)
    z[N + i * N + i] = 1;
  if (o->n_t0)
    {
      if (!eval_f (o, t0, y0x, FALSE, FALSE))
        ode_fail (o, GSL_EBADFUNC, t0, max_steps);
      for (int i = 0; i < N; i++)
        z[N + (K - 1) * N + i] = -o->f[i];
    }
  static const gsl_odeiv2_step_type *const *steppers[] = {
    &gsl_odeiv2_step_rk8pd, &gsl_odeiv2_step_rkck, &gsl_odeiv2_step_msadams,
    &gsl_odeiv2_step_msbdf,
  };
  gsl_odeiv2_system sys = { rhs, jacobian, (size_t) M, o };
  double h0 = 1e-6 * fmax (ts.t[ts.n - 1] - t0, 1e-300);
  if (atol_vec)
    {
      double *scale = rt_alloc_d (CX, (gsize) M);
      for (int i = 0; i < M; i++)
        scale[i] = atol_vec[i % N];
      o->driver = gsl_odeiv2_driver_alloc_scaled_new (&sys, *steppers[method], h0, atol, rtol,
                                                      1, 0, scale);
    }
  else
    o->driver = gsl_odeiv2_driver_alloc_y_new (&sys, *steppers[method], h0, atol, rtol);
  gsl_odeiv2_driver_set_nmax (o->driver, (unsigned long) max_steps);

  /* the states and sensitivities at each output time */
  double *ys = rt_alloc_d (CX, (gsize) M * (gsize) ts.n);
  double t = t0;
  for (int j = 0; j < ts.n; j++)
    {
      if (ts.t[j] > t)
        {
          int status = gsl_odeiv2_driver_apply (o->driver, &t, ts.t[j], z);
          if (status != GSL_SUCCESS || o->failed || o->bad_size >= 0)
            ode_fail (o, status, ts.t[j], max_steps);
        }
      memcpy (ys + (gsize) j * (gsize) M, z, sizeof (double) * (gsize) M);
    }

  /* an output time that is a variable: d y(t) / dt = f (t, y(t)) */
  double *fts = NULL;
  if (tsv->ad)
    {
      fts = rt_alloc_d (CX, (gsize) N * (gsize) ts.n);
      for (int j = 0; j < ts.n; j++)
        {
          if (!eval_f (o, ts.t[j], ys + (gsize) j * (gsize) M, FALSE, FALSE))
            ode_fail (o, GSL_EBADFUNC, ts.t[j], max_steps);
          memcpy (fts + (gsize) j * (gsize) N, o->f, sizeof (double) * (gsize) N);
        }
    }
  gint32 *sens_ids = tilde_arena_alloc (CX->arena, sizeof (gint32) * (gsize) MAX (K, 1));
  for (int i = 0; i < o->n_y0; i++)
    sens_ids[i] = tilde_value_var (y0, i);
  if (o->n_par)
    memcpy (sens_ids + o->n_y0, o->cb.param_ids, sizeof (gint32) * (gsize) o->n_par);
  if (o->n_t0)
    sens_ids[K - 1] = t0v->start;
  ode_free (o);

  /* the result: array[] vector (array[,] real for integrate_ode_*) */
  TildeValue r = { .kind = TILDE_VALUE_ARRAY, .rows = ts.n, .cols = 1,
                   .elem = o->old ? TILDE_VALUE_ARRAY : TILDE_VALUE_VECTOR };
  r.u.elems = tilde_arena_alloc (CX->arena, sizeof (TildeValue) * (gsize) MAX (ts.n, 1));
  gboolean ad = K > 0 || tsv->ad;
  for (int j = 0; j < ts.n; j++)
    {
      const double *zj = ys + (gsize) j * (gsize) M;
      TildeValue *v = &r.u.elems[j];
      if (!ad)
        {
          *v = rt_new_data (CX, o->old ? TILDE_VALUE_ARRAY : TILDE_VALUE_VECTOR, N, 1);
          memcpy (v->u.d, zj, sizeof (double) * (gsize) N);
          continue;
        }
      *v = (TildeValue) { .kind = o->old ? TILDE_VALUE_ARRAY : TILDE_VALUE_VECTOR,
                          .elem = o->old ? TILDE_VALUE_REAL : 0, .ad = 1, .rows = N, .cols = 1 };
      v->idx = tilde_arena_alloc (CX->arena, sizeof (gint32) * (gsize) N);
      for (int i = 0; i < N; i++)
        {
          AdOperand ops[2];
          guint n_ops = 0;
          if (K > 0)
            {
              double *p = rt_alloc_d (CX, (gsize) K);
              for (int k = 0; k < K; k++)
                p[k] = zj[N + k * N + i];
              ops[n_ops++] = (AdOperand) { .idx = sens_ids, .n = K, .partial = p };
            }
          if (tsv->ad)
            ops[n_ops++] = (AdOperand) { .start = tilde_value_var (tsv, j), .n = 1,
                                         .partial = fts + (gsize) j * (gsize) N + i };
          v->idx[i] = rt_reduce (CX, zj[i], n_ops, ops).start;
        }
    }
  *out = r;
}
