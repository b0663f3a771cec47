parameters {
  real x;
  real<lower=0> sigma;
}
model {
  x ~ normal(0, sigma);
  sigma ~ exponential(1);
}
