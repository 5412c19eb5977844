package scalein_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/scalein"
)

// TestErrorNames: errors from real bad inputs match the module-wide names
// (docs/errors.md), the deprecated alias ErrDimension still matches, and an
// *InputError holds the input's name and its value with its own type.
func TestErrorNames(t *testing.T) {
	if _, err := scalein.New(scalein.Config{Workers: []int{0, 1}, MinWorkers: 3}); !errors.Is(err, scalein.ErrConfig) {
		t.Errorf("New(MinWorkers 3 of 2) = %v; want ErrConfig", err)
	}

	_, err := scalein.Average(nil, [][]float64{{1, 2}, {3}}, nil)
	var ie *scalein.InputError
	if !errors.Is(err, scalein.ErrLength) || !errors.Is(err, scalein.ErrDimension) ||
		!errors.As(err, &ie) || ie.Input != "len(replicas[1])" || ie.Value != 1 {
		t.Errorf("Average(lengths 2, 1) = %v; want an *InputError{Input: len(replicas[1]), Value: 1} matching ErrLength and the deprecated ErrDimension", err)
	}

	tu, err := scalein.New(scalein.Config{Workers: []int{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tu.Observe(scalein.Observation{Time: time.Second, Loss: 1, Workers: []scalein.Report{{ID: 0, Duration: -time.Millisecond}}})
	if !errors.Is(err, scalein.ErrNegative) || !errors.As(err, &ie) ||
		ie.Input != "Workers[0].Duration" || ie.Value != -time.Millisecond {
		t.Errorf("Observe(Duration -1ms) = %v; want an *InputError{Input: Workers[0].Duration, Value: -1ms} matching ErrNegative", err)
	}
	_, err = tu.Observe(scalein.Observation{Time: time.Second, Loss: math.Inf(1)})
	ie = nil
	if !errors.Is(err, scalein.ErrNonFinite) || !errors.As(err, &ie) || ie.Input != "Loss" {
		t.Errorf("Observe(Loss +Inf) = %v; want an *InputError on Loss matching ErrNonFinite", err)
	} else if v, ok := ie.Value.(float64); !ok || !math.IsInf(v, 1) {
		t.Errorf("Observe(Loss +Inf): InputError.Value = %#v; want float64 +Inf", ie.Value)
	}
}
