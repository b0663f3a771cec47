  real y;
  #include incl-err.stan
