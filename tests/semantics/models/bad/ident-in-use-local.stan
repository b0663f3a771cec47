model {
  real x;
  {
    int x;
  }
}
