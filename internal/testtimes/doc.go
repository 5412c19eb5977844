// Command testtimes reads `go test -json` from stdin, prints what plain
// `go test` would (each package's ok or FAIL line, the output of failed
// tests and build errors) and then a summary: every package's time,
// slowest first (those under 0.1 s counted, not listed), and the slowest
// tests. It exits 1 if a test, a package
// or a build failed. .ci/run pipes its test steps through it:
//
//	go test -race -timeout 10m -json ./... | go run ./internal/testtimes
//
// Flags:
//
//	-n N   the number of slowest tests to list (default 10)
package main
