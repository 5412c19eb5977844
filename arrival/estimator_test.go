package arrival_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/arrival"
)

func TestEstimator(t *testing.T) {
	var e arrival.Estimator
	if r, ok := e.Rate(); ok || !math.IsNaN(r) {
		t.Errorf("zero Estimator: Rate() = %v, %v; want NaN, false", r, ok)
	}
	// Points in zero up-time give no rate yet.
	if err := e.Observe(256, 0); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.Rate(); ok {
		t.Errorf("Rate() after 256 points in 0s: ok; want false")
	}
	if err := e.Observe(256, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	// 512 points in 3 s, worked by hand: 170.666… per second.
	if r, ok := e.Rate(); !ok || math.Abs(r-512.0/3) > 1e-12 {
		t.Errorf("Rate() = %v, %v; want 170.667, true", r, ok)
	}
	for _, tc := range []struct {
		points int
		up     time.Duration
		want   string
	}{
		{-1, time.Second, "arrival: Observe points = -1: the number of points must not be negative"},
		{1, -time.Second, "arrival: Observe up = -1s: the up-time must not be negative"},
		{1, math.MaxInt64, "Observe up = 2562047h47m16.854775807s: the total up-time would overflow"},
		{math.MaxInt64, 0, "Observe points = 9223372036854775807: the total number of points would overflow"},
	} {
		err := e.Observe(tc.points, tc.up)
		var ie *arrival.InputError
		switch {
		case err == nil:
			t.Errorf("Observe(%d, %v) = nil; want %q", tc.points, tc.up, tc.want)
		case !strings.Contains(err.Error(), tc.want):
			t.Errorf("Observe(%d, %v) = %q; want %q", tc.points, tc.up, err, tc.want)
		case !errors.Is(err, arrival.ErrInput) || !errors.As(err, &ie):
			t.Errorf("Observe(%d, %v) = %v; want an *InputError wrapping ErrInput", tc.points, tc.up, err)
		}
		if p, up := e.Observed(); p != 512 || up != 3*time.Second {
			t.Errorf("after a refused Observe: Observed() = %d, %v; want 512, 3s (unchanged)", p, up)
		}
	}
}

// Fed a Stream's batches, the estimate converges on λ: 2,000 batches of
// 256 Poisson points (512,000 points, relative sd 1/√512000 ≈ 0.0014)
// estimate λ = 37 within 1%.
func TestEstimatorOnStream(t *testing.T) {
	st, err := arrival.NewStream(arrival.Dist{}, 37, 256, 11, 2)
	if err != nil {
		t.Fatal(err)
	}
	var e arrival.Estimator
	prev := time.Duration(0)
	for range 2000 {
		next := st.Next()
		if err := e.Observe(256, next-prev); err != nil {
			t.Fatal(err)
		}
		prev = next
	}
	if r, ok := e.Rate(); !ok || math.Abs(r/37-1) > 0.01 {
		t.Errorf("estimated rate %v, %v; want 37 ± 1%%", r, ok)
	}
}
