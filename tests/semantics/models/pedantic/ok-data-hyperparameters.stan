data {
  int<lower=0> N;
  array[N] int<lower=0, upper=1> z;
  real a;
  real<lower=0> b;
  vector[N] x;
}
transformed data {
  real prior_scale = 2 * b;
}
parameters {
  real<lower=0, upper=1> theta;
  real mu;
  real<lower=0> tau;
  vector[N] eta;
}
model {
  theta ~ beta(a, b);
  z ~ bernoulli(theta);
  mu ~ normal(a, prior_scale);
  tau ~ normal(0, 1);
  eta ~ normal(mu, tau);
  x ~ normal(eta, 1);
}
