functions {
  // forward declaration, defined below
  real relative_diff(real x, real y);

  real relative_diff(real x, real y) {
    real abs_diff;
    real avg_scale;
    abs_diff = abs(x - y);
    avg_scale = (abs(x) + abs(y)) / 2;
    return abs_diff / avg_scale;
  }

  real centered_normal_lpdf(vector y, real sigma) {
    return normal_lpdf(y | 0, sigma);
  }

  int bounded_poisson_rng(real lambda, data int max_count) {
    int n = poisson_rng(lambda);
    while (n > max_count) {
      n = poisson_rng(lambda);
    }
    return n;
  }

  void add_prior_lp(real mu) {
    mu ~ normal(0, 1);
  }

  void check_positive(real x) {
    if (x <= 0) {
      reject("x must be positive; found x = ", x);
    }
  }

  array[] real scale_all(data array[] real xs, real c) {
    array[size(xs)] real out;
    for (i in 1:size(xs)) {
      out[i] = c * xs[i];
    }
    return out;
  }
}
data {
  int<lower=0> N;
  vector[N] y;
}
parameters {
  real mu;
  real<lower=0> sigma;
}
model {
  add_prior_lp(mu);
  (y - mu) ~ centered_normal(sigma);
  target += centered_normal_lupdf(y - mu | sigma);
}
generated quantities {
  int draw = bounded_poisson_rng(sigma, 100);
  real d = relative_diff(mu, sigma);
  check_positive(sigma);
}
