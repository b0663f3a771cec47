data {
#include sibling.stan
}
