transformed data {
  int n;
  break;
}
