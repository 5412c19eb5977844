// Package consistency implements synchronization models for data-parallel
// training as pure, deterministic state machines, and checkers that verify
// a recorded run kept its model's guarantee.
//
// A Model is the coordinator's decision logic and nothing else (the shape
// of etcd's raft core): a driver feeds it events — start, a worker's
// commit, progress, a batch ready, join, leave, tick(now), stop — and
// carries out the effects it returns as data — apply these deltas in this
// order (producing version v), release worker w with version v to compute
// b points, worker w blocks waiting for these workers. A Model starts no
// goroutine, reads no clock and does no I/O, so the virtual-time simulator,
// the goroutine runtime and a gRPC coordinator (package harness) all drive
// the same code, and a scripted test (testdata/*.txt) pins every decision.
//
// The models:
//
//   - BSP (bulk synchronous; "bsp" mini-batch of Config.Batch points per
//     worker per round, "bsp:full" a full pass, FSP paper's BSPV and BSPB):
//     a round's deltas are applied together once every member committed,
//     merged in worker order so results do not depend on arrival timing.
//   - SSP(s) ("ssp:3"; Ho et al. 2013, MLLess §3.1): every commit is
//     applied at once; a worker about to compute clock c is released only
//     while every member has committed clocks up to c − s − 1. s = 0 is
//     BSP's staleness with ASP's per-commit applies.
//   - ASP ("asp"): every commit applied at once, its worker released at
//     once.
//   - Quorum(k) ("quorum:0.9" of the members rounded up, or "quorum:12";
//     slsML): once k commits are pending they are applied together and
//     their workers released; a straggler's late commit folds into the next
//     release — none is dropped.
//   - ISP(v) ("isp:0.7", "isp" for v = 0.7; MLLess §4.1): BSP rounds
//     whose workers commit their updates through a per-parameter
//     significance filter (package filter) and hold back the rest, so
//     replicas diverge by the held updates; v = 0 is BSP (Appendix A,
//     Corollary 1).
//   - FSP(η) ("fsp", "fsp:100ms", "fsp:20ms:semi"; FSP paper §3): a
//     time-triggered flexible barrier. Every member is released for a full
//     pass; when the timer η fires, or a worker completes its pass (the
//     early trigger, §3.3), the others are interrupted (EfInterrupt) and
//     commit after their current point; the round's deltas are applied
//     together as in BSP. EvSetInterval changes η (an interval tuner's
//     decision; consistency.FullBatch makes full-batch rounds); ":semi"
//     gives the workers local timers instead (§5.2).
//
// Membership is dynamic: a joiner takes part from the next round (BSP), at
// the slowest clock (SSP) or at once (ASP, quorum); a leaver is no longer
// awaited and its committed deltas are still applied. EvStop applies every
// pending delta (a final flush), so a finished run has lost nothing.
//
// # Extending
//
// A new model fits the same events and effects: DOLL's K-grouping, for
// one, counts EvBatchReady and commits towards K as Quorum counts commits.
//
// # Checkers
//
// Check verifies a Trace of what a driver actually did: versions applied
// in order, every committed delta applied exactly once (none lost at the
// stop), commits on the version and clock read, read-your-writes; BSP and
// FSP: one version per round with every member; SSP: no read older than
// the bound; Quorum: at least k deltas per release; ISP: BSP's rules, and
// each RecHeld record (what a worker holds back after a step) keeps the
// divergence bound |acc_i| ≤ v_t·|w_i|, v_t = v/√(t+1).
//
// A trace that records the workers' side too (Trace.WorkerSide: what each
// worker sent, which delta it took as accepted, which it abandoned) lets
// Check prove the whole path: every delta a worker sent and did not
// deliberately abandon was accepted and applied exactly once, and no
// worker stopped sending a delta the coordinator had not accepted. That
// is what catches a commit dropped on the link and never resent, a stale
// acknowledgement taken as confirmation, or a refused commit answered as
// a duplicate; a coordinator-only trace cannot see them. Violations that
// are such root causes (lost or doubled deltas) come first in a
// CheckError, before the cascade of rules they break.
//
// A Recorder writes a trace from what the driver did, one method per
// thing done, and is safe for concurrent use by a coordinator and its
// workers. Every runtime of package harness records both sides, and its
// tests switch on one plausible bug at a time to show Check catching it.
package consistency
