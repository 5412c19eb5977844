// Package workload describes a training workload as plain data and builds
// it: what a worker process needs to hold the same algorithm and the same
// shard as its coordinator, so that any Go program can host a worker.
//
// A Spec names an algorithm, its data and its settings; it travels as
// JSON. Open (Load, then Build) turns a Spec into the data and the
// algorithms.Algorithm over it, deterministically: a coordinator and a
// worker that Open the same Spec hold the same data, draw the same θ0
// from the same rng and compute the same deltas, bit for bit. Sharding
// splits the points among workers exactly as package harness does, and
// ShardHash gives a digest of one shard (the algorithm's shape, the
// indices and the points' data) for the two sides to compare.
//
// The built-in algorithms are kmeans, gmm, fcm, lr, pmf and nmf (Names);
// a Registry (NewRegistry) can hold more, registered by other programs.
//
// # Errors
//
// Errors follow the module's scheme (docs/errors.md) and are one line. An
// error that a Spec or a Sharding causes is a *SpecError matching
// ErrConfig (errors.Is), and ErrTooLarge as well for a workload of more
// than MaxValues values. Its message names the field at fault first,
// written as a flag: a dash and the field's JSON key, then its value, as in
//
//	workload: -rank 0: want ≥ 1
//	workload: -k 50: kmeans needs at most one cluster per data point, and synthetic:blobs has 20; want -k ≤ 20
//
// The JSON keys are syncbench's flag names, so the command prints
// SpecError.Msg (the message without the prefix) as it is. Errors reading
// a data file are the dataset package's (*dataset.ParseError naming the
// file and line, or the fs error).
package workload
