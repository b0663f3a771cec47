functions {
  real f(real x) {
    return {1.0};
  }
}
