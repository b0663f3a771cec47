  real z;
  real w;$
