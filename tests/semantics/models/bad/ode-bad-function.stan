functions {
  vector rhs(real t, vector y, real k) {
    return -k * y;
  }
}
data {
  vector[2] y0;
  array[3] real ts;
}
parameters {
  real k;
}
transformed parameters {
  array[3] vector[2] ys = ode_rk45(rhs, y0, 0, ts, k, k);
}
