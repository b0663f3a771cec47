data {
  vector[3] v;
}
transformed data {
  vector[3] x = 1 ? v : 2;
}
