parameters {
  real lp__;
}
