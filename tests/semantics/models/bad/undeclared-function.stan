parameters {
  real y;
}
model {
  target += nromal_lpdf(y | 0, 1);
}
