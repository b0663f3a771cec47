functions {
  real foo(real x);
}
transformed data {
  real y = foo(1.0);
}
