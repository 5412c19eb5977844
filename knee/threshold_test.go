package knee

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// The threshold detector against testdata/knee/threshold.json, where
// make_refs.py evaluates the documented rule in numpy on a seeded noisy
// loss curve, with the EWMA written as an explicit weighted sum.
func TestThresholdAgainstNumpy(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "knee", "threshold.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		T, Loss []float64
		Traces  []struct {
			Span, Slope   float64
			Stable        int
			Smoothed      []float64
			SmoothedSlope []float64 `json:"smoothed_slope"`
			Knee          int
			FoundAt       int `json:"found_at"`
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Traces) == 0 {
		t.Fatal("no traces in threshold.json")
	}
	for _, tr := range ref.Traces {
		d := Threshold{Span: tr.Span, Slope: tr.Slope, Stable: tr.Stable}
		foundAt := -1
		for i := range ref.T {
			if d.Add(ref.T[i], ref.Loss[i]) && foundAt < 0 {
				foundAt = i
			}
			s, g := d.Smoothed()
			if !isClose(s, tr.Smoothed[i], 1e-13) {
				t.Fatalf("span %v: smoothed loss at %d = %v; want %v", tr.Span, i, s, tr.Smoothed[i])
			}
			if i > 0 && math.Abs(g-tr.SmoothedSlope[i-1]) > 1e-12*math.Abs(tr.SmoothedSlope[i-1])+1e-15 {
				t.Fatalf("span %v: smoothed slope at %d = %v; want %v", tr.Span, i, g, tr.SmoothedSlope[i-1])
			}
		}
		p, ok := d.Knee()
		if !ok || p.Index != tr.Knee || foundAt != tr.FoundAt {
			t.Errorf("Threshold{%v, %v, %d}: knee %v at %d accepted at %d; want %d accepted at %d",
				tr.Span, tr.Slope, tr.Stable, ok, p.Index, foundAt, tr.Knee, tr.FoundAt)
			continue
		}
		if p.X != ref.T[p.Index] || p.Y != ref.Loss[p.Index] {
			t.Errorf("knee point = %+v; want (%v, %v)", p, ref.T[p.Index], ref.Loss[p.Index])
		}
	}
}

// feed adds the points and returns the index of the Add that first
// returned true, or −1.
func feed(d Detector, x, y []float64) int {
	at := -1
	for i := range x {
		if d.Add(x[i], y[i]) && at < 0 {
			at = i
		}
	}
	return at
}

// With Span = 1 there is no smoothing, so the rule can be checked by hand:
// loss = max(10 − t, 0) has slope −1 into points 1..10 and 0 after.
func TestThresholdSemantics(t *testing.T) {
	ts := seq(0, 30)
	loss := make([]float64, len(ts))
	for i, v := range ts {
		loss[i] = max(10-v, 0)
	}
	tests := []struct {
		stable        int
		knee, foundAt int
	}{
		{1, 11, 11},
		{3, 11, 13},
		{5, 11, 15},
		{19, 11, 29},
		{20, -1, -1}, // only 19 flat points follow
	}
	for _, tt := range tests {
		d := &Threshold{Span: 1, Slope: -0.5, Stable: tt.stable}
		at := feed(d, ts, loss)
		p, ok := d.Knee()
		if tt.knee < 0 {
			if ok || at >= 0 {
				t.Errorf("Stable %d: knee %+v accepted at %d; want none", tt.stable, p, at)
			}
			continue
		}
		if !ok || p.Index != tt.knee || p.X != ts[tt.knee] || p.Y != loss[tt.knee] || at != tt.foundAt {
			t.Errorf("Stable %d: knee %v %+v accepted at %d; want point %d accepted at %d", tt.stable, ok, p, at, tt.knee, tt.foundAt)
		}
	}

	// A noisy flat point inside the steep part restarts the run.
	loss2 := append([]float64(nil), loss...)
	loss2[5] = loss2[4] // slope 0 into point 5, then −2 into point 6
	d := &Threshold{Span: 1, Slope: -0.5, Stable: 3}
	if at := feed(d, ts, loss2); at != 13 {
		p, _ := d.Knee()
		t.Errorf("with a flat blip: knee %+v accepted at %d; want point 11 at 13", p, at)
	}

	// Slope is per unit of t: doubling t and halving Slope changes nothing.
	t2 := make([]float64, len(ts))
	for i, v := range ts {
		t2[i] = 2 * v
	}
	d = &Threshold{Span: 1, Slope: -0.25, Stable: 3}
	if at := feed(d, t2, loss); at != 13 {
		t.Errorf("t·2, Slope/2: accepted at %d; want 13", at)
	}
	if p, _ := d.Knee(); p.Index != 11 || p.X != 22 {
		t.Errorf("t·2, Slope/2: knee %+v; want point 11 at t = 22", p)
	}
}

func TestThresholdNoKnee(t *testing.T) {
	ts := seq(0, 500)
	curves := map[string]func(t float64) float64{
		"constant":         func(float64) float64 { return 3 },
		"steep line":       func(t float64) float64 { return 10 - 1e-3*t },
		"gentle line":      func(t float64) float64 { return 10 - 1e-5*t },
		"increasing line":  func(t float64) float64 { return 1 + t },
		"flat, then steep": func(t float64) float64 { return 1 - 1e-3*max(t-100, 0) },
	}
	for name, f := range curves {
		y := make([]float64, len(ts))
		for i, v := range ts {
			y[i] = f(v)
		}
		var d Threshold
		if at := feed(&d, ts, y); at >= 0 {
			p, _ := d.Knee()
			t.Errorf("%s: knee %+v accepted at %d; want none", name, p, at)
		}
	}
	var d Threshold
	if d.Add(0, 1) || d.Add(1, 0.5) {
		t.Errorf("two points: knee; want none")
	}
}

// On noisy versions of the loss 0.3 + 0.7·exp(−t/40), whose noise-free knee
// is t = 241, the default detector stays near it for every seed.
func TestThresholdNoisy(t *testing.T) {
	clean := func(t float64) float64 { return 0.3 + 0.7*math.Exp(-t/40) }
	var d0 Threshold
	for i := 0; !d0.Add(float64(i), clean(float64(i))); i++ {
	}
	if p, _ := d0.Knee(); p.Index != 241 {
		t.Fatalf("noise-free knee = %d; want 241", p.Index)
	}
	for _, c := range []struct{ sigma, within float64 }{{0.001, 30}, {0.003, 40}, {0.01, 80}} {
		sigma := c.sigma
		for seed := range uint64(50) {
			rng := rand.New(rand.NewPCG(seed, 40))
			var d Threshold
			for i := 0; i < 5000 && !d.Add(float64(i), clean(float64(i))+sigma*rng.NormFloat64()); i++ {
			}
			p, ok := d.Knee()
			if !ok || math.Abs(float64(p.Index)-241) > c.within {
				t.Errorf("σ = %v, seed %d: knee %v at %d; want within %v of 241", sigma, seed, ok, p.Index, c.within)
			}
		}
	}
}

func TestThresholdValidate(t *testing.T) {
	bad := []Threshold{
		{Span: 0.5}, {Span: -1}, {Span: math.NaN()}, {Span: math.Inf(1)},
		{Slope: 1e-3}, {Slope: math.NaN()}, {Slope: math.Inf(-1)},
		{Stable: -1},
	}
	for _, d := range bad {
		err := d.Validate()
		if !errors.Is(err, ErrConfig) {
			t.Errorf("%+v.Validate() = %v; want ErrConfig", d, err)
			continue
		}
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("%+v.Add did not panic", d)
				}
			}()
			d.Add(0, 1)
		}()
	}
	for _, d := range []Threshold{{}, {Span: 1, Slope: -1, Stable: 1}} {
		if err := d.Validate(); err != nil {
			t.Errorf("%+v.Validate() = %v; want nil", d, err)
		}
	}
}

func TestThresholdSmoothedBeforeData(t *testing.T) {
	var d Threshold
	if s, g := d.Smoothed(); !math.IsNaN(s) || !math.IsNaN(g) {
		t.Errorf("Smoothed() with no points = %v, %v; want NaN, NaN", s, g)
	}
	d.Add(0, 2)
	if s, g := d.Smoothed(); s != 2 || !math.IsNaN(g) {
		t.Errorf("Smoothed() after one point = %v, %v; want 2, NaN", s, g)
	}
}
