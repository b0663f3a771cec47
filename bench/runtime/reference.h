/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Hand-written log densities and gradients of the benchmark models, the
 * yardstick the runtime is measured against. Each returns what Tilde's
 * log density returns with propto and jacobian set: the terms of the `~`
 * statements that depend on a parameter, plus the log Jacobians of the
 * lower bounds, at the unconstrained point `theta`; the gradient with
 * respect to `theta` goes to `grad`.
 */
#pragma once

typedef struct {
  int     N, K, G;
  double *X;       /* logistic: N x K, row-major */
  int    *yi;      /* logistic: outcomes */
  int    *g;       /* hierarchical: group of each observation, 1-based */
  double *x;       /* GP: inputs */
  double *y;       /* observations */
  double *sigma;   /* eight schools: standard errors; GARCH: sigma1 */
  double *work;    /* scratch: logistic 2 N, GP 2 N x N + N, GARCH 2 N */
} BenchData;

typedef double (*RefLogDensity) (const BenchData *d, const double *theta, double *grad);

/* theta: alpha, beta[K] */
double ref_logistic      (const BenchData *d, const double *theta, double *grad);
/* theta: mu, log tau, theta_tilde[J]; J is N */
double ref_eight_schools (const BenchData *d, const double *theta, double *grad);
/* theta: mu, log tau, log sigma, eta[G] */
double ref_hierarchical  (const BenchData *d, const double *theta, double *grad);
/* theta: alpha, beta, log sigma */
double ref_ar1           (const BenchData *d, const double *theta, double *grad);
/* theta: alpha, beta[K], log sigma */
double ref_ark           (const BenchData *d, const double *theta, double *grad);
/* theta: mu, log alpha0, logit alpha1, logit (beta1 / (1 - alpha1)); sigma[0] is
 * sigma1, work 2 T */
double ref_garch         (const BenchData *d, const double *theta, double *grad);
/* theta: log rho, log alpha, log sigma */
double ref_gp            (const BenchData *d, const double *theta, double *grad);
