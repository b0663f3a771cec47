transformed data {
  real x;
  x = 2 + (());
}
