functions {
  tuple(real, int) pair(real x) {
    return (x, 1);
  }
  real scaled_jacobian(real x) {
    jacobian += log(2);
    return 2 * x;
  }
}
data {
  int<lower=0> N;
  vector[N] y;
  matrix[2, 2] M;
  array[N] int k;
}
transformed data {
  vector[N] w = y;
  w += 1;
  w -= 1;
  w *= 2;
  w /= 2;
  w .*= y;
  w ./= y;
  real a;
  int b;
  (a, b) = pair(1.5);
  ;
  if (N > 3) reject("too many: ", N);
  else if (N < 0) fatal_error("negative");
}
parameters {
  real<lower=0> sigma;
  vector<offset=1, multiplier=2>[N] z;
}
transformed parameters {
  real s = scaled_jacobian(sigma);
}
model {
  int count = 0;
  while (count < 3) {
    count += 1;
    if (count == 2) continue;
    if (count > 5) break;
  }
  for (i in 1:N) target += z[i];
  for (x in k) target += x;
  for (v in z) target += v;
  for (m in M) target += m;
  for (e in y[1:2]) target += e;
  profile("prior") {
    sigma ~ exponential(1);
  }
  {
    z ~ normal(0, sigma);
  }
}
generated quantities {
  real<lower=0> out = sigma;
}
