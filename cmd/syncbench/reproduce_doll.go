package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/arrival"
	"github.com/syncmodels/syncmodels/cost"
	"github.com/syncmodels/syncmodels/doll"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/provision"
	"github.com/syncmodels/syncmodels/workload"
)

// `syncbench reproduce doll` reruns the evaluation of DOLL (Jiang, Zhang
// and Joe-Wong, "DOLL: Distributed OnLine Learning Using Preemptible
// Cloud Instances", §V) in virtual time with package doll:
//
//   - Fig. 3: the static method (Theorem 4) for three settings of
//     (α, θ/θ0), 12 runs each, homogeneous arrivals (λ = 125): cost
//     against wall-clock time, and the final objective with and without
//     preemptions;
//   - Fig. 4: the same with heterogeneous rates λ_n ~ U(1, 250);
//   - Fig. 5: static against adaptive (§V-C) and Corollary 2's bound, at
//     the high and the low spot price;
//   - Table II: static, adaptive and the bound per workload and
//     optimizer.
//
// Every run is a doll.Job; the command only plans the runs, runs them
// GOMAXPROCS at a time (each result in its own slot, so the report does
// not depend on the order) and writes the report. Same flags and seed,
// same Markdown and PNGs, except the line with the wall time.

// dollSetting is one (α, θ/θ0) pair of §V-B.
type dollSetting struct{ alpha, ratio float64 }

func (s dollSetting) String() string {
	return fmt.Sprintf("α = %g, θ/θ0 = %.2f", s.alpha, s.ratio)
}

// dollSettings are Fig. 3's and Fig. 4's settings; the first is Fig. 5's
// and Table II's.
var dollSettings = []dollSetting{{0.9, 1.05}, {0.8, 1.05}, {0.8, 1.10}}

// The paper's numbers, % of the on-demand cost.
var (
	// dollPaperFig3 and dollPaperFig4 are the static method's means per
	// setting (Fig. 3 and 4 captions).
	dollPaperFig3 = []float64{69.50, 86.22, 78.05}
	dollPaperFig4 = []float64{70.54, 81.71, 74.54}
)

// The paper's §V-A parameters.
const (
	dollRate        = 125    // λ_A, points per second per worker
	dollLo, dollHi  = 1, 250 // heterogeneous λ_n ~ U(1, 250)
	dollSpeedup     = 2000   // the trace is traversed at 2000×
	dollMeanCycle   = 1000 * time.Second
	dollOnDemandHi  = 0.286 // $/hour, SUSE
	dollOnDemandLow = 0.186 // $/hour, Linux
)

// dollScale sizes the report: the paper's (full) or -quick's.
type dollScale struct {
	workers, batch, updates, runs int
	// kDiv divides the paper's K (rounded up).
	kDiv int
	// time multiplies the preemption cycle and divides the trace's
	// speedup, so that the run keeps the paper's proportions between
	// its length, the on-off cycle and the price changes.
	time float64
	// points is the size of the synthetic data sets.
	points int
}

var (
	dollFull = dollScale{workers: 64, batch: 256, updates: 10000, runs: 12, kDiv: 1, time: 1, points: 64000}
	// dollQuick: θ0 = 200·4·32/(16·125) = 12.8 s, 1/500 of the paper's
	// 6,400 s; the on-off cycle is 20 s, not 2 s, because the chain is
	// sampled every 2 s and α = 0.9 needs (1 − α)·cycle ≥ 2 s (package
	// preempt).
	dollQuick = dollScale{workers: 16, batch: 32, updates: 200, runs: 2, kDiv: 5, time: 1.0 / 50, points: 512}
)

// k is the paper's K at this scale.
func (s dollScale) k(paper int) int { return (paper + s.kDiv - 1) / s.kDiv }

// theta0 is J·K·b/(N·λ), the expected runtime on demand at λ = 125.
func (s dollScale) theta0(paperK int) time.Duration {
	return time.Duration(float64(s.updates*s.k(paperK)*s.batch) / float64(s.workers*dollRate) * float64(time.Second))
}

// dollWorkload is a workload of Table II.
type dollWorkload struct {
	key, label string
	// opt names the optimizer for the table ("SGD", "Adam", "Lloyd").
	opt   string
	k     int // the paper's K for the row
	spec  workload.Spec
	alg   algorithms.Algorithm
	descr string // the data set, as loaded
}

// dollWorkloads are the workloads of the report. fmnist is a
// Fashion-MNIST directory for the K = 4 rows ("" for synthetic data).
func dollWorkloads(s dollScale, seed uint64, fmnist string) []*dollWorkload {
	lr := func(opt string, rate float64) workload.Spec {
		return workload.Spec{Algo: "lr", Data: "synthetic:logistic", N: s.points, Dim: 10, Optimizer: opt, LR: rate, Seed: seed}
	}
	k4 := &dollWorkload{key: "lr-sgd-k4", label: "LR (synthetic), SGD", opt: "SGD", k: 4, spec: lr("sgd", 0.5)}
	if fmnist != "" {
		pos := 0
		k4 = &dollWorkload{key: "lr-fmnist-k4", label: "LR (Fashion-MNIST, T-shirt/top vs rest), SGD", opt: "SGD", k: 4,
			spec: workload.Spec{Algo: "lr", Data: "idx:" + fmnist, Positive: &pos, Optimizer: "sgd", LR: 0.1, Seed: seed}}
	}
	return []*dollWorkload{
		{key: "lr-sgd", label: "LR (synthetic), SGD", opt: "SGD", k: 20, spec: lr("sgd", 0.5)},
		{key: "lr-adam", label: "LR (synthetic), Adam", opt: "Adam", k: 20, spec: lr("adam", 0.05)},
		{key: "kmeans", label: "K-means (synthetic blobs)", opt: "Lloyd (mini-batch)", k: 10,
			spec: workload.Spec{Algo: "kmeans", Data: "synthetic:blobs", N: s.points, Dim: 10, K: 8, Init: "kmeans++", Seed: seed}},
		k4,
	}
}

// dollArrivals: homogeneous (λ = 125) or heterogeneous (U(1, 250)).
func dollArrivals(het bool) *arrival.Spec {
	if het {
		return &arrival.Spec{Lo: dollLo, Hi: dollHi}
	}
	return &arrival.Spec{Rate: dollRate}
}

// dollCell is a set of runs that differ only in their seed.
type dollCell struct {
	w       *dollWorkload
	het     bool // λ_n ~ U(1, 250)
	low     bool // the low spot price
	setting dollSetting
	policy  doll.Policy
	runs    []dollRun // by seed index
}

func (c *dollCell) key() string {
	return fmt.Sprintf("%s het=%v low=%v %v %v", c.w.key, c.het, c.low, c.setting, c.policy)
}

// arrivalsName names the cell's arrivals for tables.
func (c *dollCell) arrivalsName() string {
	if c.het {
		return fmt.Sprintf("U(%d, %d)", dollLo, dollHi)
	}
	return fmt.Sprint(dollRate)
}

// dollRun is what the report keeps of one doll.Outcome.
type dollRun struct {
	seed                  uint64
	ns, changes, preempts int
	// nsMean is the time-weighted mean of N_s over the run (the
	// adaptive policy moves it).
	nsMean                  float64
	runtime, theta0, theta  time.Duration
	cost, final, odExpected float64
	curve                   []harness.Point
	// alphaLast is the adaptive policy's last estimate of α (NaN without
	// a revision).
	alphaLast float64
	// meanRate is the mean of the workers' arrival rates.
	meanRate float64
}

// dollPlan holds every cell of the report, each once.
type dollPlan struct {
	s     dollScale
	seed  uint64
	ws    []*dollWorkload
	cells []*dollCell
	byKey map[string]*dollCell
}

// cell returns the cell, adding it the first time. On-demand runs do not
// depend on (α, θ/θ0) (no worker is preemptible): they all share the
// first setting's.
func (p *dollPlan) cell(w *dollWorkload, het, low bool, st dollSetting, pol doll.Policy) *dollCell {
	if pol == doll.OnDemand {
		st = dollSettings[0]
	}
	c := &dollCell{w: w, het: het, low: low, setting: st, policy: pol}
	if old, ok := p.byKey[c.key()]; ok {
		return old
	}
	p.byKey[c.key()] = c
	p.cells = append(p.cells, c)
	return c
}

// baseline is the on-demand cell c's costs are divided by.
func (p *dollPlan) baseline(c *dollCell) *dollCell {
	return p.cell(c.w, c.het, c.low, c.setting, doll.OnDemand)
}

// fig3 returns Fig. 3's (het false) or Fig. 4's (het true) static cells,
// one per setting.
func (p *dollPlan) fig3(het bool) []*dollCell {
	var cs []*dollCell
	for _, st := range dollSettings {
		cs = append(cs, p.cell(p.ws[0], het, false, st, doll.Static))
	}
	return cs
}

// fig5 returns Fig. 5's static and adaptive cells at a price and arrivals
// for workload w (Table II's rows use it too).
func (p *dollPlan) fig5(w *dollWorkload, het, low bool) (static, adaptive *dollCell) {
	return p.cell(w, het, low, dollSettings[0], doll.Static), p.cell(w, het, low, dollSettings[0], doll.Adaptive)
}

// dollRow is a row of Table II.
type dollRow struct {
	w   *dollWorkload
	het bool
	// paper is the paper's row: data set and optimizer, K, and its
	// static, adaptive and bound figures (NaN: "–").
	paper                   string
	paperK                  int
	pStatic, pAdapt, pBound float64
}

// table2 returns Table II's rows, the paper's beside ours.
func (p *dollPlan) table2() []dollRow {
	nan := math.NaN()
	lrSGD, adam, km, k4 := p.ws[0], p.ws[1], p.ws[2], p.ws[3]
	return []dollRow{
		{lrSGD, false, "EMNIST, SGD", 20, 69.5, 66.5, 79.8},
		{lrSGD, true, "EMNIST, SGD", 20, 70.5, 56.5, nan},
		{adam, false, "EMNIST, Adam", 20, 78.2, 54.6, 80.1},
		{km, false, "I-MNIST, SGD", 10, 75.8, 54.6, 80.1},
		{km, true, "I-MNIST, SGD", 10, 77.3, 52.9, nan},
		{k4, false, "CIFAR-10, SGD", 4, 82.6, 57.2, 79.8},
		{k4, true, "CIFAR-10, SGD", 4, 64.7, 53.7, nan},
	}
}

// plan adds every cell of the report with its baseline.
func (p *dollPlan) plan() {
	p.fig3(false)
	p.fig3(true)
	for _, low := range []bool{false, true} {
		for _, het := range []bool{false, true} {
			p.fig5(p.ws[0], het, low)
		}
	}
	for _, r := range p.table2() {
		p.fig5(r.w, r.het, false)
	}
	for _, c := range p.cells {
		if c.policy != doll.OnDemand {
			p.baseline(c)
		}
	}
}

// dollFlags are the flags of `syncbench reproduce doll`.
type dollFlags struct {
	out        string
	quick      bool
	seed       uint64
	runs       int
	spotHigh   string
	spotLow    string
	odHigh     float64
	odLow      float64
	speedup    float64
	fmnist     string
	args       []string
	traceHigh  *cost.Trace // as read, before the speedup; nil: generated
	traceLow   *cost.Trace
	traceStart [2]time.Time // of an AWS history, for the report
}

func (f *dollFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.out, "out", "docs/reproduce", "directory of the report: writes OUT/doll.md and OUT/doll/*.png, runs.csv")
	fs.BoolVar(&f.quick, "quick", false, "a small job (16 workers, J = 200, 2 runs a cell; seconds): checks the pipeline, the numbers mean little")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed: the data, the spot traces; run i of a cell uses seed+i (arrivals, rates, preemptions)")
	fs.IntVar(&f.runs, "runs", 0, "runs (seeds) per setting; 0 = 12 (the paper's), 2 with -quick")
	fs.StringVar(&f.spotHigh, "spot-trace", "", "spot-price trace for the high price setting (Figs. 3 to 5, Table II) instead of the generated one: CSV (seconds,price_per_hour) or the JSON of aws ec2 describe-spot-price-history (*.json); traversed at -speedup")
	fs.StringVar(&f.spotLow, "spot-trace-low", "", "spot-price trace for Fig. 5's low price setting, as -spot-trace")
	fs.Float64Var(&f.odHigh, "price-ondemand", dollOnDemandHi, "on-demand price ($/hour) of the high price setting")
	fs.Float64Var(&f.odLow, "price-ondemand-low", dollOnDemandLow, "on-demand price ($/hour) of the low price setting")
	fs.Float64Var(&f.speedup, "speedup", dollSpeedup, "how much faster than real time the run traverses the spot traces (DOLL §V-A: 2000)")
	fs.StringVar(&f.fmnist, "fashion-mnist", "", "Fashion-MNIST directory: run Table II's K = 4 rows on LR over Fashion-MNIST (T-shirt/top vs rest) instead of synthetic data; 784 features make those runs ~20 s each")
}

func (f *dollFlags) check() error {
	switch {
	case f.runs < 0:
		return fmt.Errorf("-runs %d: want ≥ 1 (0 = the default)", f.runs)
	case !(f.odHigh > 0) || math.IsInf(f.odHigh, 0):
		return fmt.Errorf("-price-ondemand %v: want a price > 0", f.odHigh)
	case !(f.odLow > 0) || math.IsInf(f.odLow, 0):
		return fmt.Errorf("-price-ondemand-low %v: want a price > 0", f.odLow)
	case !(f.speedup > 0) || math.IsInf(f.speedup, 0):
		return fmt.Errorf("-speedup %v: want a factor > 0", f.speedup)
	}
	if f.fmnist != "" {
		if _, err := os.Stat(f.fmnist); err != nil {
			return fmt.Errorf("-fashion-mnist %s: %v", f.fmnist, errors.Unwrap(err))
		}
	}
	var err error
	if f.traceHigh, f.traceStart[0], err = readSpotTrace("-spot-trace", f.spotHigh); err != nil {
		return err
	}
	f.traceLow, f.traceStart[1], err = readSpotTrace("-spot-trace-low", f.spotLow)
	return err
}

// readSpotTrace reads a trace file: AWS JSON (*.json) or CSV; "" is none.
// The trace must start at 0, where every run starts.
func readSpotTrace(flagName, path string) (*cost.Trace, time.Time, error) {
	if path == "" {
		return nil, time.Time{}, nil
	}
	var t *cost.Trace
	var start time.Time
	var err error
	if strings.EqualFold(filepath.Ext(path), ".json") {
		var fh *os.File
		if fh, err = os.Open(path); err == nil {
			t, start, err = cost.ParseSpotHistory(fh, path)
			fh.Close()
		}
	} else {
		t, err = cost.LoadTrace(path)
	}
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("%s: %v", flagName, oneLine(err))
	}
	if at := t.Points()[0].At; at != 0 {
		return nil, time.Time{}, fmt.Errorf("%s %s: the trace starts at %v s; want 0 (runs start at the trace's start)", flagName, path, at.Seconds())
	}
	return t, start, nil
}

// dollTraces are the spot traces of the runs, already sped up.
type dollTraces struct {
	high, low *cost.Trace
	// model is the generator's model of each (zero for a file), horizon
	// their length before the speedup.
	modelHigh, modelLow cost.SpotModel
	speedup             float64
}

// spotTraces generates (or takes from the flags) the two traces. A
// generated trace covers twice θ0 of the K = 20 rows at the speedup, so
// no run outlives it; DOLLHigh's and DOLLLow's 90 days would last only
// 90·86,400/2,000 = 3,888 s.
func (f *dollFlags) spotTraces(s dollScale) (*dollTraces, error) {
	tr := &dollTraces{speedup: f.speedup / s.time}
	horizon := time.Duration(tr.speedup * 2 * float64(s.theta0(20)))
	horizon = horizon.Round(24 * time.Hour)
	gen := func(m cost.SpotModel, file *cost.Trace, model *cost.SpotModel) (*cost.Trace, error) {
		t := file
		if t == nil {
			m.Horizon = horizon
			*model = m
			var err error
			if t, err = cost.GenerateSpot(m, f.seed); err != nil {
				return nil, err
			}
		}
		return t.Speedup(tr.speedup)
	}
	var err error
	if tr.high, err = gen(cost.DOLLHigh(), f.traceHigh, &tr.modelHigh); err != nil {
		return nil, err
	}
	if tr.low, err = gen(cost.DOLLLow(), f.traceLow, &tr.modelLow); err != nil {
		return nil, err
	}
	return tr, nil
}

func reproduceDOLL(args []string, stdout, stderr io.Writer) int {
	var f dollFlags
	fs := flag.NewFlagSet("syncbench reproduce doll", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	f.args = args
	return reportCommand("doll", fs, args, f.check, &f.out, func(ctx context.Context, start time.Time) error {
		s := dollFull
		if f.quick {
			s = dollQuick
		}
		if f.runs > 0 {
			s.runs = f.runs
		}
		p, tr, err := runDOLL(ctx, &f, s, stderr)
		if err != nil {
			return err
		}
		return writeDOLLReport(&f, p, tr, time.Since(start))
	}, stdout, stderr)
}

// job is the doll.Job of run i of cell c.
func (p *dollPlan) job(c *dollCell, i int, tr *dollTraces, f *dollFlags) doll.Job {
	spot, od := tr.high, f.odHigh
	if c.low {
		spot, od = tr.low, f.odLow
	}
	return doll.Job{Algorithm: c.w.alg, Workers: p.s.workers, K: p.s.k(c.w.k), Batch: p.s.batch, Updates: p.s.updates,
		Arrivals: dollArrivals(c.het), Alpha: c.setting.alpha, MeanCycle: time.Duration(float64(dollMeanCycle) * p.s.time),
		DeadlineRatio: c.setting.ratio, PriceOnDemand: od, Spot: spot, Seed: p.seed + uint64(i)}
}

// runDOLL loads the workloads, plans the cells and runs every run,
// GOMAXPROCS at a time.
func runDOLL(ctx context.Context, f *dollFlags, s dollScale, stderr io.Writer) (*dollPlan, *dollTraces, error) {
	tr, err := f.spotTraces(s)
	if err != nil {
		return nil, nil, err
	}
	p := &dollPlan{s: s, seed: f.seed, ws: dollWorkloads(s, f.seed, f.fmnist), byKey: map[string]*dollCell{}}
	for _, w := range p.ws {
		wd, err := workload.Load(w.spec)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", w.key, oneLine(err))
		}
		// Fashion-MNIST's 60,000 images, all of them but with -quick.
		d := fromWorkload(wd)
		if f.quick {
			d = firstPoints(d, s.points, "images")
		}
		if w.alg, err = workload.Build(w.spec, d.workload()); err != nil {
			return nil, nil, fmt.Errorf("%s: %v", w.key, oneLine(err))
		}
		w.descr = d.describe()
	}
	p.plan()
	type slot struct {
		c *dollCell
		i int
	}
	var jobs []slot
	for _, c := range p.cells {
		c.runs = make([]dollRun, s.runs)
		for i := range s.runs {
			jobs = append(jobs, slot{c, i})
		}
	}
	pr := &progress{w: stderr, prefix: "syncbench reproduce doll", total: len(jobs)}
	err = runParallel(ctx, jobs, func(ctx context.Context, j slot) error {
		start := time.Now()
		job := p.job(j.c, j.i, tr, f)
		o, err := job.Run(ctx, j.c.policy)
		if err != nil {
			return fmt.Errorf("%s seed %d: %w", j.c.key(), job.Seed, err)
		}
		r, err := summarize(o, &job)
		if err != nil {
			return fmt.Errorf("%s seed %d: %w", j.c.key(), job.Seed, err)
		}
		j.c.runs[j.i] = r
		pr.step("%s seed %d: %.1f s", j.c.key(), job.Seed, time.Since(start).Seconds())
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return p, tr, nil
}

// summarize keeps what the report needs of o (the trace and the spans
// are dropped: a full run's trace is large).
func summarize(o *doll.Outcome, j *doll.Job) (dollRun, error) {
	r := dollRun{seed: j.Seed, ns: o.Ns, changes: len(o.Changes), preempts: o.Preemptions, runtime: o.Runtime,
		theta0: o.Theta0, theta: o.Theta, cost: o.Cost, final: o.Final, odExpected: o.OnDemandExpected,
		curve: o.Result.Curve, alphaLast: math.NaN()}
	// Time-weighted N_s: o.Ns until the first change, then each change's.
	ns, from, area := float64(o.Ns), time.Duration(0), 0.0
	for _, ch := range o.Changes {
		at := min(ch.At, o.Runtime)
		area += float64(ns * (at - from).Seconds())
		ns, from = float64(ch.Ns), at
		r.alphaLast = ch.Alpha
	}
	area += float64(ns * (o.Runtime - from).Seconds())
	r.nsMean = area / o.Runtime.Seconds()
	rates, err := j.Arrivals.RatesFor(j.Workers, j.Seed)
	if err != nil {
		return r, err
	}
	for _, x := range rates {
		r.meanRate += x / float64(len(rates))
	}
	return r, nil
}

// problem is the provisioning problem of cell c at its nominal rates
// (λ = 125 for both arrivals: U(1, 250)'s mean is 125.5) and spot price
// πs.
func (p *dollPlan) problem(c *dollCell, od, spot float64) provision.Problem {
	return provision.Problem{Ntot: p.s.workers, Updates: p.s.updates, K: p.s.k(c.w.k), Batch: p.s.batch, Lambda: dollRate,
		Alpha: c.setting.alpha, DeadlineRatio: c.setting.ratio, PriceSpot: spot, PriceOnDemand: od}
}
