transformed data {
  real y;
  if (1 y = 2;
}
model {
}
