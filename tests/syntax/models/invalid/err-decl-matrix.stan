data {
  matrix[3] y;
}
model {
}
