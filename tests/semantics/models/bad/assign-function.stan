functions {
  real foo(real x) {
    return x;
  }
}
transformed data {
  real y;
  y = foo;
}
