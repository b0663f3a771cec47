parameters {
  real<lower=0> sigma;
}
model {
  sigma ~ exponential(1);
  target += -sigmaa;
}
