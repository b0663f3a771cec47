data {
  int<lower=1> K;
  array[10] vector[K] y;
  int<lower=1, upper=K> c;
}
parameters {
  vector[K] mu;
  matrix[K, K] Sigma;
  cholesky_factor_corr[K] L;
  vector[K] theta;
  vector[K - 1] cuts;
}
model {
  mu ~ std_normal();
  to_vector(Sigma) ~ std_normal();
  L ~ lkj_corr_cholesky(2);
  theta ~ std_normal();
  cuts ~ std_normal();
  y ~ multi_normal(mu, Sigma);
  y ~ multi_normal_cholesky(mu, L);
  c ~ categorical(theta);
  c ~ ordered_logistic(0.5, cuts);
}
