package interval

import (
	"math"
	"slices"
	"testing"
	"time"
)

// bestPower is the best interval η0/λ^k ≥ lo for the quality g and
// barrier cost φ, by the rate of Eq. (7).
func bestPower(g func(float64) float64, eta0, lo time.Duration, lambda int, phi time.Duration) time.Duration {
	best, bestRate := eta0, math.Inf(-1)
	for e := eta0; e >= lo; e /= time.Duration(lambda) {
		if r := trueRate(g, e.Seconds(), phi.Seconds()); r > bestRate {
			best, bestRate = e, r
		}
	}
	return best
}

func TestBinarySearchConverges(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		name    string
		g       func(float64) float64
		phi     time.Duration
		full    time.Duration
		initial time.Duration
		factor  int
	}{
		{"linear", linear(-20, 10), 50 * ms, 1600 * ms, 0, 2},
		{"linear, λ = 3", linear(-20, 10), 50 * ms, 1600 * ms, 0, 3},
		{"linear, λ = 4, given η0", linear(-2, 3), 50 * ms, time.Hour, 5 * time.Second, 4},
		{"exponential", func(e float64) float64 { return 10 * math.Exp(-e/0.3) }, 50 * ms, 3 * time.Second, 0, 2},
		{"hyperbolic, cheap barriers", func(e float64) float64 { return 8 / (1 + 5*e) }, 2 * ms, 2 * time.Second, 0, 2},
		{"expensive barriers: η0 is best", func(e float64) float64 { return 8 / (1 + 0.1*e) }, 500 * ms, 800 * ms, 0, 2},
	} {
		for _, minimize := range []bool{true, false} {
			p := &process{minimize: minimize, f0: 500, full: c.full, phi: c.phi, stages: []stage{{g: c.g}}}
			tu := must(NewBinarySearch(BinarySearchConfig{Maximize: !minimize, Initial: c.initial, Factor: c.factor}))(t)
			drive(t, tu, p, 40)
			eta0 := c.initial
			if eta0 == 0 {
				eta0 = c.full
			}
			best := bestPower(c.g, eta0, time.Millisecond, c.factor, c.phi)
			got := tu.Interval()
			if !tu.Done() || got > best*time.Duration(c.factor) || got*time.Duration(c.factor) < best {
				t.Errorf("%s (minimize %v): η = %v, done %v; want within ×%d of %v", c.name, minimize, got, tu.Done(), c.factor, best)
			}
			// With an objective exactly linear in time, the comparisons are
			// exact and the search stops at the best power itself.
			if got != best {
				t.Errorf("%s (minimize %v): η = %v; want exactly %v", c.name, minimize, got, best)
			}
		}
	}
}

func TestBinarySearchRequests(t *testing.T) {
	ms := time.Millisecond
	p := &process{minimize: true, f0: 500, full: 1600 * ms, phi: 50 * ms, stages: []stage{{g: linear(-20, 10)}}}
	tu := must(NewBinarySearch(BinarySearchConfig{}))(t)
	got := drive(t, tu, p, 9)
	want := []Request{
		{OpRun, FullPass, 1},
		{OpRun, 1600 * ms, 1},
		{OpRun, 800 * ms, 2},
		{OpRun, 400 * ms, 2},
		{OpRun, 200 * ms, 2},
		{OpRun, 100 * ms, 2},
		{OpRun, 50 * ms, 2}, // loses to 100 ms
		{OpRun, 100 * ms, 4},
		{OpRun, 100 * ms, 4},
	}
	if !slices.Equal(got, want) {
		t.Errorf("requests\n%v\nwant\n%v", got, want)
	}
}

func TestBinarySearchStopsAtMin(t *testing.T) {
	ms := time.Millisecond
	// Free barriers and a quality that keeps improving as η shrinks: the
	// search goes down to the last η/λ ≥ Min.
	p := &process{minimize: true, f0: 500, full: 1000 * ms, phi: 0, stages: []stage{{g: linear(-5, 10)}}}
	tu := must(NewBinarySearch(BinarySearchConfig{Min: 20 * ms}))(t)
	drive(t, tu, p, 30)
	if got := tu.Interval(); !tu.Done() || got != 31250*time.Microsecond {
		t.Errorf("η = %v, done %v; want 31.25ms (1s/32, since 1s/64 < Min = 20ms)", got, tu.Done())
	}
}

func TestBinarySearchClampsMeasuredInterval(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		full, lo, hi, want time.Duration
	}{
		{full: 10 * time.Second, lo: ms, hi: 2 * time.Second, want: 2 * time.Second},
		{full: 5 * ms, lo: 8 * ms, hi: time.Second, want: 8 * ms},
	} {
		p := &process{minimize: true, f0: 500, full: c.full, phi: 0, stages: []stage{{g: linear(0, 1)}}}
		tu := must(NewBinarySearch(BinarySearchConfig{Min: c.lo, Max: c.hi}))(t)
		drive(t, tu, p, 1)
		if got := tu.Interval(); got != c.want {
			t.Errorf("full pass %v in [%v, %v]: η0 = %v; want %v", c.full, c.lo, c.hi, got, c.want)
		}
	}
}

func TestBinarySearchRestart(t *testing.T) {
	ms := time.Millisecond
	p := &process{minimize: true, f0: 500, full: 1600 * ms, phi: 50 * ms, stages: []stage{{g: linear(-20, 10)}}}
	tu := must(NewBinarySearch(BinarySearchConfig{}))(t)
	first := drive(t, tu, p, 8)
	// The environment changes: barriers become cheap; the search starts
	// over from a new full pass and goes further down.
	p.phi = 5 * ms
	if err := tu.Restart(); err != nil {
		t.Fatal(err)
	}
	if tu.Done() {
		t.Error("Done after Restart")
	}
	again := drive(t, tu, p, 10)
	if again[0] != first[0] {
		t.Errorf("first request after Restart: %v; want %v", again[0], first[0])
	}
	if want := bestPower(linear(-20, 10), 1600*ms, ms, 2, 5*ms); tu.Interval() != want {
		t.Errorf("after Restart: η = %v; want %v", tu.Interval(), want)
	}
	if _, err := tu.Next(); err != nil {
		t.Fatal(err)
	}
	if err := tu.Restart(); err != ErrPending {
		t.Errorf("Restart with a request pending = %v; want ErrPending", err)
	}
}

func TestFixed(t *testing.T) {
	tu, err := NewFixed(250 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	p := &process{f0: 0, full: time.Hour, stages: []stage{{g: linear(0, 1)}}}
	for _, r := range drive(t, tu, p, 5) {
		if r != (Request{OpRun, 250 * time.Millisecond, 1}) {
			t.Fatalf("request %v; want run 1×250ms", r)
		}
	}
	if tu.Interval() != 250*time.Millisecond {
		t.Errorf("Interval() = %v", tu.Interval())
	}
	for _, eta := range []time.Duration{0, -time.Second} {
		if _, err := NewFixed(eta); err == nil {
			t.Errorf("NewFixed(%v) accepted", eta)
		}
	}
}
