/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The benchmark models written out by hand: one pass over the data with
 * the derivatives worked out on paper, as someone writing a sampler for
 * one model would, and matrix products and factorisations on the same
 * OpenBLAS and LAPACKE the runtime uses. Built at -O2.
 */
#define G_LOG_DOMAIN "tilde-bench"

#include "reference.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

/* The products with X go to BLAS, as the runtime's do: the comparison is
 * of everything around them. */
double
ref_logistic (const BenchData *d, const double *theta, double *grad)
{
  int N = d->N, K = d->K;
  double alpha = theta[0];
  const double *beta = theta + 1;
  double *eta = d->work, *r = d->work + N;
  double lp = -0.5 * (alpha / 5) * (alpha / 5);
  double galpha = -alpha / 25;
  for (int k = 0; k < K; k++)
    lp -= 0.5 * beta[k] * beta[k];
  cblas_dgemv (CblasRowMajor, CblasNoTrans, N, K, 1.0, d->X, K, beta, 1, 0.0, eta, 1);
  for (int n = 0; n < N; n++)
    {
      /* log inv_logit (s) with s = eta for y = 1, -eta for y = 0, and its
       * derivative, from one exponential */
      double sign = d->yi[n] ? 1 : -1, s = sign * (alpha + eta[n]);
      double e = exp (-fabs (s));
      lp += (s < 0 ? s : 0) - log1p (e);
      r[n] = sign * (s > 0 ? e : 1) / (1 + e);
      galpha += r[n];
    }
  grad[0] = galpha;
  for (int k = 0; k < K; k++)
    grad[1 + k] = -beta[k];
  cblas_dgemv (CblasRowMajor, CblasTrans, N, K, 1.0, d->X, K, r, 1, 1.0, grad + 1, 1);
  return lp;
}

double
ref_eight_schools (const BenchData *d, const double *theta, double *grad)
{
  int J = d->N;
  double mu = theta[0], tau = exp (theta[1]);
  const double *tt = theta + 2;
  double lp = -0.5 * (mu / 5) * (mu / 5) - log1p ((tau / 5) * (tau / 5)) + theta[1];
  double gmu = -mu / 25;
  double gtau = -2 * tau / 25 / (1 + (tau / 5) * (tau / 5));
  for (int j = 0; j < J; j++)
    {
      double th = mu + tau * tt[j];
      double s = d->sigma[j], z = (d->y[j] - th) / s;
      lp -= 0.5 * tt[j] * tt[j] + 0.5 * z * z;
      double gth = z / s;
      gmu += gth;
      gtau += gth * tt[j];
      grad[2 + j] = -tt[j] + gth * tau;
    }
  grad[0] = gmu;
  grad[1] = gtau * tau + 1;
  return lp;
}

double
ref_hierarchical (const BenchData *d, const double *theta, double *grad)
{
  int N = d->N, G = d->G;
  double mu = theta[0], tau = exp (theta[1]), sigma = exp (theta[2]);
  const double *eta = theta + 3;
  double *geta = grad + 3;
  double lp = -0.5 * (mu / 10) * (mu / 10) - 0.5 * (tau / 5) * (tau / 5) + theta[1]
    - 0.5 * (sigma / 5) * (sigma / 5) + theta[2];
  for (int k = 0; k < G; k++)
    {
      lp -= 0.5 * eta[k] * eta[k];
      geta[k] = -eta[k];
    }
  double inv_s = 1 / sigma, sq = 0, gm = 0, gt = 0;
  for (int n = 0; n < N; n++)
    {
      int k = d->g[n] - 1;
      double z = (d->y[n] - mu - tau * eta[k]) * inv_s;
      sq += z * z;
      double gmean = z * inv_s;
      gm += gmean;
      gt += gmean * eta[k];
      geta[k] += gmean * tau;
    }
  lp -= 0.5 * sq + N * theta[2];
  grad[0] = -mu / 100 + gm;
  grad[1] = (-tau / 25 + gt) * tau + 1;
  /* d/dsigma of -N log sigma - sq / 2 is (-N + sq) / sigma */
  grad[2] = (-sigma / 25) * sigma + (sq - N) + 1;
  return lp;
}

double
ref_ar1 (const BenchData *d, const double *theta, double *grad)
{
  int N = d->N;
  double alpha = theta[0], beta = theta[1], sigma = exp (theta[2]);
  const double *y = d->y;
  double sr = 0, sry = 0, sq = 0;
  for (int n = 1; n < N; n++)
    {
      double r = y[n] - alpha - beta * y[n - 1];
      sq += r * r;
      sr += r;
      sry += r * y[n - 1];
    }
  double inv_s2 = 1 / (sigma * sigma);
  double lp = -0.5 * (alpha / 10) * (alpha / 10) - 0.5 * beta * beta
    - 0.5 * (sigma / 5) * (sigma / 5) + theta[2] - 0.5 * sq * inv_s2 - (N - 1) * theta[2];
  grad[0] = -alpha / 100 + sr * inv_s2;
  grad[1] = -beta + sry * inv_s2;
  grad[2] = -(sigma / 5) * (sigma / 5) + sq * inv_s2 - (N - 1) + 1;
  return lp;
}

/* The autoregression of order K written as the model's loops write it:
 * the residual of each observation from its K predecessors. */
double
ref_ark (const BenchData *d, const double *theta, double *grad)
{
  int N = d->N, K = d->K;
  double alpha = theta[0], sigma = exp (theta[K + 1]);
  const double *beta = theta + 1, *y = d->y;
  double *gb = grad + 1;
  double sr = 0, sq = 0;
  for (int k = 0; k < K; k++)
    gb[k] = 0;
  for (int t = K; t < N; t++)
    {
      double mu = alpha;
      for (int k = 1; k <= K; k++)
        mu += beta[k - 1] * y[t - k];
      double r = y[t] - mu;
      sq += r * r;
      sr += r;
      for (int k = 1; k <= K; k++)
        gb[k - 1] += r * y[t - k];
    }
  double inv_s2 = 1 / (sigma * sigma), u = sigma / 2.5;
  double lp = -0.5 * (alpha / 10) * (alpha / 10) - log1p (u * u) + theta[K + 1]
    - 0.5 * sq * inv_s2 - (N - K) * theta[K + 1];
  for (int k = 0; k < K; k++)
    {
      lp -= 0.5 * (beta[k] / 10) * (beta[k] / 10);
      gb[k] = -beta[k] / 100 + gb[k] * inv_s2;
    }
  grad[0] = -alpha / 100 + sr * inv_s2;
  grad[K + 1] = -2 * u * u / (1 + u * u) + 1 + sq * inv_s2 - (N - K);
  return lp;
}

/* GARCH(1,1): the volatilities forward, their adjoints backward through
 * the recurrence, then the bounds' chain rule and log Jacobians (beta1's
 * upper bound 1 - alpha1 depends on alpha1). */
double
ref_garch (const BenchData *d, const double *theta, double *grad)
{
  int T = d->N;
  const double *y = d->y;
  double mu = theta[0], alpha0 = exp (theta[1]);
  double p2 = 1 / (1 + exp (-theta[2])), p3 = 1 / (1 + exp (-theta[3]));
  double alpha1 = p2, beta1 = (1 - alpha1) * p3;
  double *s = d->work, *gs = s + T;
  double lp = 0, gmu = 0;
  s[0] = d->sigma[0];
  for (int t = 1; t < T; t++)
    {
      double r = y[t - 1] - mu;
      s[t] = sqrt (alpha0 + alpha1 * r * r + beta1 * s[t - 1] * s[t - 1]);
    }
  for (int t = 0; t < T; t++)
    {
      double z = (y[t] - mu) / s[t];
      lp -= log (s[t]) + 0.5 * z * z;
      gmu += z / s[t];
      gs[t] = (z * z - 1) / s[t];
    }
  double ga0 = 0, ga1 = 0, gb1 = 0, carry = 0;
  for (int t = T - 1; t >= 1; t--)
    {
      double r = y[t - 1] - mu;
      double dq = (gs[t] + carry) / (2 * s[t]);
      ga0 += dq;
      ga1 += dq * r * r;
      gb1 += dq * s[t - 1] * s[t - 1];
      gmu -= dq * alpha1 * 2 * r;
      carry = dq * beta1 * 2 * s[t - 1];
    }
  lp += theta[1] + log (p2) + log1p (-p2) + log1p (-alpha1) + log (p3) + log1p (-p3);
  grad[0] = gmu;
  grad[1] = ga0 * alpha0 + 1;
  grad[2] = (ga1 - gb1 * p3) * p2 * (1 - p2) + (1 - 2 * p2) - p2;
  grad[3] = gb1 * (1 - alpha1) * p3 * (1 - p3) + 1 - 2 * p3;
  return lp;
}

/* -y' K^-1 y / 2 - log det K / 2 for K = alpha^2 exp (-d^2 / (2 rho^2)) +
 * sigma^2 I, and its derivatives 0.5 tr ((a a' - K^-1) dK) with a = K^-1 y.
 * Only lower triangles are formed. */
double
ref_gp (const BenchData *d, const double *theta, double *grad)
{
  int N = d->N;
  double rho = exp (theta[0]), alpha = exp (theta[1]), sigma = exp (theta[2]);
  double *E = d->work, *K = E + (size_t) N * N, *a = K + (size_t) N * N;
  double a2 = alpha * alpha, s2 = sigma * sigma, c = -0.5 / (rho * rho);
  for (int j = 0; j < N; j++)
    for (int i = j; i < N; i++)
      {
        double dx = d->x[i] - d->x[j];
        double e = exp (c * dx * dx);
        E[i + (size_t) j * N] = e;
        K[i + (size_t) j * N] = a2 * e + (i == j ? s2 : 0);
      }
  if (LAPACKE_dpotrf (LAPACK_COL_MAJOR, 'L', N, K, N) != 0)
    return NAN;
  double logdet_half = 0;
  for (int i = 0; i < N; i++)
    logdet_half += log (K[i + (size_t) i * N]);
  memcpy (a, d->y, sizeof (double) * (size_t) N);
  LAPACKE_dpotrs (LAPACK_COL_MAJOR, 'L', N, 1, K, N, a, N);
  double quad = 0;
  for (int i = 0; i < N; i++)
    quad += d->y[i] * a[i];
  LAPACKE_dpotri (LAPACK_COL_MAJOR, 'L', N, K, N);
  /* K now holds the lower triangle of K^-1 */
  double t_rho = 0, t_alpha = 0, t_sigma = 0;
  for (int j = 0; j < N; j++)
    for (int i = j; i < N; i++)
      {
        double w = a[i] * a[j] - K[i + (size_t) j * N];
        double e = E[i + (size_t) j * N];
        double dx = d->x[i] - d->x[j];
        double m = i == j ? 1 : 2;
        t_rho += m * w * e * dx * dx;
        t_alpha += m * w * e;
        if (i == j)
          t_sigma += w;
      }
  double lp = -0.5 * quad - logdet_half
    - 6 * theta[0] - 5 / rho - 0.5 * alpha * alpha - 0.5 * sigma * sigma
    + theta[0] + theta[1] + theta[2];
  /* dK/drho = alpha^2 E d^2 / rho^3, dK/dalpha = 2 alpha E, dK/dsigma = 2 sigma I */
  grad[0] = 0.5 * t_rho * a2 / (rho * rho) - 6 + 5 / rho + 1;
  grad[1] = t_alpha * a2 - a2 + 1;
  grad[2] = t_sigma * s2 - s2 + 1;
  return lp;
}
