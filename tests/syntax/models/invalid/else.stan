data {
  real else;
}
model {
}
