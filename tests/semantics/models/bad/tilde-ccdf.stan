parameters {
  real<lower=0> y;
}
model {
  y ~ weibull_ccdf(1, 1);
}
