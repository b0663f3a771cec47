// SPDX-License-Identifier: GPL-3.0-or-later
// Logistic regression of a binary outcome on K predictors, with weakly
// informative priors, and replicated outcomes for posterior predictive checks.
data {
  int<lower=0> N;
  int<lower=1> K;
  matrix[N, K] x;
  array[N] int<lower=0, upper=1> y;
}
parameters {
  real alpha;
  vector[K] beta;
}
model {
  alpha ~ normal(0, 2.5);
  beta ~ normal(0, 1);
  y ~ bernoulli_logit(alpha + x * beta);
}
generated quantities {
  array[N] int y_rep = bernoulli_logit_rng(alpha + x * beta);
}
