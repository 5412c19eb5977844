// Package redistest starts a real redis-server for tests: on a free
// loopback port, in a temporary directory, without persistence, stopped
// when the test ends. Tests that need one call Start, which skips the test
// with a message when the redis-server binary is absent (Debian: apt-get
// install redis-server), so `go test ./...` never needs Redis; the
// project's CI installs it. No test relies on a system Redis service.
package redistest
