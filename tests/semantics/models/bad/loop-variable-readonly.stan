transformed data {
  int n = 0;
  for (i in 1:10) {
    i = n;
  }
}
