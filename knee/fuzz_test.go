package knee

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzKneedle: arbitrary curves and options never panic; any knee found is
// a data point whose Diff is the difference curve there, at most 1; with
// Strict it is an interior point above the chord.
func FuzzKneedle(f *testing.F) {
	enc := func(v ...float64) []byte {
		b := make([]byte, 8*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
		}
		return b
	}
	f.Add(enc(0, 60, 80, 85, 90, 95, 96, 97, 98, 99), uint8(0), 1.0)
	f.Add(enc(100, 40, 20, 15, 10, 5, 4, 3, 2, 1), uint8(3), 0.0)
	f.Add(enc(1, 1, 1, 1), uint8(5), 3.0)
	f.Add(enc(1e308, -1e308, 5e-324, 0, 1), uint8(7), 1e-300)
	f.Add(enc(strictCurve...), uint8(128|4), 1.0)
	f.Fuzz(func(t *testing.T, data []byte, flags uint8, s float64) {
		n := len(data) / 8
		if n > 2000 {
			n = 2000
		}
		x, y := make([]float64, n), make([]float64, n)
		for i := range n {
			x[i] = float64(i) * 0.5
			y[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
		}
		if flags&64 != 0 && n > 0 { // uneven x
			for i := range n {
				x[i] = float64(i*i) + float64(i)
			}
		}
		opt := Options{
			S:         s,
			Curve:     Curve(flags & 1),
			Direction: Direction(flags >> 1 & 1),
			Online:    flags&4 != 0,
			Strict:    flags&128 != 0,
		}
		if flags&8 != 0 {
			opt.Interp = Interp{Method: InterpPolynomial, Degree: int(flags>>4) & 3}
		}
		r, err := Kneedle(x, y, opt)
		if err != nil {
			if r.Found {
				t.Fatalf("error %v with a knee", err)
			}
			return
		}
		if !r.Found {
			return
		}
		if r.Index < 0 || r.Index >= n || r.X != x[r.Index] || r.Y != y[r.Index] {
			t.Fatalf("knee %+v is not a point of %d", r.Knee, n)
		}
		if !(r.Knee.Diff <= 1) || r.DiffCurve[r.Index] != r.Knee.Diff {
			t.Fatalf("knee difference %v (curve %v); want at most 1", r.Knee.Diff, r.DiffCurve[r.Index])
		}
		if opt.Strict && (r.Index == 0 || r.Index == n-1 || !(r.Knee.Diff > 0)) {
			t.Fatalf("Strict: knee %+v of %d points; want an interior point above the chord", r.Knee, n)
		}
		if len(r.All) == 0 || r.All[len(r.All)-1] != r.Knee && opt.Online || r.All[0] != r.Knee && !opt.Online {
			t.Fatalf("All = %+v, Knee = %+v", r.All, r.Knee)
		}
	})
}

// FuzzThreshold: arbitrary point streams never panic, and the knee, once
// accepted, never moves.
func FuzzThreshold(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, 1.0, -1e-3, uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, span, slope float64, stable uint8) {
		d := Threshold{Span: span, Slope: slope, Stable: int(stable)}
		if d.Validate() != nil {
			return
		}
		var first Point
		found := false
		for i := 0; i+16 <= len(data); i += 16 {
			x := math.Float64frombits(binary.LittleEndian.Uint64(data[i:]))
			y := math.Float64frombits(binary.LittleEndian.Uint64(data[i+8:]))
			if d.Add(x, y) {
				p, ok := d.Knee()
				if !ok {
					t.Fatal("Add true but no knee")
				}
				if found && p != first {
					t.Fatalf("knee moved from %+v to %+v", first, p)
				}
				first, found = p, true
			} else if found {
				t.Fatal("Add false after a knee")
			}
		}
	})
}
