package curvefit

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzSolver feeds arbitrary shapes and bit patterns (NaN, Inf, subnormal,
// huge) to Solve: it must never panic, and every successful answer must be
// feasible and satisfy the Kuhn–Tucker conditions.
func FuzzSolver(f *testing.F) {
	f.Add(uint8(3), uint8(2), []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add(uint8(1), uint8(5), make([]byte, 48))
	f.Add(uint8(6), uint8(6), []byte("\x00\x00\x00\x00\x00\x00\xf0\x7f0123456789abcdef"))
	f.Fuzz(func(t *testing.T, mb, nb uint8, data []byte) {
		m, n := int(mb%12), int(nb%8)
		vals := make([]float64, m*n+m)
		for i := range vals {
			if len(data) >= 8 {
				vals[i] = math.Float64frombits(binary.LittleEndian.Uint64(data))
				data = data[8:]
			} else {
				vals[i] = float64(i%5) - 2
			}
		}
		a, b := vals[:m*n], vals[m*n:]
		x := make([]float64, n)
		var s Solver
		r, err := s.Solve(a, m, n, b, x)
		if err != nil {
			return
		}
		if math.IsNaN(r) || r < 0 {
			t.Fatalf("rnorm = %v", r)
		}
		// Finite inputs small enough that Aᵀ(Ax − b) is representable.
		for _, v := range vals {
			if math.Abs(v) > 1e100 || (v != 0 && math.Abs(v) < 1e-100) {
				return
			}
		}
		if feas, dual, compl := kkt(a, m, n, b, x); feas > 0 || dual > 1e-10 || compl > 1e-10 {
			t.Fatalf("%d×%d a=%v b=%v: x=%v KKT %g %g %g", m, n, a, b, x, feas, dual, compl)
		}
	})
}

// FuzzFit: arbitrary samples give an error or a finite curve with θ ≥ 0,
// never a panic.
func FuzzFit(f *testing.F) {
	f.Add([]byte("\x01\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x00\x40"), false)
	f.Add(make([]byte, 64), true)
	f.Fuzz(func(t *testing.T, data []byte, power bool) {
		var ts, ys []float64
		for len(data) >= 16 && len(ts) < 12 {
			ts = append(ts, math.Float64frombits(binary.LittleEndian.Uint64(data)))
			ys = append(ys, math.Float64frombits(binary.LittleEndian.Uint64(data[8:])))
			data = data[16:]
		}
		var c Curve
		var err error
		if power {
			c, err = FitPower(ts, ys, FitOptions{})
		} else {
			c, err = FitQuadratic(ts, ys, FitOptions{})
		}
		if err != nil {
			return
		}
		for _, p := range c.Params() {
			if math.IsNaN(p) || math.IsInf(p, 0) || p < 0 {
				t.Fatalf("t=%v y=%v: %v", ts, ys, c)
			}
		}
	})
}
