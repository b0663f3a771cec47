functions {
  @extern real external_helper(real x);
  @silent @inline real twice(real x) {
    return 2 * x;
  }
}
data {
  @gpu vector[10] y;
  @silent int<lower=0> n;
}
parameters {
  real mu;
}
model {
  @keep real local = twice(mu);
  y ~ normal(local, 1);
}
