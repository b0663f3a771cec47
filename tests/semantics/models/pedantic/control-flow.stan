data {
  int<lower=0> N;
  vector[N] y;
}
parameters {
  real mu;
  real<lower=0> sigma;
}
transformed parameters {
  real m = mu;
}
model {
  int steps = 0;
  mu ~ normal(0, 1);
  sigma ~ exponential(1);
  if (m > 0) {
    steps = 2;
  }
  for (i in 1:steps) {
    y ~ normal(mu, sigma);
  }
  while (sigma > 10) {
    break;
  }
  for (n in 1:N) {
    target += 0;
  }
}
