package provision

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Sentinel errors; every error this package returns wraps one of them in an
// *Error that names the field. Match with errors.Is.
var (
	// ErrInvalid: a field of a Problem, or an argument, is out of its domain.
	ErrInvalid = errors.New("provision: invalid input")
	// ErrInfeasible: no N_s in [0, N_tot] meets the deadline, because it is
	// shorter than θ0, the expected runtime with no preemptible instance.
	ErrInfeasible = errors.New("provision: deadline cannot be met")
)

// Error is a bad input: the field (or argument) it names, why, and the
// sentinel it wraps.
type Error struct {
	Field  string // the Problem field or argument, e.g. "Alpha", "ns"
	Detail string // the value and what was wanted
	Err    error  // ErrInvalid or ErrInfeasible
}

func (e *Error) Error() string {
	if e.Err == ErrInfeasible {
		return "provision: " + e.Field + ": " + e.Detail
	}
	return "provision: invalid " + e.Field + ": " + e.Detail
}

func (e *Error) Unwrap() error { return e.Err }

func invalid(field, format string, args ...any) error {
	return &Error{Field: field, Detail: fmt.Sprintf(format, args...), Err: ErrInvalid}
}

// tol is the relative tolerance of the runtime constraint (see the package
// documentation, "Interpretations").
const tol = 1e-9

// Problem is one provisioning question (§IV-B of the DOLL paper, problem
// (14)). Set exactly one of Lambda and Lambdas, and for Optimal and
// Corollary2Bound exactly one of Deadline and DeadlineRatio.
type Problem struct {
	Ntot    int // N_tot, the number of workers (instances), ≥ 1
	Updates int // J(ε), the number of model updates the job needs, ≥ 1
	K       int // batches aggregated per update, ≥ 1
	Batch   int // b, data points per batch, ≥ 1

	// Lambda is λ_A, every worker's data arrival rate in points per second
	// (homogeneous arrivals, §IV-B1).
	Lambda float64
	// Lambdas are λ_{A,n}, one rate per worker in points per second
	// (heterogeneous arrivals, §IV-B2); len(Lambdas) must be Ntot. Any
	// order: they are sorted (in a copy) as Eq. 20 requires.
	Lambdas []float64

	// Alpha is α in [0, 1], the fraction of time a preemptible instance is
	// available.
	Alpha float64

	// Deadline is θ in seconds, the bound on the expected runtime.
	Deadline float64
	// DeadlineRatio is θ/θ0 (≥ 1), the deadline as a multiple of θ0, the
	// expected runtime with no preemptible instance (Corollary 2).
	DeadlineRatio float64

	PriceSpot     float64 // π_s, $ per preemptible instance-hour while available, ≥ 0
	PriceOnDemand float64 // π_o, $ per on-demand instance-hour, > 0
}

// Plan is the answer of Optimal.
type Plan struct {
	Ns              int     // N_s*, preemptible instances
	No              int     // N_o = N_tot − N_s*, on-demand instances
	ExpectedRuntime float64 // seconds, Eq. 15 or 21 at N_s*
	ExpectedCost    float64 // dollars, Eq. 16 or 22 at N_s*
	CostRatio       float64 // ExpectedCost over the cost at N_s = 0
	Theta0          float64 // θ0, seconds, the runtime at N_s = 0
	Deadline        float64 // θ, seconds
}

// Validate reports the first bad field of p as a one-line *Error, or nil.
// It checks the deadline too: one of Deadline and DeadlineRatio must be
// set, and a deadline below θ0 (which no N_s meets) is ErrInfeasible.
func (p *Problem) Validate() error {
	if err := p.check(); err != nil {
		return err
	}
	_, err := p.deadline()
	return err
}

// check validates everything but the deadline's presence and feasibility.
func (p *Problem) check() error {
	switch {
	case p.Ntot < 1:
		return invalid("Ntot", "%d, want ≥ 1", p.Ntot)
	case p.Updates < 1:
		return invalid("Updates", "%d, want ≥ 1", p.Updates)
	case p.K < 1:
		return invalid("K", "%d, want ≥ 1", p.K)
	case p.Batch < 1:
		return invalid("Batch", "%d, want ≥ 1", p.Batch)
	}
	if p.Lambdas == nil {
		if !(p.Lambda > 0) || math.IsInf(p.Lambda, 0) {
			return invalid("Lambda", "%v, want a finite rate > 0 (or set Lambdas)", p.Lambda)
		}
	} else {
		if p.Lambda != 0 {
			return invalid("Lambda", "%v and Lambdas both set, want one", p.Lambda)
		}
		if len(p.Lambdas) != p.Ntot {
			return invalid("Lambdas", "%d rates for Ntot = %d workers", len(p.Lambdas), p.Ntot)
		}
		for i, l := range p.Lambdas {
			if !(l > 0) || math.IsInf(l, 0) {
				return invalid("Lambdas", "rate %d is %v, want a finite rate > 0", i, l)
			}
		}
	}
	if !(p.Alpha >= 0 && p.Alpha <= 1) {
		return invalid("Alpha", "%v, want in [0, 1]", p.Alpha)
	}
	if !(p.PriceSpot >= 0) || math.IsInf(p.PriceSpot, 0) {
		return invalid("PriceSpot", "%v, want a finite price ≥ 0", p.PriceSpot)
	}
	if !(p.PriceOnDemand > 0) || math.IsInf(p.PriceOnDemand, 0) {
		return invalid("PriceOnDemand", "%v, want a finite price > 0", p.PriceOnDemand)
	}
	if !(p.Deadline >= 0) || math.IsInf(p.Deadline, 0) {
		return invalid("Deadline", "%v, want finite seconds > 0", p.Deadline)
	}
	if !(p.DeadlineRatio >= 0) || math.IsInf(p.DeadlineRatio, 0) {
		return invalid("DeadlineRatio", "%v, want a finite ratio ≥ 1", p.DeadlineRatio)
	}
	if p.Deadline > 0 && p.DeadlineRatio > 0 {
		return invalid("Deadline", "%v and DeadlineRatio %v both set, want one", p.Deadline, p.DeadlineRatio)
	}
	return nil
}

// work is J·K·b, the number of data points the job consumes.
func (p *Problem) work() float64 {
	return float64(float64(p.Updates) * float64(p.K) * float64(p.Batch))
}

// sorted returns the per-worker rates in increasing order (Eq. 20's
// ordering), or nil for one rate.
func (p *Problem) sorted() []float64 {
	if p.Lambdas == nil {
		return nil
	}
	s := slices.Clone(p.Lambdas)
	slices.Sort(s)
	return s
}

// throughput is the expected arrival rate of data points that reach an
// update with ns preemptible instances: λ_A·(N_o + α·N_s) (the denominator
// of Eq. 15) or Σ_n λ_{A,n} − (1 − α)·Σ_{n ≤ N_s} λ_{A,n} (Eq. 20 times Kb,
// the denominator of Eq. 21). sorted is p.sorted().
func (p *Problem) throughput(sorted []float64, ns int) float64 {
	if sorted == nil {
		return float64(p.Lambda * (float64(p.Ntot-ns) + float64(p.Alpha*float64(ns))))
	}
	// The available part of the preemptible workers' rate plus the
	// on-demand workers' rate, summed so α = 0 and N_s = N_tot give 0.
	var spot, od float64
	for _, l := range sorted[:ns] {
		spot += l
	}
	for _, l := range sorted[ns:] {
		od += l
	}
	return od + float64(p.Alpha*spot)
}

// runtime is Eq. 15 / Eq. 21; +Inf when no data ever arrives.
func (p *Problem) runtime(sorted []float64, ns int) float64 {
	return p.runtimeAt(p.throughput(sorted, ns))
}

// runtimeAt is Eq. 15 / Eq. 21 at throughput tp.
func (p *Problem) runtimeAt(tp float64) float64 {
	if tp <= 0 {
		return math.Inf(1)
	}
	return p.work() / tp
}

// cost is Eq. 16 / Eq. 22 in dollars: the runtime times the effective
// total price per unit time (N_tot − N_s)·π_o + α·N_s·π_s.
func (p *Problem) cost(sorted []float64, ns int) float64 {
	return p.costAt(p.throughput(sorted, ns), ns)
}

// costAt is Eq. 16 / Eq. 22 at throughput tp with ns preemptible instances.
func (p *Problem) costAt(tp float64, ns int) float64 {
	rt := p.runtimeAt(tp)
	if math.IsInf(rt, 1) {
		return math.Inf(1)
	}
	rate := float64(float64(p.Ntot-ns)*p.PriceOnDemand) + float64(p.Alpha*float64(ns)*p.PriceSpot)
	return rt * rate / 3600
}

// theta0 is θ0, the expected runtime with no preemptible instance
// (Corollary 2): J·K·b / Σ_n λ_{A,n}.
func (p *Problem) theta0(sorted []float64) float64 { return p.runtime(sorted, 0) }

// deadline returns θ in seconds, from Deadline or DeadlineRatio·θ0, and
// ErrInfeasible when it is below θ0. p must have passed check.
func (p *Problem) deadline() (float64, error) {
	t0 := p.theta0(p.sorted())
	switch {
	case p.Deadline > 0:
		if p.Deadline < t0*(1-tol) {
			return 0, &Error{Field: "Deadline", Detail: fmt.Sprintf("%g s is below θ0 = %g s, the expected runtime with no preemptible instance; no N_s meets it", p.Deadline, t0), Err: ErrInfeasible}
		}
		return p.Deadline, nil
	case p.DeadlineRatio > 0:
		if p.DeadlineRatio < 1-tol {
			return 0, &Error{Field: "DeadlineRatio", Detail: fmt.Sprintf("%g is below 1: the deadline is shorter than θ0 = %g s; no N_s meets it", p.DeadlineRatio, t0), Err: ErrInfeasible}
		}
		return float64(p.DeadlineRatio * t0), nil
	}
	return 0, invalid("Deadline", "unset, want Deadline (seconds) or DeadlineRatio (θ/θ0)")
}

func (p *Problem) checkNs(ns int) error {
	if ns < 0 || ns > p.Ntot {
		return invalid("ns", "%d, want in [0, Ntot = %d]", ns, p.Ntot)
	}
	return nil
}

// ExpectedRuntime is the expected wall-clock time in seconds to make the
// job's J updates with ns preemptible instances: Eq. 15 of the DOLL paper,
// J·K·b / (λ_A·(N_o + α·N_s)), for one rate, Eq. 21,
// J·K·b / (Σ_n λ_{A,n} − (1 − α)·Σ_{n ≤ N_s} λ_{A,n}) with the rates in
// increasing order, for one rate per worker. It is +Inf when α = 0 and
// ns = Ntot. The deadline fields are not needed.
func (p *Problem) ExpectedRuntime(ns int) (float64, error) {
	if err := p.check(); err != nil {
		return 0, err
	}
	if err := p.checkNs(ns); err != nil {
		return 0, err
	}
	return p.runtime(p.sorted(), ns), nil
}

// ExpectedCost is the expected cost in dollars of the job with ns
// preemptible instances: Eq. 16 of the DOLL paper for one rate, Eq. 22 for
// one rate per worker, i.e. ExpectedRuntime times the effective total
// price (N_tot − N_s)·π_o + α·N_s·π_s. It is +Inf when α = 0 and ns = Ntot.
func (p *Problem) ExpectedCost(ns int) (float64, error) {
	if err := p.check(); err != nil {
		return 0, err
	}
	if err := p.checkNs(ns); err != nil {
		return 0, err
	}
	return p.cost(p.sorted(), ns), nil
}

// CostRatio is ExpectedCost(ns) over the cost with on-demand instances
// only, ExpectedCost(0): the quantity of the DOLL paper's Eq. 19, Fig. 3
// to 5 and Table II.
func (p *Problem) CostRatio(ns int) (float64, error) {
	c, err := p.ExpectedCost(ns)
	if err != nil {
		return 0, err
	}
	return c / p.cost(p.sorted(), 0), nil
}

// meets reports whether ns meets the runtime constraint of problem (14),
// within the relative tolerance tol.
func (p *Problem) meets(sorted []float64, ns int, theta float64) bool {
	return p.runtime(sorted, ns) <= theta*(1+tol)
}

// Optimal returns the cost-optimal number of preemptible instances under
// the deadline, problem (14) of the DOLL paper.
//
// For one rate it is Theorem 4, Eq. 18:
// N_s* = min{⌊(N_tot − J·K·b/(λ_A·θ)) / (1 − α)⌋, N_tot}
// (N_tot when α = 1; 0 when π_s > π_o, where Lemma 1's monotonicity is
// reversed). For one rate per worker it is Theorem 5's scan: from N_s = 0
// upwards, stopping when Lemma 2's necessary condition (Eq. 23),
// (1 − α)·Σ_{n ≤ N_s} λ_{A,n} ≤ Σ_n λ_{A,n} − J·K·b/θ, fails or the cost of
// Eq. 22 starts increasing; the cheapest N_s seen is returned.
func (p *Problem) Optimal() (Plan, error) {
	if err := p.Validate(); err != nil {
		return Plan{}, err
	}
	theta, _ := p.deadline()
	sorted := p.sorted()
	var ns int
	if sorted == nil {
		ns = p.theorem4(theta)
	} else {
		ns = p.theorem5(sorted, theta)
	}
	c0 := p.cost(sorted, 0)
	c := p.cost(sorted, ns)
	return Plan{
		Ns:              ns,
		No:              p.Ntot - ns,
		ExpectedRuntime: p.runtime(sorted, ns),
		ExpectedCost:    c,
		CostRatio:       c / c0,
		Theta0:          p.theta0(sorted),
		Deadline:        theta,
	}, nil
}

// theorem4 is Eq. 18 for a feasible θ.
func (p *Problem) theorem4(theta float64) int {
	if p.PriceSpot > p.PriceOnDemand {
		return 0 // Lemma 1 reversed: Eq. 16 increases in N_s
	}
	if p.Alpha == 1 {
		return p.Ntot // Eq. 15 does not depend on N_s
	}
	x := (float64(p.Ntot) - p.work()/(p.Lambda*theta)) / (1 - p.Alpha)
	ns := p.Ntot
	if x < float64(p.Ntot) {
		ns = max(int(math.Floor(x)), 0)
	}
	// Repair the floor against rounding in x, by the constraint itself.
	for ns > 0 && !p.meets(nil, ns, theta) {
		ns--
	}
	for ns < p.Ntot && p.meets(nil, ns+1, theta) {
		ns++
	}
	return ns
}

// theorem5 is Theorem 5's scan with Lemma 2's cut-off, for a feasible θ.
// It keeps throughput's two sums as it goes, a suffix sum of the on-demand
// workers' rates (0 at N_s = N_tot, as throughput's is) and a running sum
// of the preemptible ones, so the scan is O(N_tot), not O(N_tot²).
func (p *Problem) theorem5(sorted []float64, theta float64) int {
	od := make([]float64, len(sorted)+1) // od[ns] = Σ_{n > ns} λ_{A,n}
	for i := len(sorted) - 1; i >= 0; i-- {
		od[i] = od[i+1] + sorted[i]
	}
	var spot float64
	best, bestCost := 0, p.cost(sorted, 0)
	for ns := 1; ns <= p.Ntot; ns++ {
		spot += sorted[ns-1]
		tp := od[ns] + float64(p.Alpha*spot)
		if !(p.runtimeAt(tp) <= theta*(1+tol)) { // Lemma 2, Eq. 23, rearranged
			break
		}
		c := p.costAt(tp, ns)
		if c > bestCost*(1+tol) { // the cost began increasing
			break
		}
		if c < bestCost {
			best, bestCost = ns, c
		}
	}
	return best
}

// Corollary2Bound is Eq. 19 of the DOLL paper,
// max{θ/θ0 + (α·π_s − π_o)·(θ/θ0 − 1) / (π_o·(1 − α)), π_s/π_o}:
// the ratio of the expected cost at Eq. 18's unrounded N_s* to the
// on-demand-only cost, a lower bound on Optimal's CostRatio for one rate.
// It is π_s/π_o when α = 1 and 1 when π_s > π_o. For one rate per worker
// θ0 is J·K·b/Σ_n λ_{A,n} and the value is a reference, not a bound.
func (p *Problem) Corollary2Bound() (float64, error) {
	if err := p.Validate(); err != nil {
		return 0, err
	}
	theta, _ := p.deadline()
	r := theta / p.theta0(p.sorted())
	ps, po, a := p.PriceSpot, p.PriceOnDemand, p.Alpha
	switch {
	case ps > po:
		return 1, nil
	case a == 1:
		return ps / po, nil
	}
	return max(r+(float64(a*ps)-po)*(r-1)/(po*(1-a)), ps/po), nil
}
