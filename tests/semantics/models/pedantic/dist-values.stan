parameters {
  real mu;
}
model {
  real s = 1 - 3;
  mu ~ normal(0, -1);
  mu ~ normal(0, s);
  1.5 ~ beta(2, 2);
}
