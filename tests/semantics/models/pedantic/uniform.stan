parameters {
  real a;
  real<lower=0, upper=1> b;
  real<lower=0> c;
  real<lower=0, upper=1> d;
}
model {
  a ~ uniform(0, 1);
  b ~ uniform(0, 1);
  c ~ uniform(0, 5);
  d ~ uniform(0.5, 1);
}
