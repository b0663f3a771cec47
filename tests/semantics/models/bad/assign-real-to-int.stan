transformed data {
  int a;
  real b;
  b = 3.2;
  a = b;
}
