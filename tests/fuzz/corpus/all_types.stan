// Every declaration type, constraint and array/tuple form.
data {
  int N;
  int<lower=0> n_pos;
  int<upper=10> n_max;
  int<lower=1, upper=N> idx;
  int<upper=5, lower=1> reversed_bounds;
  real x;
  real<lower=0> x_pos;
  real<lower=-1, upper=1> x_unit;
  real<offset=1> x_off;
  real<multiplier=2> x_mult;
  real<offset=1, multiplier=2> x_affine;
  real<multiplier=2, offset=1> x_affine_rev;
  complex z;
  vector[N] v;
  vector<lower=0>[N] v_pos;
  row_vector[N] rv;
  row_vector<upper=0>[N] rv_neg;
  matrix[N, 3] m;
  matrix<lower=0, upper=1>[N, N] m_prob;
  complex_vector[N] cv;
  complex_row_vector[N] crv;
  complex_matrix[N, 2] cm;
  array[N] int counts;
  array[N, 2] real grid;
  array[2, 3, 4] vector<lower=0>[N] cube;
  tuple(int, real) pair;
  tuple(array[2] real, tuple(vector[N], int<lower=0>)) nested;
  array[3] tuple(real, matrix[2, 2]) tuples;
}
transformed data {
  array[2] int dims = {N, 3};
  vector[N] v_copy = v;
}
parameters {
  simplex[N] theta;
  unit_vector[3] u;
  sum_to_zero_vector[N] s;
  sum_to_zero_matrix[3, 4] s_mat;
  ordered[N] o;
  positive_ordered[N] po;
  cholesky_factor_corr[3] L_corr;
  cholesky_factor_cov[4] L_cov_square;
  cholesky_factor_cov[5, 4] L_cov;
  corr_matrix[3] Omega;
  cov_matrix[3] Sigma;
  column_stochastic_matrix[3, 3] P_col;
  row_stochastic_matrix[3, 3] P_row;
  array[2] simplex[N] thetas;
  vector<lower=x_pos, upper=x_pos + 1>[N] bounded_by_data;
  real<lower=min(v), upper=max(v)> within;
  vector<offset=v, multiplier=v_pos>[N] affine_vec;
}
model {
  int local_int;
  real local_real;
  complex local_complex;
  vector[N] local_vector;
  row_vector[N] local_row_vector;
  matrix[N, N] local_matrix;
  complex_vector[N] local_cv;
  complex_row_vector[N] local_crv;
  complex_matrix[N, N] local_cm;
  array[N] real local_array;
  array[N, N] vector[2] local_array_2d;
  tuple(real, array[2] int) local_tuple;
  real a = 1, b, c = 3;
}
