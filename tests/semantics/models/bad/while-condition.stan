transformed data {
  real x = 1;
  while (x) {
    x = 0;
  }
}
