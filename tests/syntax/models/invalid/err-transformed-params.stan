parameters {
  real y;
}
transformed {
}
model {
}
