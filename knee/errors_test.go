package knee_test

import (
	"errors"
	"math"
	"testing"

	"github.com/syncmodels/syncmodels/knee"
)

// TestErrorNames: errors from real bad inputs match the module-wide names
// (docs/errors.md) and, for code written before them, the deprecated
// aliases.
func TestErrorNames(t *testing.T) {
	x := []float64{0, 1, 2, 3}
	y := []float64{0, 2, 3, 3.5}

	_, err := knee.Kneedle(x, y, knee.Options{S: -1})
	if !errors.Is(err, knee.ErrConfig) || !errors.Is(err, knee.ErrOption) {
		t.Errorf("Kneedle(S = -1) = %v; want it to match ErrConfig and the deprecated ErrOption", err)
	}
	thr := knee.Threshold{Span: 0.5}
	if err := thr.Validate(); !errors.Is(err, knee.ErrConfig) || !errors.Is(err, knee.ErrOption) {
		t.Errorf("Threshold{Span: 0.5}.Validate() = %v; want ErrConfig and ErrOption", err)
	}

	_, err = knee.Kneedle(x, []float64{0, 2, math.Inf(-1), 3.5}, knee.Options{})
	var ie *knee.InputError
	if !errors.Is(err, knee.ErrNonFinite) || !errors.Is(err, knee.ErrNotFinite) ||
		!errors.As(err, &ie) || ie.Input != "y" || ie.Index != 2 {
		t.Errorf("Kneedle(y[2] = -Inf) = %v; want an *InputError{Input: y, Index: 2} matching ErrNonFinite and the deprecated ErrNotFinite", err)
	}
	if errors.Is(err, knee.ErrConfig) {
		t.Errorf("Kneedle(y[2] = -Inf) = %v; matches ErrConfig, want only ErrNonFinite", err)
	}
}
