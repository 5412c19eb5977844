package knee

import (
	"math"
	"reflect"
	"testing"
)

// One suite for every Detector.
var detectors = []struct {
	name string
	new  func() Detector
}{
	{"Threshold", func() Detector { return &Threshold{} }},
	{"Threshold/fast", func() Detector { return &Threshold{Span: 5, Slope: -1e-3, Stable: 2} }},
	{"OnlineKneedle", func() Detector { return &OnlineKneedle{Options: Options{Curve: Convex, Direction: Decreasing}} }},
	{"OnlineKneedle/poly", func() Detector {
		return &OnlineKneedle{Options: Options{Curve: Convex, Direction: Decreasing, Interp: poly}, Stable: 3}
	}},
}

func TestDetectorSuite(t *testing.T) {
	lx, ly := expLoss(1500, 40)
	for _, dt := range detectors {
		t.Run(dt.name, func(t *testing.T) {
			// No knee on a flat curve, on one or two points.
			d := dt.new()
			for i := range 300 {
				if d.Add(float64(i), 1) {
					t.Fatalf("constant: knee at Add %d; want none", i)
				}
			}
			d = dt.new()
			if d.Add(0, 2) || d.Add(1, 1) {
				t.Errorf("two points: knee; want none")
			}
			if _, ok := d.Knee(); ok {
				t.Errorf("two points: Knee() ok; want none")
			}

			// A knee on a clean exponential loss, latched once accepted.
			d = dt.new()
			at := feed(d, lx, ly)
			p, ok := d.Knee()
			if at < 0 || !ok {
				t.Fatalf("exp loss: no knee")
			}
			if p.Index > at || p.X != lx[p.Index] || p.Y != ly[p.Index] {
				t.Errorf("exp loss: knee %+v accepted at %d; want a fed point at or before it", p, at)
			}
			if !d.Add(1e6, 0) {
				t.Errorf("Add after the knee returned false")
			}
			if q, _ := d.Knee(); q != p {
				t.Errorf("knee moved from %+v to %+v", p, q)
			}

			// Bad points are ignored and change nothing.
			clean, dirty := dt.new(), dt.new()
			for i := range lx {
				if i%7 == 3 {
					dirty.Add(math.NaN(), ly[i])
					dirty.Add(lx[i], math.Inf(1))
					dirty.Add(math.Inf(-1), ly[i])
					if i > 0 {
						dirty.Add(lx[i-1], ly[i]) // not after the last x
						dirty.Add(lx[i-1]-1, ly[i])
					}
				}
				a, b := clean.Add(lx[i], ly[i]), dirty.Add(lx[i], ly[i])
				if a != b {
					t.Fatalf("with bad points: Add %d = %v; want %v", i, b, a)
				}
			}
			p1, _ := clean.Knee()
			if p2, _ := dirty.Knee(); p1 != p2 {
				t.Errorf("with bad points: knee %+v; want %+v", p2, p1)
			}

			// Reset and replay: the same answer.
			d.Reset()
			if _, ok := d.Knee(); ok {
				t.Errorf("Knee() ok after Reset")
			}
			if at2 := feed(d, lx, ly); at2 != at {
				t.Errorf("after Reset: accepted at %d; want %d", at2, at)
			}
			if q, _ := d.Knee(); q != p {
				t.Errorf("after Reset: knee %+v; want %+v", q, p)
			}
			a, b := dt.new(), dt.new()
			feed(a, lx, ly)
			feed(b, lx, ly)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("two detectors fed the same points differ")
			}
		})
	}
}

func TestIgnoredCount(t *testing.T) {
	var th Threshold
	var ok OnlineKneedle
	for _, d := range []interface {
		Detector
		Ignored() int
		N() int
	}{&th, &ok} {
		d.Add(0, 1)
		d.Add(0, 2)
		d.Add(1, math.NaN())
		d.Add(2, 0.5)
		if d.Ignored() != 2 || d.N() != 2 {
			t.Errorf("%T: Ignored() = %d, N() = %d; want 2, 2", d, d.Ignored(), d.N())
		}
	}
}
