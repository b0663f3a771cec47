transformed data {
  real y;
  y = 3;
  else y = 3;
  else y = 4;
}
