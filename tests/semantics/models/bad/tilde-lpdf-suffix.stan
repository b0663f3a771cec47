parameters {
  real y;
}
model {
  y ~ normal_lpdf(0, 1);
}
