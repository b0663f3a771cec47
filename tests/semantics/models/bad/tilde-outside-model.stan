parameters {
  real y;
}
generated quantities {
  y ~ normal(0, 1);
}
