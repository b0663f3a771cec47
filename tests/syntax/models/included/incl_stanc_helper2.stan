  real w;
  real x;
