data {
  int a0;
  int<lower=0> a1[1];
  int a2[2,3];
  array[1] int a3;
}
