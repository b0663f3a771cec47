functions {
  real soft_abs(real x) {
    if (x < 0) {
      return -x;
    }
    return x;
  }
}
data {
  real y;
}
parameters {
  real theta;
}
model {
  theta ~ normal(0, 1);
  y ~ normal(soft_abs(theta), 1);
  y ~ normal(soft_abs(y), 1);
}
