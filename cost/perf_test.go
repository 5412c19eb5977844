package cost

import (
	"errors"
	"math"
	"testing"
	"time"
)

func TestPerfPerDollar(t *testing.T) {
	tests := []struct {
		elapsed time.Duration
		dollars float64
		want    float64
	}{
		{100 * sec, 0.05, 1 / (100 * 0.05)},
		{ms(500), 2, 1},
		{time.Hour, 0.6, 1 / (3600 * 0.6)},
	}
	for _, tt := range tests {
		got, err := PerfPerDollar(tt.elapsed, tt.dollars)
		if err != nil || !closeTo(got, tt.want) {
			t.Errorf("PerfPerDollar(%v, %v) = %v, %v; want %v", tt.elapsed, tt.dollars, got, err, tt.want)
		}
	}
	bad := []struct {
		elapsed time.Duration
		dollars float64
		want    error
	}{
		{0, 1, ErrInput},
		{-sec, 1, ErrInput},
		{sec, 0, ErrInput},
		{sec, -1, ErrNegative},
		{sec, math.NaN(), ErrNonFinite},
		{sec, math.Inf(1), ErrNonFinite},
	}
	for _, tt := range bad {
		if _, err := PerfPerDollar(tt.elapsed, tt.dollars); !errors.Is(err, tt.want) {
			t.Errorf("PerfPerDollar(%v, %v) error = %v; want %v", tt.elapsed, tt.dollars, err, tt.want)
		}
	}
}

// TestAutoTunerGain reproduces the shape of MLLess §6.2.2: a scale-in that
// cuts the cost and keeps the time improves Perf/$ by the cost ratio; one
// that also speeds the run up improves it by the product.
func TestAutoTunerGain(t *testing.T) {
	tests := []struct {
		name             string
		tBase, tTuned    time.Duration
		costBase, costTu float64
		want             float64
	}{
		{"same time, 2/3 of the cost", 100 * sec, 100 * sec, 0.03, 0.02, 1.5},
		{"10% faster and cheaper", 100 * sec, 90 * sec, 0.03, 0.025, (100 * 0.03) / (90 * 0.025)},
		{"slower, no cheaper", 100 * sec, 125 * sec, 0.02, 0.02, 0.8},
	}
	for _, tt := range tests {
		a, err := PerfPerDollar(tt.tTuned, tt.costTu)
		if err != nil {
			t.Fatal(err)
		}
		b, err := PerfPerDollar(tt.tBase, tt.costBase)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Gain(a, b)
		if err != nil || !closeTo(got, tt.want) {
			t.Errorf("%s: Gain = %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
	for _, bad := range [][2]float64{{0, 1}, {1, 0}, {math.NaN(), 1}, {1, -1}} {
		if _, err := Gain(bad[0], bad[1]); err == nil {
			t.Errorf("Gain(%v, %v) = nil error; want one", bad[0], bad[1])
		}
	}
}

func TestCostRatio(t *testing.T) {
	tests := []struct {
		name           string
		cost, baseline float64
		want           float64
	}{
		// MLLess §6.3.2: PMF on ML-20M, MLLess $0.0948 vs PyTorch $0.6,
		// "6.32X savings".
		{"MLLess vs PyTorch ML-20M", 0.0948, 0.6, 1 / 6.329113924050633},
		// DOLL §V-A: mean spot 0.158 $/hour vs 0.286 on demand.
		{"DOLL high spot price", 0.158, 0.286, 0.5524475524475524},
		{"free", 0, 1, 0},
	}
	for _, tt := range tests {
		got, err := CostRatio(tt.cost, tt.baseline)
		if err != nil || !closeTo(got, tt.want) {
			t.Errorf("%s: CostRatio(%v, %v) = %v, %v; want %v", tt.name, tt.cost, tt.baseline, got, err, tt.want)
		}
	}
	for _, bad := range []struct {
		cost, baseline float64
		want           error
	}{{-1, 1, ErrNegative}, {math.NaN(), 1, ErrNonFinite}, {1, 0, ErrInput}, {1, math.Inf(1), ErrNonFinite}} {
		if _, err := CostRatio(bad.cost, bad.baseline); !errors.Is(err, bad.want) {
			t.Errorf("CostRatio(%v, %v) error = %v; want %v", bad.cost, bad.baseline, err, bad.want)
		}
	}
}

func TestMixedRate(t *testing.T) {
	od, spot := DollarsPerHour(0.286), DollarsPerHour(0.158)
	tests := []struct {
		nOD, nSpot int
		alpha      float64
		want       float64
	}{
		{64, 0, 0.9, 64 * 0.286},
		{0, 64, 1, 64 * 0.158},
		{0, 64, 0.9, 0.9 * 64 * 0.158},
		{10, 54, 0.8, 10*0.286 + 0.8*54*0.158},
	}
	for _, tt := range tests {
		got, err := MixedRate(tt.nOD, tt.nSpot, tt.alpha, od, spot)
		if err != nil || !closeTo(got.Hourly(), tt.want) || got.Per != time.Hour {
			t.Errorf("MixedRate(%d, %d, %v) = %+v, %v; want %v $/hour", tt.nOD, tt.nSpot, tt.alpha, got, err, tt.want)
		}
	}
	bad := []struct {
		name  string
		nOD   int
		alpha float64
		spot  Price
		want  error
	}{
		{"negative count", -1, 0.9, spot, ErrNegative},
		{"alpha > 1", 1, 1.1, spot, ErrConfig},
		{"alpha NaN", 1, math.NaN(), spot, ErrConfig},
		{"NaN spot price", 1, 0.9, DollarsPerHour(math.NaN()), ErrNonFinite},
	}
	for _, tt := range bad {
		if _, err := MixedRate(tt.nOD, 1, tt.alpha, od, tt.spot); !errors.Is(err, tt.want) {
			t.Errorf("%s: MixedRate error = %v; want %v", tt.name, err, tt.want)
		}
	}
}
