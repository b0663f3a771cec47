transformed data {
  do_something(1);
}
