package knee

import (
	"errors"
	"math"
	"testing"
)

// naiveOnline is the reference for OnlineKneedle: call Kneedle on every
// prefix, allocating afresh, with Strict set, and apply the stability
// rule.
func naiveOnline(t *testing.T, x, y []float64, opt Options, stable int) (knee Point, at int) {
	t.Helper()
	opt.Strict = true
	cand, count := -1, 0
	for i := range x {
		r, err := Kneedle(x[:i+1], y[:i+1], opt)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case !r.Found:
			count = 0
		case count > 0 && r.Index == cand:
			count++
		default:
			cand, count = r.Index, 1
		}
		if count >= stable {
			return Point{Index: r.Index, X: r.X, Y: r.Y}, i
		}
	}
	return Point{}, -1
}

func expLoss(n int, tau float64) (x, y []float64) {
	x, y = make([]float64, n), make([]float64, n)
	for i := range n {
		x[i] = float64(i)
		y[i] = 0.3 + 0.7*math.Exp(-x[i]/tau)
	}
	return x, y
}

func TestOnlineKneedleMatchesNaive(t *testing.T) {
	lx, ly := expLoss(400, 40)
	cv := loadCurves(t)
	cvd := Options{Curve: Convex, Direction: Decreasing}
	tests := []struct {
		name string
		x, y []float64
		opt  Options
	}{
		{"exp loss", lx, ly, cvd},
		{"exp loss, poly", lx, ly, Options{Curve: Convex, Direction: Decreasing, Interp: poly}},
		{"exp loss, online", lx, ly, Options{Curve: Convex, Direction: Decreasing, Online: true}},
		{"bumpy", seq(0, 90), bumpyY, cvd},
		{"gamma", cv["gamma"].X[:300], cv["gamma"].Y[:300], cvd},
		{"noisy gaussian", cv["noisy_gaussian"].X[:400], cv["noisy_gaussian"].Y[:400], Options{Interp: Interp{Method: InterpPolynomial, Degree: 5}}},
	}
	for _, tt := range tests {
		for _, stable := range []int{1, 2, 5, 20} {
			want, wantAt := naiveOnline(t, tt.x, tt.y, tt.opt, stable)
			d := &OnlineKneedle{Options: tt.opt, Stable: stable}
			at := feed(d, tt.x, tt.y)
			got, ok := d.Knee()
			if at != wantAt || got != want || ok != (wantAt >= 0) {
				t.Errorf("%s, Stable %d: knee %v %+v accepted at %d; want %+v at %d", tt.name, stable, ok, got, at, want, wantAt)
			}
		}
	}
}

// The numbers quoted in the OnlineKneedle documentation.
func TestOnlineKneedleDocNumbers(t *testing.T) {
	x, y := expLoss(400, 40)
	for _, tt := range []struct{ stable, knee, at int }{{1, 9, 18}, {0, 55, 157}} {
		d := &OnlineKneedle{Options: Options{Curve: Convex, Direction: Decreasing}, Stable: tt.stable}
		at := feed(d, x, y)
		if p, _ := d.Knee(); p.Index != tt.knee || at != tt.at {
			t.Errorf("Stable %d: knee %d accepted after %d points; want %d after %d", tt.stable, p.Index, at+1, tt.knee, tt.at+1)
		}
	}
}

func TestOnlineKneedleValidate(t *testing.T) {
	bad := []OnlineKneedle{{Stable: -1}, {Options: Options{S: -1}}, {Options: Options{Curve: 7}}}
	for _, d := range bad {
		if err := d.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v.Validate() = %v; want ErrConfig", d.Options, err)
			continue
		}
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("Add with %+v, Stable %d did not panic", d.Options, d.Stable)
				}
			}()
			d.Add(0, 1)
		}()
	}
}

func TestOnlineKneedleStopsStoringAfterKnee(t *testing.T) {
	x, y := expLoss(400, 40)
	d := &OnlineKneedle{Options: Options{Curve: Convex, Direction: Decreasing}, Stable: 1}
	at := feed(d, x, y)
	if at < 0 || d.N() != 0 {
		t.Errorf("after the knee: accepted at %d, N() = %d; want a knee and N() = 0", at, d.N())
	}
}

// A loss that stays flat before it falls, 0.3 + 0.7/(1 + (t/30)³): kneed,
// and Kneedle without Strict, call its first point the knee (the curve
// starts below the chord of a convex one); OnlineKneedle, which implies
// Strict, waits for the real knee.
func TestOnlineKneedleImpliesStrict(t *testing.T) {
	n := 300
	x, y := make([]float64, n), make([]float64, n)
	for i := range n {
		x[i] = float64(i)
		y[i] = 0.3 + 0.7/(1+math.Pow(x[i]/30, 3))
	}
	opt := Options{Curve: Convex, Direction: Decreasing}
	if r, err := Kneedle(x, y, opt); err != nil || !r.Found || r.Index != 0 {
		t.Errorf("Kneedle without Strict: %+v, %v; want the first point", r.Knee, err)
	}
	d := &OnlineKneedle{Options: opt}
	at := feed(d, x, y)
	got, ok := d.Knee()
	want, wantAt := naiveOnline(t, x, y, opt, DefaultStable)
	if !ok || got.Index == 0 || got != want || at != wantAt {
		t.Errorf("OnlineKneedle: knee %v %+v accepted at %d; want %+v at %d, not the first point", ok, got, at, want, wantAt)
	}
}
