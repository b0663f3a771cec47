parameters {
  real<lower=1> K;
  vector[K] v;
}
