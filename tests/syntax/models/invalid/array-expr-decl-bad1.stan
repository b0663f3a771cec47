data {
  array[1:2,2,:] real x;
}
