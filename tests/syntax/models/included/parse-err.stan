  real z;
  real w;=;
