parameters {
  vector[3] z;
  real<lower=0> s_raw;
}
transformed parameters {
  real s = square(s_raw);
  jacobian += log(2 * s_raw);
}
model {
  z ~ std_normal();
  s ~ gamma(2, 2);
  for (x in z) {
    target += 0;
  }
}
