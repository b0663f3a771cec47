transformed data {
  for (i in 1.0:3) {
  }
}
