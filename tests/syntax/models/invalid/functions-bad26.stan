functions {
  real foo(real x) {
    real y = x + 2.0;
    return y
  }
}
