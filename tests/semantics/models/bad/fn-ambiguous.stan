functions {
  real f(int a, real b) {
    return a + b;
  }
  real f(real a, int b) {
    return a + b;
  }
}
transformed data {
  real y = f(1, 1);
}
