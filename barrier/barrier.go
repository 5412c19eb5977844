package barrier

import "context"

// Barrier is a round barrier over a dynamic set of workers: Cyclic (BSP),
// Quorum (k of n) and Flexible (FSP) implement it, so a training loop can
// be written once and run under any of them. Rounds are numbered from 0;
// each member's Wait arrives for one round and returns when that round
// releases.
//
// A function that only waits needs just Wait; the other methods manage an
// elastic fleet (Join, Leave), observe progress (Round, Members), and name
// the goroutine that reduces a round's results (OnRelease). ClockTable is
// not a Barrier: SSP has clocks, not rounds (see ClockTable.TickWait for
// its one-call step).
type Barrier interface {
	// Wait records that worker arrived and blocks until the round it
	// arrived for releases; it returns that round. See Cyclic.Wait for
	// cancellation, leaving and misuse.
	Wait(ctx context.Context, worker WorkerID) (round uint64, err error)
	// Join adds worker; it returns the first round the worker takes part in.
	Join(worker WorkerID) (round uint64, err error)
	// Leave removes worker; the round in progress no longer awaits it.
	Leave(worker WorkerID) error
	// Round returns the round in progress: the number of rounds released.
	Round() uint64
	// Members returns the members in ascending order.
	Members() []WorkerID
	// OnRelease sets the action run once per round, before the round's
	// waiters return (see Release).
	OnRelease(action func(Release))
}

var (
	_ Barrier = (*Cyclic)(nil)
	_ Barrier = (*Quorum)(nil)
	_ Barrier = (*Flexible)(nil)
)

// Release describes a round as it releases; it is what a barrier action
// (OnRelease) receives.
//
// # Who reduces after a round
//
// The package answers with a barrier action, as Java's CyclicBarrier does,
// rather than with a leader flag in Wait's result. The action runs exactly
// once per round, in the goroutine whose call completed the round (the
// last arrival's Wait, or a Leave that made the round complete), after
// every arrival of the round and before any of the round's Waits return.
// So whatever the action writes — the averaged gradient, the new
// parameters — is visible to every worker when its Wait returns, and
// whatever the workers wrote before their Wait is visible to the action:
// one barrier per step. With a leader flag the leader would reduce after
// the release, and the others would need a second barrier (or a channel)
// before reading the result; the action also keeps Wait's signature, so
// code written against Wait alone is unchanged.
//
// A Quorum's late members are the exception: they are not waiting, so
// they run while the action does (that is the point of a quorum). Data
// they read — the parameters — must not be written in place by the
// action: let it publish a new copy (an atomic.Pointer to a fresh slice)
// that workers load at the start of each step. Per-worker slots (each
// worker's gradient) are safe if the action reads only the slots of
// Release.Arrived: a late member writes its own slot for a later round.
//
// The price: the action runs while the barrier's lock is held. It must not
// call the barrier's methods (it would deadlock), and while it runs the
// barrier's other methods wait for it — which is what the round's waiters
// want anyway, but a Join, Leave, Round or Members call by another
// goroutine waits too. If the action panics, the panic propagates to the
// caller whose call completed the round, and that round does not release:
// its waiters stay blocked until their contexts end.
type Release struct {
	// Round is the round that releases.
	Round uint64
	// Arrived lists, in ascending order, the workers whose arrivals formed
	// the round: every member taking part for a Cyclic or Flexible (except
	// those that left), the first Need(n) arrivals for a Quorum. It is
	// empty for a round whose members taking part all left.
	Arrived []WorkerID
	// Late lists, in ascending order, the members that took part in the
	// round but did not arrive for it: always empty for a Cyclic or
	// Flexible; for a Quorum, the workers whose next arrival counts for
	// the next round.
	Late []WorkerID
}
