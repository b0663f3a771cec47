data {
  vector[3] x;
}
parameters {
  real a;
  real b;
  vector[3] v;
}
model {
  a ~ normal(0, 1);
  b ~ normal(0, 1);
  2 * v + 1 ~ normal(0, 1);
  log(x) ~ normal(a, exp(b));
}
