transformed data {
  array[3, 2] real td_arr32 = { 1, 3 };
}
