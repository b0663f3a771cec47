functions {
  tuple(real, real) mean_and_sd(vector x) {
    return (mean(x), sd(x));
  }
  real first_plus_second(tuple(real, array[] int) t) {
    return t.1 + sum(t.2);
  }
}
data {
  int<lower=1> N;
  tuple(array[N] real, vector[N]) obs;
  array[2] tuple(int, tuple(real, complex)) nested;
}
transformed data {
  tuple(real, real) stats = mean_and_sd(obs.2);
  real m;
  real s;
  (m, s) = mean_and_sd(obs.2);
  real z = nested[1].2.1 + first_plus_second((1.5, {1, 2, 3}));
}
parameters {
  real mu;
}
model {
  obs.2 ~ normal(mu, stats.2);
}
generated quantities {
  tuple(real, int) pair = (mu, 3);
  pair.1 = pair.1 * 2;
}
