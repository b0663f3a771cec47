model {
}
foo
