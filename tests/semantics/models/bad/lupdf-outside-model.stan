parameters {
  real mu;
}
generated quantities {
  real lp = normal_lupdf(mu | 0, 1);
}
