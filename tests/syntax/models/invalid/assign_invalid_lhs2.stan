generated quantities {
   [x,y,z] = [1,2,3];
}
