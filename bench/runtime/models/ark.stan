// SPDX-License-Identifier: GPL-3.0-or-later
data {
  int<lower=0> K;
  int<lower=0> N;
  array[N] real y;
}
parameters {
  real alpha;
  array[K] real beta;
  real<lower=0> sigma;
}
model {
  alpha ~ normal(0, 10);
  beta ~ normal(0, 10);
  sigma ~ cauchy(0, 2.5);
  for (t in (K + 1):N) {
    real mu = alpha;
    for (k in 1:K) {
      mu += beta[k] * y[t - k];
    }
    y[t] ~ normal(mu, sigma);
  }
}
