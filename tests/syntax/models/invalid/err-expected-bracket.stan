model {
}
generated quantities 
