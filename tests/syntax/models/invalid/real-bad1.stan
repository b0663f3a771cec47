transformed data {
    real x = .e+44;
}
