transformed data {
  int n = 2_147_483_647;
  int m = 2_147_483_648;
}
