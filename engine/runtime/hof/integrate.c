/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * integrate_1d: GSL's adaptive Gauss-Kronrod quadrature (QAGS on finite
 * intervals, QAGIL, QAGIU and QAGI on infinite ones) in place of Stan's
 * double-exponential rules from Boost, split as Stan splits: an interval
 * that crosses zero is integrated as two, each to the relative tolerance.
 * The integrand's second argument, xc, is the distance to the nearer end
 * of the piece (a - x near a, b - x near b) on finite intervals and NaN
 * when a limit is infinite.
 *
 * The derivative with respect to each parameter is the integral of the
 * integrand's partial derivative (differentiation under the integral),
 * found with the same quadrature; the partials at each point come from a
 * nested sweep. The limits get -f(a) and f(b).
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/hof/hof-private.h"

#include <float.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <math.h>
#include <string.h>

#define CX (&ev->cx)
#define LIMIT 1000

typedef struct {
  RtCallback  cb;
  gboolean    infinite;    /* a limit of the integral is infinite: xc is NaN */
  double      lo, hi;      /* the piece being integrated */
  int         which;       /* -1: the integrand; k: its derivative in parameter k */
  gboolean    failed;
  double     *grad;
  gsl_integration_workspace *ws;
} Quad;

static double
integrand (double x, void *p)
{
  Quad *q = p;
  if (q->failed)
    return NAN;
  double xc = NAN;
  if (!q->infinite)
    xc = x - q->lo <= q->hi - x ? q->lo - x : q->hi - x;
  TildeValue lead[2];
  tilde_value_set_real (&lead[0], x);
  tilde_value_set_real (&lead[1], xc);
  double v;
  gint32 n;
  gboolean ok = q->which < 0
    ? rt_callback_eval (&q->cb, lead, 2, NULL, FALSE, &v, 1, &n, NULL)
    : rt_callback_eval (&q->cb, lead, 2, NULL, TRUE, &v, 1, &n, q->grad);
  if (!ok)
    {
      q->failed = TRUE;
      return NAN;
    }
  return q->which < 0 ? v : q->grad[q->which];
}

/* One piece [lo, hi] with either end possibly infinite. */
static int
piece (Quad *q, double lo, double hi, double epsabs, double epsrel, double *r, double *err)
{
  gsl_function f = { integrand, q };
  q->lo = lo;
  q->hi = hi;
  if (isinf (lo) && isinf (hi))
    return gsl_integration_qagi (&f, epsabs, epsrel, LIMIT, q->ws, r, err);
  if (isinf (lo))
    return gsl_integration_qagil (&f, hi, epsabs, epsrel, LIMIT, q->ws, r, err);
  if (isinf (hi))
    return gsl_integration_qagiu (&f, lo, epsabs, epsrel, LIMIT, q->ws, r, err);
  return gsl_integration_qags (&f, lo, hi, epsabs, epsrel, LIMIT, q->ws, r, err);
}

/* The integral over [a, b], split at zero when it crosses zero; FALSE
 * when the quadrature did not reach the tolerance. */
static gboolean
integrate (Quad *q, double a, double b, double epsabs, double epsrel, double *result)
{
  double cuts[3] = { a, b, b };
  int n = 1;
  if (a < 0 && b > 0)
    {
      cuts[1] = 0;
      n = 2;
    }
  gboolean ok = TRUE;
  *result = 0;
  for (int i = 0; i < n && !q->failed; i++)
    {
      double r = 0, err = 0;
      int status = piece (q, cuts[i], cuts[i + 1], epsabs, epsrel, &r, &err);
      /* GSL's roundoff and subdivision warnings come with an estimate that
       * may still meet the tolerance */
      if (status != GSL_SUCCESS && !(err <= fmax (epsabs, epsrel * fabs (r))))
        ok = FALSE;
      if (!isfinite (r))
        ok = FALSE;
      *result += r;
    }
  return ok;
}

static void
quad_free (Quad *q)
{
  rt_callback_clear (&q->cb);
  g_clear_pointer (&q->ws, gsl_integration_workspace_free);
}

/* Raises the integrand's own error, or the quadrature's. */
G_GNUC_NORETURN static void
fail (Ev *ev, Quad *q, const char *what, double value)
{
  gboolean user = q->failed;
  quad_free (q);
  if (user)
    rt_callback_reraise (&q->cb);
  rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "integrate: error estimate of integral %s %g exceeds "
            "the given relative tolerance times norm of integral", what, value);
}

/* f at an end of the interval, for the limits' derivatives. */
static double
at_end (Ev *ev, Quad *q, double x)
{
  q->lo = q->hi = x;
  q->which = -1;
  double v = integrand (x, q);
  if (q->failed)
    fail (ev, q, "", 0);
  return v;
}

void
rt_ex_integrate_1d (Ev *ev, const Ex *e, TildeValue *out)
{
  TildeValue args[6];
  for (int i = 0; i < e->n_kids; i++)
    rt_eval (ev, e->kids[i], &args[i]);
  CX->fn_name = e->name;
  double a = rt_scalar (CX, &args[0]), b = rt_scalar (CX, &args[1]);
  double tol = e->n_kids > 5 ? rt_scalar (CX, &args[5]) : sqrt (DBL_EPSILON);
  if (isnan (a) || isnan (b))
    rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "integrate: %s limit is nan, but must not be nan!",
              isnan (a) ? "lower" : "upper");
  if (!(tol > 0))
    rt_domain_error (CX, "relative_tolerance", tol, "positive");
  if (a > b)
    rt_raise (CX, TILDE_MODEL_ERROR_DOMAIN, "integrate: lower limit is %g, but must be less "
              "than or equal to %g", a, b);
  rt_hof_check_finite (CX, "theta", &args[2]);
  rt_hof_check_finite (CX, "x_r", &args[3]);
  if (a == b)
    {
      tilde_value_set_real (out, 0);
      return;
    }
  gsl_set_error_handler_off ();
  Quad *q = tilde_arena_alloc0 (CX->arena, sizeof (Quad));
  rt_callback_init (&q->cb, ev, e, args + 2, 3);
  q->infinite = isinf (a) || isinf (b);
  q->which = -1;
  q->ws = gsl_integration_workspace_alloc (LIMIT);
  /* GSL refuses relative tolerances it cannot reach */
  double epsrel = fmax (tol, 50 * DBL_EPSILON);
  double value;
  if (!integrate (q, a, b, 0, epsrel, &value))
    fail (ev, q, "", value);
  gint32 K = rt_callback_n_params (&q->cb);
  gboolean a_ad = args[0].ad && isfinite (a), b_ad = args[1].ad && isfinite (b);
  if (K == 0 && !a_ad && !b_ad)
    {
      quad_free (q);
      tilde_value_set_real (out, value);
      return;
    }
  double *partial = rt_alloc_d (CX, (gsize) (K + 2));
  q->grad = rt_alloc_d (CX, (gsize) K);
  for (gint32 k = 0; k < K; k++)
    {
      q->which = k;
      /* the partials are measured against the integral itself: a
       * derivative that integrates to zero cannot meet a relative
       * tolerance */
      if (!integrate (q, a, b, epsrel * fabs (value), epsrel, &partial[k]))
        fail (ev, q, "of the derivative", partial[k]);
    }
  AdOperand ops[3];
  guint n_ops = 0;
  if (K > 0)
    ops[n_ops++] = (AdOperand) { .idx = q->cb.param_ids, .n = K, .partial = partial };
  if (a_ad)
    {
      q->infinite = isinf (b);
      partial[K] = -at_end (ev, q, a);
      ops[n_ops++] = (AdOperand) { .start = args[0].start, .n = 1, .partial = &partial[K] };
    }
  if (b_ad)
    {
      q->infinite = isinf (a);
      partial[K + 1] = at_end (ev, q, b);
      ops[n_ops++] = (AdOperand) { .start = args[1].start, .n = 1, .partial = &partial[K + 1] };
    }
  quad_free (q);
  *out = rt_reduce (CX, value, n_ops, ops);
}
