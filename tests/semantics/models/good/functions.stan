functions {
  real foo(real x);
  real foo(real x) {
    return x;
  }
  // overloads, including a library name
  real foo(vector x) {
    return sum(x);
  }
  real exp(vector x, real y) {
    return sum(x) * y;
  }
  real scaled(data real x, real s) {
    return x * s;
  }
  real draw_rng(real mu) {
    return normal_rng(mu, 1);
  }
  void add_lp(real x) {
    target += x;
  }
  real my_normal_lpdf(real y, real mu, real sigma) {
    return normal_lupdf(y | mu, sigma);
  }
  real my_pois_lpmf(array[] int y, real lambda) {
    return poisson_lpmf(y | lambda);
  }
  real shift_jacobian(real x, real lb) {
    jacobian += x;
    return lb + exp(x);
  }
  void check(real x) {
    if (x < 0)
      reject("negative: ", x);
    if (is_nan(x))
      fatal_error("not a number");
    return;
  }
  real sign_of(real x) {
    if (x > 0)
      return 1;
    else if (x < 0)
      return -1;
    else
      return 0;
  }
  real forever(real x) {
    while (1) {
      if (x > 0)
        return x;
    }
  }
  @extern real external_helper(real x);
}
data {
  real d;
  array[3] int counts;
}
transformed data {
  real s = scaled(d, 2.0);
  real r = draw_rng(0);
  check(d);
}
parameters {
  real mu;
  real raw;
}
transformed parameters {
  real lb = shift_jacobian(raw, 0);
  real t = target();
}
model {
  add_lp(mu);
  mu ~ my_normal(0, 1);
  target += my_normal_lupdf(mu | 0, 1);
  target += my_normal_lpdf(mu | 0, 1);
  counts ~ my_pois(exp(mu));
  target += foo(mu) + foo([mu, mu]') + exp([mu]', 2.0);
}
generated quantities {
  real g = draw_rng(mu) + sign_of(mu);
}
