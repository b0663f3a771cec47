data {
  real a;
}
transformed data {
  real x = a.1;
}
