package slsml

import (
	"cmp"
	"fmt"
	"time"
)

// Contribution names one gradient: the one Worker computed on θ_Iter.
// A gradient recomputed after the store lost it (a replay) is the same
// contribution.
type Contribution struct {
	Iter, Worker int
}

func (c Contribution) String() string { return fmt.Sprintf("w%d@%d", c.Worker, c.Iter) }

// compare orders contributions by iteration, then worker: the order a
// reducer sums them in.
func (c Contribution) compare(o Contribution) int {
	if n := cmp.Compare(c.Iter, o.Iter); n != 0 {
		return n
	}
	return cmp.Compare(c.Worker, o.Worker)
}

// Reason says why a reducer dropped a contribution.
type Reason int

const (
	// Late: it missed its iteration's quorum and the policy is Drop.
	Late Reason = iota + 1
	// Stale: it was folded too late (Config.MaxLag).
	Stale
	// Lost: the store lost its partitions before it was applied.
	Lost
	// Ended: the run ended before an iteration could fold it.
	Ended
)

func (r Reason) String() string {
	switch r {
	case Late:
		return "late"
	case Stale:
		return "stale"
	case Lost:
		return "lost"
	case Ended:
		return "ended"
	}
	return fmt.Sprintf("Reason(%d)", int(r))
}

// RecordKind is what a Record records.
type RecordKind int

const (
	// RecWrite: a worker finished contribution C: its partitions are
	// stored and its done note is note Seq of the done topic in epoch
	// Epoch. Vec is its gradient (θ's length), Count its points.
	RecWrite RecordKind = iota + 1
	// RecApply: reducer Reducer applied, at iteration Iter, the
	// contributions Set (sorted), which it took from the done topic's
	// notes From+1 … Cut of epoch Epoch. Vec is its slice of their sum,
	// Count the sum of their counts, Params its slice of θ_{Iter+1}.
	RecApply
	// RecDrop: reducer Reducer dropped contribution C at iteration Iter
	// (before its RecApply of Iter, or after a loss, or at the end) for
	// Reason.
	RecDrop
	// RecRollback: reducer Reducer undid its apply of iteration Iter
	// (and its drops of Iter): the store lost its data before the merger
	// published θ_{Iter+1}.
	RecRollback
	// RecMerge: the merger published θ_{Iter+1} = Params from the
	// reducers' slices of iteration Iter.
	RecMerge
	// RecLoss: the store lost its data while iteration Iter ran; a new
	// epoch begins.
	RecLoss
)

func (k RecordKind) String() string {
	switch k {
	case RecWrite:
		return "write"
	case RecApply:
		return "apply"
	case RecDrop:
		return "drop"
	case RecRollback:
		return "rollback"
	case RecMerge:
		return "merge"
	case RecLoss:
		return "loss"
	}
	return fmt.Sprintf("RecordKind(%d)", int(k))
}

// Record is one thing the pipeline did. Fields a kind does not use are
// zero (see RecordKind).
type Record struct {
	Kind      RecordKind
	At        time.Duration // virtual time
	Iter      int
	C         Contribution
	Reducer   int
	Epoch     int
	Seq       uint64
	From, Cut uint64
	Set       []Contribution
	Count     int
	Vec       []float64
	Params    []float64
	Reason    Reason
}

func (r Record) String() string {
	switch r.Kind {
	case RecWrite:
		return fmt.Sprintf("%v write %v (note %d of epoch %d, %d points)", r.At, r.C, r.Seq, r.Epoch, r.Count)
	case RecApply:
		return fmt.Sprintf("%v reducer %d applies iteration %d: %v (notes %d…%d of epoch %d)", r.At, r.Reducer, r.Iter, r.Set, r.From+1, r.Cut, r.Epoch)
	case RecDrop:
		return fmt.Sprintf("%v reducer %d drops %v at iteration %d: %v", r.At, r.Reducer, r.C, r.Iter, r.Reason)
	case RecRollback:
		return fmt.Sprintf("%v reducer %d rolls back iteration %d", r.At, r.Reducer, r.Iter)
	case RecMerge:
		return fmt.Sprintf("%v merge θ_%d", r.At, r.Iter+1)
	case RecLoss:
		return fmt.Sprintf("%v the store lost its data during iteration %d", r.At, r.Iter)
	}
	return r.Kind.String()
}

// Trace is what a run did, for Check.
type Trace struct {
	// Workers, Reducers and Params are the run's W, R and θ's length;
	// reducer r owns θ[Bounds(r)].
	Workers, Reducers, Params int
	// Iterations is the number of models to publish after θ0.
	Iterations int
	// Need is ⌈Quorum·W⌉, the completions the semaphore waits for.
	Need int
	// Late and MaxLag are the run's late policy.
	Late   LatePolicy
	MaxLag int
	// Records, in the order they happened.
	Records []Record
}

// Bounds returns reducer r's slice [lo, hi) of θ: [r·P/R, (r+1)·P/R).
func (t *Trace) Bounds(r int) (lo, hi int) { return bounds(t.Params, t.Reducers, r) }

func bounds(p, reducers, r int) (lo, hi int) { return r * p / reducers, (r + 1) * p / reducers }
