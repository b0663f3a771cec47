functions {
  array[ real foo(int n) { return n; }
}
model {
}
