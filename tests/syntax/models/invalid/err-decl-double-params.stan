transformed data {
  real y;
  lijaflj
}
model {
}
