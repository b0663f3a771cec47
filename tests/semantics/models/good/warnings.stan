functions {
  real f(real x);
  real f(real x) {
    return x;
  }
  real g_lp(real x) {
    target += x;
    return x;
  }
  real add_jacobian(real x) {
    jacobian += x;
    return x;
  }
  array[] real rhs(real t, array[] real y, array[] real th, data array[] real xr,
                   data array[] int xi) {
    return y;
  }
}
data {
  @fancy real x;
  array[3] real ts;
}
transformed data {
  real h = 4 / 3;
  h = h;
  real self = self + 1;
  array[3, 1] real sol = integrate_ode_rk45(rhs, {1.0}, 0.0, ts, {1.0}, {1.0}, {1});
}
parameters {
  real mu;
}
transformed parameters {
  real a = g_lp(mu);
  real b = add_jacobian(1.0);
}
model {
  mu ~ normal(0, 1);
  reject("stop");
  mu ~ normal(0, 2);
}
