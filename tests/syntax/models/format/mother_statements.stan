data {
  int<lower=0> N;
  int<lower=0, upper=N * M> K;
  real<lower=-2.0, upper=2.0> J;
  array[4, 5] matrix<lower=0, upper=1>[2, 3] d_ar_mat;
  cholesky_factor_cov[5, 4] d_cfcov_54;
}
transformed data {
  cholesky_factor_cov[5, 5] td_cfcov_54; // to become 5,4
  for (i in 1:4) {
    for (j in 1:5) {
      matrix[2, 3] l_mat = d_ar_mat[i, j];
      print("ar dim1: ", i, " ar dim2: ", j, " matrix: ", l_mat);
    }
  }
  td_cfcov_54 = diag_matrix(rep_vector(1, rows(td_cfcov_54)));
  // some indexing tests for multi indices and slices
  td_1dk = td_1d[td_1dk];
  td_simplex = td_1d_simplex[1, :];
  td_simplex = td_1d_simplex[1, 1:N];
}
transformed parameters {
  theta_p = algebra_solver(algebra_system, x, y, dat, dat_int);
  theta_p = algebra_solver(algebra_system, x, y, dat, dat_int, 0.01, 0.01, 10);
  theta_p = algebra_solver(algebra_system, x_p, y_p, dat, dat_int, 0.01, 0.01, 10);
}
model {
  to_vector(p_real_1d_ar) ~ normal(0, 1);
  for (n in 1:N) {
    for (m in 1:M) {
      for (k in 1:K) {
        to_vector(p_3d_vec[n, m, k]) ~ normal(d_3d_vec[n, m, k], 1);
        to_vector(p_3d_row_vec[n, m, k]) ~ normal(d_3d_row_vec[n, m, k], 1);
      }
    }
  }
  target += map_rect(binomialf, tmp, tmp2, x_r, x_i);
}
generated quantities {
  // 2nd, 3rd, 1st indexing_matrix, 2nd, 3rd, 1st rows of each
  for (i in 1:size(indices)) {
    for (j in 1:size(indices)) {
      idx_res1[i, j] = indexing_mat[indices[i], indices[j]];
    }
  }

  idx_res31 = indexing_mat[indices, :, indices];
  if (indexing_mat[indices, :, indices][2, 1, 1] != idx_res3[2, 1, 1]) {
    reject("indexing test 3 failed");
  }

  idx_res4 = indexing_mat[:3, 1, :];
  idx_res5 = indexing_mat[4:, 2:3, 1];
}
