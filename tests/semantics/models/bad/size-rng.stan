transformed data {
  vector[poisson_rng(3)] v;
}
