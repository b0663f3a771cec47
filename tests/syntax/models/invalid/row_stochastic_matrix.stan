generated quantities {
  int row_stochastic_matrix;
}
