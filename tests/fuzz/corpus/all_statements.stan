functions {
  void no_op();
  void no_op() {
  }
  int loop_forms(int n) {
    int total = 0;
    for (i in 1:n) {
      if (i == 2) {
        continue;
      } else if (i > 10) {
        break;
      } else {
        total += i;
      }
    }
    while (total > 100)
      total -= 1;
    for (x in {1, 2, 3})
      total += x;
    return total;
  }
  real early_exit(real x) {
    if (x < 0)
      return 0;
    else
      return x;
  }
  void stop_now() {
    fatal_error("stopped");
  }
}
data {
  int<lower=0> N;
  vector[N] y;
  matrix[N, N] M;
}
transformed data {
  array[N] int ids;
  vector[N] w = y;
  matrix[N, N] W = M;
  ;
  for (n in 1:N) {
    ids[n] = n;
  }
  w[1] = 2;
  w[1:2] = w[2:3];
  w[ids] = y;
  W[1, :] = W[2, :];
  W[:, 1] = W[:, 2];
  W[2:, :3] = W[:N - 1, 1:3];
  W[1][2] = 0;
  w += 1;
  w -= 1;
  w *= 2;
  w /= 2;
  w .*= y;
  w ./= y;
  W = W';
  print("N = ", N, ", w = ", w);
  if (N < 0)
    reject("N must be non-negative; found ", N);
  no_op();
  {
    real local = 1;
    local = local + 1;
  }
}
parameters {
  real mu;
  real<lower=0> sigma;
  vector[N] z;
}
transformed parameters {
  real<lower=0> scale = exp(mu);
  jacobian += mu;
}
model {
  y ~ normal(mu, sigma);
  z ~ std_normal();
  target += normal_lpdf(mu | 0, 1);
  target += -0.5 * dot_self(z);
  for (x in z) {
    target += 0 * x;
  }
  for (x in M) {
    target += 0 * x;
  }
  profile("likelihood") {
    real lp = normal_lpdf(y | mu, sigma);
    target += 0 * lp;
  }
}
generated quantities {
  int k = loop_forms(N);
  real e = early_exit(mu);
  if (k > 1000000)
    stop_now();
}
