/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the density, mass and distribution function kernels share: their
 * vectorised arguments (a scalar broadcast or a one-dimensional container),
 * the partials each accumulates, Stan's argument checks with its wording,
 * and the propto rule.
 *
 * A kernel reads its arguments with dist_arg, checks them, takes the
 * common size with dist_size, adds each element's value and partials
 * (dist_grad) and ends with dist_finish, which records one reduction node
 * over every autodiff argument.
 */
#pragma once

#include <math.h>

#include "runtime/runtime-private.h"

G_BEGIN_DECLS

#define DIST_MAX_ARGS 8

typedef struct {
  const TildeValue *v;
  const double     *x;
  gint32            n;      /* 1: a scalar, broadcast */
  gboolean          vec;    /* a container */
  gboolean          ad;
  double           *p;      /* partials, when ad */
  const char       *what;   /* "Location parameter" */
} DArg;

/* Element i of a vectorised argument. */
#define AT(a, i) ((a)->x[(a)->vec ? (i) : 0])

void     dist_arg    (RtCtx *cx, DArg *a, const TildeValue *v, const char *what);
/* dist_arg with the partials not zeroed yet: for a kernel that sets every
 * one itself, or zeroes them (dist_zero_partials) before adding to them. */
void     dist_arg_unzeroed (RtCtx *cx, DArg *a, const TildeValue *v, const char *what);
void     dist_zero_partials (DArg *a);
/* The common size of the vectorised arguments (a size mismatch is an
 * error); 1 when all are scalars. */
gint32   dist_size   (RtCtx *cx, DArg *args, int n);
/* The result: logp with the partials of every autodiff argument. */
void     dist_finish (RtCtx *cx, DArg *args, int n, double logp, TildeValue *out);
gboolean dist_any_ad (const DArg *args, int n);

static inline void
dist_grad (DArg *a, gint32 i, double g)
{
  if (a->p)
    a->p[a->vec ? i : 0] += g;
}

/* f of element i of a vectorised argument, computed once when the
 * argument is a scalar broadcast over the elements (*memo starts as NAN):
 * special functions of a shared parameter cost one call, as in Stan. */
static inline double
dist_once (const DArg *a, gint32 i, double *memo, double (*f) (double))
{
  if (a->vec)
    return f (a->x[i]);
  if (isnan (*memo))
    *memo = f (a->x[0]);
  return *memo;
}

/* Under propto, whether to keep a term that depends on the arguments whose
 * bits are set in mask (none: a constant); Stan's include_summand. */
static inline gboolean
dist_keep (const RtCtx *cx, const DArg *args, unsigned mask)
{
  if (!cx->drop)
    return TRUE;
  for (int k = 0; mask; k++, mask >>= 1)
    if ((mask & 1) && args[k].ad)
      return TRUE;
  return FALSE;
}

/* Under propto with no autodiff argument the whole density is dropped:
 * sets out to 0 and says so. */
static inline gboolean
dist_dropped (const RtCtx *cx, const DArg *args, int n, TildeValue *out)
{
  if (!cx->drop)
    return FALSE;
  for (int k = 0; k < n; k++)
    if (args[k].ad)
      return FALSE;
  *out = tilde_value_real (0);
  return TRUE;
}

/* The function's name as Stan's messages give it (foo_lpdf for foo_lupdf). */
#define dist_name(cx) rt_fn_name (cx)

/* ---- checks, with Stan's wording ---- */

/* "f: What[i] is x, but must be MUST!" (no index for a scalar) */
void dist_fail (RtCtx *cx, const DArg *a, gint32 i, double x, const char *must) G_GNUC_NORETURN;
void dist_check_not_nan         (RtCtx *cx, const DArg *a);
void dist_check_finite          (RtCtx *cx, const DArg *a);
void dist_check_positive        (RtCtx *cx, const DArg *a);
void dist_check_positive_finite (RtCtx *cx, const DArg *a);
void dist_check_nonnegative     (RtCtx *cx, const DArg *a);
void dist_check_unit_interval   (RtCtx *cx, const DArg *a);
/* lo <= x <= hi, failing with "in the interval [lo, hi]" */
void dist_check_bounded         (RtCtx *cx, const DArg *a, double lo, double hi);
/* lo <= x <= hi, failing with `must` */
void dist_check_range           (RtCtx *cx, const DArg *a, double lo, double hi, const char *must);
/* a[i] >= b[i] (b broadcast), failing with "greater than or equal to b" */
void dist_check_greater_or_equal (RtCtx *cx, const DArg *a, const DArg *b, gint32 N);
/* x < bound, failing with "less than bound" */
void dist_check_less            (RtCtx *cx, const DArg *a, double bound);
/* A simplex (nonnegative, summing to 1 within 1e-8) of n values. */
void dist_check_simplex         (RtCtx *cx, const char *what, const double *x, gint32 n);
/* Strictly increasing values. */
void dist_check_ordered         (RtCtx *cx, const char *what, const double *x, gint32 n);
/* A symmetric n x n matrix (column-major), within Stan's 1e-8. */
void dist_check_symmetric       (RtCtx *cx, const char *what, const double *m, int n);
void dist_check_square          (RtCtx *cx, const char *what, const TildeValue *m);

/* ---- multivariate arguments ---- */

/* A vector argument or an array of them: count and elements. */
void dist_vectors (const TildeValue *v, gint32 *count, const TildeValue **elems);

/* The Cholesky factor L (lower, column-major, n x n) of a symmetric
 * positive-definite matrix in fresh arena memory, with log det; raises
 * "what is not positive definite" otherwise. */
double *dist_cholesky (RtCtx *cx, const char *what, const double *m, int n, double *log_det);
/* The inverse of a matrix from its Cholesky factor, fresh arena memory. */
double *dist_cholesky_inverse (RtCtx *cx, const double *L, int n);

G_END_DECLS
