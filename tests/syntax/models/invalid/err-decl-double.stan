data {
  double y;
}
model {
}
