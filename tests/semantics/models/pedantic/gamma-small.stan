parameters {
  real<lower=0> tau;
  real<lower=0> phi;
  real<lower=0> nu;
}
model {
  tau ~ inv_gamma(0.001, 0.001);
  phi ~ gamma(0.5, 0.5);
  nu ~ gamma(2, 0.1);
}
