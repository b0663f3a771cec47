functions {
  real f(vector x) {
    return sum(x);
  }
}
data {
  int<lower=1> N;
  matrix[N, N] X;
  vector[N] y;
}
parameters {
  vector[N] beta;
  vector[N] z;
  vector[N] a;
  vector[N] b;
  vector[N] c;
  real<lower=0> sigma;
}
transformed parameters {
  vector[N] mu = X * beta;
  vector[N] scaled = X * rep_vector(sigma, N);
  vector[N] copy = z;
  vector[N] sorted = sort_asc(c);
}
model {
  for (n in 1:N) {
    target += z[n];
  }
  for (n in 1:1) {
    target += beta[n];
  }
  target += f(a);
  array[2] vector[N] both = {b, b};
  y ~ normal(mu + scaled, sigma);
}
