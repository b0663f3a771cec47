data {
  array[3] int y;
}
parameters {
  real l;
}
model {
  y ~ poisson_log(l) T[0, ];
}
