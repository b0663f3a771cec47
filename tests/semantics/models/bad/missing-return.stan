functions {
  real foo(real x) {
    if (x > 0)
      return 1;
  }
}
