parameters {
  real a;
  real b;
  real c;
}
transformed parameters {
  real d = 2 * c;
}
model {
  a ~ normal(0, 1);
}
generated quantities {
  real e = b + d;
}
