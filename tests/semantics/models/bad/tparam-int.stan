transformed parameters {
  array[2] int x;
}
