functions {
  int foo(int n) {
    continue;
  }
}
