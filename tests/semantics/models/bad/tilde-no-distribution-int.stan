data {
  int y;
}
model {
  y ~ binomial_coefficient(5);
}
