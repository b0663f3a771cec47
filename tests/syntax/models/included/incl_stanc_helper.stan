  real y;
  #include incl_stanc_helper2.stan
