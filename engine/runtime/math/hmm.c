/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Hidden Markov models with K states and N observations: log_omega[k, n]
 * is the log density of observation n in state k, Gamma[i, j] the
 * probability of moving from state i to state j, rho the distribution of
 * the first state.
 *
 * The forward algorithm runs on each column's densities scaled by their
 * largest (the scale goes back into the result in logs), normalising
 * alpha at each step; the backward pass gives the posterior marginals,
 * which are the derivatives with respect to log_omega, and the derivatives
 * with respect to Gamma and rho: one node holds them all.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/runtime-private.h"
#include "runtime/dist/dist-private.h"

#include <math.h>
#include <string.h>

typedef struct {
  int     K, N;
  double *omega;     /* K x N, each column scaled by its largest */
  double *alpha;     /* K x N, normalised */
  double *beta;      /* K x N, scaled as alpha */
  double *c;         /* N normalisers */
  double  log_p;
} Hmm;

static void
check_hmm (RtCtx *cx, const TildeValue *lo, const TildeValue *G, const TildeValue *rho)
{
  int K = lo->rows;
  if (G->rows != G->cols)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: Expecting a square matrix; rows of Gamma (%d) "
              "and columns of Gamma (%d) must match in size", cx->fn_name, G->rows, G->cols);
  if (G->rows == 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Gamma has size 0, but must have a non-zero size",
              cx->fn_name);
  if (G->cols != K)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: Columns of Gamma (%d) and Rows of log_omegas "
              "(%d) must match in size", cx->fn_name, G->cols, K);
  if (tilde_value_flat_size (rho) != K)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: rho has dimension = %d, expecting dimension = "
              "%d; a function was called with arguments of different scalar, array, vector, or "
              "matrix types, and they were not consistently sized;  all arguments must be "
              "scalars or multidimensional values of the same shape.", cx->fn_name,
              tilde_value_flat_size (rho), K);
  dist_check_simplex (cx, "rho", rt_values (cx, rho), K);
  const double *g = rt_values (cx, G);
  double *row = rt_alloc_d (cx, (gsize) K);
  for (int i = 0; i < K; i++)
    {
      for (int j = 0; j < K; j++)
        row[j] = g[i + j * K];
      g_autofree char *what = g_strdup_printf ("Gamma[%d, ]", i + 1);
      dist_check_simplex (cx, tilde_arena_strdup (cx->arena, what), row, K);
    }
}

/* The forward and backward passes. */
static Hmm
forward_backward (RtCtx *cx, const TildeValue *lo, const TildeValue *G, const TildeValue *rho)
{
  Hmm h = { .K = lo->rows, .N = lo->cols };
  int K = h.K, N = h.N;
  const double *l = rt_values (cx, lo), *g = rt_values (cx, G), *r = rt_values (cx, rho);
  gsize kn = (gsize) K * (gsize) MAX (N, 1);
  h.omega = rt_alloc_d (cx, kn);
  h.alpha = rt_alloc_d (cx, kn);
  h.beta = rt_alloc_d (cx, kn);
  h.c = rt_alloc_d (cx, (gsize) MAX (N, 1));
  h.log_p = 0;
  for (int n = 0; n < N; n++)
    {
      double m = -INFINITY;
      for (int k = 0; k < K; k++)
        m = fmax (m, l[k + n * K]);
      if (!isfinite (m))
        m = 0;
      for (int k = 0; k < K; k++)
        h.omega[k + n * K] = exp (l[k + n * K] - m);
      double s = 0;
      for (int k = 0; k < K; k++)
        {
          double prior = 0;
          if (n == 0)
            prior = r[k];
          else
            for (int i = 0; i < K; i++)
              prior += g[i + k * K] * h.alpha[i + (n - 1) * K];
          h.alpha[k + n * K] = h.omega[k + n * K] * prior;
          s += h.alpha[k + n * K];
        }
      h.c[n] = s;
      for (int k = 0; k < K; k++)
        h.alpha[k + n * K] /= s;
      h.log_p += log (s) + m;
    }
  for (int k = 0; N > 0 && k < K; k++)
    h.beta[k + (N - 1) * K] = 1;
  for (int n = N - 2; n >= 0; n--)
    for (int i = 0; i < K; i++)
      {
        double s = 0;
        for (int j = 0; j < K; j++)
          s += g[i + j * K] * h.omega[j + (n + 1) * K] * h.beta[j + (n + 1) * K];
        h.beta[i + n * K] = s / h.c[n + 1];
      }
  return h;
}

static void
k_hmm_marginal (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  check_hmm (cx, &a[0], &a[1], &a[2]);
  Hmm h = forward_backward (cx, &a[0], &a[1], &a[2]);
  int K = h.K, N = h.N;
  if (N == 0)
    {
      tilde_value_set_real (out, 0);
      return;
    }
  AdOperand ops[3];
  guint n_ops = 0;
  if (a[0].ad)
    {
      /* the posterior marginals */
      double *p = rt_alloc_d (cx, (gsize) (K * N));
      for (int i = 0; i < K * N; i++)
        p[i] = h.alpha[i] * h.beta[i];
      ops[n_ops++] = rt_operand (&a[0], p);
    }
  if (a[1].ad)
    {
      double *p = rt_alloc_d (cx, (gsize) (K * K));
      memset (p, 0, sizeof (double) * (gsize) (K * K));
      for (int n = 1; n < N; n++)
        for (int j = 0; j < K; j++)
          {
            double w = h.omega[j + n * K] * h.beta[j + n * K] / h.c[n];
            for (int i = 0; i < K; i++)
              p[i + j * K] += h.alpha[i + (n - 1) * K] * w;
          }
      ops[n_ops++] = rt_operand (&a[1], p);
    }
  if (a[2].ad)
    {
      double *p = rt_alloc_d (cx, (gsize) K);
      for (int k = 0; k < K; k++)
        p[k] = h.omega[k] * h.beta[k] / h.c[0];
      ops[n_ops++] = rt_operand (&a[2], p);
    }
  *out = rt_reduce (cx, h.log_p, n_ops, ops);
}

static void
k_hmm_hidden_state_prob (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  check_hmm (cx, &a[0], &a[1], &a[2]);
  Hmm h = forward_backward (cx, &a[0], &a[1], &a[2]);
  TildeValue r = rt_new_data (cx, TILDE_VALUE_MATRIX, h.K, h.N);
  for (int i = 0; i < h.K * h.N; i++)
    r.u.d[i] = h.alpha[i] * h.beta[i];
  *out = r;
}

/* A draw of k with probability p[k] / sum (p). */
static int
categorical (gsl_rng *rng, const double *p, int K)
{
  double s = 0;
  for (int k = 0; k < K; k++)
    s += p[k];
  double u = gsl_rng_uniform (rng) * s, acc = 0;
  for (int k = 0; k < K; k++)
    {
      acc += p[k];
      if (u < acc)
        return k;
    }
  return K - 1;
}

/* Forward filtering, backward sampling. */
static void
k_hmm_latent_rng (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out)
{
  if (!cx->rng)
    rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "%s: random numbers are only available in "
              "transformed data and generated quantities", cx->fn_name);
  check_hmm (cx, &a[0], &a[1], &a[2]);
  Hmm h = forward_backward (cx, &a[0], &a[1], &a[2]);
  int K = h.K, N = h.N;
  const double *g = rt_values (cx, &a[1]);
  TildeValue r = { .kind = TILDE_VALUE_ARRAY, .elem = TILDE_VALUE_INT, .rows = N, .cols = 1 };
  r.u.iv = tilde_arena_alloc (cx->arena, sizeof (int) * (gsize) MAX (N, 1));
  double *p = rt_alloc_d (cx, (gsize) K);
  int next = 0;
  for (int n = N - 1; n >= 0; n--)
    {
      for (int i = 0; i < K; i++)
        p[i] = h.alpha[i + n * K] * (n == N - 1 ? 1 : g[i + next * K]);
      next = categorical (cx->rng, p, K);
      r.u.iv[n] = next + 1;
    }
  *out = r;
}

const RtBuiltin rt_builtins_hmm[] = {
  { "hmm_marginal", k_hmm_marginal, 3, 3 },
  { "hmm_hidden_state_prob", k_hmm_hidden_state_prob, 3, 3 },
  { "hmm_latent_rng", k_hmm_latent_rng, 3, 3 },
  { NULL, NULL, 0, 0 },
};
