data {
  real vector;
}
model {
}
