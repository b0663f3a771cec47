parameters {
  real theta;
}
model {
  theta ~ foo(1.4);
}
