#include badrecurse3.stan
