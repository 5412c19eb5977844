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
//   - KGroup(K) ("kgroup:8", "kgroup:8:spread"; DOLL §III-A, Algorithms
//     1–4): workers receive streamed data and announce each batch of
//     Config.Batch = b points (EvBatchReady, numbered 0, 1, 2, … per
//     worker). Once K batches are queued across the available members, the
//     workers holding them are released, all on the current version, to
//     compute one gradient per batch (a release covers Effect.Batches
//     consecutive batches and commits their sum); the K batches' gradients
//     are applied together and the next group starts once K more are
//     queued. Batches are grouped in announcement order (Algorithm 3's
//     queue) or, with ":spread", by §III-B2's priority queue (fewest
//     batches of the same worker in the group first). A preempted worker
//     keeps its queued batches, which do not count while it is away; the
//     batches it was computing return to its queue and the group takes
//     others, so none is lost or used twice.
//
// Membership is dynamic: a joiner takes part from the next round (BSP), at
// the slowest clock (SSP) or at once (ASP, quorum, KGroup: with the
// batches it kept while away); a leaver is no longer awaited and its
// committed deltas are still applied. EvStop applies every
// pending delta (a final flush), so a finished run has lost nothing.
//
// # Extending
//
// A new model fits the same events and effects, as KGroup did: it gave
// EvBatchReady a meaning the other models ignore, and numbered batches in
// Event.Batch, Effect.Batch and Record.Batch rather than a new event kind.
// A model adds a ModelKind after the last one, a Parse form and String,
// its refusals in New, a Step that validates with the shared membership
// and sequence checks before it changes anything, and, in Check, the
// guarantee it promises; a scripted test (testdata/*.txt) pins its
// decisions and a random driver shows its traces pass Check.
//
// # Checkers
//
// Check verifies a Trace of what a driver actually did: versions applied
// in order, every committed delta applied exactly once (none lost at the
// stop), commits on the version and clock read, read-your-writes; BSP and
// FSP: one version per round with every member; SSP: no read older than
// the bound; Quorum: at least k deltas per release; ISP: BSP's rules, and
// each RecHeld record (what a worker holds back after a step) keeps the
// divergence bound |acc_i| ≤ v_t·|w_i|, v_t = v/√(t+1); KGroup: every
// update aggregates exactly K batches (at most K in the final flush), all
// computed on the version before it; each worker's batches are announced
// 0, 1, 2, … (RecBatch), used only once announced, and used once each, in
// order — a batch skipped (lost, say, with a preempted worker) or used
// twice is a root cause like a lost delta; releases go only to members
// present. Batches still queued at the stop are allowed; CheckStats
// counts them per worker.
//
// A trace that records the workers' side too (Trace.WorkerSide: what each
// worker sent, which delta it took as accepted, which it abandoned) lets
// Check prove the whole path: every delta a worker sent and did not
// deliberately abandon was accepted and applied exactly once, and no
// worker stopped sending a delta the coordinator had not accepted. That
// is what catches a commit dropped on the link and never resent, a stale
// acknowledgement taken as confirmation, or a refused commit answered as
// a duplicate; a coordinator-only trace cannot see them. Under KGroup
// each worker also records how many batches its stream produced by the
// stop (RecProduced), and the coordinator must have heard of them all
// (a batch indicator dropped and never resent). Violations that
// are such root causes (lost or doubled deltas) come first in a
// CheckError, before the cascade of rules they break.
//
// A Recorder writes a trace from what the driver did, one method per
// thing done, and is safe for concurrent use by a coordinator and its
// workers. Every runtime of package harness records both sides, and its
// tests switch on one plausible bug at a time to show Check catching it.
//
// A Checker is Check fed one record at a time, and a Recorder in
// CheckOnly mode feeds one instead of keeping the trace: a run of
// thousands of workers then checks millions of deltas without holding
// its trace (about 0.6 KB per delta). The checker itself keeps a
// worker's commits only until they are applied and its sends until they
// are confirmed, so its memory follows the workers and the deltas in
// flight, not the length of the run.
//
// # Cost
//
// The models index what a commit needs (SSP's and ASP's slowest clock
// and waiting members, the number of members computing): a commit costs
// O(log n) in the members n, plus the effects it returns. An EfBlock
// lists up to every member, so a driver that ignores blocks sets
// Config.OmitBlocks (package harness does). KGroup's group filling still
// scans the members.
package consistency
