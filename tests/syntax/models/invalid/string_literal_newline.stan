transformed data {
  print(
  "print
  lines");
}
