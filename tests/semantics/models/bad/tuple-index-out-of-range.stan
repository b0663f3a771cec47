data {
  tuple(real, int) t;
}
transformed data {
  real x = t.3;
}
