/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lkj_cov (deprecated in Stan, still accepted): a lognormal density on the
 * standard deviations sqrt (diag (y)) and an LKJ density on the
 * correlation matrix D y D with D = diag (1 / sds), composed of the
 * library's own kernels (so their derivatives and propto terms apply).
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/runtime-private.h"

#include <math.h>

/* name (args) under lkj_cov_lpdf's name, as its messages should read. */
static TildeValue
part (RtCtx *cx, const char *name, int n, const TildeValue *args)
{
  const char *saved = cx->fn_name;
  TildeValue out;
  rt_builtin_lookup (name, n)->fn (cx, n, args, &out);
  cx->fn_name = saved;
  return out;
}

static void
check_finite (RtCtx *cx, const char *what, const TildeValue *v)
{
  const double *x = rt_values (cx, v);
  for (gint32 i = 0; i < tilde_value_flat_size (v); i++)
    if (!isfinite (x[i]))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "lkj_cov_lpdf: %s[%d] is %g, but must be finite!",
                what, i + 1, x[i]);
}

static void
k_lkj_cov (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  const TildeValue *y = &a[0], *mu = &a[1], *sigma = &a[2], *eta = &a[3];
  gint32 K = y->rows;
  if (tilde_value_flat_size (mu) != tilde_value_flat_size (sigma))
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "lkj_cov_lpdf: Rows of location parameter (%d) and "
              "columns of scale parameter (%d) must match in size", tilde_value_flat_size (mu),
              tilde_value_flat_size (sigma));
  if (y->rows != y->cols)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "lkj_cov_lpdf: Expecting a square matrix; rows of "
              "random variable (%d) and columns of random variable (%d) must match in size",
              y->rows, y->cols);
  if (K != tilde_value_flat_size (mu))
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "lkj_cov_lpdf: Rows of random variable (%d) and rows "
              "of location parameter (%d) must match in size", K, tilde_value_flat_size (mu));
  double e = rt_scalar (cx, eta);
  if (!(e > 0))
    rt_domain_error (cx, "Shape parameter", e, "positive");
  check_finite (cx, "Location parameter", mu);
  check_finite (cx, "Scale parameter", sigma);
  check_finite (cx, "Covariance matrix", y);
  TildeValue d = part (cx, "diagonal", 1, y);
  TildeValue sds = part (cx, "sqrt", 1, &d);
  TildeValue args[3] = { sds, *mu, *sigma };
  TildeValue lp = part (cx, "lognormal_lpdf", 3, args);
  TildeValue inv = part (cx, "inv", 1, &sds);
  args[0] = *y;
  args[1] = inv;
  TildeValue half = part (cx, "diag_post_multiply", 2, args);
  args[0] = inv;
  args[1] = half;
  TildeValue corr = part (cx, "diag_pre_multiply", 2, args);
  args[0] = corr;
  args[1] = *eta;
  TildeValue lkj = part (cx, "lkj_corr_lpdf", 2, args);
  args[0] = lp;
  args[1] = lkj;
  *out = part (cx, "add", 2, args);
}

const RtBuiltin rt_builtins_lkj_cov[] = {
  { "lkj_cov_lpdf", k_lkj_cov, 4, 4 },
  { "lkj_cov_lupdf", k_lkj_cov, 4, 4 },
  { NULL, NULL, 0, 0 },
};
