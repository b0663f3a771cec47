functions {
  real foo(void x) {
    return 1.0;
  }
}
