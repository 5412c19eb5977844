package migrate

import (
	"errors"
	"fmt"
)

// Sentinel errors. Errors returned by this package wrap one of them; match
// with errors.Is.
var (
	// ErrInput reports an input value out of its domain: a negative size,
	// a NaN or negative speed, a time before the previous barrier.
	ErrInput = errors.New("migrate: invalid input")
	// ErrUnknownWorker reports a worker index outside 0..workers−1.
	ErrUnknownWorker = errors.New("migrate: unknown worker")
	// ErrWorker is the former name of ErrUnknownWorker, the same error.
	//
	// Deprecated: use ErrUnknownWorker (docs/errors.md). ErrWorker will be
	// removed no earlier than v0.2.0.
	ErrWorker = ErrUnknownWorker
	// ErrLength reports inputs whose lengths disagree.
	ErrLength = errors.New("migrate: length mismatch")
	// ErrWindow reports a window that is not open (never opened, already
	// delivered or aborted).
	ErrWindow = errors.New("migrate: unknown window")
	// ErrConfig reports an invalid Config or PlacementConfig.
	ErrConfig = errors.New("migrate: invalid config")
	// ErrInvariant reports a broken Placement invariant (Check).
	ErrInvariant = errors.New("migrate: invariant violated")
)

// InputError names one bad input. It wraps ErrInput, ErrUnknownWorker, ErrLength,
// ErrWindow or ErrConfig.
type InputError struct {
	Input  string // the input's name, e.g. "Barrier.Workers[3].Speed"
	Value  any    // the bad value
	Reason string // what it must be
	Err    error  // the sentinel
}

func (e *InputError) Error() string {
	return fmt.Sprintf("%v: %s = %v: %s", e.Err, e.Input, e.Value, e.Reason)
}

func (e *InputError) Unwrap() error { return e.Err }

func inputErr(sentinel error, input string, value any, reason string) error {
	return &InputError{Input: input, Value: value, Reason: reason, Err: sentinel}
}
