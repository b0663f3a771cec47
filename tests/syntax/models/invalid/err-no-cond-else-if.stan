transformed data {
  real x;
  if (1) {
    x = 2;
  } else if {
    x = 3;
  }
}
