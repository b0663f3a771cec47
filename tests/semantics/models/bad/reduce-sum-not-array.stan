functions {
  real partial(array[] real slice, int start, int end) {
    return sum(slice);
  }
}
data {
  real x;
}
transformed data {
  real s = reduce_sum(partial, x, 1);
}
