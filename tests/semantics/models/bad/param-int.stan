parameters {
  real y;
  int x;
}
