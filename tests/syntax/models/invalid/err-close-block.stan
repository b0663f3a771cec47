functions {

model {
}
