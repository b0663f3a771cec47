functions {
  real f(real x) {
    return;
  }
}
