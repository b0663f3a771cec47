functions {
  real h_lpmf(real y) {
    return 1;
  }
}
