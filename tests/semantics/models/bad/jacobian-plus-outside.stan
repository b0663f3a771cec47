parameters {
  real y;
}
model {
  jacobian += y;
}
