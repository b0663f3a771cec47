data {
  int<lower=1> N;
  int<lower=1> K;
  array[N] vector[K] y;
}
parameters {
  vector[K] mu;
  cholesky_factor_corr[K] L_Omega;
  vector<lower=0>[K] tau;
  simplex[K] weights;
  sum_to_zero_vector[K] effects;
}
transformed parameters {
  cov_matrix[K] Sigma = multiply_lower_tri_self_transpose(diag_pre_multiply(tau, L_Omega));
}
model {
  tau ~ cauchy(0, 2.5);
  L_Omega ~ lkj_corr_cholesky(2);
  effects ~ normal(0, 1);
  weights ~ dirichlet(rep_vector(1, K));
  y ~ multi_normal_cholesky(mu, diag_pre_multiply(tau, L_Omega));
}
generated quantities {
  corr_matrix[K] Omega = multiply_lower_tri_self_transpose(L_Omega);
}
