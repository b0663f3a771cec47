data {
  int<lower=0.5> n;
}
