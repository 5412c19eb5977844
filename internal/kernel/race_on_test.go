//go:build race

package kernel

// raceEnabled: the race detector slows this package's exhaustive sweeps
// about tenfold and has nothing to find in them (one goroutine, no shared
// memory), so under -race they check a fixed share of their cases
// (sampled); `go test ./internal/kernel` without -race checks them all.
const raceEnabled = true
