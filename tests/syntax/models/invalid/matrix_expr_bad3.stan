transformed data {
  matrix[3,2] td_mat32 = [ [ [ 1 ] ] ], [ [ 2 ] ] ];
}
model {
}
