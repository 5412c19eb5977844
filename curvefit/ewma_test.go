package curvefit

import (
	"math"
	"slices"
	"testing"
)

type ewmaSeries struct {
	Name        string    `json:"name"`
	Span        float64   `json:"span"`
	X           []float64 `json:"x"`
	NaNAt       []int     `json:"nan_at"`
	Adjust      []float64 `json:"adjust"`
	AdjustNaNAt []int     `json:"adjust_nan_at"`
	NoAdjust    []float64 `json:"noadjust"`
}

// TestEWMAReference compares with pandas ewm(span).mean() semantics,
// written out in numpy as explicit weighted sums by make_refs.py (our code
// uses pandas' recursion, so this is also a differential test).
func TestEWMAReference(t *testing.T) {
	var f struct {
		Series []ewmaSeries `json:"series"`
	}
	loadJSON(t, "ewma.json", &f)
	worst := 0.0
	for _, s := range f.Series {
		x := slices.Clone(s.X)
		for _, i := range s.NaNAt {
			x[i] = math.NaN()
		}
		want := slices.Clone(s.Adjust)
		for _, i := range s.AdjustNaNAt {
			want[i] = math.NaN()
		}
		scale := 0.0 // errors relative to the series' magnitude
		for _, v := range s.X {
			scale = max(scale, math.Abs(v))
		}
		check := func(kind string, got, want []float64) {
			for i := range want {
				if math.IsNaN(want[i]) != math.IsNaN(got[i]) {
					t.Errorf("%s span %g %s[%d] = %v; want %v", s.Name, s.Span, kind, i, got[i], want[i])
					continue
				}
				if math.IsNaN(want[i]) {
					continue
				}
				e := math.Abs(got[i]-want[i]) / scale
				worst = max(worst, e)
				if e > 1e-14 {
					t.Errorf("%s span %g %s[%d] = %.17g; want %.17g", s.Name, s.Span, kind, i, got[i], want[i])
				}
			}
		}
		check("EWMA", EWMA(x, s.Span), want)
		if len(s.NoAdjust) > 0 {
			check("EWMARecursive", EWMARecursive(x, s.Span), s.NoAdjust)
		}
	}
	t.Logf("%d series, worst relative error %.2g", len(f.Series), worst)
}

func TestEWMAProperties(t *testing.T) {
	y := []float64{5, 3, 8, 1, 1, 2}
	if got := EWMA(y, 1); !slices.Equal(got, y) {
		t.Errorf("EWMA(y, span 1) = %v; want y", got)
	}
	if got := EWMA(nil, 20); len(got) != 0 {
		t.Errorf("EWMA(nil) = %v; want empty", got)
	}
	c := []float64{2.5, 2.5, 2.5, 2.5}
	if got := EWMA(c, 7); !slices.Equal(got, c) {
		t.Errorf("EWMA(constant) = %v; want %v", got, c)
	}
	// adjust=True: out[1] = ((1−α)y0 + y1)/((1−α) + 1) with α = 2/3 for span 2.
	if got, want := EWMA([]float64{1, 4}, 2)[1], (1.0/3+4)/(1.0/3+1); math.Abs(got-want) > 1e-15 {
		t.Errorf("EWMA([1 4], 2)[1] = %v; want %v", got, want)
	}
	// adjust=False: out[1] = (1−α)y0 + αy1.
	if got, want := EWMARecursive([]float64{1, 4}, 2)[1], 1.0/3+2.0/3*4; math.Abs(got-want) > 1e-15 {
		t.Errorf("EWMARecursive([1 4], 2)[1] = %v; want %v", got, want)
	}
	// Leading NaNs stay NaN; a NaN later repeats the previous average.
	got := EWMA([]float64{math.NaN(), 2, math.NaN(), 4}, 3)
	if !math.IsNaN(got[0]) || got[1] != 2 || got[2] != 2 {
		t.Errorf("EWMA(NaN, 2, NaN, 4) = %v", got)
	}
	// The gap decays the old weight: weights (1−α)² and 1, α = 1/2.
	if want := (0.25*2 + 4) / 1.25; math.Abs(got[3]-want) > 1e-15 {
		t.Errorf("EWMA(NaN, 2, NaN, 4)[3] = %v; want %v", got[3], want)
	}
	// Streaming equals batch; Reset starts over.
	f := NewEWMAFilter(20, true)
	batch := EWMA(y, 20)
	for i, v := range y {
		if got := f.Push(v); got != batch[i] {
			t.Errorf("Push #%d = %v; EWMA %v", i, got, batch[i])
		}
	}
	if f.Value() != batch[len(batch)-1] {
		t.Errorf("Value() = %v; want %v", f.Value(), batch[len(batch)-1])
	}
	f.Reset()
	if !math.IsNaN(f.Value()) || f.Push(7) != 7 {
		t.Errorf("after Reset: Value %v, Push(7) %v", f.Value(), f.Value())
	}
}

func TestEWMAPanicsOnBadSpan(t *testing.T) {
	for _, span := range []float64{0.5, 0, -1, math.NaN()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("EWMA(y, %v) did not panic", span)
				}
			}()
			EWMA([]float64{1}, span)
		}()
	}
}
