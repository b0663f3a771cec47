data {
  int<lower=1> N;
  array[N] real y;
  real x;
  array[N] int<lower=0> n;
  vector[N] L;
}
parameters {
  real mu;
  real<lower=0> sigma;
  real<lower=0> lambda;
}
model {
  x ~ normal(mu, sigma) T[0, ];
  x ~ normal(mu, sigma) T[, 10];
  x ~ normal(mu, sigma) T[0, 10];
  y ~ normal(mu, sigma) T[0, 10];
  n ~ poisson(lambda) T[1, ];
  x ~ normal(L, sigma) T[0, 10];
}
