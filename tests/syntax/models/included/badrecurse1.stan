#include badrecurse1.stan
