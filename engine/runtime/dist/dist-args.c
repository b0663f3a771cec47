/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/dist/dist-private.h"

#include <lapacke.h>
#include <math.h>
#include <string.h>

static void
read_arg (RtCtx *cx, DArg *a, const TildeValue *v, const char *what, gboolean zero)
{
  a->v = v;
  a->what = what;
  a->vec = !tilde_value_kind_is_scalar ((TildeValueKind) v->kind);
  if (a->vec && !tilde_value_is_flat (v))
    rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "%s: %s must be a scalar or a one-dimensional "
              "container", dist_name (cx), what);
  a->n = a->vec ? tilde_value_flat_size (v) : 1;
  a->x = rt_values (cx, v);
  a->ad = v->ad;
  a->p = NULL;
  if (a->ad)
    a->p = zero ? tilde_arena_alloc0 (cx->arena, sizeof (double) * (gsize) MAX (a->n, 1))
      : tilde_arena_alloc (cx->arena, sizeof (double) * (gsize) MAX (a->n, 1));
}

void
dist_arg (RtCtx *cx, DArg *a, const TildeValue *v, const char *what)
{
  read_arg (cx, a, v, what, TRUE);
}

void
dist_arg_unzeroed (RtCtx *cx, DArg *a, const TildeValue *v, const char *what)
{
  read_arg (cx, a, v, what, FALSE);
}

void
dist_zero_partials (DArg *a)
{
  if (a->p)
    memset (a->p, 0, sizeof (double) * (gsize) MAX (a->n, 1));
}

gint32
dist_size (RtCtx *cx, DArg *args, int n)
{
  gint32 N = 1;
  const DArg *first = NULL;
  for (int k = 0; k < n; k++)
    if (args[k].vec)
      {
        if (first && args[k].n != first->n)
          rt_raise (cx, TILDE_MODEL_ERROR_INDEX,
                    "%s: size of %s (%d) and size of %s (%d) must match in size", dist_name (cx),
                    first->what, first->n, args[k].what, args[k].n);
        if (!first)
          first = &args[k];
        N = args[k].n;
      }
  return N;
}

void
dist_finish (RtCtx *cx, DArg *args, int n, double logp, TildeValue *out)
{
  AdOperand ops[DIST_MAX_ARGS];
  guint n_ops = 0;
  g_assert (n <= DIST_MAX_ARGS);
  if (cx->capture && n <= RT_CAPTURE_MAX_ARGS)
    {
      RtCapture *c = cx->capture;
      c->done = TRUE;
      c->logp = logp;
      c->n_args = n;
      for (int k = 0; k < n; k++)
        {
          c->p[k] = args[k].ad ? args[k].p : NULL;
          c->n[k] = args[k].n;
        }
      *out = tilde_value_real (logp);
      return;
    }
  for (int k = 0; k < n; k++)
    if (args[k].ad)
      ops[n_ops++] = rt_operand (args[k].v, args[k].p);
  *out = rt_reduce (cx, logp, n_ops, ops);
}

gboolean
dist_any_ad (const DArg *args, int n)
{
  for (int k = 0; k < n; k++)
    if (args[k].ad)
      return TRUE;
  return FALSE;
}

/* ---- checks ---- */

void
dist_fail (RtCtx *cx, const DArg *a, gint32 i, double x, const char *must)
{
  if (a->vec)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: %s[%d] is %g, but must be %s!", dist_name (cx),
              a->what, i + 1, x, must);
  rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: %s is %g, but must be %s!", dist_name (cx),
            a->what, x, must);
}

void
dist_check_not_nan (RtCtx *cx, const DArg *a)
{
  for (gint32 i = 0; i < a->n; i++)
    if (isnan (a->x[i]))
      dist_fail (cx, a, i, a->x[i], "not nan");
}

void
dist_check_finite (RtCtx *cx, const DArg *a)
{
  for (gint32 i = 0; i < a->n; i++)
    if (!isfinite (a->x[i]))
      dist_fail (cx, a, i, a->x[i], "finite");
}

void
dist_check_positive (RtCtx *cx, const DArg *a)
{
  for (gint32 i = 0; i < a->n; i++)
    if (!(a->x[i] > 0))
      dist_fail (cx, a, i, a->x[i], "positive");
}

void
dist_check_positive_finite (RtCtx *cx, const DArg *a)
{
  for (gint32 i = 0; i < a->n; i++)
    if (!(a->x[i] > 0) || isinf (a->x[i]))
      dist_fail (cx, a, i, a->x[i], "positive finite");
}

void
dist_check_nonnegative (RtCtx *cx, const DArg *a)
{
  for (gint32 i = 0; i < a->n; i++)
    if (!(a->x[i] >= 0))
      dist_fail (cx, a, i, a->x[i], "nonnegative");
}

void
dist_check_unit_interval (RtCtx *cx, const DArg *a)
{
  dist_check_bounded (cx, a, 0, 1);
}

void
dist_check_bounded (RtCtx *cx, const DArg *a, double lo, double hi)
{
  for (gint32 i = 0; i < a->n; i++)
    if (!(a->x[i] >= lo && a->x[i] <= hi))
      {
        char must[96];
        g_snprintf (must, sizeof must, "in the interval [%g, %g]", lo, hi);
        dist_fail (cx, a, i, a->x[i], must);
      }
}

void
dist_check_range (RtCtx *cx, const DArg *a, double lo, double hi, const char *must)
{
  for (gint32 i = 0; i < a->n; i++)
    if (!(a->x[i] >= lo && a->x[i] <= hi))
      dist_fail (cx, a, i, a->x[i], must);
}

void
dist_check_greater_or_equal (RtCtx *cx, const DArg *a, const DArg *b, gint32 N)
{
  for (gint32 i = 0; i < N; i++)
    if (!(AT (a, i) >= AT (b, i)))
      {
        char must[64];
        g_snprintf (must, sizeof must, "greater than or equal to %g", AT (b, i));
        dist_fail (cx, a, i, AT (a, i), must);
      }
}

void
dist_check_less (RtCtx *cx, const DArg *a, double bound)
{
  for (gint32 i = 0; i < a->n; i++)
    if (!(a->x[i] < bound))
      {
        char must[64];
        g_snprintf (must, sizeof must, "less than %g", bound);
        dist_fail (cx, a, i, a->x[i], must);
      }
}

void
dist_check_simplex (RtCtx *cx, const char *what, const double *x, gint32 n)
{
  if (n == 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: %s has size 0, but must have a non-zero size",
              dist_name (cx), what);
  double s = 0;
  for (gint32 i = 0; i < n; i++)
    s += x[i];
  if (!(fabs (1 - s) <= 1e-8))
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: %s is not a valid simplex. sum(%s) = %.10g, "
              "but should be 1", dist_name (cx), what, what, s);
  for (gint32 i = 0; i < n; i++)
    if (!(x[i] >= 0))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: %s is not a valid simplex. %s[%d] = %g, "
                "but should be greater than or equal to 0", dist_name (cx), what, what, i + 1,
                x[i]);
}

void
dist_check_ordered (RtCtx *cx, const char *what, const double *x, gint32 n)
{
  for (gint32 i = 1; i < n; i++)
    if (!(x[i] > x[i - 1]))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: %s is not a valid ordered vector. The "
                "element at %d is %g, but should be greater than the previous element, %g",
                dist_name (cx), what, i + 1, x[i], x[i - 1]);
}

void
dist_check_square (RtCtx *cx, const char *what, const TildeValue *m)
{
  if (m->rows != m->cols)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: Expecting a square matrix; rows of %s (%d) "
              "and columns of %s (%d) must match in size", dist_name (cx), what, m->rows, what,
              m->cols);
}

void
dist_check_symmetric (RtCtx *cx, const char *what, const double *m, int n)
{
  for (int j = 0; j < n; j++)
    for (int i = j + 1; i < n; i++)
      if (!(fabs (m[j + i * n] - m[i + j * n]) <= 1e-8))
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: %s is not symmetric. %s[%d,%d] = %g, but "
                  "%s[%d,%d] = %g", dist_name (cx), what, what, j + 1, i + 1, m[j + i * n],
                  what, i + 1, j + 1, m[i + j * n]);
}

/* ---- multivariate ---- */

void
dist_vectors (const TildeValue *v, gint32 *count, const TildeValue **elems)
{
  if (v->kind == TILDE_VALUE_ARRAY && !tilde_value_is_flat (v))
    {
      *count = v->rows;
      *elems = v->u.elems;
    }
  else
    {
      *count = 1;
      *elems = v;
    }
}

double *
dist_cholesky (RtCtx *cx, const char *what, const double *m, int n, double *log_det)
{
  /* Stan's cholesky_decompose ends its message without a full stop */
  const char *stop = g_str_has_prefix (what, "Matrix ") ? "" : ".";
  double *L = tilde_arena_memdup (cx->arena, m, sizeof (double) * (gsize) MAX (n * n, 1));
  for (int i = 0; i < n * n; i++)
    if (isnan (L[i]))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: %s is not positive definite%s", dist_name (cx),
                what, stop);
  if (n > 0 && LAPACKE_dpotrf (LAPACK_COL_MAJOR, 'L', n, L, n) != 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: %s is not positive definite%s", dist_name (cx),
              what, stop);
  double ld = 0;
  for (int j = 0; j < n; j++)
    {
      for (int i = 0; i < j; i++)
        L[i + j * n] = 0;
      if (!(L[j + j * n] > 0))
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: %s is not positive definite%s",
                  dist_name (cx), what, stop);
      ld += 2 * log (L[j + j * n]);
    }
  if (log_det)
    *log_det = ld;
  return L;
}

double *
dist_cholesky_inverse (RtCtx *cx, const double *L, int n)
{
  double *inv = tilde_arena_memdup (cx->arena, L, sizeof (double) * (gsize) MAX (n * n, 1));
  if (n > 0)
    LAPACKE_dpotri (LAPACK_COL_MAJOR, 'L', n, inv, n);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < j; i++)
      inv[i + j * n] = inv[j + i * n];
  return inv;
}
