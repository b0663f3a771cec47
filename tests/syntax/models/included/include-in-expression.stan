transformed data {
  real x = 10 *
#include expr-part.stan
  ;
}
