functions foo {
}
model {
}
