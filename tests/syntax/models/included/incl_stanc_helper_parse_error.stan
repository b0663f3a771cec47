  real y;
  #include parse-err.stan
