data {
  int<lower=1> N;
  vector[N] v;
  matrix[N, N] A;
  array[N, N] real arr;
  complex z;
}
transformed data {
  int i = 1;
  int j = 2;
  real r;
  // literals
  r = 1;
  r = 1.5;
  r = 1.;
  r = .5;
  r = 1e3;
  r = 1.5e-3;
  r = 2E+10;
  r = 1_000_000;
  r = 1_000.000_5e1_0;
  complex c = 2i;
  c = 1.5e3i;
  c = .5i;
  c = 3 + 4i;
  // arithmetic and precedence
  r = i + j * 3 - 4 / 2;
  r = -i ^ 2;
  r = (-i) ^ 2;
  r = 2 ^ 3 ^ 2;
  r = i %/% j;
  r = i % j;
  r = -v' * v;
  r = +i;
  r = !i;
  r = !(i && j) || i == j && i != j;
  r = i < j || i <= j || i > j || i >= j;
  r = i < j ? 1.0 : i > j ? 2.0 : 3.0;
  vector[N] w = v .* v ./ v;
  w = v .^ 2;
  w = A \ v;
  w = (A' * v)';
  row_vector[N] rw = v' / A;
  // containers
  array[3] int ints = {1, 2, 3};
  array[2, 2] int nested = {{1, 2}, {3, 4}};
  row_vector[3] row = [1, 2, 3];
  matrix[2, 2] mat = [[1, 2], [3, 4]];
  row_vector[0] empty_row = [];
  tuple(int, real, array[2] int) tup = (1, 2.5, {1, 2});
  // indexing
  r = v[1];
  r = A[i, j];
  r = A[i][j];
  w = A[:, 1];
  w = A[, 1];
  w = v[2:];
  w = v[:N];
  w = v[1:N];
  w = v[ints];
  r = arr[1, 2];
  array[N] real row_of_arr = arr[1];
  r = tup.2;
  r = tup.3[1];
  // calls
  r = sqrt(4);
  r = normal_lpdf(1.0 | 0, 1);
  r = normal_lcdf(1.0 | 0, 1);
  r = std_normal_lpdf(v);
  r = fma(1, 2, 3);
  r = get_real(z) + get_imag(z);
}
parameters {
  real theta;
}
model {
  real t = target();
  target += std_normal_lupdf(theta);
}
