package main

import (
	"math"
	"testing"
	"time"
)

// The median's interval and its coverage, against the binomial
// distribution's closed form: 1 − 2·Σ_{i<k} C(n, i) / 2^n.
func TestOverSeedsInterval(t *testing.T) {
	for _, c := range []struct {
		n, k     int
		coverage float64
	}{
		{2, 1, 0.5},              // 1 − 2/4
		{5, 1, 0.9375},           // 1 − 2/32: the range, below 95%
		{6, 1, 0.96875},          // 1 − 2/64
		{10, 2, 1 - 2*11.0/1024}, // k = 3 would be 1 − 2·56/1024 = 0.891
		{20, 6, 1 - 2*(1+20+190+1140+4845+15504.0)/(1<<20)}, // k = 7: 0.885
	} {
		xs := make([]float64, c.n)
		for i := range xs {
			xs[i] = float64(c.n - i) // n, n−1, …, 1: x(j) = j
		}
		st := overSeeds(xs)
		if st.lo != float64(c.k) || st.hi != float64(c.n+1-c.k) {
			t.Errorf("n = %d: interval [%g, %g]; want [x(%d), x(%d)]", c.n, st.lo, st.hi, c.k, c.n+1-c.k)
		}
		if math.Abs(st.coverage-c.coverage) > 1e-15 {
			t.Errorf("n = %d: coverage %v; want %v", c.n, st.coverage, c.coverage)
		}
		if want := float64(c.n+1) / 2; st.median != want {
			t.Errorf("n = %d: median %g; want %g", c.n, st.median, want)
		}
	}
}

// Mean, sample deviation and extremes of a small set, by hand: 1, 2, 3, 4
// have mean 2.5 and squared deviations 2.25 + 0.25 + 0.25 + 2.25 = 5, so
// a sample variance of 5/3.
func TestOverSeedsMoments(t *testing.T) {
	st := overSeeds([]float64{4, 1, 3, 2})
	if st.mean != 2.5 || math.Abs(st.sd-math.Sqrt(5.0/3)) > 1e-15 || st.minv != 1 || st.maxv != 4 || st.median != 2.5 {
		t.Errorf("overSeeds(4, 1, 3, 2) = %+v", st)
	}
	one := overSeeds([]float64{7})
	if one.median != 7 || !math.IsNaN(one.sd) || one.coverage != 0 || one.fmt(fmtSec) != "7.00 s" {
		t.Errorf("one seed: %+v, formatted %q", one, one.fmt(fmtSec))
	}
	if none := overSeeds(nil); !math.IsNaN(none.median) || none.n != 0 {
		t.Errorf("no seeds: %+v", none)
	}
	// A not-reached run is +Inf: the upper bound is, the median is not.
	inf := overSeeds([]float64{1, 2, 3, 4, math.Inf(1)})
	if inf.median != 3 || !math.IsInf(inf.hi, 1) || inf.lo != 1 {
		t.Errorf("with +Inf: %+v", inf)
	}
	if got, want := intervalText(10), "x(2) to x(9), 97.9%"; got != want {
		t.Errorf("intervalText(10) = %q; want %q", got, want)
	}
	if got, want := intervalText(5), "the range, 93.8%"; got != want {
		t.Errorf("intervalText(5) = %q; want %q", got, want)
	}
}

// An interval of one value is left out: every seed not reaching the
// target reads "not reached", not "not reached [not reached, …]".
func TestSeedStatFmtSingleValue(t *testing.T) {
	if got := fmtTTTStat(tttStat([]time.Duration{-1, -1, -1})); got != "not reached" {
		t.Errorf("all not reached: %q", got)
	}
	if got, want := fmtTTTStat(tttStat([]time.Duration{-1, 2 * time.Second, time.Second})), "2.000 s [1.000 s, not reached]"; got != want {
		t.Errorf("got %q; want %q", got, want)
	}
}
