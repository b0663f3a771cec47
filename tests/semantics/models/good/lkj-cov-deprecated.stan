parameters {
  cov_matrix[3] Sigma;
  vector[3] mu;
  vector<lower=0>[3] sigma;
}
model {
  Sigma ~ lkj_cov(mu, sigma, 2.0);
  target += lkj_cov_lpdf(Sigma | mu, sigma, 2.0);
  target += lkj_cov_lupdf(Sigma | mu, sigma, 2.0);
}
