// gen_test_mother1
// tests functions from current impelmentation:
//      generate_functions(prog.function_decl_defs_, o);
//      generate_member_var_decls_all(prog, o);
//      generate_constructor(prog, model_name, o);
//      generate_transform_inits_method(prog.parameter_decl_, o);

functions {
  int foo(int n) {
    if (n == 0) {
      return 1;
    }
    return n * foo(n - 1);
  }

  array[] real sho(real t, array[] real y, array[] real theta, data array[] real x, data array[] int x_int) {
    array[2] real dydt;
    dydt[1] = y[2];
    dydt[2] = -y[1] - theta[1] * y[2];
    return dydt;
  }

  int foo_2(int a) {
    array[2] int vs;
    int y;
    for (v in vs) 
      y = v;
    return 0;
  }

  real relative_diff(real x, real y, real max_, real min_) {
    real abs_diff;
    real avg_scale;
    abs_diff = abs(x - y);
    avg_scale = (abs(x) + abs(y)) / 2;
    if ((abs_diff / avg_scale) > max_) {
      reject("user-specified rejection, difference above ", max_, " x:", x, " y:", y);
    }
    if ((abs_diff / avg_scale) < min_) {
      reject("user-specified rejection, difference below ", min_, " x:", x, " y:", y);
    }
    return abs_diff / avg_scale;
  }

  vector foo_5(vector shared_params, vector job_params, data array[] real data_r, data array[] int data_i) {
    return [1, 2, 3]';
  }

  real foo_five_args(real x1, real x2, real x3, real x4, real x5) {
    return x1;
  }
  real foo_five_args_lp(real x1, real x2, real x3, real x4, real x5, real x6) {
    return x1;
  }

  matrix covsqrt2corsqrt(matrix mat, int invert) {
    matrix[rows(mat), cols(mat)] o;
    o = mat;
    o[1] = o[2];
    o[3:4] = o[1:2];
    return o;
  }
  void f0(int a1, array[] int a2, array[,] int a3, real a4, array[] real a5, array[,] real a6, vector a7, array[] vector a8, array[,] vector a9, matrix a10, array[] matrix a11, array[,] matrix a12) {
    print("hi");
  }

  array[] int f2(int a1, array[] int a2, array[,] int a3, real a4, array[] real a5, array[,] real a6, vector a7, array[] vector a8, array[,] vector a9, matrix a10, array[] matrix a11, array[,] matrix a12) {
    return a2;
  }

  vector f7(int a1, array[] int a2, array[,] int a3, real a4, array[] real a5, array[,] real a6, vector a7, array[] vector a8, array[,] vector a9, matrix a10, array[] matrix a11, array[,] matrix a12) {
    return a7;
  }

  array[,] matrix f12(int a1, array[] int a2, array[,] int a3, real a4, array[] real a5, array[,] real a6, vector a7, array[] vector a8, array[,] vector a9, matrix a10, array[] matrix a11, array[,] matrix a12) {
    return a12;
  }
  matrix matfoo() {
    return [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]];
  }
  vector vecmubar(real mu) {
    vector[10] l = mu * [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]';
    return l[{1, 2, 3, 4, 5}];
  }
  vector algebra_system(vector x, vector y, array[] real dat, array[] int dat_int) {
    vector[2] f_x;
    f_x[1] = x[1] - y[1];
    f_x[2] = x[2] - y[2];
    return f_x;
  }

  vector binomialf(vector phi, vector theta, data array[] real x_r, data array[] int x_i) {
    vector[1] lpmf;
    lpmf[1] = 0.0;
    return lpmf;
  }
}
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
