/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The Poisson binomial distribution: the number of successes among
 * independent trials with success probabilities theta. Mass, cdf, lcdf,
 * lccdf and draws, vectorised over an int or array of ints and a vector or
 * array of vectors, with Stan's checks and wording.
 *
 * The distribution of the count comes from a recurrence over the trials on
 * the log scale (each trial either fails or succeeds). The derivative of
 * P(Y = k) in theta_i is P'(k - 1) - P'(k), where P' is the distribution
 * without trial i: the convolution of the trials before i (a forward
 * table) with those after it (a backward table), so that a gradient costs
 * O(N y) beyond the tables' O(N y), not O(N^2 y).
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/dist/dist-private.h"

#include <gsl/gsl_rng.h>
#include <math.h>

typedef enum {
  PB_LPMF,
  PB_CDF,
  PB_LCDF,
  PB_LCCDF,
} PbKind;

static inline double
log_add (double a, double b)
{
  if (a == -INFINITY)
    return b;
  if (b == -INFINITY)
    return a;
  return a > b ? a + log1p (exp (b - a)) : b + log1p (exp (a - b));
}

/* The successes: an int or an array of ints. */
static const int *
successes (RtCtx *cx, const TildeValue *v, gint32 *n)
{
  if (v->kind == TILDE_VALUE_INT)
    {
      *n = 1;
      return &v->u.i;
    }
  if (v->kind == TILDE_VALUE_ARRAY && v->elem == TILDE_VALUE_INT)
    {
      *n = v->rows;
      return v->u.iv;
    }
  rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "%s: the successes must be ints", dist_name (cx));
}

static void
check_probabilities (RtCtx *cx, const TildeValue *theta)
{
  DArg a;

  dist_arg (cx, &a, theta, "Probability parameters");
  dist_check_finite (cx, &a);
  dist_check_bounded (cx, &a, 0, 1);
}

/* Tables of log probabilities: row i of `fwd` is the distribution of the
 * count among trials [0, i) for counts 0 .. kf, row i of `bwd` among
 * trials [i, n) for counts 0 .. kb. */
typedef struct {
  int     n, kf, kb;
  double *fwd;     /* (n + 1) x (kf + 1) */
  double *bwd;     /* (n + 1) x (kb + 1) */
} Tables;

#define FWD(t, i, k) ((t)->fwd[(gsize) (i) * (gsize) ((t)->kf + 1) + (gsize) (k)])
#define BWD(t, i, k) ((t)->bwd[(gsize) (i) * (gsize) ((t)->kb + 1) + (gsize) (k)])

static void
fill_tables (RtCtx *cx, Tables *t, const double *theta, int n, int kf, int kb, gboolean backward)
{
  t->n = n;
  t->kf = kf;
  t->kb = kb;
  t->fwd = rt_alloc_d (cx, (gsize) (n + 1) * (gsize) (kf + 1));
  for (int k = 0; k <= kf; k++)
    FWD (t, 0, k) = k == 0 ? 0 : -INFINITY;
  for (int i = 1; i <= n; i++)
    {
      double succeed = log (theta[i - 1]), fail = log1p (-theta[i - 1]);
      for (int k = 0; k <= kf; k++)
        FWD (t, i, k) = log_add (FWD (t, i - 1, k) + fail,
                                 k > 0 ? FWD (t, i - 1, k - 1) + succeed : -INFINITY);
    }
  t->bwd = NULL;
  if (!backward)
    return;
  t->bwd = rt_alloc_d (cx, (gsize) (n + 1) * (gsize) (kb + 1));
  for (int k = 0; k <= kb; k++)
    BWD (t, n, k) = k == 0 ? 0 : -INFINITY;
  for (int i = n - 1; i >= 0; i--)
    {
      double succeed = log (theta[i]), fail = log1p (-theta[i]);
      for (int k = 0; k <= kb; k++)
        BWD (t, i, k) = log_add (BWD (t, i + 1, k) + fail,
                                 k > 0 ? BWD (t, i + 1, k - 1) + succeed : -INFINITY);
    }
}

/* log P(count = k) among every trial but trial i. */
static double
without (const Tables *t, int i, int k)
{
  double s = -INFINITY;

  if (k < 0)
    return -INFINITY;
  for (int j = 0; j <= k; j++)
    s = log_add (s, FWD (t, i, j) + BWD (t, i + 1, k - j));
  return s;
}

/* One count y of trials theta[0 .. n): the log of the mass, cdf or ccdf,
 * and, when `grad` is not NULL, its derivative in each theta[i] added to
 * grad[i]. */
static double
one (RtCtx *cx, PbKind kind, int y, const double *theta, int n, double *grad)
{
  Tables t;
  double value = -INFINITY;

  fill_tables (cx, &t, theta, n, kind == PB_LCCDF ? n : y, y, grad != NULL);
  switch (kind)
    {
    case PB_LPMF:
      value = FWD (&t, n, y);
      break;
    case PB_CDF:
    case PB_LCDF:
      for (int k = 0; k <= y; k++)
        value = log_add (value, FWD (&t, n, k));
      break;
    case PB_LCCDF:
      for (int k = y + 1; k <= n; k++)
        value = log_add (value, FWD (&t, n, k));
      break;
    }
  if (grad == NULL || !isfinite (value))
    return value;
  for (int i = 0; i < n; i++)
    {
      double at_y = exp (without (&t, i, y) - value);

      switch (kind)
        {
        case PB_LPMF:
          grad[i] += exp (without (&t, i, y - 1) - value) - at_y;
          break;
        case PB_CDF:
        case PB_LCDF:
          grad[i] -= at_y;
          break;
        case PB_LCCDF:
          grad[i] += at_y;
          break;
        }
    }
  return value;
}

static void
poisson_binomial (RtCtx *cx, PbKind kind, const TildeValue *v, TildeValue *out)
{
  gint32 ny, nt;
  const int *y = successes (cx, &v[0], &ny);
  const TildeValue *thetas;

  dist_vectors (&v[1], &nt, &thetas);
  if (ny > 1 && nt > 1 && ny != nt)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: size of Successes variables (%d) and size of "
              "Probability parameters (%d) must match in size", dist_name (cx), ny, nt);
  gint32 T = ny == 0 || nt == 0 ? 0 : MAX (ny, nt);
  for (gint32 s = 0; s < T; s++)
    {
      const TildeValue *theta = &thetas[nt == 1 ? 0 : s];
      int yi = y[ny == 1 ? 0 : s], n = tilde_value_flat_size (theta);

      if (yi < 0 || yi > n)
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Successes variable is %d, but must be in "
                  "the interval [0, %d]!", dist_name (cx), yi, n);
      check_probabilities (cx, theta);
    }
  gboolean ad = rt_is_ad (&v[1]);
  if (T == 0 || (kind == PB_LPMF && cx->drop && !ad))
    {
      *out = tilde_value_real (kind == PB_CDF && T == 0 ? 1 : 0);
      return;
    }

  AdOperand *ops = ad ? tilde_arena_alloc (cx->arena, sizeof (AdOperand) * (gsize) nt) : NULL;
  double **grads = ad ? tilde_arena_alloc0 (cx->arena, sizeof (double *) * (gsize) nt) : NULL;
  double total = 0;
  for (gint32 s = 0; s < T; s++)
    {
      gint32 which = nt == 1 ? 0 : s;
      const TildeValue *theta = &thetas[which];
      int n = tilde_value_flat_size (theta);
      double *grad = NULL;

      if (ad && theta->ad)
        {
          if (grads[which] == NULL)
            grads[which] = tilde_arena_alloc0 (cx->arena, sizeof (double) * (gsize) MAX (n, 1));
          grad = grads[which];
        }
      total += one (cx, kind, y[ny == 1 ? 0 : s], rt_values (cx, theta), n, grad);
    }
  if (kind == PB_CDF)
    total = exp (total);   /* the product of the cdfs */
  guint n_ops = 0;
  for (gint32 j = 0; ad && j < nt; j++)
    if (grads[j] != NULL)
      {
        if (kind == PB_CDF)
          for (int i = 0; i < tilde_value_flat_size (&thetas[j]); i++)
            grads[j][i] *= total;
        ops[n_ops++] = rt_operand (&thetas[j], grads[j]);
      }
  *out = n_ops > 0 ? rt_reduce (cx, total, n_ops, ops) : tilde_value_real (total);
}

static void
k_lpmf (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  poisson_binomial (cx, PB_LPMF, v, out);
}

static void
k_cdf (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  poisson_binomial (cx, PB_CDF, v, out);
}

static void
k_lcdf (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  poisson_binomial (cx, PB_LCDF, v, out);
}

static void
k_lccdf (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  poisson_binomial (cx, PB_LCCDF, v, out);
}

static int
draw (RtCtx *cx, const TildeValue *theta)
{
  int n = tilde_value_flat_size (theta), count = 0;
  const double *p = rt_values (cx, theta);

  check_probabilities (cx, theta);
  for (int i = 0; i < n; i++)
    count += gsl_rng_uniform (cx->rng) < p[i];
  return count;
}

static void
k_rng (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  gint32 nt;
  const TildeValue *thetas;

  if (!cx->rng)
    rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "%s: random numbers are only available in "
              "transformed data and generated quantities", cx->fn_name);
  if (v[0].kind != TILDE_VALUE_ARRAY || tilde_value_is_flat (&v[0]))
    {
      *out = tilde_value_int (draw (cx, &v[0]));
      return;
    }
  dist_vectors (&v[0], &nt, &thetas);
  TildeValue r = { .kind = TILDE_VALUE_ARRAY, .elem = TILDE_VALUE_INT, .rows = nt, .cols = 1 };
  r.u.iv = tilde_arena_alloc (cx->arena, sizeof (int) * (gsize) MAX (nt, 1));
  for (gint32 s = 0; s < nt; s++)
    r.u.iv[s] = draw (cx, &thetas[s]);
  *out = r;
}

const RtBuiltin rt_builtins_poisson_binomial[] = {
  { "poisson_binomial_lpmf", k_lpmf, 2, 2 },
  { "poisson_binomial_lupmf", k_lpmf, 2, 2 },
  { "poisson_binomial_cdf", k_cdf, 2, 2 },
  { "poisson_binomial_lcdf", k_lcdf, 2, 2 },
  { "poisson_binomial_lccdf", k_lccdf, 2, 2 },
  { "poisson_binomial_rng", k_rng, 1, 1 },
  { NULL, NULL, 0, 0 },
};
