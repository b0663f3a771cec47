data {
  real for;
}
model {
}
