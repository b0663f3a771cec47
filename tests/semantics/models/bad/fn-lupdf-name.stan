functions {
  real q_lupdf(real x) {
    return x;
  }
}
