functions {
  real foo(real x {
    return 1.0;
  }
}
