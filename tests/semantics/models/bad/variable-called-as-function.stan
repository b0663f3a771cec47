functions {
  real foo(real x) {
    return x;
  }
}
data {
  real foo_x;
}
transformed data {
  real foo = 1;
  real y = foo(2.0);
}
