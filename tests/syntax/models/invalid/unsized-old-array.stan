functions{
  real foo(  real[,] v){
    return sum(v);
  }
}
