transformed data {
  real x;
  if (1) 
}
model {
}
