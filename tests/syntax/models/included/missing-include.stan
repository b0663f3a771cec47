// the file named below does not exist
#include nowhere.stan
model {
}
