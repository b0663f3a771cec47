/* file header */
functions { /* after functions brace */
  // before f
  real f(real x, // after first argument
         /* before second */ real y) /* before body */ {
    return x /* inside return */ + y; // after return
  }
  /* between functions */
  void g() {
    // only a comment in this body
  }
} // after functions block
data {
  int N /* between name and semicolon */;
  array[N /* inside size */] real y;
  real /* between type and name */ z;
}
transformed data {
  real w = { 1, // first element
             2 /* second */ }[1];
  for (i in 1 : /* in loop range */ N) // after header
    w += i;
  while (w > 0) /* before while body */
    w -= 1;
  if (w > 0 /* in condition */) {
    w = 0;
  } // after then
  else /* after else */ if (w < 0) {
    w = 1;
  } else {
    // empty else branch
  }
}
parameters {
  // only comment
}
model {
  y ~ normal(z, // location
             1 /* scale */) /* after tilde */;
  target += normal_lpdf(z | 0, /* sd */ 1);
  {
    /* nested block start */
    real q = z ? /* then */ 1 : /* else */ 0;
  } /* after nested block */
}
// trailing comment one

/* trailing comment two */
