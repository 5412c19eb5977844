package knee

import (
	"errors"
	"fmt"
	"strings"
)

// Errors returned by Kneedle and by the Validate methods. Input errors about
// one value are wrapped in an *InputError that names it; match them with
// errors.Is.
var (
	// ErrLength: x and y have different lengths.
	ErrLength = errors.New("knee: x and y have different lengths")
	// ErrNotFinite: a value of x or y is NaN or ±Inf.
	ErrNotFinite = errors.New("knee: not finite")
	// ErrNotIncreasing: x is not strictly increasing.
	ErrNotIncreasing = errors.New("knee: x not strictly increasing")
	// ErrOption: an option or a detector setting is out of range.
	ErrOption = errors.New("knee: invalid option")
)

// InputError reports a bad value in the input of Kneedle: which slice, the
// index, the value, and the reason (ErrNotFinite or ErrNotIncreasing, which
// errors.Is finds through Unwrap). Its message reads like
//
//	knee: y[17] = NaN: not finite
//	knee: x[4] = 3: x not strictly increasing (x[3] = 3)
type InputError struct {
	Name  string  // "x" or "y"
	Index int     // index of the offending value
	Value float64 // the offending value
	Prev  float64 // for ErrNotIncreasing: the value before it
	Err   error   // ErrNotFinite or ErrNotIncreasing
}

func (e *InputError) Error() string {
	reason := strings.TrimPrefix(e.Err.Error(), "knee: ")
	msg := fmt.Sprintf("knee: %s[%d] = %v: %s", e.Name, e.Index, e.Value, reason)
	if errors.Is(e.Err, ErrNotIncreasing) {
		msg += fmt.Sprintf(" (%s[%d] = %v)", e.Name, e.Index-1, e.Prev)
	}
	return msg
}

// Unwrap returns the reason, ErrNotFinite or ErrNotIncreasing.
func (e *InputError) Unwrap() error { return e.Err }
