parameters {
  real<lower=0, upper=1> p;
  real<lower=-1, upper=1> r;
  real<lower=0, upper=10> s;
  real<lower=5, upper=5> t;
  vector<lower=2, upper=1>[2] u;
}
model {
  p ~ beta(2, 2);
  r ~ uniform(-1, 1);
  s ~ normal(5, 1);
  t ~ normal(5, 1);
  u ~ normal(1.5, 1);
}
