data {
  int<lower=0> N;
  array[N] int<lower=0, upper=1> z;
  array[N] int<lower=0> k;
}
parameters {
  real p;
  real<lower=0> lambda;
  real<lower=0, upper=1> q;
  real w;
}
model {
  p ~ normal(0, 1);
  q ~ beta(2, 2);
  lambda ~ gamma(2, 2);
  w ~ lognormal(0, 1);
  z ~ bernoulli(p);
  k ~ binomial(10, lambda);
}
