data {
  vector[3] v;
}
parameters {
  real y;
}
model {
  y ~ normal(0, 1) T[v, ];
}
