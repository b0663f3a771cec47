data {
  vector[2.5] v;
}
