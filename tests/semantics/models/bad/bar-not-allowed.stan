parameters {
  real mu;
}
model {
  target += pow(mu | 2);
}
