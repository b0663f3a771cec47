data {
}
transformed data {
  int<lower=0> some_long_line =
    				    		1 4;

}
