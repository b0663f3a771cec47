parameters {
#include incl_stanc_helper_lex_error.stan
}
model {
  y ~ normal(0, 1);
}
