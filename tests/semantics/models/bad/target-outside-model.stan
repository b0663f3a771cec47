transformed data {
  real t = target();
}
