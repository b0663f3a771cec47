transformed data {
  real y;
  if () y = 2;
}
model {
}
