/* Header comment
   spanning lines. */
// Another header line.

functions {
  // a comment inside the functions block
  real f(real x) {  // trailing comment on the definition
    return x;  // trailing comment on a return
  }
}
data {
  int N;  // number of rows
  /* a block comment between declarations */
  vector[N] y;

  // after a blank line
  real z;
}
model {
  y ~ normal(z, 1);
  // last comment in the model block
}
// comment after the last block
