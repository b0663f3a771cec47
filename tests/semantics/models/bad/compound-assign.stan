transformed data {
  vector[3] v;
  v *= v;
}
