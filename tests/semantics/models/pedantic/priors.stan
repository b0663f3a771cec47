data {
  int<lower=0> N;
  vector[N] y;
}
parameters {
  real mu;
  real<lower=0> sigma;
  real alpha;
}
model {
  alpha ~ normal(0, 1);
  alpha ~ student_t(3, 0, 1);
  y ~ normal(mu + alpha, sigma);
}
