package migrate

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func group(n int, passes, speed, size float64) Group {
	g := Group{Passes: passes, Speed: speed, Size: size}
	for i := range n {
		g.Workers = append(g.Workers, i)
	}
	return g
}

func TestImbalance(t *testing.T) {
	for _, c := range []struct {
		passes []float64
		want   float64
	}{
		{nil, 0},
		{[]float64{3}, 0},
		// mean (1+3)/2 = 2; |1−2| = |3−2| = 1.
		{[]float64{1, 3}, 1},
		// mean (1+2+6)/3 = 3; deviations 2, 1, 3 → 3.
		{[]float64{1, 2, 6}, 3},
		// The mean is over super-workers, not workers: a group of 12 at
		// 8 passes and one of 4 at 2 give mean 5, deviation 3.
		{[]float64{8, 2}, 3},
	} {
		if got := Imbalance(c.passes); got != c.want {
			t.Errorf("Imbalance(%v) = %v; want %v", c.passes, got, c.want)
		}
	}
}

func TestPredict(t *testing.T) {
	// P̃ = P + τ·V/N = 1 + 2 s · 250 points/s / 100 points = 6.
	if got := Predict(group(1, 1, 250, 100), 2*time.Second); got != 6 {
		t.Errorf("Predict = %v; want 6", got)
	}
	if got := Predict(group(1, 1, 250, 0), 2*time.Second); got != 1 {
		t.Errorf("Predict(size 0) = %v; want 1 (no points, no progress)", got)
	}
}

// eq9Residual is Eq. 9's left side minus its right side (general form,
// compensation term included).
func eq9Residual(src, dst Group, split time.Duration, x float64) float64 {
	tau := split.Seconds()
	beta := float64(len(src.Workers)) / float64(len(dst.Workers))
	d := dst.Passes - src.Passes
	lhs := src.Passes + tau*src.Speed/(src.Size-x)
	rhs := dst.Passes + (tau*dst.Speed-d*beta*x)/(dst.Size+beta*x)
	return lhs - rhs
}

func TestEq9HandWorked(t *testing.T) {
	for _, c := range []struct {
		name     string
		src, dst Group
		split    time.Duration
		want     float64
		comp     bool
	}{
		{
			// No lost passes (D = 0), β = 1, τ = 1 s. P̃_s = 1 + 100/100 = 2,
			// P̃_d = 1 + 300/100 = 4. Closed form:
			// Δ = (0 + 1·(300·100 − 100·100)) / (0 + 1·(1·100 + 300))
			//   = 20000/400 = 50.
			// Check: 1 + 100/(100−50) = 3 = 1 + 300/(100+50).
			name: "equal passes",
			src:  group(1, 1, 100, 100), dst: group(1, 1, 300, 100),
			split: time.Second, want: 50,
		},
		{
			// The simulation's first round: 4 slow workers (P 1, 250
			// points/s, 256 points) and 12 fast (P 2, 1000 points/s, 256
			// points), β = 4/12 = 1/3, D = 2 − 1 = 1, τ = 2 s.
			// num = D·N_s·N_d + τ·(v_d·N_s − v_s·N_d)
			//     = 65536 + 2·(256000 − 64000) = 449536
			// den = D·N_d + τ·(β·v_s + v_d) = 256 + 2·(250/3 + 1000) = 7268/3
			// Δ = 449536·3/7268 = 337152/1817 ≈ 185.5542.
			// Compensation time D·β·Δ/v_d ≈ 0.0619 s < τ: regular case.
			// Check: 1 + 2·250/(256 − Δ) = 8.09765625
			//      = 2 + (2000 − Δ/3)/(256 + Δ/3).
			name: "compensating lost passes",
			src:  group(4, 1, 250, 256), dst: group(12, 2, 1000, 256),
			split: 2 * time.Second, want: 337152.0 / 1817,
		},
		{
			// A split too short for the compensation: D = 10, τ = 0.1 s,
			// equal speeds 100 points/s and sizes 100, β = 1. Eq. 9's
			// root, (10·100·100 + 0)/(10·100 + 0.1·200) = 100000/1020 ≈
			// 98.04, needs D·β·Δ/v_d ≈ 9.8 s of compensation > τ, so the
			// two compensate together: (N_s − Δ)/v_s = β·Δ/v_d gives
			// Δ = N_s·v_d/(v_d + β·v_s) = 100·100/200 = 50.
			name: "compensation case",
			src:  group(1, 0, 100, 100), dst: group(1, 10, 100, 100),
			split: 100 * time.Millisecond, want: 50, comp: true,
		},
		{
			// Migrated points ahead of the target's (D = 4 − 5 < 0): no
			// compensation; solve 5 + 100/(100 − Δ) = 4 + 400/(100 + Δ):
			// (10000 − Δ²) + 100·(100 + Δ) − 400·(100 − Δ) = 0
			// → Δ² − 500Δ + 20000 = 0 → Δ = (500 − √170000)/2 ≈ 43.8447.
			name: "migrated points ahead",
			src:  group(1, 5, 100, 100), dst: group(1, 4, 400, 100),
			split: time.Second, want: (500 - math.Sqrt(170000)) / 2,
		},
		{
			// Source predicted at or above target: nothing to move.
			name: "already balanced",
			src:  group(1, 2, 100, 100), dst: group(1, 1, 100, 100),
			split: time.Second, want: 0,
		},
		{
			// A target that cannot train (v_d = 0) in the compensation
			// case gets nothing: Δ = N_s·0/(0 + β·v_s) = 0.
			name: "stalled target",
			src:  group(1, 0, 100, 100), dst: group(1, 10, 0, 100),
			split: time.Second, want: 0, comp: true,
		},
	} {
		got, comp := Eq9(c.src, c.dst, c.split)
		if math.Abs(got-c.want) > 1e-9*math.Max(1, c.want) || comp != c.comp {
			t.Errorf("%s: Eq9 = %v, %v; want %v, %v", c.name, got, comp, c.want, c.comp)
		}
	}
}

// TestEq9ClosedFormAgainstBisection checks the closed form against a naive
// bisection on Eq. 9 as the paper writes it, on seeded random inputs in
// the regular (non-compensation) case with D ≥ 0.
func TestEq9ClosedFormAgainstBisection(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for range 2000 {
		src := group(1+rng.IntN(8), 10*rng.Float64(), 10+1000*rng.Float64(), 1+float64(rng.IntN(5000)))
		dst := group(1+rng.IntN(8), src.Passes+3*rng.Float64(), 10+1000*rng.Float64(), 1+float64(rng.IntN(5000)))
		split := time.Duration(1 + rng.Int64N(int64(10*time.Second)))
		got, comp := Eq9(src, dst, split)
		if comp || got == 0 {
			continue
		}
		// Naive reference: the residual increases with x on [0, N_s).
		lo, hi := 0.0, src.Size
		for range 200 {
			mid := (lo + hi) / 2
			if eq9Residual(src, dst, split, mid) < 0 {
				lo = mid
			} else {
				hi = mid
			}
		}
		if want := (lo + hi) / 2; math.Abs(got-want) > 1e-6*math.Max(1, want) {
			t.Fatalf("Eq9(%+v, %+v, %v) = %v; bisection %v", src, dst, split, got, want)
		}
		checked++
	}
	if checked < 500 {
		t.Fatalf("only %d regular cases checked", checked)
	}
}

func TestEq9Range(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		src := group(1+rng.IntN(8), 20*rng.Float64(), 1000*rng.Float64(), float64(rng.IntN(3000)))
		dst := group(1+rng.IntN(8), 20*rng.Float64(), 1000*rng.Float64(), float64(rng.IntN(3000)))
		split := time.Duration(rng.Int64N(int64(10 * time.Second)))
		got, _ := Eq9(src, dst, split)
		if math.IsNaN(got) || got < 0 || got > math.Max(src.Size, 0) {
			t.Fatalf("Eq9(%+v, %+v, %v) = %v; want in [0, %v]", src, dst, split, got, src.Size)
		}
	}
}
