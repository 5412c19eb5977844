package provision

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// close reports whether a and b agree to a relative 1e-9 (both +Inf counts).
func close(a, b float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// TestHandWorked checks Optimal, ExpectedRuntime, ExpectedCost and
// Corollary2Bound on cases worked by hand in the comments (Eqs. 15, 16, 18,
// 19, 21, 22 of the DOLL paper; costs in dollars = seconds × $/h ÷ 3600).
func TestHandWorked(t *testing.T) {
	cases := []struct {
		name    string
		p       Problem
		ns      int
		runtime float64
		cost    float64
		ratio   float64
		bound   float64
	}{{
		// J·K·b = 1000·8·16 = 128000, Σλ = 640: θ0 = 200 s, θ = 210 s.
		// Eq. 18: ⌊(64 − 128000/2100)/0.1⌋ = ⌊30.476⌋ = 30.
		// Eq. 15: 128000/(10·(34 + 0.9·30)) = 128000/610 = 209.836 s.
		// Eq. 16: price 34·0.286 + 0.9·30·0.158 = 13.99 $/h → 209.836·13.99/3600.
		// On demand only: 200·64·0.286/3600 = 1.016889.
		// Eq. 19: 1.05 + (0.1422 − 0.286)·0.05/(0.286·0.1) = 0.798601.
		name: "fig3 α=0.9 θ/θ0=1.05",
		p: Problem{Ntot: 64, Updates: 1000, K: 8, Batch: 16, Lambda: 10, Alpha: 0.9,
			DeadlineRatio: 1.05, PriceSpot: 0.158, PriceOnDemand: 0.286},
		ns: 30, runtime: 128000.0 / 610, cost: 128000.0 / 610 * 13.99 / 3600,
		ratio: (128000.0 / 610 * 13.99 / 3600) / (200 * 64 * 0.286 / 3600),
		bound: 1.05 + (0.9*0.158-0.286)*0.05/(0.286*0.1),
	}, {
		// θ/θ0 = 1.2: Eq. 18's quotient (64 − 64/1.2)/0.1 = 106.7 is capped
		// at N_tot = 64. Eq. 15: 128000/(10·57.6) = 222.22 s. Eq. 16's ratio
		// at N_s = N_tot is α·π_s/(α·π_o) = π_s/π_o, and Eq. 19's first term
		// 1.2 − 0.1438·0.2/0.0286 = 0.194 is below π_s/π_o = 0.552448.
		name: "capped at N_tot",
		p: Problem{Ntot: 64, Updates: 1000, K: 8, Batch: 16, Lambda: 10, Alpha: 0.9,
			DeadlineRatio: 1.2, PriceSpot: 0.158, PriceOnDemand: 0.286},
		ns: 64, runtime: 128000.0 / 576, cost: 128000.0 / 576 * 0.9 * 64 * 0.158 / 3600,
		ratio: 0.158 / 0.286, bound: 0.158 / 0.286,
	}, {
		// θ = θ0 exactly: only N_s = 0 meets it (α < 1).
		name: "deadline θ0",
		p: Problem{Ntot: 64, Updates: 1000, K: 8, Batch: 16, Lambda: 10, Alpha: 0.8,
			Deadline: 200, PriceSpot: 0.158, PriceOnDemand: 0.286},
		ns: 0, runtime: 200, cost: 200 * 64 * 0.286 / 3600, ratio: 1, bound: 1,
	}, {
		// Heterogeneous, J·K·b = 15·2·2 = 60, rates {3, 1, 2} sorted {1, 2, 3},
		// Σλ = 6, θ0 = 10 s, θ = 14 s, α = 0.5, π_s = 1, π_o = 2.
		// Eq. 21: N_s = 0..3 → 60/6, 60/5.5, 60/4.5, 60/3 = 10, 10.91, 13.33, 20 s.
		// Lemma 2 (Eq. 23): 0.5·Σ_{n≤N_s} λ ≤ 6 − 60/14 = 1.714: N_s ≤ 2.
		// Eq. 22 numerator 6 − 1.5·N_s: costs 60·{6, 4.5, 3, 1.5}/{6, 5.5, 4.5, 3}/3600,
		// decreasing, so N_s* = 2: 40/3600 $, ratio 40/60. Eq. 19 with
		// r = 1.4: 1.4 + (0.5 − 2)·0.4/(2·0.5) = 0.8.
		name: "heterogeneous, Lemma 2 binds",
		p: Problem{Ntot: 3, Updates: 15, K: 2, Batch: 2, Lambdas: []float64{3, 1, 2}, Alpha: 0.5,
			Deadline: 14, PriceSpot: 1, PriceOnDemand: 2},
		ns: 2, runtime: 60.0 / 4.5, cost: 40.0 / 3600, ratio: 40.0 / 60, bound: 0.8,
	}, {
		// Heterogeneous, rates {1, 1, 10}, Σλ = 12, J·K·b = 60, θ0 = 5 s,
		// θ = 15 s (every N_s meets it: 60/6 = 10 s at N_s = 3), α = 0.5,
		// π_s = 1.8, π_o = 2: Eq. 22 numerator 6 − 1.1·N_s = 6, 4.9, 3.8, 2.7
		// over 12, 11.5, 11, 6: 0.5, 0.426, 0.345, 0.45. The cost turns up at
		// N_s = 3, so the scan stops at N_s* = 2: runtime 60/11 s, cost
		// 60·3.8/11/3600 $, ratio 0.345/0.5. Eq. 19 with r = 3:
		// max{3 + (0.9 − 2)·2/(2·0.5), 0.9} = max{0.8, 0.9} = 0.9.
		name: "heterogeneous, cost turns up",
		p: Problem{Ntot: 3, Updates: 15, K: 2, Batch: 2, Lambdas: []float64{1, 10, 1}, Alpha: 0.5,
			DeadlineRatio: 3, PriceSpot: 1.8, PriceOnDemand: 2},
		ns: 2, runtime: 60.0 / 11, cost: 60 * 3.8 / 11 / 3600, ratio: (3.8 / 11) / 0.5, bound: 0.9,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan, err := c.p.Optimal()
			if err != nil {
				t.Fatal(err)
			}
			if plan.Ns != c.ns || plan.No != c.p.Ntot-c.ns {
				t.Errorf("Optimal() = N_s %d, N_o %d; want %d, %d", plan.Ns, plan.No, c.ns, c.p.Ntot-c.ns)
			}
			if !close(plan.ExpectedRuntime, c.runtime) || !close(plan.ExpectedCost, c.cost) || !close(plan.CostRatio, c.ratio) {
				t.Errorf("Optimal() = runtime %v, cost %v, ratio %v; want %v, %v, %v",
					plan.ExpectedRuntime, plan.ExpectedCost, plan.CostRatio, c.runtime, c.cost, c.ratio)
			}
			rt, _ := c.p.ExpectedRuntime(c.ns)
			cost, _ := c.p.ExpectedCost(c.ns)
			ratio, _ := c.p.CostRatio(c.ns)
			if !close(rt, c.runtime) || !close(cost, c.cost) || !close(ratio, c.ratio) {
				t.Errorf("ExpectedRuntime, ExpectedCost, CostRatio(%d) = %v, %v, %v; want %v, %v, %v",
					c.ns, rt, cost, ratio, c.runtime, c.cost, c.ratio)
			}
			b, err := c.p.Corollary2Bound()
			if err != nil || !close(b, c.bound) {
				t.Errorf("Corollary2Bound() = %v, %v; want %v", b, err, c.bound)
			}
		})
	}
}

// randomProblem draws an instance; het gives one rate per worker from
// U(1, 250) (§V-B), otherwise one rate. Edge values (α = 0 or 1, θ = θ0,
// π_s ≥ π_o) are drawn on purpose now and then.
func randomProblem(r *rand.Rand, het bool) Problem {
	p := Problem{
		Ntot:    1 + r.IntN(80),
		Updates: 1 + r.IntN(5000),
		K:       1 + r.IntN(16),
		Batch:   1 + r.IntN(64),
		Alpha:   r.Float64(),
	}
	switch r.IntN(10) {
	case 0:
		p.Alpha = 0
	case 1:
		p.Alpha = 1
	}
	if het {
		p.Lambdas = make([]float64, p.Ntot)
		for i := range p.Lambdas {
			p.Lambdas[i] = 1 + 249*r.Float64()
		}
	} else {
		p.Lambda = 1 + 249*r.Float64()
	}
	p.PriceOnDemand = 0.05 + r.Float64()
	p.PriceSpot = p.PriceOnDemand * r.Float64()
	switch r.IntN(10) {
	case 0:
		p.PriceSpot = p.PriceOnDemand
	case 1:
		p.PriceSpot = p.PriceOnDemand * (1 + r.Float64())
	}
	p.DeadlineRatio = 1 + 0.5*r.Float64()
	if r.IntN(10) == 0 {
		p.DeadlineRatio = 1
	}
	return p
}

// theta is the test's own θ: θ/θ0 times J·K·b/Σλ (Corollary 2's θ0).
func theta(p Problem) float64 {
	sum := p.Lambda * float64(p.Ntot)
	if p.Lambdas != nil {
		sum = 0
		for _, l := range p.Lambdas {
			sum += l
		}
	}
	return p.DeadlineRatio * float64(p.Updates*p.K*p.Batch) / sum
}

// bruteForce evaluates every N_s in [0, N_tot] and returns the cheapest
// that meets θ (the smallest such N_s on ties) with its cost, and the
// largest N_s that meets θ.
func bruteForce(t *testing.T, p Problem) (best int, bestCost float64, largest int) {
	th := theta(p)
	best, bestCost, largest = -1, math.Inf(1), -1
	for ns := 0; ns <= p.Ntot; ns++ {
		rt, err := p.ExpectedRuntime(ns)
		if err != nil {
			t.Fatal(err)
		}
		if rt > th*(1+1e-9) {
			continue
		}
		largest = ns
		c, _ := p.ExpectedCost(ns)
		if c < bestCost {
			best, bestCost = ns, c
		}
	}
	return best, bestCost, largest
}

// TestOptimalBruteForce: on random instances, Optimal's N_s meets the
// runtime constraint and its cost is the brute-force minimum over every
// N_s in [0, N_tot]: Theorem 4 for one rate, Theorem 5's scan for one rate
// per worker. With one rate, π_s < π_o and α > 0 the cost strictly
// decreases (Lemma 1), so Theorem 4's N_s is also the largest feasible.
func TestOptimalBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 4))
	for i := range 600 {
		het := i%2 == 1
		p := randomProblem(r, het)
		plan, err := p.Optimal()
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		th := theta(p)
		if !close(plan.Deadline, th) {
			t.Fatalf("%+v: Deadline = %v; want %v", p, plan.Deadline, th)
		}
		if plan.ExpectedRuntime > th*(1+1e-9) {
			t.Errorf("%+v: runtime %v at N_s = %d exceeds θ = %v", p, plan.ExpectedRuntime, plan.Ns, th)
		}
		best, bestCost, largest := bruteForce(t, p)
		if best < 0 {
			t.Fatalf("%+v: brute force finds no feasible N_s", p)
		}
		if !close(plan.ExpectedCost, bestCost) {
			t.Errorf("%+v: Optimal() = N_s %d cost %v; brute force N_s %d cost %v", p, plan.Ns, plan.ExpectedCost, best, bestCost)
		}
		if !het && p.Alpha > 0 && p.PriceSpot < p.PriceOnDemand && plan.Ns != largest {
			t.Errorf("%+v: Theorem 4 gives N_s %d; largest feasible is %d", p, plan.Ns, largest)
		}
	}
}

// eq16 is Eq. 16 of the DOLL paper as printed, on a real N_s, in dollars.
func eq16(p Problem, ns float64) float64 {
	jkb := float64(p.Updates * p.K * p.Batch)
	return jkb / p.Lambda * (float64(p.Ntot)*p.PriceOnDemand + (p.Alpha*p.PriceSpot-p.PriceOnDemand)*ns) /
		(float64(p.Ntot) + (p.Alpha-1)*ns) / 3600
}

// eq22 is Eq. 22 as printed, rates sorted increasingly, in dollars.
func eq22(p Problem, ns int) float64 {
	s := slices.Sorted(slices.Values(p.Lambdas))
	var all, low float64
	for i, l := range s {
		all += l
		if i < ns {
			low += l
		}
	}
	jkb := float64(p.Updates * p.K * p.Batch)
	return jkb * (float64(p.Ntot)*p.PriceOnDemand + (p.Alpha*p.PriceSpot-p.PriceOnDemand)*float64(ns)) /
		(all - (1-p.Alpha)*low) / 3600
}

// TestCostFormulas: ExpectedCost agrees with Eqs. 16 and 22 as printed, and
// with one rate the cost is strictly decreasing in N_s when α > 0 and
// π_s < π_o (Lemma 1, whose Eq. 17 derivative is α·N_tot·(π_s − π_o) < 0
// over a square), increasing when π_s > π_o.
func TestCostFormulas(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 16))
	for i := range 400 {
		het := i%2 == 1
		p := randomProblem(r, het)
		prev := math.NaN()
		for ns := 0; ns <= p.Ntot; ns++ {
			c, err := p.ExpectedCost(ns)
			if err != nil {
				t.Fatal(err)
			}
			if p.Alpha == 0 && ns == p.Ntot {
				if !math.IsInf(c, 1) {
					t.Errorf("%+v: ExpectedCost(N_tot) = %v with α = 0; want +Inf", p, c)
				}
				continue
			}
			var want float64
			if het {
				want = eq22(p, ns)
			} else {
				want = eq16(p, float64(ns))
			}
			if !close(c, want) {
				t.Errorf("%+v: ExpectedCost(%d) = %v; Eq. 16/22 as printed = %v", p, ns, c, want)
			}
			if !het && ns > 0 && p.Alpha > 0 {
				if p.PriceSpot < p.PriceOnDemand && !(c < prev) {
					t.Errorf("%+v: Lemma 1: cost(%d) = %v ≥ cost(%d) = %v", p, ns, c, ns-1, prev)
				}
				if p.PriceSpot > p.PriceOnDemand && !(c > prev) {
					t.Errorf("%+v: π_s > π_o: cost(%d) = %v ≤ cost(%d) = %v", p, ns, c, ns-1, prev)
				}
			}
			prev = c
		}
	}
}

// TestTheorem5Unimodal: with one rate per worker and π_s ≤ π_o, Eq. 22 over
// N_s = 0..N_tot is non-increasing up to its minimum and non-decreasing
// after it (Theorem 5: at most one local minimum), which is what makes the
// scan exact.
func TestTheorem5Unimodal(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 5))
	for range 300 {
		p := randomProblem(r, true)
		if p.PriceSpot > p.PriceOnDemand {
			continue
		}
		c := make([]float64, p.Ntot+1)
		for ns := range c {
			c[ns], _ = p.ExpectedCost(ns)
		}
		m := 0
		for ns := range c {
			if c[ns] < c[m] {
				m = ns
			}
		}
		for ns := 0; ns < p.Ntot; ns++ {
			if ns < m && c[ns+1] > c[ns]*(1+1e-9) || ns >= m && c[ns+1] < c[ns]*(1-1e-9) {
				t.Fatalf("%+v: Eq. 22 not unimodal at N_s = %d: %v", p, ns, c)
			}
		}
	}
}

// TestListAgreesWithOneRate: the same rate given as a list of N_tot equal
// rates (Eqs. 21, 22, Theorem 5) gives what one rate does (Eqs. 15, 16,
// Theorem 4): the same runtime and cost at every N_s and the same optimum.
func TestListAgreesWithOneRate(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 7))
	for range 300 {
		one := randomProblem(r, false)
		list := one
		list.Lambda = 0
		list.Lambdas = slices.Repeat([]float64{one.Lambda}, one.Ntot)
		for ns := 0; ns <= one.Ntot; ns++ {
			r1, _ := one.ExpectedRuntime(ns)
			r2, _ := list.ExpectedRuntime(ns)
			c1, _ := one.ExpectedCost(ns)
			c2, _ := list.ExpectedCost(ns)
			if !close(r1, r2) || !close(c1, c2) {
				t.Fatalf("%+v, N_s %d: one rate runtime %v cost %v; list %v %v", one, ns, r1, c1, r2, c2)
			}
		}
		p1, err1 := one.Optimal()
		p2, err2 := list.Optimal()
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !close(p1.ExpectedCost, p2.ExpectedCost) || !close(p1.Theta0, p2.Theta0) {
			t.Errorf("%+v: Theorem 4 %+v; Theorem 5 %+v", one, p1, p2)
		}
		if one.Alpha > 0 && one.PriceSpot < one.PriceOnDemand && p1.Ns != p2.Ns {
			t.Errorf("%+v: Theorem 4 N_s %d; Theorem 5 N_s %d", one, p1.Ns, p2.Ns)
		}
		b1, _ := one.Corollary2Bound()
		b2, _ := list.Corollary2Bound()
		if !close(b1, b2) {
			t.Errorf("%+v: Corollary2Bound %v (one rate), %v (list)", one, b1, b2)
		}
	}
}

// TestCorollary2: with one rate and π_s ≤ π_o, Eq. 19 is Eq. 16's ratio at
// Eq. 18's unrounded N_s (capped at N_tot), derived here from Eq. 16 on a
// real N_s, and no more than Optimal's CostRatio (the floor only raises it).
func TestCorollary2(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 19))
	for range 400 {
		p := randomProblem(r, false)
		if p.PriceSpot > p.PriceOnDemand {
			continue
		}
		b, err := p.Corollary2Bound()
		if err != nil {
			t.Fatal(err)
		}
		plan, _ := p.Optimal()
		if plan.CostRatio < b*(1-1e-9) {
			t.Errorf("%+v: CostRatio %v at N_s %d is below Corollary 2's %v", p, plan.CostRatio, plan.Ns, b)
		}
		x := float64(p.Ntot)
		if p.Alpha < 1 {
			// Eq. 18 unrounded: (N_tot − N_tot·θ0/θ)/(1 − α).
			x = min(x, (float64(p.Ntot)-float64(p.Ntot)/p.DeadlineRatio)/(1-p.Alpha))
		}
		if want := eq16(p, x) / eq16(p, 0); !close(b, want) {
			t.Errorf("%+v: Corollary2Bound %v; Eq. 16 at unrounded N_s %v gives %v", p, b, x, want)
		}
	}
}

// TestPure: Optimal does not reorder the caller's rates and answers the
// same twice.
func TestPure(t *testing.T) {
	p := Problem{Ntot: 4, Updates: 100, K: 2, Batch: 8, Lambdas: []float64{5, 1, 4, 2}, Alpha: 0.7,
		DeadlineRatio: 1.2, PriceSpot: 0.1, PriceOnDemand: 0.3}
	a, err := p.Optimal()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := p.Optimal()
	if a != b {
		t.Errorf("Optimal() = %+v, then %+v", a, b)
	}
	if want := []float64{5, 1, 4, 2}; !slices.Equal(p.Lambdas, want) {
		t.Errorf("Lambdas = %v after Optimal; want %v", p.Lambdas, want)
	}
}

// TestErrors: each bad input is a one-line error naming the field.
func TestErrors(t *testing.T) {
	good := Problem{Ntot: 64, Updates: 1000, K: 8, Batch: 16, Lambda: 10, Alpha: 0.9,
		DeadlineRatio: 1.05, PriceSpot: 0.158, PriceOnDemand: 0.286}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		edit  func(*Problem)
		field string
		err   error
	}{
		{"Ntot 0", func(p *Problem) { p.Ntot = 0 }, "Ntot", ErrInvalid},
		{"Updates 0", func(p *Problem) { p.Updates = 0 }, "Updates", ErrInvalid},
		{"K negative", func(p *Problem) { p.K = -1 }, "K", ErrInvalid},
		{"Batch 0", func(p *Problem) { p.Batch = 0 }, "Batch", ErrInvalid},
		{"no rate", func(p *Problem) { p.Lambda = 0 }, "Lambda", ErrInvalid},
		{"rate NaN", func(p *Problem) { p.Lambda = math.NaN() }, "Lambda", ErrInvalid},
		{"rate Inf", func(p *Problem) { p.Lambda = math.Inf(1) }, "Lambda", ErrInvalid},
		{"both rates", func(p *Problem) { p.Lambdas = slices.Repeat([]float64{1}, 64) }, "Lambda", ErrInvalid},
		{"rates too few", func(p *Problem) { p.Lambda = 0; p.Lambdas = []float64{1, 2} }, "Lambdas", ErrInvalid},
		{"rate negative", func(p *Problem) {
			p.Lambda = 0
			p.Lambdas = slices.Repeat([]float64{1}, 64)
			p.Lambdas[3] = -2
		}, "Lambdas", ErrInvalid},
		{"α above 1", func(p *Problem) { p.Alpha = 1.5 }, "Alpha", ErrInvalid},
		{"α negative", func(p *Problem) { p.Alpha = -0.1 }, "Alpha", ErrInvalid},
		{"α NaN", func(p *Problem) { p.Alpha = math.NaN() }, "Alpha", ErrInvalid},
		{"spot price negative", func(p *Problem) { p.PriceSpot = -0.1 }, "PriceSpot", ErrInvalid},
		{"on-demand price negative", func(p *Problem) { p.PriceOnDemand = -1 }, "PriceOnDemand", ErrInvalid},
		{"on-demand price 0", func(p *Problem) { p.PriceOnDemand = 0 }, "PriceOnDemand", ErrInvalid},
		{"no deadline", func(p *Problem) { p.DeadlineRatio = 0 }, "Deadline", ErrInvalid},
		{"both deadlines", func(p *Problem) { p.Deadline = 300 }, "Deadline", ErrInvalid},
		{"deadline negative", func(p *Problem) { p.DeadlineRatio = 0; p.Deadline = -5 }, "Deadline", ErrInvalid},
		{"ratio NaN", func(p *Problem) { p.DeadlineRatio = math.NaN() }, "DeadlineRatio", ErrInvalid},
		{"ratio below 1", func(p *Problem) { p.DeadlineRatio = 0.99 }, "DeadlineRatio", ErrInfeasible},
		// θ0 = 128000/640 = 200 s.
		{"deadline below θ0", func(p *Problem) { p.DeadlineRatio = 0; p.Deadline = 199 }, "Deadline", ErrInfeasible},
	}
	for _, c := range cases {
		p := good
		c.edit(&p)
		err := p.Validate()
		_, errOpt := p.Optimal()
		_, errBound := p.Corollary2Bound()
		for _, e := range []error{err, errOpt, errBound} {
			var pe *Error
			if !errors.Is(e, c.err) || !errors.As(e, &pe) || pe.Field != c.field ||
				!strings.Contains(e.Error(), c.field) || strings.Contains(e.Error(), "\n") {
				t.Errorf("%s: error %v; want one line wrapping %v naming %s", c.name, e, c.err, c.field)
			}
		}
	}
	// The model functions need no deadline, but reject a bad N_s.
	p := good
	p.DeadlineRatio = 0
	if _, err := p.ExpectedCost(10); err != nil {
		t.Errorf("ExpectedCost without a deadline: %v", err)
	}
	for _, ns := range []int{-1, 65} {
		_, err1 := good.ExpectedRuntime(ns)
		_, err2 := good.ExpectedCost(ns)
		_, err3 := good.CostRatio(ns)
		for _, e := range []error{err1, err2, err3} {
			if !errors.Is(e, ErrInvalid) || !strings.Contains(e.Error(), "ns") {
				t.Errorf("N_s = %d: error %v; want ErrInvalid naming ns", ns, e)
			}
		}
	}
}
