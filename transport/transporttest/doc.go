// Package transporttest tests implementations of transport.Transport.
//
// Run is the conformance suite every implementation passes (in the manner
// of hashicorp/raft's transport tests): it checks the interface's contract —
// round trips of every kind with deep equality, deep copies, errors for
// unknown destinations and invalid or oversized messages that leave the
// next Send working, context cancellation, Close unblocking Recv, Open of
// an open node failing and reopening, Stats bytes equal to the sum of
// Message.Size, concurrent senders, and no goroutine left behind. The
// suite needs a transport that delivers every message exactly once; it
// allows delays, reordering and backpressure. An implementation tests its
// unreliable modes (drops, duplicates) with its own tests.
//
// RandomMessage and RandomDelta make seeded valid messages of every kind
// for round-trip tests, fuzz corpora and benchmarks; Diff compares
// messages as the wire carries them.
package transporttest
