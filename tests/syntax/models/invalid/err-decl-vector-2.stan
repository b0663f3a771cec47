data {
  vector[3,4] y;
}
model {
}
