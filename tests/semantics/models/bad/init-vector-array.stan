data {
  array[2] real a1;
}
transformed data {
  vector[2] td_a1 = a1;
}
