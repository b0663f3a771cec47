data {
  real in;
}
model {
}
