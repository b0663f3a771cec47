data {
  real column_stochastic_matrix;
}
