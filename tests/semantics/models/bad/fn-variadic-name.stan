functions {
  real reduce_sum(real x) {
    return x;
  }
}
