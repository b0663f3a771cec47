data {
  int upper;
  int lower;
  int multiplier;
}
