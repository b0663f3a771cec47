data {
  # hey, this is the old way to do things, should raise warning
  int N;
}
