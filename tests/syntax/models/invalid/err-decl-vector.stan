data {
  vector a[3];
}
model {
}
