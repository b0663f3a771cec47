model {
}
generated {
}
