data {
  int<lower=0> N;
  vector[N] y;
}
parameters {
  real mu;
  real sigma;
  real<lower=0> tau;
}
model {
  mu ~ normal(0, tau);
  tau ~ exponential(1);
  sigma ~ std_normal();
  y ~ normal(mu, sigma);
  y ~ student_t(4, mu, tau);
}
