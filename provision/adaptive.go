package provision

import (
	"cmp"
	"slices"
)

// Preemptible returns which workers to put on the ns preemptible
// instances: the ns with the lowest arrival rates, as Eq. 20 of the DOLL
// paper assigns them (ties by index), in increasing order of index. With
// one rate every choice is the same and it is workers 0 to ns−1.
func (p *Problem) Preemptible(ns int) ([]int, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	if err := p.checkNs(ns); err != nil {
		return nil, err
	}
	idx := make([]int, p.Ntot)
	for i := range idx {
		idx[i] = i
	}
	if p.Lambdas != nil {
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(p.Lambdas[a], p.Lambdas[b]) })
	}
	idx = idx[:ns]
	slices.Sort(idx)
	return idx, nil
}

// Estimate is what a running job has learnt: running estimates of the
// arrival rates and of α, and the spot price now in force. Set exactly
// one of Lambda and Lambdas, as in Problem.
type Estimate struct {
	Lambda    float64   // λ_A, points per second per worker
	Lambdas   []float64 // λ_{A,n}, one per worker
	Alpha     float64   // α in [0, 1]
	PriceSpot float64   // π_s, $ per instance-hour
}

// Adaptive is the adaptive method of §V-C of the DOLL paper: it starts
// with every worker preemptible (N_s = N_tot) and, whenever the spot price
// changes, recomputes N_s by Theorem 4 or 5 (Optimal) from the running
// estimates of the arrival rates and α. J, K, b, the deadline and π_o stay
// those of the Problem it was made with; a DeadlineRatio is a multiple of
// the θ0 of the current estimates, a Deadline is fixed seconds. An
// Adaptive is a value the caller drives; it is not safe for concurrent use.
type Adaptive struct {
	p  Problem
	ns int
}

// NewAdaptive starts §V-C's method at N_s = N_tot. p's rates, α and spot
// price are the first estimates; p must pass Validate.
func NewAdaptive(p Problem) (*Adaptive, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	p.Lambdas = slices.Clone(p.Lambdas)
	return &Adaptive{p: p, ns: p.Ntot}, nil
}

// Ns is the current number of preemptible instances.
func (a *Adaptive) Ns() int { return a.ns }

// Problem is the problem of the last successful update (a copy).
func (a *Adaptive) Problem() Problem {
	p := a.p
	p.Lambdas = slices.Clone(p.Lambdas)
	return p
}

// PriceChange re-optimises N_s for the estimates e, which carry the new
// spot price, and returns the plan. On an error (a bad estimate, a
// deadline the estimates say no N_s can meet) it changes nothing: N_s
// stays as it was and the caller decides (N_s = 0 is the fastest
// provisioning).
func (a *Adaptive) PriceChange(e Estimate) (Plan, error) {
	q := a.p
	q.Lambda, q.Lambdas = e.Lambda, slices.Clone(e.Lambdas)
	q.Alpha, q.PriceSpot = e.Alpha, e.PriceSpot
	plan, err := q.Optimal()
	if err != nil {
		return Plan{}, err
	}
	a.p, a.ns = q, plan.Ns
	return plan, nil
}
