//go:build !race

package fpdet_test

// raceEnabled: the test binary runs under the race detector.
const raceEnabled = false
