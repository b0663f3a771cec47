parameters {
#include incl_stanc_helper_include_error.stan
}
model {
  y ~ normal(0, 1);
}
