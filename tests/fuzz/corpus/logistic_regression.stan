data {
  int<lower=0> N;
  int<lower=1> K;
  matrix[N, K] X;
  array[N] int<lower=0, upper=1> y;
}
parameters {
  real alpha;
  vector[K] beta;
}
model {
  alpha ~ normal(0, 2.5);
  beta ~ student_t(3, 0, 1);
  y ~ bernoulli_logit_glm(X, alpha, beta);
}
generated quantities {
  array[N] int y_rep = bernoulli_logit_rng(alpha + X * beta);
  real log_lik = bernoulli_logit_glm_lpmf(y | X, alpha, beta);
}
