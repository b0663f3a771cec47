data {
  int<lower=1> N;
  int<lower=0, upper=N> M;
  vector<lower=0>[N] pos;
  array[N] real<lower=-1, upper=1> bounded;
  vector<offset=1, multiplier=2>[N] scaled;
  cholesky_factor_cov[N, M] L;
  cholesky_factor_corr[N] Lc;
  corr_matrix[N] R;
  cov_matrix[N] S;
  simplex[N] theta;
  unit_vector[N] u;
  ordered[N] o;
  positive_ordered[N] po;
  sum_to_zero_vector[N] z;
  column_stochastic_matrix[N, M] csm;
  row_stochastic_matrix[N, M] rsm;
  complex_vector[N] cv;
  complex_matrix[N, M] cm;
  tuple(real<lower=0>, array[N] int<lower=0>) tp;
  @gpu matrix[N, N] X;
}
transformed data {
  int K = N * 2;
  vector[K] v = rep_vector(0, K);
  complex c = to_complex(1, 2);
  complex_vector[N] cv2 = cv * c;
  array[N] real r = rep_array(0.0, N);
  array[2, 3] int ints = {{1, 2, 3}, {4, 5, 6}};
  real x = 1;
  int n_rng = poisson_rng(3);
  vector[n_rng] sized_by_rng;
}
parameters {
  real<lower=min(pos), upper=max(pos)> p;
  vector<lower=pos>[N] above;
  real<lower=p> q;
}
transformed parameters {
  real<lower=0> tp_sq = square(p);
}
model {
  vector[N] local = above;
  matrix[N, N] Q = X;
  p ~ normal(0, 1);
}
generated quantities {
  int draws = poisson_rng(3);
  {
    // local sizes may depend on anything
    array[draws] real sizes_by_gq;
  }
}
