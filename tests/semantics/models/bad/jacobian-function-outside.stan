functions {
  real f_jacobian(real x) {
    jacobian += x;
    return x;
  }
}
model {
  real y = f_jacobian(1.0);
}
