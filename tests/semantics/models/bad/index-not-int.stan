data {
  vector[3] v;
}
transformed data {
  real x = v[1.5];
}
