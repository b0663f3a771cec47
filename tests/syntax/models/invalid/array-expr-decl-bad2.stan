data {
  blahblah[1,2] real x;
}
