transformed data {
  int n = 3000000000;
}
