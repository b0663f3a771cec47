// Declarations in the syntax that Stan 2.33 removed.
// The first one is reported.




parameters {
  real a;
  vector[3] b;
  real c[7];
  real d[8, 9];
}
