functions {
  void v(real a, real a) {
  }
}
