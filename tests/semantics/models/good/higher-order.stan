functions {
  vector rhs(real t, vector y, real k) {
    return -k * y;
  }
  real partial_sum(array[] real slice, int start, int end, real mu) {
    return normal_lpdf(slice | mu, 1);
  }
  real partial_lpdf(array[] real slice, int start, int end, real mu) {
    return normal_lupdf(slice | mu, 1);
  }
  vector shard(vector phi, vector theta, data array[] real xr, data array[] int xi) {
    return [normal_lpdf(xr | theta[1], phi[1])]';
  }
  vector algebra(vector y, vector theta, data array[] real xr, data array[] int xi) {
    return y - theta;
  }
  vector system(vector y, real a) {
    return y - a;
  }
  real integrand(real x, real xc, array[] real theta, data array[] real xr,
                 data array[] int xi) {
    return exp(-theta[1] * x);
  }
}
data {
  vector[2] y0;
  array[3] real ts;
  array[10] real obs;
  array[2, 5] real xr;
  array[2, 0] int xi;
}
parameters {
  real<lower=0> k;
  real mu;
  vector[1] phi;
  array[2] vector[1] theta;
}
transformed parameters {
  array[3] vector[2] ys = ode_rk45(rhs, y0, 0, ts, k);
  array[3] vector[2] ys2 = ode_bdf_tol(rhs, y0, 0.0, ts, 1e-6, 1e-6, 1000, k);
  vector[2] root = solve_newton(system, y0, k);
  vector[2] root2 = algebra_solver_newton(algebra, y0, [k, k]', {1.0}, {0});
  real area = integrate_1d(integrand, 0, 1, {k}, {1.0}, {0});
}
model {
  target += reduce_sum(partial_sum, obs, 1, mu);
  target += reduce_sum(partial_lupdf, obs, 1, mu);
  target += sum(map_rect(shard, phi, theta, xr, xi));
  k ~ exponential(1);
}
