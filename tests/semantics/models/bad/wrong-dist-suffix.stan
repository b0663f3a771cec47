data {
  array[3] int y;
}
model {
  target += poisson_lpdf(y | 3);
}
