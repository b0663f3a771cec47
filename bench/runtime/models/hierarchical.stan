// SPDX-License-Identifier: GPL-3.0-or-later
data {
  int<lower=1> N;
  int<lower=1> G;
  array[N] int<lower=1, upper=G> g;
  vector[N] y;
}
parameters {
  real mu;
  real<lower=0> tau;
  real<lower=0> sigma;
  vector[G] eta;
}
model {
  mu ~ normal(0, 10);
  tau ~ normal(0, 5);
  sigma ~ normal(0, 5);
  eta ~ std_normal();
  y ~ normal(mu + tau * eta[g], sigma);
}
