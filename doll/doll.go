package doll

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/arrival"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/cost"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/preempt"
	"github.com/syncmodels/syncmodels/provision"
)

// ErrConfig reports an invalid Job.
var ErrConfig = errors.New("doll: invalid job")

// Policy says how a run provisions its workers.
type Policy uint8

const (
	// OnDemand runs every worker on an on-demand instance (N_s = 0): the
	// baseline the paper's cost ratios divide by.
	OnDemand Policy = iota + 1
	// Static chooses N_s before the run (Theorem 4, or Theorem 5 for one
	// rate per worker) from the job's nominal α and the run's arrival
	// rates, and keeps it.
	Static
	// Adaptive is §V-C's method: start with N_s = N_tot and, at every
	// spot price change, re-optimise N_s from running estimates of the
	// arrival rates and α.
	Adaptive
)

func (p Policy) String() string {
	switch p {
	case OnDemand:
		return "on-demand"
	case Static:
		return "static"
	case Adaptive:
		return "adaptive"
	}
	return fmt.Sprintf("Policy(%d)", uint8(p))
}

// Job is one DOLL training job: a workload on N_tot workers that receive
// data streams, K-grouping, preemptible instances and their prices.
type Job struct {
	// Algorithm is the workload, bound to its data.
	Algorithm algorithms.Algorithm
	// Workers is N_tot. Default 64 (DOLL §V-A).
	Workers int
	// K is the number of batches per update and Batch b the points per
	// batch. Default 20 and 256 (§V-A).
	K, Batch int
	// Updates is J, the number of updates the run makes. Default 10,000
	// (§V-A: the updates the paper's CNN needs for ~85% accuracy).
	Updates int
	// Arrivals are the data streams. Default Poisson at 125 points per
	// second per worker (§V-A).
	Arrivals *arrival.Spec
	// Alpha is a preemptible instance's availability α, MeanCycle the
	// mean length of an on-off cycle and Step the chain's sampling
	// interval. Defaults 0.9, 1,000 s and 2 s (§V-A); the chain needs
	// α·MeanCycle and (1 − α)·MeanCycle of at least one Step.
	Alpha     float64
	MeanCycle time.Duration
	Step      time.Duration
	// DeadlineRatio is θ/θ0. Default 1.05 (§V-B).
	DeadlineRatio float64
	// PriceOnDemand is π_o in $ per instance-hour; Spot is the spot
	// price over the run's time (already sped up, cost.Trace.Speedup).
	// Defaults 0.286 $/h and a constant 0.158 $/h (§V-A's means).
	PriceOnDemand float64
	Spot          *cost.Trace
	// Billing rounds each instance lifetime. Default per second.
	Billing cost.Billing
	// Cost is the simulator's cost model (compute and network time).
	Cost harness.CostModel
	// Seed seeds θ0, the sharding, the arrival rates and times and the
	// preemptions.
	Seed uint64
	// Snapshots is the number of objective snapshots over the run.
	// Default 20.
	Snapshots int
	// KeepTrace keeps each run's trace in Outcome.Result.Trace. By
	// default the trace is checked as it is recorded and dropped
	// (harness.Experiment.DiscardTrace): a paper-scale run's trace holds
	// about a million records.
	KeepTrace bool
}

// Outcome is one run of a Job under a Policy.
type Outcome struct {
	Policy Policy
	// Ns is the number of preemptible instances the policy started
	// with; Changes lists the adaptive policy's revisions.
	Ns      int
	Changes []Change
	// Runtime is the (virtual) wall-clock time of the J updates;
	// Theta0 and Theta are the expected runtime without preemptible
	// instances and the deadline, for the run's arrival rates.
	Runtime       time.Duration
	Theta0, Theta time.Duration
	// Cost is what the workers' instances cost; OnDemandExpected is the
	// expected cost of the same job on on-demand instances only (Eq. 16
	// at N_s = 0), for reference.
	Cost             float64
	OnDemandExpected float64
	// Final is the workload's objective at the end.
	Final       float64
	Preemptions int
	Result      *harness.Result
}

// Change is one revision of the adaptive policy.
type Change struct {
	At        time.Duration
	Ns        int
	Alpha     float64 // the estimate used
	PriceSpot float64
}

func (j *Job) defaults() error {
	if j.Algorithm == nil {
		return fmt.Errorf("doll: no algorithm: %w", ErrConfig)
	}
	if j.Workers == 0 {
		j.Workers = 64
	}
	if j.K == 0 {
		j.K = 20
	}
	if j.Batch == 0 {
		j.Batch = 256
	}
	if j.Updates == 0 {
		j.Updates = 10000
	}
	if j.Arrivals == nil {
		j.Arrivals = &arrival.Spec{Rate: 125}
	}
	if j.Alpha == 0 {
		j.Alpha = 0.9
	}
	if j.MeanCycle == 0 {
		j.MeanCycle = 1000 * time.Second
	}
	if j.DeadlineRatio == 0 {
		j.DeadlineRatio = 1.05
	}
	if j.PriceOnDemand == 0 {
		j.PriceOnDemand = 0.286
	}
	if j.Spot == nil {
		t, err := cost.NewTrace([]cost.Point{{At: 0, PerHour: 0.158}})
		if err != nil {
			return err
		}
		j.Spot = t
	}
	if j.Billing == (cost.Billing{}) {
		j.Billing = cost.PerSecond()
	}
	if j.Snapshots == 0 {
		j.Snapshots = 20
	}
	switch {
	case j.Workers < 1 || j.K < 1 || j.Batch < 1 || j.Updates < 1 || j.Snapshots < 1:
		return fmt.Errorf("doll: workers %d, K %d, batch %d, updates %d and snapshots %d must be ≥ 1: %w", j.Workers, j.K, j.Batch, j.Updates, j.Snapshots, ErrConfig)
	case !(j.Alpha > 0 && j.Alpha <= 1):
		return fmt.Errorf("doll: α = %v: want 0 < α ≤ 1: %w", j.Alpha, ErrConfig)
	case !(j.DeadlineRatio >= 1) || math.IsInf(j.DeadlineRatio, 0):
		return fmt.Errorf("doll: θ/θ0 = %v: want a finite ratio ≥ 1: %w", j.DeadlineRatio, ErrConfig)
	case !(j.PriceOnDemand > 0) || math.IsInf(j.PriceOnDemand, 0):
		return fmt.Errorf("doll: on-demand price %v: want > 0: %w", j.PriceOnDemand, ErrConfig)
	}
	return j.Arrivals.Validate(j.Workers)
}

// problem is the provisioning problem for the given rates, α and spot
// price.
func (j *Job) problem(rates []float64, alpha, spot float64) provision.Problem {
	p := provision.Problem{Ntot: j.Workers, Updates: j.Updates, K: j.K, Batch: j.Batch, Alpha: alpha,
		DeadlineRatio: j.DeadlineRatio, PriceSpot: spot, PriceOnDemand: j.PriceOnDemand}
	if homogeneous(rates) {
		p.Lambda = rates[0]
	} else {
		p.Lambdas = rates
	}
	return p
}

func homogeneous(rates []float64) bool {
	for _, r := range rates {
		if r != rates[0] {
			return false
		}
	}
	return true
}

func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

// Run runs the job under a policy in virtual time and bills it.
func (j Job) Run(ctx context.Context, policy Policy) (*Outcome, error) {
	if err := j.defaults(); err != nil {
		return nil, err
	}
	rates, err := j.Arrivals.RatesFor(j.Workers, j.Seed)
	if err != nil {
		return nil, err
	}
	p0 := j.problem(rates, j.Alpha, 0)
	theta0, err := p0.ExpectedRuntime(0)
	if err != nil {
		return nil, err
	}
	// The run lasts until its J updates; the duration is only a cap,
	// far beyond what α allows in expectation.
	limit := seconds(float64(theta0 / j.Alpha * 4))
	// The planning price is the trace's mean over the deadline θ, the
	// time the job is meant to run.
	meanSpot, err := j.Spot.Mean(0, seconds(float64(theta0*j.DeadlineRatio)))
	if err != nil {
		return nil, err
	}
	prob := j.problem(rates, j.Alpha, meanSpot)
	od, err := prob.ExpectedCost(0)
	if err != nil {
		return nil, err
	}
	out := &Outcome{Policy: policy, Theta0: seconds(theta0), Theta: seconds(float64(theta0 * j.DeadlineRatio)), OnDemandExpected: od}
	var pre []int
	switch policy {
	case OnDemand:
		pre = []int{}
	case Static:
		plan, err := prob.Optimal()
		if err != nil {
			return nil, err
		}
		if pre, err = prob.Preemptible(plan.Ns); err != nil {
			return nil, err
		}
	case Adaptive:
		pre = make([]int, j.Workers)
		for i := range pre {
			pre[i] = i
		}
	default:
		return nil, fmt.Errorf("doll: policy %v: %w", policy, ErrConfig)
	}
	out.Ns = len(pre)
	e := harness.Experiment{
		Name: policy.String(), Algorithm: j.Algorithm, Sync: consistency.Spec{Kind: consistency.KGroup, Group: j.K},
		Workers: j.Workers, Batch: j.Batch, Cost: j.Cost, Duration: limit, EvalEvery: seconds(theta0 / float64(j.Snapshots)),
		Seed: j.Seed, Shuffle: true, Arrivals: j.Arrivals, Stop: harness.Stop{MaxIterations: j.Updates},
		Preempt: &preempt.Config{Alpha: j.Alpha, MeanCycle: j.MeanCycle, Step: j.Step}, Preemptible: pre,
		DiscardTrace: !j.KeepTrace,
	}
	if policy == Adaptive {
		ad, err := newAdaptive(&j, rates, meanSpot, out)
		if err != nil {
			return nil, err
		}
		e.Provision = &harness.Provisioning{At: changes(j.Spot, limit), Revise: ad.revise}
	}
	res, err := harness.Run(ctx, e)
	if err != nil {
		return nil, err
	}
	if int(res.Versions) < j.Updates {
		return nil, fmt.Errorf("doll: %v run made %d of %d updates within %v: %w", policy, res.Versions, j.Updates, limit, ErrConfig)
	}
	out.Result, out.Runtime, out.Final, out.Preemptions = res, res.Duration, res.Final, res.Preemptions
	if out.Cost, err = j.bill(res.Instances); err != nil {
		return nil, err
	}
	return out, nil
}

// changes returns the times in [0, limit) at which the spot price changes.
func changes(t *cost.Trace, limit time.Duration) []time.Duration {
	var at []time.Duration
	pts := t.Points()
	for i := 1; i < len(pts); i++ {
		if pts[i].At >= limit {
			break
		}
		if pts[i].PerHour != pts[i-1].PerHour {
			at = append(at, pts[i].At)
		}
	}
	return at
}

// bill prices the instances' lifetimes: an on-demand instance at π_o, a
// preemptible one at the spot price while available.
func (j *Job) bill(spans []harness.InstanceSpan) (float64, error) {
	var l cost.Ledger
	for w := range j.Workers {
		if err := l.Add(
			cost.Resource{Name: fmt.Sprintf("w%d-on-demand", w), Kind: cost.VM, Price: cost.DollarsPerHour(j.PriceOnDemand), Billing: j.Billing},
			cost.Resource{Name: fmt.Sprintf("w%d-spot", w), Kind: cost.Spot, Trace: j.Spot, Billing: j.Billing},
		); err != nil {
			return 0, err
		}
	}
	for _, sp := range spans {
		name := fmt.Sprintf("w%d-on-demand", sp.Worker)
		switch {
		case sp.Preemptible && !sp.Available:
			continue // not billed while preempted
		case sp.Preemptible:
			name = fmt.Sprintf("w%d-spot", sp.Worker)
		}
		if err := l.Record(name, sp.From, sp.To); err != nil {
			return 0, err
		}
	}
	b, err := l.Bill()
	if err != nil {
		return 0, err
	}
	return b.Total, nil
}

// adaptive is §V-C's method driving a run.
type adaptive struct {
	j     *Job
	a     *provision.Adaptive
	prior []float64
	alpha float64
	out   *Outcome
}

func newAdaptive(j *Job, rates []float64, spot float64, out *Outcome) (*adaptive, error) {
	// The first estimates are the nominal ones; the run's tallies replace
	// them as they come in. For one rate per worker the nominal rate of
	// every worker is the mean of the spec's.
	prior := slices.Clone(rates)
	if j.Arrivals.Lo != 0 || j.Arrivals.Hi != 0 {
		for i := range prior {
			prior[i] = (j.Arrivals.Lo + j.Arrivals.Hi) / 2
		}
	}
	a, err := provision.NewAdaptive(j.problem(prior, j.Alpha, spot))
	if err != nil {
		return nil, err
	}
	return &adaptive{j: j, a: a, prior: prior, alpha: j.Alpha, out: out}, nil
}

func (ad *adaptive) revise(o harness.Observation) ([]int, error) {
	j := ad.j
	rates := slices.Clone(ad.prior)
	var up, down time.Duration
	for i, w := range o.Workers {
		if w.Up > 0 && w.Arrived > 0 {
			rates[i] = float64(w.Arrived) / w.Up.Seconds()
		}
		up += w.SpotUp
		down += w.SpotDown
	}
	alpha := ad.alpha
	if up+down > 0 {
		alpha = up.Seconds() / (up + down).Seconds()
	}
	price, err := j.Spot.PriceAt(o.Now)
	if err != nil {
		return nil, err
	}
	est := provision.Estimate{Alpha: alpha, PriceSpot: price}
	if homogeneous(ad.prior) && (j.Arrivals.Lo == 0 && j.Arrivals.Hi == 0) && j.Arrivals.Rates == nil {
		var s float64
		for _, r := range rates {
			s += r
		}
		est.Lambda = s / float64(len(rates))
	} else {
		est.Lambdas = rates
	}
	plan, err := ad.a.PriceChange(est)
	if err != nil {
		// A bad estimate, or no N_s meets the deadline on these
		// estimates: §V-C says nothing; keep the provisioning as it is.
		plan = provision.Plan{Ns: ad.a.Ns()}
	}
	p := ad.a.Problem()
	ws, err := p.Preemptible(plan.Ns)
	if err != nil {
		return nil, err
	}
	ad.out.Changes = append(ad.out.Changes, Change{At: o.Now, Ns: plan.Ns, Alpha: alpha, PriceSpot: price})
	return ws, nil
}
