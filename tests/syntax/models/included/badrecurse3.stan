#include badrecurse2.stan
