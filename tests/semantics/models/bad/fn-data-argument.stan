functions {
  real f(data real x) {
    return x;
  }
}
parameters {
  real mu;
}
model {
  target += f(mu);
}
