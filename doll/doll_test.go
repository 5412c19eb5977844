package doll_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/logreg"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/arrival"
	"github.com/syncmodels/syncmodels/cost"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/doll"
	"github.com/syncmodels/syncmodels/provision"
)

func smallLR(t testing.TB) algorithms.Algorithm {
	t.Helper()
	data, _ := dataset.Logistic(rand.New(rand.NewPCG(5, 5)), 4000, 10)
	alg, err := logreg.NewDense(data, logreg.Config{Optim: optim.Config{Method: optim.SGD, LR: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	return alg
}

// smallJob is DOLL §V-A scaled down: 16 workers, K = 4, b = 32, J = 400,
// λ = 100 points/s, so θ0 = J·K·b/(N·λ) = 400·4·32/1,600 = 32 s; the
// preemption cycle is scaled from 1,000 s against θ0 = 6,400 s to 10 s
// and its sampling step from 2 s to 0.5 s.
func smallJob(t testing.TB) doll.Job {
	return doll.Job{Algorithm: smallLR(t), Workers: 16, K: 4, Batch: 32, Updates: 400,
		Arrivals: &arrival.Spec{Rate: 100}, Alpha: 0.8, MeanCycle: 10 * time.Second, Step: 500 * time.Millisecond, DeadlineRatio: 1.1, Seed: 4}
}

// On demand: no preemption, the runtime is θ0 up to the streams' noise,
// and the bill is N·π_o·runtime (per-second billing, one lifetime per
// worker: each rounded up to the second).
func TestOnDemand(t *testing.T) {
	j := smallJob(t)
	o, err := j.Run(context.Background(), doll.OnDemand)
	if err != nil {
		t.Fatal(err)
	}
	if o.Ns != 0 || o.Preemptions != 0 {
		t.Fatalf("N_s %d, %d preemptions on demand", o.Ns, o.Preemptions)
	}
	if o.Theta0 != 32*time.Second {
		t.Errorf("θ0 = %v; want 32s", o.Theta0)
	}
	// J·K = 1,600 batches of 32 Poisson arrivals: the runtime's relative
	// sd is about 1/√(1,600·32) ≈ 0.4%.
	if r := o.Runtime.Seconds() / 32; math.Abs(r-1) > 0.03 {
		t.Errorf("runtime %v; want about θ0 = 32s", o.Runtime)
	}
	want := 16 * 0.286 * math.Ceil(o.Runtime.Seconds()) / 3600
	if math.Abs(o.Cost-want) > 1e-12 {
		t.Errorf("cost %v; want %v", o.Cost, want)
	}
}

// Static: N_s is Theorem 4's, the preemptible workers are preempted, the
// cost is below on demand's, and the runtime is near the deadline
// (Eq. 15's expectation, within the noise of a 40 s run with 10 s cycles).
func TestStatic(t *testing.T) {
	j := smallJob(t)
	p := provision.Problem{Ntot: 16, Updates: 400, K: 4, Batch: 32, Lambda: 100, Alpha: 0.8, DeadlineRatio: 1.1, PriceSpot: 0.158, PriceOnDemand: 0.286}
	plan, err := p.Optimal()
	if err != nil {
		t.Fatal(err)
	}
	// Eq. 18: ⌊(16 − 51,200/(100·35.2))/(1 − 0.8)⌋ = ⌊(16 − 14.545)/0.2⌋ = 7.
	if plan.Ns != 7 {
		t.Fatalf("Eq. 18 gives %d; the hand computation 7", plan.Ns)
	}
	o, err := j.Run(context.Background(), doll.Static)
	if err != nil {
		t.Fatal(err)
	}
	od, err := j.Run(context.Background(), doll.OnDemand)
	if err != nil {
		t.Fatal(err)
	}
	if o.Ns != 7 || o.Preemptions == 0 {
		t.Fatalf("static N_s %d with %d preemptions", o.Ns, o.Preemptions)
	}
	if o.Cost >= od.Cost {
		t.Errorf("static cost %v ≥ on-demand %v", o.Cost, od.Cost)
	}
	if r := o.Runtime.Seconds() / o.Theta.Seconds(); r > 1.2 || r < 0.8 {
		t.Errorf("static runtime %v against θ = %v", o.Runtime, o.Theta)
	}
	if o.Result.Trace != nil {
		t.Fatal("the trace was kept without KeepTrace")
	}
	j.KeepTrace = true
	if o, err = j.Run(context.Background(), doll.Static); err != nil {
		t.Fatal(err)
	}
	if o.Result.Trace == nil || len(o.Result.Trace.Records) == 0 {
		t.Fatal("KeepTrace kept no trace")
	}
}

// Adaptive: starts with every worker preemptible and revises at each
// price change of the trace.
func TestAdaptive(t *testing.T) {
	j := smallJob(t)
	tr, err := cost.GenerateSpot(cost.SpotModel{Mean: 0.158, Horizon: 200 * time.Second, MeanHold: 5 * time.Second, Volatility: 0.05, Reversion: 0.2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	j.Spot = tr
	o, err := j.Run(context.Background(), doll.Adaptive)
	if err != nil {
		t.Fatal(err)
	}
	if o.Ns != 16 || len(o.Changes) == 0 {
		t.Fatalf("adaptive started at N_s %d with %d changes", o.Ns, len(o.Changes))
	}
	for _, c := range o.Changes {
		if c.Ns < 0 || c.Ns > 16 || !(c.Alpha > 0 && c.Alpha <= 1) {
			t.Errorf("change %+v", c)
		}
	}
}

func TestJobErrors(t *testing.T) {
	for name, mut := range map[string]func(j *doll.Job){
		"alpha":    func(j *doll.Job) { j.Alpha = 1.5 },
		"ratio":    func(j *doll.Job) { j.DeadlineRatio = 0.9 },
		"price":    func(j *doll.Job) { j.PriceOnDemand = -1 },
		"arrivals": func(j *doll.Job) { j.Arrivals = &arrival.Spec{Rate: math.NaN()} },
		"no alg":   func(j *doll.Job) { j.Algorithm = nil },
	} {
		j := smallJob(t)
		mut(&j)
		if _, err := j.Run(context.Background(), doll.Static); err == nil {
			t.Errorf("%s: no error", name)
		} else if name != "arrivals" && !errors.Is(err, doll.ErrConfig) {
			t.Errorf("%s: %v; want ErrConfig", name, err)
		}
	}
}
