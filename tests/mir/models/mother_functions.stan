functions {
  int foo(int n);
  int foo(int n) {
    if (n == 0) return 1;
    return n * foo(n - 1);
  }
  array[] real sho(real t, array[] real y, array[] real theta, data array[] real x,
                   data array[] int x_int) {
    array[2] real dydt;
    dydt[1] = y[2];
    dydt[2] = -y[1] - theta[1] * y[2];
    return dydt;
  }
  real foo_bar0() {
    return 0.0;
  }
  real foo_lpmf(int y, real lambda) {
    return 1.0;
  }
  real foo_rng(real mu, real sigma) {
    return normal_rng(mu, sigma);
  }
  int foo_1(int a) {
    while (1) break;
    while (0) continue;
    for (i in 1:10) break;
    for (i in 1:10) continue;
    while (1) {
      int b;
      b = 5;
      break;
    }
    return 0;
  }
}
