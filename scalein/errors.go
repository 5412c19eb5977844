package scalein

import (
	"errors"
	"fmt"
)

// Sentinel errors. Functions wrap them with the offending input's name and
// value; match with errors.Is.
var (
	// ErrConfig reports an invalid Config field.
	ErrConfig = errors.New("scalein: invalid configuration")
	// ErrNonFinite reports a NaN or ±Inf value.
	ErrNonFinite = errors.New("scalein: non-finite value")
	// ErrNegative reports a negative time, duration, step count or weight.
	ErrNegative = errors.New("scalein: negative value")
	// ErrDomain reports a finite value outside its domain: a loss ≤ 0 (the
	// curves of Eq. 2 and 3 model positive losses), a step count beyond
	// 2^53, weights that are all 0.
	ErrDomain = errors.New("scalein: value out of domain")
	// ErrTimeOrder reports a time before an earlier one: an observation
	// whose Time is before the previous observation's, or a run end before
	// an eviction.
	ErrTimeOrder = errors.New("scalein: time went backwards")
	// ErrUnknownWorker reports a worker ID that is not in the pool: never
	// configured, or already evicted.
	ErrUnknownWorker = errors.New("scalein: unknown worker")
	// ErrDuplicateWorker reports a worker ID given twice.
	ErrDuplicateWorker = errors.New("scalein: duplicate worker")
	// ErrLength reports slices whose lengths disagree, or none at all.
	ErrLength = errors.New("scalein: dimension mismatch")
	// ErrDimension is the former name of ErrLength, the same error.
	//
	// Deprecated: use ErrLength (docs/errors.md). ErrDimension will be
	// removed no earlier than v0.2.0.
	ErrDimension = ErrLength

	// ErrTooFewSteps is the reason of a decision not taken because too few
	// steps have been observed to estimate a step duration (d_P or d_p),
	// or because they took no time on the caller's clock.
	ErrTooFewSteps = errors.New("scalein: too few steps to estimate the step duration")
	// ErrDegenerate is the reason of a decision not taken because a fitted
	// curve predicts a loss that is not finite and positive, or s_Δ(t) is
	// not finite.
	ErrDegenerate = errors.New("scalein: degenerate prediction")
)

// InputError reports one bad value of an Observation, or of another
// argument: which input, its value and why. It wraps one of the sentinel
// errors (ErrNonFinite, ErrNegative, ErrDomain, ErrTimeOrder,
// ErrUnknownWorker, ErrDuplicateWorker, ErrLength). Its message reads
// like
//
//	scalein: observation of step 18: Loss = NaN: scalein: non-finite value
//	scalein: observation of step 40: Workers[2].ID = 7: evicted at step 31: scalein: unknown worker
type InputError struct {
	Op     string // "observation of step 18", "Average", "Lifetimes", ...
	Input  string // the offending input: "Time", "Loss", "Workers[2].ID", "weights[1]", ...
	Value  any    // its value: a float64, int, time.Duration, ...
	Detail string // more context, such as the previous Time; may be empty
	Err    error  // the sentinel
}

func (e *InputError) Error() string {
	s := fmt.Sprintf("scalein: %s: %s = %v", e.Op, e.Input, e.Value)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns the sentinel.
func (e *InputError) Unwrap() error { return e.Err }
