package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// impls returns the implementations available in this build: "generic"
// always, "asm" when the CPU supports it. Each test runs the exported API
// under every implementation, so the pure-Go path is tested even where the
// assembly one would normally be chosen.
//
// The tests in this file check both against float64 references, to
// rounding; exact_test.go checks that they agree with each other bit for bit.
func impls() []struct {
	name string
	asm  bool
} {
	l := []struct {
		name string
		asm  bool
	}{{"generic", false}}
	if hasAsm {
		l = append(l, struct {
			name string
			asm  bool
		}{"asm", true})
	}
	return l
}

func forEachImpl(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	for _, im := range impls() {
		t.Run(im.name, func(t *testing.T) {
			saved := useAsm
			useAsm = im.asm
			defer func() { useAsm = saved }()
			f(t)
		})
	}
}

func TestAsmSelected(t *testing.T) {
	t.Logf("hasAsm=%v useAsm=%v", hasAsm, useAsm)
	if useAsm != hasAsm {
		t.Fatalf("useAsm=%v, hasAsm=%v", useAsm, hasAsm)
	}
}

const (
	tol64 = 1e-13 // relative to Σ|terms|
	tol32 = 1e-5
)

// randVec returns n values of mixed sign and magnitude, placed at offset
// off of a larger buffer (so the data is unaligned for off%4 != 0) with
// sentinels around it.
func randVec(r *rand.Rand, n, off int) []float64 {
	buf := make([]float64, off+n+3)
	for i := range buf {
		buf[i] = r.NormFloat64() * math.Exp(2*r.NormFloat64())
	}
	return buf[off : off+n : off+n]
}

func randVec32(r *rand.Rand, n, off int) []float32 {
	buf := make([]float32, off+n+3)
	for i := range buf {
		buf[i] = float32(r.NormFloat64() * math.Exp(r.NormFloat64()))
	}
	return buf[off : off+n : off+n]
}

// sprinkle puts NaN / ±Inf at a few random positions of v.
func sprinkle(r *rand.Rand, v []float64) {
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
	for c := r.IntN(3); c > 0 && len(v) > 0; c-- {
		v[r.IntN(len(v))] = specials[r.IntN(3)]
	}
}

func sprinkle32(r *rand.Rand, v []float32) {
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}
	for c := r.IntN(3); c > 0 && len(v) > 0; c-- {
		v[r.IntN(len(v))] = specials[r.IntN(3)]
	}
}

// refDot is the naive float64 sum and Σ|x_i y_i|.
func refDot(x, y []float64) (s, abs float64) {
	for i := range x {
		s += x[i] * y[i]
		abs += math.Abs(x[i] * y[i])
	}
	return
}

func refDot32(x, y []float32) (s, abs float64) {
	for i := range x {
		p := float64(x[i]) * float64(y[i]) // exact
		s += p
		abs += math.Abs(p)
	}
	return
}

// checkClose compares got with the reference: NaN and ±Inf must match in
// kind, finite values must agree to tol·scale.
func checkClose(t *testing.T, what string, got, ref, scale, tol float64) {
	t.Helper()
	switch {
	case math.IsNaN(ref):
		if !math.IsNaN(got) {
			t.Fatalf("%s: got %v, want NaN", what, got)
		}
	case math.IsInf(ref, 0):
		if got != ref {
			t.Fatalf("%s: got %v, want %v", what, got, ref)
		}
	default:
		if math.IsNaN(got) || math.Abs(got-ref) > tol*scale {
			t.Fatalf("%s: got %v, want %v (|err| %.3g > %.3g)", what, got, ref, math.Abs(got-ref), tol*scale)
		}
	}
}

const maxLen = 70

func TestDot(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		for n := 0; n <= maxLen; n++ {
			for off := 0; off < 4; off++ {
				for rep := 0; rep < 4; rep++ {
					x, y := randVec(r, n, off), randVec(r, n+rep, (off+rep)%4)
					if rep >= 2 {
						sprinkle(r, x)
						sprinkle(r, y)
					}
					want, abs := refDot(x, y[:n])
					checkClose(t, fmt.Sprintf("Dot n=%d off=%d rep=%d", n, off, rep), Dot(x, y), want, abs, tol64)
				}
			}
		}
	})
}

func TestSqDist(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 4))
		for n := 0; n <= maxLen; n++ {
			for off := 0; off < 4; off++ {
				for rep := 0; rep < 4; rep++ {
					x, y := randVec(r, n, off), randVec(r, n, (off+rep)%4)
					if rep >= 2 {
						sprinkle(r, x)
						sprinkle(r, y)
					}
					var want float64
					for i := range x {
						want += (x[i] - y[i]) * (x[i] - y[i])
					}
					checkClose(t, fmt.Sprintf("SqDist n=%d off=%d", n, off), SqDist(x, y), want, math.Abs(want), tol64)
				}
			}
		}
	})
}

func TestDot32(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 6))
		for n := 0; n <= maxLen; n++ {
			for off := 0; off < 8; off++ {
				for rep := 0; rep < 4; rep++ {
					x, y := randVec32(r, n, off), randVec32(r, n, (off+rep)%8)
					if rep >= 2 {
						sprinkle32(r, x)
						sprinkle32(r, y)
					}
					want, abs := refDot32(x, y)
					checkClose(t, fmt.Sprintf("Dot32 n=%d off=%d", n, off), float64(Dot32(x, y)), want, abs, tol32)
				}
			}
		}
	})
}

func TestSqDist32(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 8))
		for n := 0; n <= maxLen; n++ {
			for off := 0; off < 8; off++ {
				x, y := randVec32(r, n, off), randVec32(r, n, (off+3)%8)
				if off >= 4 {
					sprinkle32(r, x)
				}
				var want float64
				for i := range x {
					d := float64(x[i] - y[i]) // the float32 difference, as both implementations compute it
					want += d * d
				}
				checkClose(t, fmt.Sprintf("SqDist32 n=%d off=%d", n, off), float64(SqDist32(x, y)), want, math.Abs(want), tol32)
			}
		}
	})
}

// Element-wise updates: compare entry by entry; guard entries past len(x)
// (y is longer than x) must not change.
func TestAxpyScaleAdd(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(9, 10))
		for n := 0; n <= maxLen; n++ {
			for off := 0; off < 4; off++ {
				x := randVec(r, n, off)
				if off == 3 {
					sprinkle(r, x)
				}
				y0 := randVec(r, n+2, (off+1)%4)
				a := r.NormFloat64()

				y := append([]float64(nil), y0...)
				Axpy(a, x, y)
				for i := range y {
					want, scale := y0[i], 0.0
					if i < n {
						want, scale = y0[i]+a*x[i], math.Abs(y0[i])+math.Abs(a*x[i])
					}
					checkClose(t, fmt.Sprintf("Axpy n=%d i=%d", n, i), y[i], want, scale, 4e-16)
				}

				y = append([]float64(nil), y0...)
				Add(x, y)
				for i := range y {
					want := y0[i]
					if i < n {
						want += x[i]
					}
					checkClose(t, fmt.Sprintf("Add n=%d i=%d", n, i), y[i], want, 0, 0)
				}

				y = append([]float64(nil), y0...)
				Scale(a, y[:n])
				for i := range y {
					want := y0[i]
					if i < n {
						want *= a
					}
					checkClose(t, fmt.Sprintf("Scale n=%d i=%d", n, i), y[i], want, 0, 0)
				}
			}
		}
	})
}

func TestAxpyScaleAdd32(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(11, 12))
		for n := 0; n <= maxLen; n++ {
			for off := 0; off < 8; off++ {
				x := randVec32(r, n, off)
				if off == 7 {
					sprinkle32(r, x)
				}
				y0 := randVec32(r, n+2, (off+5)%8)
				a := float32(r.NormFloat64())

				y := append([]float32(nil), y0...)
				Axpy32(a, x, y)
				for i := range y {
					want, scale := float64(y0[i]), 0.0
					if i < n {
						p := float64(a) * float64(x[i])
						want, scale = float64(y0[i])+p, math.Abs(float64(y0[i]))+math.Abs(p)
					}
					checkClose(t, fmt.Sprintf("Axpy32 n=%d i=%d", n, i), float64(y[i]), want, scale, 1.2e-7)
				}

				y = append([]float32(nil), y0...)
				Add32(x, y)
				for i := range y {
					want := y0[i]
					if i < n {
						want += x[i]
					}
					checkClose(t, fmt.Sprintf("Add32 n=%d i=%d", n, i), float64(y[i]), float64(want), 0, 0)
				}

				y = append([]float32(nil), y0...)
				Scale32(a, y[:n])
				for i := range y {
					want := y0[i]
					if i < n {
						want *= a
					}
					checkClose(t, fmt.Sprintf("Scale32 n=%d i=%d", n, i), float64(y[i]), float64(want), 0, 0)
				}

				y64 := randVec(r, n+2, off%4)
				y640 := append([]float64(nil), y64...)
				AddTo64(x, y64)
				for i := range y64 {
					want := y640[i]
					if i < n {
						want += float64(x[i])
					}
					checkClose(t, fmt.Sprintf("AddTo64 n=%d i=%d", n, i), y64[i], want, 0, 0)
				}

				for _, a := range []float64{1, -1, r.NormFloat64()} {
					y64 = append(y64[:0], y640...)
					AxpyTo64(a, x, y64)
					for i := range y64 {
						want, scale := y640[i], 0.0
						if i < n {
							p := a * float64(x[i])
							want, scale = y640[i]+p, math.Abs(y640[i])+math.Abs(p)
						}
						if a == 1 || a == -1 {
							scale = 0 // y ± x rounds once either way: exact match
						}
						checkClose(t, fmt.Sprintf("AxpyTo64 a=%v n=%d i=%d", a, n, i), y64[i], want, scale, 4e-16)
					}
				}
			}
		}
	})
}

// dims enumerates the DotsNT shapes under test: every k in 1..12 and every
// d in 0..70 for a few n (odd and even, to hit the single-row tail).
// sampled reports whether the i-th case of an exhaustive sweep runs: all
// of them without the race detector, one in stride under it (see
// raceEnabled), a different share for each offset; TestLongExhaustiveSweeps
// runs every sampled test whole.
func sampled(i, stride, offset int) bool { return !raceEnabled || i%stride == offset%stride }

func dims(f func(n, k, d int)) {
	for _, n := range []int{0, 1, 2, 3, 5, 6} {
		for k := 1; k <= 12; k++ {
			for d := 0; d <= maxLen; d++ {
				if n == 0 && d > 3 {
					continue
				}
				f(n, k, d)
			}
		}
	}
}

func TestDotsNT(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(13, 14))
		i := 0
		dims(func(n, k, d int) {
			if i++; !sampled(i, 3, 0) {
				return
			}
			off := (n + k + d) % 4
			X, C := randVec(r, n*d, off), randVec(r, k*d, (off+1)%4)
			if (k+d)%5 == 0 {
				sprinkle(r, X)
				sprinkle(r, C)
			}
			outBuf := randVec(r, n*k+2, 0)
			guard := append([]float64(nil), outBuf[n*k:]...)
			DotsNT(X, n, C, k, d, outBuf[:n*k])
			for i := 0; i < n; i++ {
				for j := 0; j < k; j++ {
					want, abs := refDot(X[i*d:(i+1)*d], C[j*d:(j+1)*d])
					checkClose(t, fmt.Sprintf("DotsNT n=%d k=%d d=%d [%d,%d]", n, k, d, i, j), outBuf[i*k+j], want, abs, tol64)
				}
			}
			for i, g := range guard {
				if outBuf[n*k+i] != g {
					t.Fatalf("DotsNT n=%d k=%d d=%d wrote past out", n, k, d)
				}
			}
		})
	})
}

func TestDotsNT32(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(15, 16))
		i := 0
		dims(func(n, k, d int) {
			if i++; !sampled(i, 3, 1) {
				return
			}
			off := (n + k + d) % 8
			X, C := randVec32(r, n*d, off), randVec32(r, k*d, (off+3)%8)
			if (k+d)%5 == 0 {
				sprinkle32(r, X)
				sprinkle32(r, C)
			}
			outBuf := randVec32(r, n*k+2, 1)
			guard := append([]float32(nil), outBuf[n*k:]...)
			DotsNT32(X, n, C, k, d, outBuf[:n*k])
			for i := 0; i < n; i++ {
				for j := 0; j < k; j++ {
					want, abs := refDot32(X[i*d:(i+1)*d], C[j*d:(j+1)*d])
					checkClose(t, fmt.Sprintf("DotsNT32 n=%d k=%d d=%d [%d,%d]", n, k, d, i, j), float64(outBuf[i*k+j]), want, abs, tol32)
				}
			}
			for i, g := range guard {
				if outBuf[n*k+i] != g {
					t.Fatalf("DotsNT32 n=%d k=%d d=%d wrote past out", n, k, d)
				}
			}
		})
	})
}

func TestDotsNT2(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(17, 18))
		i := 0
		dims(func(n, k, d int) {
			if i++; !sampled(i, 3, 2) {
				return
			}
			off := (n + k + d) % 4
			X := randVec(r, n*d, off)
			A, B := randVec(r, k*d, (off+1)%4), randVec(r, k*d, (off+2)%4)
			if (k+d)%5 == 0 {
				sprinkle(r, X)
				sprinkle(r, A)
				sprinkle(r, B)
			}
			outBuf := randVec(r, n*k+2, 3)
			guard := append([]float64(nil), outBuf[n*k:]...)
			DotsNT2(X, n, A, B, k, d, outBuf[:n*k])
			for i := 0; i < n; i++ {
				for j := 0; j < k; j++ {
					var want, abs float64
					for t := 0; t < d; t++ {
						x := X[i*d+t]
						p, q := x*x*A[j*d+t], x*B[j*d+t]
						want += p + q
						abs += math.Abs(p) + math.Abs(q)
					}
					checkClose(t, fmt.Sprintf("DotsNT2 n=%d k=%d d=%d [%d,%d]", n, k, d, i, j), outBuf[i*k+j], want, abs, tol64)
				}
			}
			for i, g := range guard {
				if outBuf[n*k+i] != g {
					t.Fatalf("DotsNT2 n=%d k=%d d=%d wrote past out", n, k, d)
				}
			}
		})
	})
}

func TestPanics(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	forEachImpl(t, func(t *testing.T) {
		x := make([]float64, 8)
		x32 := make([]float32, 8)
		mustPanic("Dot short y", func() { Dot(x, x[:7]) })
		mustPanic("Axpy short y", func() { Axpy(1, x, x[:7]) })
		mustPanic("AddTo64 short y", func() { AddTo64(x32, x[:7]) })
		mustPanic("DotsNT short X", func() { DotsNT(x[:7], 2, x, 2, 4, x) })
		mustPanic("DotsNT short out", func() { DotsNT(x, 2, x, 2, 4, x[:3]) })
		mustPanic("DotsNT negative", func() { DotsNT(x, -1, x, 2, 4, x) })
		mustPanic("DotsNT32 short C", func() { DotsNT32(x32, 2, x32[:7], 2, 4, x32) })
		mustPanic("DotsNT2 short B", func() { DotsNT2(x, 2, x, x[:7], 2, 4, x) })
	})
}

// Shapes that exercise the blocked drivers: several d chunks and centroid
// panels, packed (n ≥ 16) and unpacked C, 4 KiB-multiple row strides.
func TestDotsNTBlocked(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(23, 24))
		i := 0
		for _, n := range []int{5, 33} {
			for _, k := range []int{1, 7, 10, 16, 31} {
				for _, d := range []int{257, 512, 784, 1031} {
					if i++; sampled(i, 2, 0) {
						checkAllNT(t, r, n, k, d)
					}
				}
			}
		}
	})
}

// checkAllNT runs DotsNT, DotsNT32 and DotsNT2 on random n×d / k×d inputs
// against float64 references.
func checkAllNT(t *testing.T, r *rand.Rand, n, k, d int) {
	t.Helper()
	X, C, B := randVec(r, n*d, 1), randVec(r, k*d, 2), randVec(r, k*d, 3)
	X32, C32 := to32(X), to32(C)
	out, out2, out32 := make([]float64, n*k), make([]float64, n*k), make([]float32, n*k)
	DotsNT(X, n, C, k, d, out)
	DotsNT2(X, n, C, B, k, d, out2)
	DotsNT32(X32, n, C32, k, d, out32)
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			what := fmt.Sprintf("n=%d k=%d d=%d [%d,%d]", n, k, d, i, j)
			want, abs := refDot(X[i*d:(i+1)*d], C[j*d:(j+1)*d])
			checkClose(t, "DotsNT "+what, out[i*k+j], want, abs, tol64)
			want, abs = refDot32(X32[i*d:(i+1)*d], C32[j*d:(j+1)*d])
			checkClose(t, "DotsNT32 "+what, float64(out32[i*k+j]), want, abs, tol32)
			want, abs = 0, 0
			for t := 0; t < d; t++ {
				x := X[i*d+t]
				p, q := x*x*C[j*d+t], x*B[j*d+t]
				want += p + q
				abs += math.Abs(p) + math.Abs(q)
			}
			checkClose(t, "DotsNT2 "+what, out2[i*k+j], want, abs, tol64)
		}
	}
}

// A row's results must not depend on how the caller splits X into calls
// (goroutine halves, 64-row blocks, single rows): bitwise equality.
func TestRowSplitInvariance(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(29, 30))
		for _, s := range []struct{ n, k, d int }{{37, 10, 784}, {37, 7, 61}, {21, 16, 512}} {
			n, k, d := s.n, s.k, s.d
			X, C, B := randVec(r, n*d, 0), randVec(r, k*d, 1), randVec(r, k*d, 2)
			X32, C32 := to32(X), to32(C)
			full, full2, full32 := make([]float64, n*k), make([]float64, n*k), make([]float32, n*k)
			DotsNT(X, n, C, k, d, full)
			DotsNT2(X, n, C, B, k, d, full2)
			DotsNT32(X32, n, C32, k, d, full32)
			for _, step := range []int{1, 2, 3, 16, 17} {
				part, part2, part32 := make([]float64, n*k), make([]float64, n*k), make([]float32, n*k)
				for i := 0; i < n; i += step {
					m := min(step, n-i)
					DotsNT(X[i*d:], m, C, k, d, part[i*k:])
					DotsNT2(X[i*d:], m, C, B, k, d, part2[i*k:])
					DotsNT32(X32[i*d:], m, C32, k, d, part32[i*k:])
				}
				for i := range full {
					if part[i] != full[i] || part2[i] != full2[i] || part32[i] != full32[i] {
						t.Fatalf("n=%d k=%d d=%d step=%d: entry %d differs", n, k, d, step, i)
					}
				}
			}
		}
	})
}
