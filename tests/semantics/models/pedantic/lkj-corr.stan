parameters {
  corr_matrix[3] Omega;
  cholesky_factor_corr[3] L;
}
model {
  Omega ~ lkj_corr(2);
  L ~ lkj_corr_cholesky(2);
}
