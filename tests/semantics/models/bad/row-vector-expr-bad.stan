data {
  vector[2] v;
}
transformed data {
  row_vector[2] r = [1, v];
}
