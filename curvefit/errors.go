package curvefit

import (
	"errors"
	"fmt"
)

// Sentinel errors. Functions wrap them with the offending input's name and
// value; match with errors.Is.
var (
	// ErrEmpty reports an empty matrix or sample.
	ErrEmpty = errors.New("curvefit: empty input")
	// ErrLength reports inputs whose lengths or shapes disagree.
	ErrLength = errors.New("curvefit: dimension mismatch")
	// ErrDimension is the former name of ErrLength, the same error.
	//
	// Deprecated: use ErrLength (docs/errors.md). ErrDimension will be
	// removed no earlier than v0.2.0.
	ErrDimension = ErrLength
	// ErrNonFinite reports a NaN or ±Inf input value.
	ErrNonFinite = errors.New("curvefit: non-finite value")
	// ErrDomain reports a finite value outside the model's domain (a
	// negative time, a non-positive loss, a negative weight).
	ErrDomain = errors.New("curvefit: value out of domain")
	// ErrOverflow reports an NNLS solution too large for float64 (such as
	// b/a for a = 1e-310, b = 1e5).
	ErrOverflow = errors.New("curvefit: NNLS solution overflows float64")
	// ErrMaxIter reports that NNLS reached its iteration limit.
	ErrMaxIter = errors.New("curvefit: NNLS iteration limit reached")
	// ErrTooFewPoints reports a sample too small to fit a four-parameter
	// curve (fewer than 4 weighted points or fewer than 3 distinct times).
	ErrTooFewPoints = errors.New("curvefit: too few points")
	// ErrFlat reports losses that do not vary, so the curve parameters are
	// not identifiable.
	ErrFlat = errors.New("curvefit: flat losses")
	// ErrNoFit reports that no finite fit was found.
	ErrNoFit = errors.New("curvefit: no finite fit")
)

// InputError names one bad input value. It wraps ErrNonFinite or ErrDomain.
type InputError struct {
	Input string  // name of the argument, e.g. "a", "b", "t", "y", "Weights"
	Index int     // position of the bad value (row-major for matrices)
	Value float64 // the bad value
	Err   error   // ErrNonFinite or ErrDomain
}

func (e *InputError) Error() string {
	return fmt.Sprintf("%v: %s[%d] = %v", e.Err, e.Input, e.Index, e.Value)
}

func (e *InputError) Unwrap() error { return e.Err }
