  real y;
  #include lex-err.stan
