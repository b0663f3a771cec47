data {
  real sum_to_zero_vector;
}
