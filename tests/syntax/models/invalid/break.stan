data {
  real break;
}
model {
}
