// Package algotest is the conformance suite every algorithms.Algorithm must
// pass, and a tiny exact test workload (Quadratic) for testing runtimes.
//
// Check verifies the additive-update contract: deltas from a batch cut at
// any point sum to the delta of the whole batch; shards merged in any
// grouping equal one worker; servers refuse non-finite or mis-shaped deltas
// without changing state; Init is deterministic per seed; partial objectives
// add up across shards. For a Server or Worker that implements
// algorithms.Checkpointer (required with Options.RequireCheckpointer) it
// checks rollback: steps rerun after Restore give bit-identical deltas, θ
// and objective, a checkpoint can be restored twice and into objects built
// identically, and checkpoints of other objects are refused with
// algorithms.ErrLayout and change nothing.
package algotest
