parameters {
  real y;
}
model {
  if (y)
    y ~ normal(0, 1);
}
