data {
  int modelname_model;
}
