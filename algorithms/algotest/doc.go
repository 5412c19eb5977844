// Package algotest is the conformance suite every algorithms.Algorithm must
// pass, and a tiny exact test workload (Quadratic) for testing runtimes.
//
// Check verifies the additive-update contract: deltas from a batch cut at
// any point sum to the delta of the whole batch; shards merged in any
// grouping equal one worker; servers refuse non-finite or mis-shaped deltas
// without changing state; Init is deterministic per seed; partial objectives
// add up across shards.
package algotest
