data {
  real then;
}
