package main

// TODO: greet the user
func main() {}
