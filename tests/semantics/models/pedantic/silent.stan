data {
  int<lower=0> N;
  vector[N] y;
}
parameters {
  real mu;
  @silent real sigma;
  @silent real unused;
  @silent real<lower=0, upper=10> bounded;
  real loud;
}
model {
  mu ~ normal(0, 1);
  bounded ~ normal(5, 1);
  y ~ normal(mu, sigma);
}
