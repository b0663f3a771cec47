data {
  real x;
  cholesky_factor_corr[x~normal(0,1)] y;
  }
