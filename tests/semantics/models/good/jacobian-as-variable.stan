functions {
  real running_total(real x) {
    real jacobian = 0;
    jacobian += x;
    return jacobian;
  }
}
parameters {
  real<lower=0> sigma;
}
transformed parameters {
  real jacobian = 1;
  jacobian += sigma;
}
model {
  sigma ~ exponential(running_total(1));
}
