// SPDX-License-Identifier: GPL-3.0-or-later
// Eight schools (Rubin 1981): the estimated effects of coaching programmes
// for the SAT in eight schools, with their standard errors.  The school
// effects are drawn from a common normal population.  Non-centred: each
// effect is mu + tau * theta_tilde with standard normal theta_tilde, which
// keeps the funnel between tau and the effects out of the sampler's way.
data {
  int<lower=0> J;                  // number of schools
  array[J] real y;                 // estimated treatment effects
  array[J] real<lower=0> sigma;    // their standard errors
}
parameters {
  real mu;                         // population mean effect
  real<lower=0> tau;               // population standard deviation
  vector[J] theta_tilde;           // standardised school effects
}
transformed parameters {
  vector[J] theta = mu + tau * theta_tilde;
}
model {
  mu ~ normal(0, 5);
  tau ~ cauchy(0, 5);
  theta_tilde ~ std_normal();
  y ~ normal(theta, sigma);
}
