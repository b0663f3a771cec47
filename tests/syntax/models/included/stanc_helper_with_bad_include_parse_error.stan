parameters {
#include incl_stanc_helper_parse_error.stan
}
model {
  y ~ normal(0, 1);
}
