functions {
  real first(data array[] int x) {
    return x[1];
  }
}
parameters {
  real a;
}
model {
  target += first({a > 2, 1});
}
