data {
  int N;
}
model {
  undeclared_thing ~ normal(0, 1);
}
