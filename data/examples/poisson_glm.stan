// SPDX-License-Identifier: GPL-3.0-or-later
// Poisson regression of event counts observed over different exposures
// (for instance person-years): the log exposure enters the linear predictor
// as an offset, so exp(alpha + x * beta) is a rate per unit of exposure.
data {
  int<lower=0> N;
  int<lower=1> K;
  matrix[N, K] x;
  vector<lower=0>[N] exposure;
  array[N] int<lower=0> y;
}
transformed data {
  vector[N] log_exposure = log(exposure);
}
parameters {
  real alpha;
  vector[K] beta;
}
model {
  alpha ~ normal(0, 2.5);
  beta ~ normal(0, 1);
  y ~ poisson_log(log_exposure + alpha + x * beta);
}
generated quantities {
  vector[K] rate_ratio = exp(beta);
}
