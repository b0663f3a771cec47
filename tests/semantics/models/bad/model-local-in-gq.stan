parameters {
  real mu;
}
model {
  real model_local = square(mu);
  mu ~ normal(0, 1);
}
generated quantities {
  real s = model_local;
}
