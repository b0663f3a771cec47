functions {
  vector sho(real t, vector y, real theta) {
    vector[2] dydt;
    dydt[1] = y[2];
    dydt[2] = -y[1] - theta * y[2];
    return dydt;
  }
}
data {
  int<lower=1> T;
  vector[2] y0;
  real t0;
  array[T] real ts;
  array[T] vector[2] y_obs;
}
parameters {
  real<lower=0> theta;
  real<lower=0> sigma;
}
transformed parameters {
  array[T] vector[2] y_hat = ode_rk45(sho, y0, t0, ts, theta);
}
model {
  theta ~ std_normal();
  sigma ~ normal(0, 0.5);
  for (t in 1:T) {
    y_obs[t] ~ normal(y_hat[t], sigma);
  }
}
generated quantities {
  array[T] vector[2] y_sim = ode_rk45_tol(sho, y0, t0, ts, 1e-6, 1e-6, 1000, theta);
}
