parameters {
  real x;
  real y;
}
model {
  x ~ normal(0, 1);
  y ~ normal(0, 1);
  target += normal_lpdf(x | 1, 1);
}
