functions {
  // helpers
#include helpers.stanfunctions
}
parameters {
  real mu;
}
model {
  mu ~ normal(twice(0), 1);  // prior
}
