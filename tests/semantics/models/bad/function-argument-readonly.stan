functions {
  real f(real x) {
    x = 2;
    return x;
  }
}
