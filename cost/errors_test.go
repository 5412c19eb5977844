package cost_test

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/cost"
)

// TestErrorNames: errors from real bad inputs match the module-wide names
// (docs/errors.md), ErrConfig and ErrInput are told apart, and the
// deprecated ErrInvalid and ErrNotFinite still match what they matched,
// however the error is wrapped.
func TestErrorNames(t *testing.T) {
	config := cost.Resource{Name: "redis", Kind: cost.VM, Price: cost.Price{Dollars: 0.17}}.Validate()
	_, input := cost.PerfPerDollar(0, 1)
	_, nonFinite := cost.CostRatio(math.NaN(), 1)
	_, negative := cost.PerfPerDollar(time.Second, -1)
	for _, c := range []struct {
		name                 string
		err                  error
		config, input, nonFn bool
	}{
		{"zero price period", config, true, false, false},
		{"wrapped zero price period", fmt.Errorf("deploy: %w", config), true, false, false},
		{"PerfPerDollar(0s)", input, false, true, false},
		{"CostRatio(NaN)", nonFinite, false, false, true},
		{"PerfPerDollar(price -1)", negative, false, false, false},
	} {
		var e *cost.Error
		if !errors.As(c.err, &e) {
			t.Errorf("%s: error %v; want a *cost.Error", c.name, c.err)
		}
		if got := errors.Is(c.err, cost.ErrConfig); got != c.config {
			t.Errorf("%s: errors.Is(%v, ErrConfig) = %v; want %v", c.name, c.err, got, c.config)
		}
		if got := errors.Is(c.err, cost.ErrInput); got != c.input {
			t.Errorf("%s: errors.Is(%v, ErrInput) = %v; want %v", c.name, c.err, got, c.input)
		}
		// The deprecated ErrInvalid was every error that is now ErrConfig
		// or ErrInput, and no other.
		if got, want := errors.Is(c.err, cost.ErrInvalid), c.config || c.input; got != want {
			t.Errorf("%s: errors.Is(%v, deprecated ErrInvalid) = %v; want %v", c.name, c.err, got, want)
		}
		if got := errors.Is(c.err, cost.ErrNonFinite); got != c.nonFn || errors.Is(c.err, cost.ErrNotFinite) != got {
			t.Errorf("%s: errors.Is(%v, ErrNonFinite) = %v, deprecated ErrNotFinite %v; want %v for both",
				c.name, c.err, got, errors.Is(c.err, cost.ErrNotFinite), c.nonFn)
		}
	}
	if !errors.Is(negative, cost.ErrNegative) {
		t.Errorf("PerfPerDollar(price -1) = %v; want ErrNegative", negative)
	}
}
