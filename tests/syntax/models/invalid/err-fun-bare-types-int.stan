functions {
  array[3] real foo() {
    array[3] real a;
    return a;
  }
}
