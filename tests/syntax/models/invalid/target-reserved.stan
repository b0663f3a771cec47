data {
  real target;
}
parameters {
}
