functions {
  real f(real x) {
    return x;
  }
}
transformed data {
  print(f);
}
