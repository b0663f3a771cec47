data {
  int<lower=1> N;
  int<lower=1> K;
}
transformed data {
  // a linear regression with beta[k] = (-1)^k / sqrt(K) and logistic noise,
  // from Weyl sequences; y is logistic-weyl.stan's outcome, unused here but
  // made as the preparation benchmark in bench/RESULTS.md made it
  @gpu matrix[N, K] X;
  array[N] int y;
  vector[N] yr;
  for (k in 1:K)
    for (n in 1:N)
      X[n, k] = fmod(n * (0.6180339887 + k * 0.4142135624), 1.0) * 2 - 1;
  for (n in 1:N) {
    real eta = 0.5;
    for (k in 1:K)
      eta += (k % 2 == 0 ? 1 : -1) * X[n, k] / sqrt(K);
    y[n] = eta + logit(fmod(n * 0.7548776662, 1.0)) > 0;
    yr[n] = eta + logit(fmod(n * 0.7548776662, 1.0));
  }
}
parameters {
  real alpha;
  real<lower=0> sigma;
  vector[K] beta;
}
model {
  alpha ~ normal(0, 2);
  beta ~ normal(0, 1);
  yr ~ normal_id_glm(X, alpha, beta, sigma);
}
