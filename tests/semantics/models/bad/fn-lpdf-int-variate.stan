functions {
  real g_lpdf(int y) {
    return 1;
  }
}
