// SPDX-License-Identifier: GPL-3.0-or-later
data {
  int<lower=1> N;
  array[N] real x;
  vector[N] y;
}
parameters {
  real<lower=0> rho;
  real<lower=0> alpha;
  real<lower=0> sigma;
}
model {
  matrix[N, N] L_K = cholesky_decompose(add_diag(gp_exp_quad_cov(x, alpha, rho), square(sigma)));
  rho ~ inv_gamma(5, 5);
  alpha ~ std_normal();
  sigma ~ std_normal();
  y ~ multi_normal_cholesky(rep_vector(0, N), L_K);
}
