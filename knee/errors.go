package knee

import (
	"errors"
	"fmt"
	"strings"
)

// Errors returned by Kneedle and by the Validate methods. Input errors about
// one value are wrapped in an *InputError that names it; match them with
// errors.Is. The names are the module-wide ones (docs/errors.md).
var (
	// ErrLength: x and y have different lengths.
	ErrLength = errors.New("knee: x and y have different lengths")
	// ErrNonFinite: a value of x or y is NaN or ±Inf.
	ErrNonFinite = errors.New("knee: not finite")
	// ErrNotIncreasing: x is not strictly increasing.
	ErrNotIncreasing = errors.New("knee: x not strictly increasing")
	// ErrConfig: an option or a detector setting is out of range (a field
	// of Options, Threshold or OnlineKneedle).
	ErrConfig = errors.New("knee: invalid config")

	// ErrNotFinite is the former name of ErrNonFinite, the same error.
	//
	// Deprecated: use ErrNonFinite. ErrNotFinite will be removed no
	// earlier than v0.2.0.
	ErrNotFinite = ErrNonFinite
	// ErrOption is the former name of ErrConfig, the same error.
	//
	// Deprecated: use ErrConfig. ErrOption will be removed no earlier than
	// v0.2.0.
	ErrOption = ErrConfig
)

// InputError reports a bad value in the input of Kneedle: which slice, the
// index, the value, and the reason (ErrNonFinite or ErrNotIncreasing, which
// errors.Is finds through Unwrap). Its message reads like
//
//	knee: y[17] = NaN: not finite
//	knee: x[4] = 3: x not strictly increasing (x[3] = 3)
type InputError struct {
	Input string  // the slice: "x" or "y"
	Index int     // index of the offending value
	Value float64 // the offending value
	Prev  float64 // for ErrNotIncreasing: the value before it
	Err   error   // ErrNonFinite or ErrNotIncreasing
}

func (e *InputError) Error() string {
	reason := strings.TrimPrefix(e.Err.Error(), "knee: ")
	msg := fmt.Sprintf("knee: %s[%d] = %v: %s", e.Input, e.Index, e.Value, reason)
	if errors.Is(e.Err, ErrNotIncreasing) {
		msg += fmt.Sprintf(" (%s[%d] = %v)", e.Input, e.Index-1, e.Prev)
	}
	return msg
}

// Unwrap returns the reason, ErrNonFinite or ErrNotIncreasing.
func (e *InputError) Unwrap() error { return e.Err }
