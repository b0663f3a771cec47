functions {
  real f(real x) {
    return x;
  }
}
transformed data {
  f(1.0);
}
