package barrier

import (
	"errors"
	"fmt"
	"strings"
)

// WorkerID names a worker (a party, a replica, a shard's goroutine). The
// primitives only compare IDs; any numbering works.
type WorkerID int

// Sentinel errors. Errors returned by the primitives wrap one of these (or a
// context error) so that errors.Is works.
var (
	// ErrUnknownWorker: the worker is not a member of the primitive (never
	// was, or left). The name is the one every package of the module uses
	// for an unknown worker (docs/errors.md).
	ErrUnknownWorker = errors.New("barrier: worker is not a member")
	// ErrNotMember is the former name of ErrUnknownWorker, the same error.
	//
	// Deprecated: use ErrUnknownWorker. ErrNotMember will be removed no
	// earlier than v0.2.0.
	ErrNotMember = ErrUnknownWorker
	// ErrAlreadyMember: Join of a worker that is already a member.
	ErrAlreadyMember = errors.New("barrier: worker is already a member")
	// ErrLeft: the worker left (Leave) while its Wait was blocked.
	ErrLeft = errors.New("barrier: worker left")
	// ErrBusy: Wait for a worker that already has a Wait in progress.
	ErrBusy = errors.New("barrier: worker already waiting")
	// ErrNotTaken: Grouper.Return of batches that are not the worker's
	// batches handed out last.
	ErrNotTaken = errors.New("barrier: batches not handed out last")
	// ErrConfig: a constructor argument is invalid (a worker listed twice,
	// a negative staleness, a quorum threshold out of range). Always
	// wrapped in an *InputError that names the argument.
	ErrConfig = errors.New("barrier: invalid config")
)

// InputError reports a bad constructor argument: which one, its value and
// what it must be. It wraps ErrConfig. It reads like
//
//	barrier: NewCyclic: workers[2] = 1: listed twice (also workers[0])
//	barrier: NewClockTable: staleness = -1: must be ≥ 0
type InputError struct {
	Op     string // the constructor, e.g. "NewQuorum"
	Input  string // the argument, e.g. "workers[2]", "staleness", "Count(k)"
	Value  any    // the bad value
	Reason string // what it must be
	Err    error  // ErrConfig
}

func (e *InputError) Error() string {
	return fmt.Sprintf("barrier: %s: %s = %v: %s", e.Op, e.Input, e.Value, e.Reason)
}

// Unwrap returns ErrConfig.
func (e *InputError) Unwrap() error { return e.Err }

// checkWorkers returns an *InputError if a worker is listed twice.
func checkWorkers(op string, workers []WorkerID) error {
	seen := make(map[WorkerID]int, len(workers))
	for i, w := range workers {
		if j, ok := seen[w]; ok {
			return &InputError{Op: op, Input: fmt.Sprintf("workers[%d]", i), Value: w,
				Reason: fmt.Sprintf("listed twice (also workers[%d])", j), Err: ErrConfig}
		}
		seen[w] = i
	}
	return nil
}

// WorkerError reports a call that failed because of the worker it named: a
// non-member, a duplicate Join, a second concurrent Wait, or a Wait that
// ended because its worker left. State is unchanged by the failed call.
type WorkerError struct {
	Op     string   // the method, e.g. "Cyclic.Wait"
	Worker WorkerID // the worker the call named
	Err    error    // ErrUnknownWorker, ErrAlreadyMember, ErrBusy, ErrLeft or ErrNotTaken
}

func (e *WorkerError) Error() string {
	return fmt.Sprintf("barrier: %s: worker %d: %s", e.Op, e.Worker, strings.TrimPrefix(e.Err.Error(), "barrier: "))
}

func (e *WorkerError) Unwrap() error { return e.Err }

// WaitError reports a Wait that ended because its context was cancelled or
// its deadline passed. It names the workers the waiter was still waiting
// for. The waiter's arrival has been withdrawn: the barrier is as if the
// Wait had never been called.
//
// Unwrap returns the context's error, so errors.Is(err,
// context.DeadlineExceeded) and errors.Is(err, context.Canceled) work.
type WaitError struct {
	Op     string   // the method, e.g. "Cyclic.Wait"
	Worker WorkerID // the worker whose Wait failed
	// Round is the round the arrival was for (Cyclic, Quorum) or the clock
	// passed to ClockTable.Wait.
	Round uint64
	// Missing lists the other workers whose arrival (Cyclic, Quorum) or clock
	// tick (ClockTable) the round still needed: ascending by ID for Cyclic
	// and Quorum, slowest first (ascending clock, then ID) for ClockTable.
	// ClockTable lists the waiter itself when its own clock is behind.
	Missing []WorkerID
	// Need is how many of Missing still had to arrive to release the round
	// besides the waiter: len(Missing) except for a Quorum.
	Need int
	Err  error // ctx.Err()
}

func (e *WaitError) Error() string {
	var b strings.Builder
	noun := "round"
	if strings.HasPrefix(e.Op, "ClockTable") {
		noun = "clock"
	}
	fmt.Fprintf(&b, "barrier: %s: worker %d at %s %d: %v", e.Op, e.Worker, noun, e.Round, e.Err)
	switch {
	case len(e.Missing) == 0:
	case e.Need < len(e.Missing):
		fmt.Fprintf(&b, "; awaiting %d of workers %v", e.Need, e.Missing)
	default:
		fmt.Fprintf(&b, "; awaiting workers %v", e.Missing)
	}
	return b.String()
}

func (e *WaitError) Unwrap() error { return e.Err }

// wakeup is the one message a blocked ClockTable.Wait receives on its
// party's channel.
type wakeup uint8

const (
	wakeReleased wakeup = iota + 1 // the round (or clock) the waiter needed was reached
	wakeLeft                       // the waiter's worker left
)
