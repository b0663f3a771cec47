data {
  real n;
  array[n] real v;
}
