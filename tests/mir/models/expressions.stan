functions {
  real twice(real x) {
    return 2 * x;
  }
  real mine_lpdf(real y, real mu) {
    return -square(y - mu);
  }
}
data {
  int<lower=1> N;
  vector[N] v;
  matrix[N, N] A;
  array[N, 2] real arr;
  array[3] int idx;
}
transformed data {
  int i = 1_0;
  real r;
  complex c;
  r = 007.5e1;
  c = 2.5i;
  r = i + 2 * 3 - 4 %/% 2;
  r = -i ^ 2;
  r = !i || i && 0;
  r = i == 1 ? 1 : 2.5;
  row_vector[N] rv = v';
  r = v' * v;
  r = A[1, 2] + A[1][2] + arr[1, 2];
  vector[N] w = A[:, 1];
  w = A[2:, 1];
  w = v[:3];
  w = v[2:3];
  w = v[idx];
  array[3] real xs = {1, 2.5, 3};
  row_vector[2] two = [1, 2];
  tuple(int, real) t = (1, 2);
  r = t.2;
  r = twice(1);
  r = mine_lpdf(1.0 | 2);
  r = normal_lpdf(1 | 0, 1);
  print("r = ", r);
}
parameters {
  real mu;
}
model {
  target += target();
  target += mine_lupdf(mu | 0);
}
