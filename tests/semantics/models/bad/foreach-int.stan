transformed data {
  for (x in 3) {
  }
}
