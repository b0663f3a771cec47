transformed data {
  int n;
  n = 3 ||
}
model {
}
