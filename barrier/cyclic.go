package barrier

import "context"

// Cyclic is a reusable barrier for a dynamic set of workers: the bulk
// synchronous parallel (BSP) superstep barrier. Round r releases when every
// worker taking part in it has called Wait; then round r+1 starts.
//
// A worker that joins while a round is in progress takes part from the next
// round on: it does not hold up the round in progress, and a Wait it calls
// meanwhile counts for the next round. A worker that leaves is no longer
// awaited; if it was the last one awaited, the round releases.
//
// The zero Cyclic has no members and is ready for Join. A Cyclic must not be
// copied after first use. All methods are safe for concurrent use.
type Cyclic struct {
	r rounds
}

// NewCyclic returns a Cyclic whose first round (round 0) awaits workers.
// A worker listed twice is an *InputError wrapping ErrConfig.
func NewCyclic(workers ...WorkerID) (*Cyclic, error) {
	c := new(Cyclic)
	if err := c.r.init("NewCyclic", workers); err != nil {
		return nil, err
	}
	return c, nil
}

// Wait records that worker arrived and blocks until the round it arrived
// for releases. It returns that round.
//
// If ctx ends first, Wait withdraws the arrival and returns a *WaitError
// that names the workers still awaited and wraps ctx.Err(). If the worker
// leaves while Wait is blocked, Wait returns an error wrapping ErrLeft. Wait
// by a non-member returns an error wrapping ErrUnknownWorker, and a second Wait
// for a worker whose Wait is in progress one wrapping ErrBusy.
func (c *Cyclic) Wait(ctx context.Context, worker WorkerID) (round uint64, err error) {
	return c.r.wait(ctx, "Cyclic.Wait", worker)
}

// Join adds worker to the members. It takes part from the next round, or
// from the round in progress if no worker takes part in that one. Join
// returns the first round the worker takes part in, or an error wrapping
// ErrAlreadyMember.
func (c *Cyclic) Join(worker WorkerID) (round uint64, err error) {
	return c.r.join("Cyclic.Join", worker)
}

// Leave removes worker from the members. The round in progress no longer
// awaits it (and releases if it was the last awaited); a Wait of worker
// that is blocked returns an error wrapping ErrLeft. Leave of a non-member
// returns an error wrapping ErrUnknownWorker.
func (c *Cyclic) Leave(worker WorkerID) error {
	return c.r.leave("Cyclic.Leave", worker)
}

// Round returns the round in progress: the number of rounds released so far.
func (c *Cyclic) Round() uint64 { return c.r.current() }

// Members returns the members in ascending order.
func (c *Cyclic) Members() []WorkerID { return c.r.memberList() }

// OnRelease sets the barrier action: action runs once per round, after
// every arrival of the round and before any of its Waits return, in the
// goroutine whose call completed the round (see Release for why and for
// what the action must not do). It replaces any earlier action; nil
// removes it. The action applies from the next round that releases.
func (c *Cyclic) OnRelease(action func(Release)) { c.r.onRelease(action) }
