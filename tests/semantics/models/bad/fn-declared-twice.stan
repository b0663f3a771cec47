functions {
  real foo(real x);
  real foo(real x);
  real foo(real x) {
    return x;
  }
}
