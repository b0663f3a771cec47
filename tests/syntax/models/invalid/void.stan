data {
  real void;
}
model {
}
