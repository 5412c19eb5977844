package provision

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestUniformRates: hand-worked expected order statistics, their sum, and
// a seeded Monte Carlo estimate of E[X_(i)] for n = 5 draws from U(1, 250).
func TestUniformRates(t *testing.T) {
	// n = 4 from U(0, 50): 50·i/5 = 10, 20, 30, 40.
	// n = 3 from U(1, 250): 1 + 249·i/4 = 63.25, 125.5, 187.75.
	// n = 1 from U(2, 2): 2.
	for _, c := range []struct {
		n      int
		lo, hi float64
		want   []float64
	}{
		{4, 0, 50, []float64{10, 20, 30, 40}},
		{3, 1, 250, []float64{63.25, 125.5, 187.75}},
		{1, 2, 2, []float64{2}},
	} {
		got, err := UniformRates(c.n, c.lo, c.hi)
		if err != nil || len(got) != len(c.want) {
			t.Fatalf("UniformRates(%d, %v, %v) = %v, %v; want %v", c.n, c.lo, c.hi, got, err, c.want)
		}
		for i := range got {
			if !close(got[i], c.want[i]) {
				t.Errorf("UniformRates(%d, %v, %v) = %v; want %v", c.n, c.lo, c.hi, got, c.want)
			}
		}
	}
	// The sum is n·(lo + hi)/2 and the rates increase.
	got, _ := UniformRates(64, 1, 250)
	var sum float64
	for _, l := range got {
		sum += l
	}
	if !close(sum, 64*251.0/2) || !slices.IsSorted(got) {
		t.Errorf("UniformRates(64, 1, 250): sum %v (want 8032), sorted %v", sum, slices.IsSorted(got))
	}
	// Monte Carlo: the mean of the i-th smallest of 5 draws over 20000
	// seeded trials is within 4 standard errors of UniformRates' value
	// (Var X_(i) ≤ (hi − lo)²/(4(n+2)) for order statistics of U).
	const n, trials = 5, 20000
	r := rand.New(rand.NewPCG(13, 5))
	want, _ := UniformRates(n, 1, 250)
	mean := make([]float64, n)
	draw := make([]float64, n)
	for range trials {
		for i := range draw {
			draw[i] = 1 + 249*r.Float64()
		}
		slices.Sort(draw)
		for i, x := range draw {
			mean[i] += x / trials
		}
	}
	se := 249 / math.Sqrt(4*(n+2)) / math.Sqrt(trials)
	for i := range mean {
		if math.Abs(mean[i]-want[i]) > 4*se {
			t.Errorf("order statistic %d: Monte Carlo mean %v; UniformRates %v (4 s.e. = %v)", i+1, mean[i], want[i], 4*se)
		}
	}
	for _, c := range []struct {
		n      int
		lo, hi float64
		field  string
	}{
		{0, 1, 2, "n"}, {3, -1, 2, "lo"}, {3, math.NaN(), 2, "lo"}, {3, 1, math.Inf(1), "hi"},
		{3, 2, 1, "hi"}, {3, 0, 0, "hi"}, {3, 1, math.NaN(), "hi"},
	} {
		_, err := UniformRates(c.n, c.lo, c.hi)
		var e *Error
		if !errors.Is(err, ErrInvalid) || !errors.As(err, &e) || e.Field != c.field {
			t.Errorf("UniformRates(%d, %v, %v) error %v; want ErrInvalid naming %s", c.n, c.lo, c.hi, err, c.field)
		}
	}
}
