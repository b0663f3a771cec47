data {
  real x;
}
transformed data {
  x = 3;
}
