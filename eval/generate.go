package eval

//go:generate go run ./internal/genops
