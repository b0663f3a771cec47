generated quantities {
  int n;
  n = 1;
  n = n + 1;
  n = n * 2;
  n = 2;
}
model {
}
