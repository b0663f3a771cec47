model {
  foo() = 1;
}
