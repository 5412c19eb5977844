package main

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/montanaflynn/stats"
)

// sampleSD and percentile return, bit for bit, what montanaflynn/stats
// returns on amd64, where the Go compiler fuses nothing (GOAMD64=v1);
// elsewhere the library's own results may differ in the last bit, and the
// cross-architecture check (testdata/xarch) covers these functions through
// the reports.
func TestPortableStatsMatchLibrary(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("montanaflynn/stats is the reference only on amd64")
	}
	r := rand.New(rand.NewPCG(5, 6))
	inputs := [][]float64{{1, 2}, {3, 3, 3}, {-1e300, 1e300, 5}, {1e-310, 2e-310, 3e-320}, {0.1, 0.2, 0.3, 0.4, 0.5}, {math.Inf(1), 1, 2}}
	for range 2000 {
		xs := make([]float64, 2+r.IntN(40))
		scale := math.Ldexp(1, r.IntN(200)-100)
		for i := range xs {
			xs[i] = (r.Float64() - 0.3) * scale
		}
		inputs = append(inputs, xs)
	}
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	for _, xs := range inputs {
		got, err1 := sampleSD(xs)
		want, err2 := stats.StandardDeviationSample(xs)
		if !same(got, want) || (err1 == nil) != (err2 == nil) {
			t.Fatalf("sampleSD(%v) = %v, %v; stats gives %v, %v", xs, got, err1, want, err2)
		}
		for _, p := range []float64{0.1, 5, 25, 50, 90, 99, 99.9, 100, 33.3} {
			got, err1 := percentile(xs, p)
			want, err2 := stats.Percentile(xs, p)
			if !same(got, want) || (err1 == nil) != (err2 == nil) {
				t.Fatalf("percentile(%v, %v) = %v, %v; stats gives %v, %v", xs, p, got, err1, want, err2)
			}
		}
	}
	for _, bad := range [][]float64{nil, {1}} {
		if _, err := sampleSD(bad); err == nil {
			t.Errorf("sampleSD(%v): no error", bad)
		}
	}
	for _, p := range []float64{0, -1, 101, math.NaN()} {
		if _, err := percentile([]float64{1, 2}, p); err == nil {
			t.Errorf("percentile(p=%v): no error", p)
		}
	}
}
