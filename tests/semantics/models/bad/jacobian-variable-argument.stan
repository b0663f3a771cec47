functions {
  real scale_jacobian(real jacobian) {
    jacobian += 1;
    return jacobian;
  }
}
