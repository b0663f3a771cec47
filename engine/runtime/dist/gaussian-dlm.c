/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gaussian_dlm_obs: the log density of the observations y (r x T) of the
 * dynamic linear model y_t ~ N (F' theta_t, V), theta_t ~ N (G
 * theta_{t-1}, W), theta_0 ~ N (m0, C0), by the Kalman filter. Each step
 * is composed of the library's matrix kernels, so the gradient comes from
 * their own rules; V may be a vector (a diagonal covariance).
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/runtime-private.h"
#include "runtime/math/special.h"

#include <math.h>

static TildeValue
op (RtCtx *cx, const char *name, int n, const TildeValue *args)
{
  const char *saved = cx->fn_name;
  TildeValue out;
  rt_builtin_lookup (name, n)->fn (cx, n, args, &out);
  cx->fn_name = saved;
  return out;
}

static TildeValue
op2 (RtCtx *cx, const char *name, TildeValue a, TildeValue b)
{
  TildeValue args[2] = { a, b };
  return op (cx, name, 2, args);
}

static TildeValue
op1 (RtCtx *cx, const char *name, TildeValue a)
{
  return op (cx, name, 1, &a);
}

/* (M + M') / 2: products of symmetric matrices round asymmetrically */
static TildeValue
symmetric (RtCtx *cx, TildeValue m)
{
  return op2 (cx, "multiply", op2 (cx, "add", m, op1 (cx, "transpose", m)), tilde_value_real (0.5));
}

static void
check_dims (RtCtx *cx, const char *what, const TildeValue *v, gint32 rows, gint32 cols)
{
  if (v->rows != rows || v->cols != cols)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "gaussian_dlm_obs_lpdf: %s is %d x %d, but must be "
              "%d x %d", what, v->rows, v->cols, rows, cols);
}

static void
check_finite (RtCtx *cx, const char *what, const TildeValue *v)
{
  const double *x = rt_values (cx, v);
  for (gint32 i = 0; i < tilde_value_flat_size (v); i++)
    if (!isfinite (x[i]))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "gaussian_dlm_obs_lpdf: %s[%d] is %g, but must be "
                "finite!", what, i + 1, x[i]);
}

static void
k_gaussian_dlm_obs (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  const TildeValue *y = &a[0], *F = &a[1], *G = &a[2], *V = &a[3], *W = &a[4], *m0 = &a[5];
  const TildeValue *C0 = &a[6];
  gint32 r = y->rows, T = y->cols, n = G->rows;
  check_dims (cx, "G", G, n, n);
  check_dims (cx, "F", F, n, r);
  if (V->kind == TILDE_VALUE_MATRIX)
    check_dims (cx, "V", V, r, r);
  else
    check_dims (cx, "V", V, r, 1);
  check_dims (cx, "W", W, n, n);
  check_dims (cx, "m0", m0, n, 1);
  check_dims (cx, "C0", C0, n, n);
  for (int i = 0; i < 7; i++)
    {
      static const char *const names[] = { "y", "F", "G", "V", "W", "m0", "C0" };
      check_finite (cx, names[i], &a[i]);
    }
  gboolean any_ad = FALSE;
  for (int i = 0; i < 7; i++)
    any_ad |= a[i].ad;
  if (cx->drop && !any_ad)
    {
      tilde_value_set_real (out, 0);
      return;
    }
  TildeValue Vm = V->kind == TILDE_VALUE_MATRIX ? *V : op1 (cx, "diag_matrix", *V);
  TildeValue Ft = op1 (cx, "transpose", *F), Gt = op1 (cx, "transpose", *G);
  TildeValue m = *m0, C = *C0, lp = tilde_value_real (0);
  for (gint32 t = 1; t <= T; t++)
    {
      TildeValue pred = op2 (cx, "multiply", *G, m);
      TildeValue R = symmetric (cx, op2 (cx, "add", op2 (cx, "multiply", op2 (cx, "multiply", *G, C),
                                                       Gt), *W));
      TildeValue f = op2 (cx, "multiply", Ft, pred);
      TildeValue Q = symmetric (cx, op2 (cx, "add", op2 (cx, "multiply", op2 (cx, "multiply", Ft, R),
                                                       *F), Vm));
      TildeValue Qinv = op1 (cx, "inverse_spd", Q);
      TildeValue e = op2 (cx, "subtract", op2 (cx, "col", *y, tilde_value_int (t)), f);
      TildeValue step = op2 (cx, "add", op1 (cx, "log_determinant_spd", Q),
                             op2 (cx, "quad_form", Qinv, e));
      lp = op2 (cx, "subtract", lp, op2 (cx, "multiply", tilde_value_real (0.5), step));
      TildeValue A = op2 (cx, "multiply", op2 (cx, "multiply", R, *F), Qinv);
      m = op2 (cx, "add", pred, op2 (cx, "multiply", A, e));
      TildeValue AQA = op2 (cx, "multiply", op2 (cx, "multiply", A, Q), op1 (cx, "transpose", A));
      C = symmetric (cx, op2 (cx, "subtract", R, AQA));
    }
  if (!cx->drop)
    lp = op2 (cx, "subtract", lp, tilde_value_real (r * T * TILDE_LOG_SQRT_TWO_PI));
  *out = lp;
}

const RtBuiltin rt_builtins_gaussian_dlm[] = {
  { "gaussian_dlm_obs_lpdf", k_gaussian_dlm_obs, 7, 7 },
  { "gaussian_dlm_obs_lupdf", k_gaussian_dlm_obs, 7, 7 },
  { NULL, NULL, 0, 0 },
};
