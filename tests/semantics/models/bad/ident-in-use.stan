data {
  int N;
}
transformed data {
  real N = 2;
}
