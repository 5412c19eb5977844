package barrier

import (
	"context"
	"sync/atomic"
)

// Flexible is the flexible barrier of FSP (Wang et al., TPDS 2022, §3.1,
// §3.3) for goroutines: a round has no pre-set workload. Workers compute
// data point after data point and check Signalled between points; the
// barrier of a round is initiated by Signal — from the coordinator's timer
// every η, or by a worker that has completed a full pass over its data
// (the early trigger: further passes on unchanged parameters would be
// redundant). Then every member commits after its current point and calls
// Wait, which blocks until all members have arrived, like Cyclic; the next
// round starts unsignalled.
//
// A typical worker:
//
//	for round := f.Round(); ; {
//		for i := 0; !f.Signalled(round); i++ {
//			process(point(i))
//			if i+1 == len(shard) { f.Signal(round) } // a full pass
//		}
//		commit()
//		round, err = f.Wait(ctx, w) // the round that released
//		round++
//		...
//	}
//
// and the coordinator arms a timer per round: time.AfterFunc(η, func() {
// f.Signal(round) }). A Signal for a round that has already released does
// nothing, so a late timer cannot cut the next round short.
//
// Membership, cancellation and errors are those of Cyclic. All methods are
// safe for concurrent use. The zero Flexible has no members.
type Flexible struct {
	c Cyclic
	// signalled is 1 + the latest round whose barrier was initiated.
	signalled atomic.Uint64
}

// NewFlexible returns a Flexible whose first round (round 0) is in
// progress. A worker listed twice is an *InputError wrapping ErrConfig.
func NewFlexible(workers ...WorkerID) (*Flexible, error) {
	f := new(Flexible)
	if err := f.c.r.init("NewFlexible", workers); err != nil {
		return nil, err
	}
	return f, nil
}

// Signal initiates the barrier of round if that round is still in
// progress, and reports whether it did (false when it was already
// initiated or has released).
func (f *Flexible) Signal(round uint64) bool {
	for {
		s := f.signalled.Load()
		if s > round || f.c.Round() != round {
			return false
		}
		if f.signalled.CompareAndSwap(s, round+1) {
			return true
		}
	}
}

// Signalled reports whether the barrier of round has been initiated (or
// round has released): a worker computing for round commits after its
// current point. It is one atomic load, cheap enough to call per point.
func (f *Flexible) Signalled(round uint64) bool {
	return f.signalled.Load() > round || f.c.Round() > round
}

// Wait records that worker committed for the round in progress and blocks
// until every member has; it returns that round. See Cyclic.Wait for
// cancellation (a *WaitError naming the workers still awaited), leaving
// and errors.
func (f *Flexible) Wait(ctx context.Context, worker WorkerID) (round uint64, err error) {
	return f.c.r.wait(ctx, "Flexible.Wait", worker)
}

// Join adds worker; it takes part from the next round (see Cyclic.Join).
func (f *Flexible) Join(worker WorkerID) (round uint64, err error) {
	return f.c.r.join("Flexible.Join", worker)
}

// Leave removes worker; the round in progress no longer awaits it (see
// Cyclic.Leave).
func (f *Flexible) Leave(worker WorkerID) error {
	return f.c.r.leave("Flexible.Leave", worker)
}

// Round returns the round in progress.
func (f *Flexible) Round() uint64 { return f.c.Round() }

// Members returns the members in ascending order.
func (f *Flexible) Members() []WorkerID { return f.c.Members() }

// OnRelease sets the barrier action, run once per round when the last
// member has committed and before any Wait returns: the place for FSP's
// coordinator to merge the round's commits (see Cyclic.OnRelease and
// Release).
func (f *Flexible) OnRelease(action func(Release)) { f.c.OnRelease(action) }
