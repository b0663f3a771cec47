data {
  int<lower=0> N;
  real L;
  real<lower=L> U;
  array[N] int<lower=0> y;
  array[N] real<lower=L, upper=U> x;
}
parameters {
  real<lower=0> lambda;
  real mu;
  real<lower=0> sigma;
}
model {
  for (n in 1:N) {
    y[n] ~ poisson(lambda) T[, 100];
    x[n] ~ normal(mu, sigma) T[L, U];
  }
  lambda ~ gamma(2, 1) T[0.5, ];
  profile("priors") {
    mu ~ normal(0, 10);
    sigma ~ exponential(1);
  }
}
