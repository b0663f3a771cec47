functions {
  real bar(real x) {
    return x;
  }
  int bar(real y) {
    return 1;
  }
}
