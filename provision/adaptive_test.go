package provision

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestPreemptible: the preemptible workers are the N_s slowest (Eq. 20),
// ties by index, and the rates outside them are never below the rates in
// them.
func TestPreemptible(t *testing.T) {
	p := Problem{Ntot: 5, Updates: 1, K: 1, Batch: 1, Lambdas: []float64{4, 1, 3, 1, 9}, Alpha: 0.5,
		PriceSpot: 1, PriceOnDemand: 2}
	for ns, want := range [][]int{{}, {1}, {1, 3}, {1, 2, 3}, {0, 1, 2, 3}, {0, 1, 2, 3, 4}} {
		got, err := p.Preemptible(ns)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("Preemptible(%d) = %v, %v; want %v", ns, got, err, want)
		}
	}
	r := rand.New(rand.NewPCG(13, 20))
	for range 100 {
		p := randomProblem(r, true)
		ns := r.IntN(p.Ntot + 1)
		idx, err := p.Preemptible(ns)
		if err != nil || len(idx) != ns {
			t.Fatalf("Preemptible(%d) = %v, %v", ns, idx, err)
		}
		var spot, all float64
		for i, l := range p.Lambdas {
			all += l
			if slices.Contains(idx, i) {
				spot += l
			}
		}
		// Eq. 21's denominator from the chosen workers must be ExpectedRuntime's.
		rt, _ := p.ExpectedRuntime(ns)
		if want := float64(p.Updates*p.K*p.Batch) / (all - (1-p.Alpha)*spot); !close(rt, want) {
			t.Errorf("%+v: runtime %v; Eq. 21 on workers %v gives %v", p, rt, idx, want)
		}
	}
	if _, err := p.Preemptible(6); !errors.Is(err, ErrInvalid) {
		t.Errorf("Preemptible(6) error %v; want ErrInvalid", err)
	}
}

// TestAdaptive: §V-C's method starts at N_s = N_tot, each price change
// gives Optimal's answer on the current estimates, and a bad estimate
// changes nothing.
func TestAdaptive(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 53))
	for range 50 {
		het := r.IntN(2) == 1
		p := randomProblem(r, het)
		a, err := NewAdaptive(p)
		if err != nil {
			t.Fatal(err)
		}
		if a.Ns() != p.Ntot {
			t.Fatalf("NewAdaptive: N_s = %d; want N_tot = %d", a.Ns(), p.Ntot)
		}
		for range 10 {
			q := randomProblem(r, het)
			e := Estimate{Alpha: q.Alpha, PriceSpot: q.PriceSpot}
			if het {
				e.Lambdas = make([]float64, p.Ntot)
				for i := range e.Lambdas {
					e.Lambdas[i] = 1 + 249*r.Float64()
				}
			} else {
				e.Lambda = q.Lambda
			}
			want := p
			want.Lambda, want.Lambdas, want.Alpha, want.PriceSpot = e.Lambda, e.Lambdas, e.Alpha, e.PriceSpot
			wantPlan, err := want.Optimal()
			if err != nil {
				t.Fatal(err)
			}
			plan, err := a.PriceChange(e)
			if err != nil || plan != wantPlan || a.Ns() != wantPlan.Ns {
				t.Fatalf("PriceChange(%+v) = %+v, %v, N_s %d; want %+v", e, plan, err, a.Ns(), wantPlan)
			}
			if e.Lambdas != nil {
				e.Lambdas[0] = -1 // the caller's slice is not kept
			}
			if got := a.Problem(); got.Validate() != nil {
				t.Fatalf("Problem() = %+v after the caller changed its slice", got)
			}
		}
		before, ns := a.Problem(), a.Ns()
		for _, bad := range []struct {
			e     Estimate
			field string
		}{
			{Estimate{Lambda: 10, Alpha: 2, PriceSpot: 0.1}, "Alpha"},
			{Estimate{Lambdas: make([]float64, p.Ntot+1), Alpha: 0.5, PriceSpot: 0.1}, "Lambdas"},
			{Estimate{Lambda: 10, Alpha: 0.5, PriceSpot: -1}, "PriceSpot"},
		} {
			_, err := a.PriceChange(bad.e)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), bad.field) {
				t.Errorf("PriceChange(%+v) error %v; want ErrInvalid naming %s", bad.e, err, bad.field)
			}
			if after := a.Problem(); a.Ns() != ns || !slices.Equal(after.Lambdas, before.Lambdas) || after.Alpha != before.Alpha {
				t.Errorf("PriceChange(%+v) failed but changed the state", bad.e)
			}
		}
	}
	// An absolute deadline the estimates cannot meet: J·K·b = 128000 points
	// over 64 workers, θ0 = 200 s at λ = 10 and 222 s at λ = 9, θ = 210 s.
	p := Problem{Ntot: 64, Updates: 1000, K: 8, Batch: 16, Lambda: 10, Alpha: 0.9,
		Deadline: 210, PriceSpot: 0.158, PriceOnDemand: 0.286}
	a, err := NewAdaptive(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.PriceChange(Estimate{Lambda: 9, Alpha: 0.9, PriceSpot: 0.1}); !errors.Is(err, ErrInfeasible) || a.Ns() != 64 {
		t.Errorf("PriceChange to an infeasible estimate: %v, N_s %d; want ErrInfeasible, N_s 64", err, a.Ns())
	}
	if _, err := NewAdaptive(Problem{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("NewAdaptive(Problem{}) error %v; want ErrInvalid", err)
	}
}
