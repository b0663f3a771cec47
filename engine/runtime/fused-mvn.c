/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `matrix[N, N] L = cholesky_decompose (K); ... y ~ multi_normal_cholesky (mu, L);`
 * with L read nowhere else: the declaration factors K with the library (its
 * checks, at the same point) and keeps K and the factor; the density takes
 * its gradient with respect to K from K's inverse, (a a' - K^-1) / 2 with
 * a = K^-1 (y - mu), so no reverse sweep runs through the factorisation.
 * Arguments this does not cover go to the library's factorisation and
 * density, as the statements were written.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/exec-private.h"
#include "runtime/math/special.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#define CX (&ev->cx)

static gboolean
is_vector_of (const TildeValue *v, gint32 n)
{
  return (v->kind == TILDE_VALUE_VECTOR || v->kind == TILDE_VALUE_ROW_VECTOR)
    && tilde_value_flat_size (v) == n;
}

/* y ~ multi_normal (mu, K) from K's factor L, as multi_normal_cholesky of
 * L computes it: with a = K^-1 (y - mu), d/dy = -a, d/dmu = a and
 * d/dK = (a a' - K^-1) / 2, given to K's lower triangle as the
 * factorisation reads it. FALSE, and nothing done, when the arguments are
 * not the plain vectors this covers or would fail the library's checks. */
static gboolean
mvn_cov (Ev *ev, const TildeValue *y, const TildeValue *mu, const TildeValue *k,
         const TildeValue *l, TildeValue *out)
{
  gint32 n = k->rows;
  if (k->cols != n || l->rows != n || l->cols != n || n == 0 || !is_vector_of (y, n)
      || !is_vector_of (mu, n))
    return FALSE;
  const double *yv = rt_values (CX, y), *mv = rt_values (CX, mu), *L = l->u.d;
  double *a = rt_alloc_d (CX, (gsize) n);
  for (gint32 i = 0; i < n; i++)
    {
      if (isnan (yv[i]) || !isfinite (mv[i]))
        return FALSE;
      a[i] = yv[i] - mv[i];
    }
  cblas_dtrsv (CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, n, L, n, a, 1);
  double logp = -0.5 * cblas_ddot (n, a, 1, a, 1);
  for (gint32 i = 0; i < n; i++)
    logp -= log (L[i + i * n]);
  if (!CX->drop)
    logp -= TILDE_LOG_SQRT_TWO_PI * n;
  cblas_dtrsv (CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, n, L, n, a, 1);
  /* K^-1 in the factor's own storage: nothing reads the factor after this
   * statement, and when this fails the statement as written factors K
   * again (the factor is finite: the factorisation checked it) */
  double *g = (double *) L;
  if (LAPACKE_dpotri_work (LAPACK_COL_MAJOR, 'L', n, g, n) != 0)
    return FALSE;
  for (gint32 j = 0; j < n; j++)
    {
      double *col = g + (gsize) j * (gsize) n;
      for (gint32 i = 0; i < j; i++)
        col[i] = 0;
      col[j] = 0.5 * (a[j] * a[j] - col[j]);
      for (gint32 i = j + 1; i < n; i++)
        col[i] = a[i] * a[j] - col[i];
    }
  AdOperand ops[3];
  guint n_ops = 0;
  ops[n_ops++] = rt_operand (k, g);
  if (y->ad)
    {
      double *py = rt_alloc_d (CX, (gsize) n);
      for (gint32 i = 0; i < n; i++)
        py[i] = -a[i];
      ops[n_ops++] = rt_operand (y, py);
    }
  if (mu->ad)
    ops[n_ops++] = rt_operand (mu, a);
  *out = rt_reduce (CX, logp, n_ops, ops);
  return TRUE;
}

Flow
rt_st_mvn_cov (Ev *ev, const St *s)
{
  TildeValue args[3], out;
  if (!rt_term_counts (ev, s))
    return FLOW_NEXT;
  rt_eval (ev, s->e, &args[0]);
  rt_eval (ev, s->e2, &args[1]);
  const TildeValue *k = &ev->slots[s->slot], *l = &ev->slots[s->slot2];
  CX->fn_name = s->name;
  CX->drop = s->drop && CX->propto;
  if (!(k->ad && mvn_cov (ev, &args[0], &args[1], k, l, &out)))
    {
      /* as written: the factor as the library computes it, then the density */
      args[2] = *l;
      if (k->ad)
        {
          CX->drop = FALSE;
          CX->fn_name = "cholesky_decompose";
          s->else_s->builtin->fn (CX, 1, k, &args[2]);
          CX->fn_name = s->name;
          CX->drop = s->drop && CX->propto;
        }
      s->builtin->fn (CX, 3, args, &out);
    }
  CX->drop = FALSE;
  rt_add_term (ev, &out);
  return FLOW_NEXT;
}
