package barrier

import (
	"context"
	"fmt"
	"math"
)

// Threshold says how many members a Quorum round needs: a count k or a
// fraction f of the members taking part in the round. The zero Threshold
// means all of them.
type Threshold struct {
	kind  thresholdKind
	count int
	frac  float64
}

type thresholdKind uint8

const (
	thresholdAll thresholdKind = iota
	thresholdCount
	thresholdFraction
)

// Count returns the threshold "k members" (fewer if the round has fewer
// members taking part).
func Count(k int) Threshold { return Threshold{kind: thresholdCount, count: k} }

// Fraction returns the threshold "⌈f·n⌉ of the n members taking part", for
// 0 < f ≤ 1. The product is rounded up after subtracting 1e-9, so that
// float64 noise such as 0.7·10 = 7.000000000000001 still needs 7.
func Fraction(f float64) Threshold { return Threshold{kind: thresholdFraction, frac: f} }

// Need returns how many of n members taking part release a round: k capped
// at n for Count(k), ⌈f·n⌉ (at least 1) for Fraction(f), n for the zero
// Threshold. Need(0) is 0.
func (t Threshold) Need(n int) int {
	switch {
	case n <= 0:
		return 0
	case t.kind == thresholdCount:
		return min(max(t.count, 1), n)
	case t.kind == thresholdFraction:
		k := int(math.Ceil(float64(t.frac*float64(n)) - 1e-9))
		return min(max(k, 1), n)
	default:
		return n
	}
}

func (t Threshold) validate(op string) error {
	switch {
	case t.kind == thresholdCount && t.count < 1:
		return &InputError{Op: op, Input: "Count(k)", Value: t.count, Reason: "must be ≥ 1", Err: ErrConfig}
	case t.kind == thresholdFraction && !(t.frac > 0 && t.frac <= 1):
		return &InputError{Op: op, Input: "Fraction(f)", Value: t.frac, Reason: "must be in (0, 1]", Err: ErrConfig}
	}
	return nil
}

func (t Threshold) String() string {
	switch t.kind {
	case thresholdCount:
		return fmt.Sprintf("%d", t.count)
	case thresholdFraction:
		return fmt.Sprintf("%.6g%%", 100*t.frac)
	default:
		return "all"
	}
}

// Quorum is a k-of-n barrier (slsML: wait for a fraction, e.g. 90%, of the
// workers so that the tail does not stall every round). Round r releases
// when Need(n) of its n members taking part have arrived. An arrival always
// counts for the round in progress: a worker that missed round r's quorum
// ("late") is counted for round r+1, and Wait reports which round that was.
// No arrival is dropped.
//
// Membership is dynamic as for Cyclic: a joiner takes part from the next
// round (its Wait meanwhile counts for that round), and a worker that
// leaves lowers the round's n, which can release it.
//
// The zero Quorum has no members and needs all of them (it behaves as a
// Cyclic). A Quorum must not be copied after first use. All methods are safe
// for concurrent use.
type Quorum struct {
	r rounds
}

// NewQuorum returns a Quorum whose rounds need k of workers. Count(k) with
// k < 1, Fraction(f) with f outside (0, 1] and a worker listed twice are
// an *InputError wrapping ErrConfig.
func NewQuorum(k Threshold, workers ...WorkerID) (*Quorum, error) {
	if err := k.validate("NewQuorum"); err != nil {
		return nil, err
	}
	q := new(Quorum)
	q.r.k = k
	if err := q.r.init("NewQuorum", workers); err != nil {
		return nil, err
	}
	return q, nil
}

// Wait records that worker arrived for the round in progress (the next round
// if the worker joined during this one) and blocks until that round
// releases. It returns the round the arrival counted for.
//
// Cancellation, leaving and misuse are reported as for Cyclic.Wait; a
// *WaitError's Need says how many of its Missing workers had to arrive.
func (q *Quorum) Wait(ctx context.Context, worker WorkerID) (round uint64, err error) {
	return q.r.wait(ctx, "Quorum.Wait", worker)
}

// Join adds worker to the members, as Cyclic.Join.
func (q *Quorum) Join(worker WorkerID) (round uint64, err error) {
	return q.r.join("Quorum.Join", worker)
}

// Leave removes worker from the members, as Cyclic.Leave: the round in
// progress needs Need(n−1) then, and releases if it has that many arrivals.
func (q *Quorum) Leave(worker WorkerID) error {
	return q.r.leave("Quorum.Leave", worker)
}

// Round returns the round in progress: the number of rounds released so far.
func (q *Quorum) Round() uint64 { return q.r.current() }

// Members returns the members in ascending order.
func (q *Quorum) Members() []WorkerID { return q.r.memberList() }

// OnRelease sets the barrier action, run once per round when the round's
// quorum is complete and before any of its Waits return; its Release names
// the arrivals that formed the quorum and the members that were late (see
// Cyclic.OnRelease and Release).
func (q *Quorum) OnRelease(action func(Release)) { q.r.onRelease(action) }

// Threshold returns the threshold the Quorum was made with.
func (q *Quorum) Threshold() Threshold { return q.r.k }
