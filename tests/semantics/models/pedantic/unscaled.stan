parameters {
  real alpha;
  real beta;
  real delta;
}
model {
  real big = 1000;
  alpha ~ normal(1000, 0.01);
  target += normal_lupdf(beta | 0, 25);
  delta ~ normal(-20, 2);
}
