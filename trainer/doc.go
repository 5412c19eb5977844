// Package trainer runs one algorithms.Algorithm in one process under bulk
// synchronous iterations: the data set is split into a fixed number of
// shards, each shard's worker processes its next batch of points (or a full
// pass) under the same parameters, the deltas are merged in shard order, and
// the server applies the merged delta.
//
// Results depend only on the configuration and the seed, never on how many
// goroutines ran the shards: deltas are merged in a fixed order, so floating
// point sums are the same on every machine. The synchronization-model
// runtimes (virtual time, goroutines, gRPC) live in package harness; trainer
// is the plain sequential-semantics baseline that `syncbench train` uses.
package trainer
