data {
  real<lower=> y;
}
model {
}
