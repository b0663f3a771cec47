transformed data {
  target += 1;
}
