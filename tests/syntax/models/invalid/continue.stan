data {
  real continue;
}
model {
}
