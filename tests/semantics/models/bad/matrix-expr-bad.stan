data {
  row_vector[2] r;
}
transformed data {
  matrix[2, 2] m = [r, 1];
}
