data {
  vector[3] v;
}
transformed data {
  vector[2] w = v[1:2.0];
}
