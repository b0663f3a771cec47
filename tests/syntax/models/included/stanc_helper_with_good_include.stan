parameters {
#include incl_stanc_helper.stan
}
model {
  y ~ normal(0, 1);
}
