parameters {
  real y;
}
model {
  target += normal_cdf_log(y, 0, 1);
}
