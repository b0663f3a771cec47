data {
  vector[3] v;
}
parameters {
  array[3] real<lower=v> x;
}
