parameters {
  real<lower=0> sigma;
  real mu;
}
model {
  log(sigma) ~ normal(0, 1);
  target += normal_lpdf(exp(mu) | 1, 1);
}
