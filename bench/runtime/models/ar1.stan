// SPDX-License-Identifier: GPL-3.0-or-later
data {
  int<lower=2> N;
  vector[N] y;
}
parameters {
  real alpha;
  real beta;
  real<lower=0> sigma;
}
model {
  alpha ~ normal(0, 10);
  beta ~ normal(0, 1);
  sigma ~ normal(0, 5);
  for (n in 2:N) {
    y[n] ~ normal(alpha + beta * y[n - 1], sigma);
  }
}
