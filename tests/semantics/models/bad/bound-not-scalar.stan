data {
  vector[3] v;
}
parameters {
  real<lower=v> x;
}
