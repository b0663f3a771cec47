  real s;
