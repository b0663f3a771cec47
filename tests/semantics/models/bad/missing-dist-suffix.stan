data {
  array[3] int y;
  simplex[3] theta;
}
generated quantities {
  real c = categorical_lcdf(y | theta);
}
