data {
  int<lower=0> N;
  vector[N] x_meas;     // measurement of x
  real<lower=0> tau;    // measurement noise
  vector[N] y;
}
parameters {
  vector[N] x;          // unknown true value
  real mu_x;            // prior location
  real<lower=0> sigma_x;
  real alpha;
  real beta;
  real<lower=0> sigma;
}
model {
  x ~ normal(mu_x, sigma_x);   // prior
  x_meas ~ normal(x, tau);     // measurement model
  y ~ normal(alpha + beta * x, sigma);
  alpha ~ normal(0, 10);
  beta ~ normal(0, 10);
  sigma ~ cauchy(0, 5);
  mu_x ~ normal(0, 10);
  sigma_x ~ cauchy(0, 5);
}
