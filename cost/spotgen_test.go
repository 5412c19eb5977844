package cost

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func gen(t *testing.T, m SpotModel, seed uint64) *Trace {
	t.Helper()
	tr, err := GenerateSpot(m, seed)
	if err != nil {
		t.Fatalf("GenerateSpot(%+v, %d): %v", m, seed, err)
	}
	return tr
}

// The time-weighted mean over the horizon is Mean to float rounding, for
// the presets and for models whose clamps bind.
func TestGenerateSpotMean(t *testing.T) {
	clamped := SpotModel{Mean: 0.1, Horizon: 30 * 24 * time.Hour, MeanHold: 2 * time.Hour,
		Volatility: 0.3, Reversion: 0.2, Min: 0.09, Max: 0.115}
	for _, m := range []SpotModel{DOLLLow(), DOLLHigh(), clamped,
		{Mean: 1, Horizon: time.Hour, MeanHold: time.Second, Volatility: 1, Reversion: 0},
		{Mean: 0.3, Fee: 0.2, Horizon: 7 * 24 * time.Hour, MeanHold: time.Hour, Volatility: 0.5, Reversion: 1, Max: 0.4},
	} {
		for seed := range uint64(20) {
			tr := gen(t, m, seed)
			mean, err := tr.Mean(0, m.Horizon)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(mean/m.Mean-1) > 1e-12 {
				t.Errorf("%+v seed %d: mean %.17g; want %v", m, seed, mean, m.Mean)
			}
			lo, hi := m.Min, m.Max
			if hi == 0 {
				hi = math.Inf(1)
			}
			for _, p := range tr.Points() {
				if p.PerHour < lo || p.PerHour > hi || p.PerHour < m.Fee {
					t.Fatalf("%+v seed %d: price %v outside [%v, %v] or below the fee", m, seed, p.PerHour, lo, hi)
				}
			}
		}
	}
	// The clamped model's clamps do bind (else the test above tests less
	// than it says): some prices sit exactly at Min and at Max.
	atMin, atMax := 0, 0
	for _, p := range gen(t, clamped, 1).Points() {
		if p.PerHour == clamped.Min {
			atMin++
		}
		if p.PerHour == clamped.Max {
			atMax++
		}
	}
	if atMin == 0 || atMax == 0 {
		t.Errorf("clamped model: %d prices at Min, %d at Max; want both > 0", atMin, atMax)
	}
}

// The trace's shape: it starts at 0, changes at whole seconds before the
// horizon, each point a real change; about Horizon/MeanHold changes; and
// the log changes of the fluctuating part have the standard deviation
// Volatility·sqrt(2/(2 − Reversion)) of the AR(1) chain (the difference
// y' − y = −r·y + σZ has variance r²σ²/(1 − (1−r)²) + σ² = 2σ²/(2 − r)).
func TestGenerateSpotShape(t *testing.T) {
	m := DOLLLow()
	var changes int
	var logs []float64
	const seeds = 50
	for seed := range uint64(seeds) {
		pts := gen(t, m, seed).Points()
		if pts[0].At != 0 {
			t.Fatalf("seed %d: first point at %v; want 0", seed, pts[0].At)
		}
		for i, p := range pts {
			if p.At%time.Second != 0 || p.At >= m.Horizon {
				t.Fatalf("seed %d: point at %v: not a whole second before %v", seed, p.At, m.Horizon)
			}
			if i > 0 {
				if p.PerHour == pts[i-1].PerHour {
					t.Fatalf("seed %d: points %d and %d have the same price", seed, i-1, i)
				}
				logs = append(logs, math.Log((p.PerHour-m.Fee)/(pts[i-1].PerHour-m.Fee)))
			}
		}
		changes += len(pts) - 1
	}
	// Changes are Poisson with mean 90 per trace: 4,500 ± 5·√4500 over 50.
	if want := 90.0 * seeds; math.Abs(float64(changes)-want) > 5*math.Sqrt(want) {
		t.Errorf("%d price changes over %d 90-day traces; want %v ± %.0f", changes, seeds, want, 5*math.Sqrt(want))
	}
	var ss float64
	for _, l := range logs {
		ss += l * l
	}
	sd := math.Sqrt(ss / float64(len(logs)))
	want := m.Volatility * math.Sqrt(2/(2-m.Reversion))
	if se := want / math.Sqrt(2*float64(len(logs))); math.Abs(sd-want) > 5*se {
		t.Errorf("sd of log price changes %.5f; want %.5f ± %.5f", sd, want, 5*se)
	}
}

// DOLL §III-B4: c5.xlarge spot prices in US East varied by at most $0.02
// over three months. So do the DOLLLow traces' 90 days, over 200 seeds
// (the package documentation quotes the median range).
func TestDOLLLowRange(t *testing.T) {
	var ranges []float64
	for seed := range uint64(200) {
		var ps []float64
		for _, p := range gen(t, DOLLLow(), seed).Points() {
			ps = append(ps, p.PerHour)
		}
		ranges = append(ranges, slices.Max(ps)-slices.Min(ps))
	}
	slices.Sort(ranges)
	if med, top := ranges[100], ranges[199]; top > 0.02 || med < 0.005 || med > 0.015 {
		t.Errorf("DOLLLow price range over 90 days: median $%.4f, max $%.4f; want a median near $0.010 and at most $0.02", med, top)
	}
}

// Same seed, same trace; another seed, another trace. DOLLHigh is DOLLLow
// plus the $0.10 SUSE fee at the same times.
func TestGenerateSpotDeterminism(t *testing.T) {
	a, b := gen(t, DOLLHigh(), 7).Points(), gen(t, DOLLHigh(), 7).Points()
	if !reflect.DeepEqual(a, b) {
		t.Errorf("GenerateSpot is not deterministic")
	}
	if c := gen(t, DOLLHigh(), 8).Points(); reflect.DeepEqual(a, c) {
		t.Errorf("seeds 7 and 8 give the same trace")
	}
	low := gen(t, DOLLLow(), 7).Points()
	if len(low) != len(a) {
		t.Fatalf("DOLLLow has %d points, DOLLHigh %d; want the same times", len(low), len(a))
	}
	for i := range a {
		if a[i].At != low[i].At || math.Abs(a[i].PerHour-low[i].PerHour-0.10) > 1e-12 {
			t.Fatalf("point %d: high %v, low %v; want the same time and a $0.10 difference", i, a[i], low[i])
		}
	}
	// No volatility: one point, the mean.
	flat := DOLLLow()
	flat.Volatility = 0
	if got := gen(t, flat, 1).Points(); len(got) != 1 || got[0] != (Point{0, 0.058}) {
		t.Errorf("Volatility 0: %v; want one point at 0.058", got)
	}
}

func TestSpotModelValidate(t *testing.T) {
	ok := DOLLLow()
	for _, tc := range []struct {
		edit func(*SpotModel)
		want string
	}{
		{func(m *SpotModel) { m.Mean = 0 }, `cost: spot model "SpotModel.Mean": 0 $/hour: must be finite and > Fee (0): invalid config`},
		{func(m *SpotModel) { m.Mean = math.NaN() }, `"SpotModel.Mean": NaN $/hour`},
		{func(m *SpotModel) { m.Fee = 0.1 }, `"SpotModel.Mean": 0.058 $/hour: must be finite and > Fee (0.1)`},
		{func(m *SpotModel) { m.Fee = -1 }, `"SpotModel.Fee": -1 $/hour: must be finite and ≥ 0`},
		{func(m *SpotModel) { m.Horizon = 0 }, `"SpotModel.Horizon": 0s: must be > 0`},
		{func(m *SpotModel) { m.MeanHold = time.Millisecond }, `"SpotModel.MeanHold": 1ms: must be at least 1s`},
		{func(m *SpotModel) { m.Volatility = -0.1 }, `"SpotModel.Volatility": -0.1: must be finite and ≥ 0`},
		{func(m *SpotModel) { m.Volatility = math.Inf(1) }, `"SpotModel.Volatility": +Inf`},
		{func(m *SpotModel) { m.Reversion = 1.5 }, `"SpotModel.Reversion": 1.5: must be in [0, 1]`},
		{func(m *SpotModel) { m.Reversion = math.NaN() }, `"SpotModel.Reversion": NaN`},
		{func(m *SpotModel) { m.Min = 0.058 }, `"SpotModel.Min": 0.058 $/hour: must be below Mean (0.058)`},
		{func(m *SpotModel) { m.Min = -1 }, `"SpotModel.Min": -1 $/hour: must be finite and ≥ 0`},
		{func(m *SpotModel) { m.Max = 0.05 }, `"SpotModel.Max": 0.05 $/hour: must be above Mean (0.058)`},
		{func(m *SpotModel) { m.Max = math.NaN() }, `"SpotModel.Max": NaN`},
	} {
		m := ok
		tc.edit(&m)
		tr, err := GenerateSpot(m, 1)
		switch {
		case err == nil || tr != nil:
			t.Errorf("GenerateSpot(%+v) = %v, %v; want %q", m, tr, err, tc.want)
		case !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n"):
			t.Errorf("GenerateSpot(%+v) = %q; want one line containing %q", m, err, tc.want)
		case !errors.Is(err, ErrConfig):
			t.Errorf("GenerateSpot(%+v) = %v; want ErrConfig", m, err)
		}
	}
	if err := ok.Validate(); err != nil {
		t.Errorf("DOLLLow().Validate() = %v", err)
	}
}

func TestSpeedup(t *testing.T) {
	m := DOLLHigh()
	tr := gen(t, m, 3)
	fast, err := tr.Speedup(2000)
	if err != nil {
		t.Fatal(err)
	}
	slow, fastPts := tr.Points(), fast.Points()
	if len(slow) != len(fastPts) {
		t.Fatalf("Speedup(2000) has %d points; want %d", len(fastPts), len(slow))
	}
	for i := range slow {
		if want := slow[i].At / 2000; fastPts[i].At != want || fastPts[i].PerHour != slow[i].PerHour {
			t.Fatalf("point %d: %v; want %v at %v", i, fastPts[i], slow[i].PerHour, want)
		}
	}
	// 90 days at 2000× last 3,888 s, with the same mean.
	mean, _ := fast.Mean(0, 3888*time.Second)
	if math.Abs(mean/0.158-1) > 1e-9 {
		t.Errorf("mean of the sped-up trace over 3888s = %.12g; want 0.158", mean)
	}
	for _, tc := range []struct {
		pts    []Point
		factor float64
		want   []Point
	}{
		// Rounding half away from zero: 3 ns / 2 = 1.5 → 2.
		{[]Point{{0, 1}, {3, 2}, {10, 3}}, 2, []Point{{0, 1}, {2, 2}, {5, 3}}},
		// Points that collapse keep the last price.
		{[]Point{{0, 1}, {1, 2}, {2, 3}, {7, 4}}, 10, []Point{{0, 3}, {1, 4}}},
		// A non-integer factor and a slow-down.
		{[]Point{{0, 1}, {3 * time.Second, 2}}, 1.5, []Point{{0, 1}, {2 * time.Second, 2}}},
		{[]Point{{0, 1}, {time.Second, 2}}, 0.25, []Point{{0, 1}, {4 * time.Second, 2}}},
	} {
		in, err := NewTrace(tc.pts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := in.Speedup(tc.factor)
		if err != nil || !reflect.DeepEqual(got.Points(), tc.want) {
			t.Errorf("Speedup(%v) of %v = %v, %v; want %v", tc.factor, tc.pts, got.Points(), err, tc.want)
		}
	}
	long, _ := NewTrace([]Point{{0, 1}, {200 * 365 * 24 * time.Hour, 2}})
	for _, tc := range []struct {
		tr     *Trace
		factor float64
		want   error
	}{
		{tr, 0, ErrConfig},
		{tr, -2, ErrConfig},
		{tr, math.NaN(), ErrNonFinite},
		{tr, math.Inf(1), ErrNonFinite},
		{long, 0.5, ErrOverflow},
		{&Trace{}, 2, ErrOutsideTrace},
	} {
		if got, err := tc.tr.Speedup(tc.factor); !errors.Is(err, tc.want) || got != nil {
			t.Errorf("Speedup(%v) = %v, %v; want %v", tc.factor, got, err, tc.want)
		}
	}
}
