// Variables may take the names of library functions, which stay callable.
functions {
  real twice(real x) {
    return 2 * x;
  }
  // recursion and forward references need no declaration
  int fib(int n) {
    if (n < 2)
      return n;
    return fib(n - 1) + fib(n - 2);
  }
}
data {
  int<lower=0> N;
  vector[N] y;
  real mean;
}
transformed data {
  real sd_y = sd(y);
  real m = mean + mean(y);
  int f10 = fib(10);
  real exp = 1.5;
  real e2 = exp(exp);
  {
    real local = 1;
    local += twice(local);
  }
  {
    // the same name again, in a sibling scope
    int local = 2;
  }
  for (i in 1:N) {
    real local = y[i];
  }
}
parameters {
  real mu;
  real<lower=0> sigma;
}
model {
  real twice_mu = twice(mu);
  y ~ normal(mu, sigma);
}
generated quantities {
  // the model block's locals are gone: the name is free again
  real twice_mu = twice(mu);
}
