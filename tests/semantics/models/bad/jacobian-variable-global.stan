transformed data {
  real jacobian = 0;
}
parameters {
  real y;
}
transformed parameters {
  jacobian += y;
}
