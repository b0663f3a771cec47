data {
  int N;
  vector[N] y;
  matrix[N, N] A;
  array[N] int k;
  tuple(real, array[2] int) tp;
}
transformed data {
  real total = 0;
  int count = 0;
  for (i in 1:N) {
    if (i > 3)
      break;
    if (i % 2 == 0)
      continue;
    total += y[i];
  }
  for (v in y)
    total += v;
  for (a in A)
    total += a;
  for (j in k)
    count += j;
  while (count > 0) {
    count -= 1;
  }
  profile("setup") {
    real p = total;
  }
  real a;
  array[2] int b;
  (a, b) = tp;
  (a, count) = (1.5, 2);
  tuple(real, int) t2 = (1, 2);
  t2.1 = 3;
  vector[N] w = y;
  w[1:2] = y[1:2];
  w[k] = y;
  w *= 2;
  w ./= y;
  matrix[N, N] B = A;
  B[1] = y';
  B[1, 2:3] = y[1:2]';
  print("total = ", total, " t2 = ", t2);
}
parameters {
  real mu;
  real<lower=0> sigma;
}
model {
  y ~ normal(mu, sigma) T[-10, 10];
  y ~ normal(mu, sigma) T[, 10];
  k ~ poisson(exp(mu)) T[0, ];
  target += normal_lupdf(y | mu, sigma);
}
