functions {
  real bar(real x) {
    return x;
  }
  real bar(real y) {
    return y;
  }
}
