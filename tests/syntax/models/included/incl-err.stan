  real z;
  #include "I'm not here.stan"
