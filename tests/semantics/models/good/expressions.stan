data {
  int N;
  vector[N] v;
  row_vector[N] rv;
  matrix[N, N] A;
  array[N] int idx;
  complex z;
}
transformed data {
  vector[N] w = A * v;
  row_vector[N] rw = v' * A;
  real dot = rv * v;
  matrix[N, N] outer = v * rv;
  vector[N] solved = A \ v;
  row_vector[N] solved2 = rv / A;
  matrix[N, N] pw = A .^ 2;
  real r = 3 % 2 + 7 %/% 2;
  int logic = 1 && 0 || !1;
  int cmp = 1 < 2;
  real tern = 1 ? 1 : 2.5;
  vector[N] tv = 1 ? v : v;
  array[2] real arr = {1, 2.5};
  array[2, 2] real nested = {{1, 2}, {3.5, 4}};
  row_vector[2] row = [1, 2.5];
  matrix[2, 2] mat = [[1, 2], [3, 4]];
  complex_row_vector[2] crow = [1, z];
  complex_matrix[2, 2] cmat = [[1, z], [z, 1]];
  vector[N] sliced = v[idx];
  real elem = A[1, 2];
  row_vector[N] arow = A[1];
  vector[N] acol = A[:, 1];
  matrix[2, 2] block = A[1:2, 1:2];
  vector[N - 1] tail = v[2:];
  vector[2] head = v[:2];
  tuple(real, int) t = (1.5, 2);
  real first = t.1;
  complex zz = z * 2 + 3i;
  real re = get_real(zz);
  real neg = -r;
  vector[N] pv = +v;
}
