functions {
  real foo^3(real x) {
    return 2.0 * x;
  }
}
