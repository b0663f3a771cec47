parameters {
  real mu;
}
model {
  real a;
  real b;
  vector[2] v;
  if (mu > 0) {
    b = 1;
  }
  v[1] = 2;
  mu ~ normal(a + b, v[1]);
}
generated quantities {
  real g;
  real h = g * 2;
}
