transformed data {
  real a;
  int i;
  (a, i) = (1.0, 2.5);
}
