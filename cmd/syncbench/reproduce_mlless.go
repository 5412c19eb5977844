package main

import (
	"cmp"
	"context"
	"errors"

	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/cost"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/internal/fpdet"
	"github.com/syncmodels/syncmodels/knee"
	"github.com/syncmodels/syncmodels/scalein"
)

// `syncbench reproduce mlless` reruns the evaluation of MLLess (Gimeno
// Sarroca and Sánchez-Artigas, "MLLess: Achieving Cost Efficiency in
// Serverless Machine Learning Training", §6) in virtual time:
//
//   - Fig. 5: the time to a target loss of ISP against its significance
//     threshold v (v = 0 is BSP, Corollary 1), for PMF, dense LR and
//     sparse (hashed) LR at 12 workers;
//   - Fig. 6: the scale-in auto-tuner (§4.2) against a fixed pool of 12
//     and 24 workers: time to target and Perf/$ = 1/(time · price), priced
//     with Table 2 (package cost);
//   - Fig. 9: ISP (v = 0.7) against SSP (s = 3) and BSP on PMF at 12, 24
//     and 48 workers with a fixed global batch.
//
// Every run is a `syncbench compare` run (see mllessCase.flagsFor), plus
// the scale-in tuner for the Fig. 6 runs. The report is deterministic: the
// same flags and seed write the same Markdown and PNGs on any machine,
// except the line with the wall time.

// mllessThresholds are the significance thresholds v of the Fig. 5 sweep;
// 0 is BSP.
var mllessThresholds = []float64{0, 0.1, 0.3, 0.5, 0.7, 1}

// mllessISP is the threshold of Fig. 9 and of the ISP speedups (§6.3.1:
// "we set the significance threshold v = 0.7").
const mllessISP = 0.7

// mllessSSP is SSP's slack in Fig. 9 (§6.4: "a slack of S = 3
// iterations").
const mllessSSP = 3

// mllessBase is the pool of Fig. 5 and the first of Figs. 6 and 9; the
// per-worker batch of each workload is set for it.
const mllessBase = 12

// mllessTunerPools are the pools of Fig. 6 (Table 1: 12 and 24 workers);
// Fig. 9's are the scale's fig9Pools (the paper's 12, 24 and 48).
var mllessTunerPools = []int{12, 24}

// mllessTargetFraction is the share of the reference run's improvement
// over θ0 that the target asks for: MLLess stops every run at a preset
// loss that its BSP reaches (RMSE 0.82 on PMF, BCE 0.58 on LR, §6.2.1).
// The reference is MLLess's BSP at mllessBase workers run for the
// workload's whole run length.
const mllessTargetFraction = 0.95

// mllessStopMargin: the other runs stop once the loss on the control
// sample is this share of the improvement past the target, so that the
// loss on all the data has crossed it at the snapshot.
const mllessStopMargin = 0.01

// mllessCommon are the compare flags of every run: no injected stragglers
// (MLLess's functions are alike) and MLLess's indirect communication
// through a Redis store with a Gigabit NIC (§6.1; compare's -indirect
// defaults: 1 ms per store request, 1 ms per signalling message).
var mllessCommon = []string{"-stragglers", "0", "-indirect"}

// mllessWorkload is an algorithm on a data set standing in for one of
// Table 1's.
type mllessWorkload struct {
	key   string // names files and CSV rows
	label string // names table rows
	paper string // Table 1's data set and setting
	// args are compare's workload flags (-algo, -rank, -optimizer,
	// -point-cost, -duration); -lr, -workers, -batch, -sync are added per
	// run.
	args []string
	lr   float64
	// batch is the per-worker batch at mllessBase workers; Fig. 9 keeps
	// mllessBase·batch as the global batch.
	batch int
	// schedule is the scale-in tuner's scheduling interval T (Δ = T/2, as
	// §6.2.2's 20 s and 10 s).
	schedule time.Duration
	fig9     bool  // run Fig. 9 on it (PMF)
	pools    []int // Fig. 9's pools
	load     func(seed uint64) (*data, error)
}

// mllessScale gives the data sizes and run lengths: the full report, or
// -quick's tiny version that only checks the pipeline.
type mllessScale struct {
	users, items, ratings int     // the synthetic rating matrix
	lrPoints              int     // LR data sets
	sparseDim             int     // hashed LR dimension
	time                  float64 // run lengths and scheduling intervals
	batch                 float64 // per-worker batches
	fig9Pools             []int   // Fig. 9's pools; -quick leaves out 48, its slowest runs
}

var (
	mllessFull  = mllessScale{users: 1000, items: 400, ratings: 100000, lrPoints: 120000, sparseDim: 10000, time: 1, batch: 1, fig9Pools: []int{12, 24, 48}}
	mllessQuick = mllessScale{users: 200, items: 60, ratings: 4000, lrPoints: 600, sparseDim: 500, time: 0.004, batch: 0.05, fig9Pools: []int{12, 24}}
)

// mllessWorkloads lists the workloads at scale s; movielens is a ratings
// file for PMF ("" draws the synthetic matrix).
func mllessWorkloads(s mllessScale, movielens string) []mllessWorkload {
	dur := func(sec float64) string { return time.Duration(sec * s.time * float64(time.Second)).String() }
	sched := func(sec float64) time.Duration { return time.Duration(sec * s.time * float64(time.Second)) }
	batch := func(b int) int { return int(float64(b) * s.batch) }
	ratings := func(seed uint64) (*data, error) {
		if movielens != "" {
			return loadData("movielens:"+movielens, synthSize{}, seed)
		}
		rng := rand.New(rand.NewPCG(seed, 0xda7a))
		return &data{spec: fmt.Sprintf("rank-10 ratings, Zipf(1) item popularity (dataset.LowRankRatings)"),
			ratings: dataset.LowRankRatings(rng, s.users, s.items, 10, s.ratings, 1)}, nil
	}
	dense := func(seed uint64) (*data, error) {
		rng := rand.New(rand.NewPCG(seed, 0xda7a))
		x, _ := dataset.Logistic(rng, s.lrPoints, 13)
		return &data{spec: "logistic, 13 features (dataset.Logistic)", dense: x}, nil
	}
	sparse := func(seed uint64) (*data, error) {
		rng := rand.New(rand.NewPCG(seed, 0xda7a))
		x, _ := dataset.SparseLogistic(rng, s.lrPoints, s.sparseDim, mllessSparseNNZ)
		return &data{spec: fmt.Sprintf("hashed logistic, %d nonzeros a row (dataset.SparseLogistic)", mllessSparseNNZ), sparse: x}, nil
	}
	pmfPaper := "ML-20M (138,493 × 26,744, 20M ratings), r = 20"
	if movielens != "" {
		pmfPaper = "ML-10M/20M, r = 20"
	}
	return []mllessWorkload{
		{key: "pmf", label: "PMF", paper: pmfPaper, fig9: true, pools: s.fig9Pools,
			args: []string{"-algo", "pmf", "-rank", "10", "-optimizer", "nesterov", "-point-cost", "10µs", "-duration", dur(120)},
			lr:   0.5, batch: batch(1000), schedule: sched(3), load: ratings},
		{key: "lr-dense", label: "LR dense", paper: "Criteo, 13 numerical features, B = 6,250",
			args: []string{"-algo", "lr", "-optimizer", "adam", "-point-cost", "1µs", "-duration", dur(1)},
			lr:   0.001, batch: batch(500), schedule: sched(0.05), load: dense},
		{key: "lr-sparse", label: "LR sparse", paper: "Criteo, 13 numerical + 26 categorical features hashed to 10⁵, B = 6,250",
			args: []string{"-algo", "lr", "-optimizer", "adam", "-point-cost", "2µs", "-duration", dur(30)},
			lr:   0.003, batch: batch(500), schedule: sched(1.5), load: sparse},
	}
}

// mllessFlags are the flags of `syncbench reproduce mlless`.
type mllessFlags struct {
	out       string
	quick     bool
	seed      uint64
	workloads string
	movielens string
	only      map[string]bool
	args      []string // as given, for the report
}

// mllessSparseNNZ is the nonzeros of a sparse LR row: Criteo's 13
// numerical and 26 categorical features.
const mllessSparseNNZ = 39

var mllessKeys = []string{"pmf", "lr-dense", "lr-sparse"}

func (f *mllessFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.out, "out", "docs/reproduce", "directory of the report: writes OUT/mlless.md and OUT/mlless/*.png, *.csv")
	fs.BoolVar(&f.quick, "quick", false, "tiny data and runs (seconds): checks the pipeline, the numbers mean little")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed: data generation, θ0, sharding")
	fs.StringVar(&f.workloads, "workloads", strings.Join(mllessKeys, ","), "comma-separated workloads to run (pmf, lr-dense, lr-sparse)")
	fs.StringVar(&f.movielens, "movielens", "", "MovieLens ratings file (ratings.dat or ratings.csv) for PMF instead of the synthetic matrix")
}

func (f *mllessFlags) check() error {
	f.only = map[string]bool{}
	for w := range strings.SplitSeq(f.workloads, ",") {
		w = strings.TrimSpace(w)
		if !slices.Contains(mllessKeys, w) {
			return fmt.Errorf("-workloads %q: %q is not one of %s", f.workloads, w, strings.Join(mllessKeys, ", "))
		}
		f.only[w] = true
	}
	return nil
}

// mllessRun is one run of the report, shared by the figures that need it.
type mllessRun struct {
	sync           string // compare's -sync entry
	workers, batch int
	lr             float64 // the workload's, or divided by the pool for SSP
	tuned          bool    // with the scale-in auto-tuner
	f              *compareFlags
	p              plan
	tuner          *scalein.Tuner
	res            *harness.Result
	diverged       error // a NaN or ±Inf in a delta ended the run
}

func (r *mllessRun) key() string {
	k := fmt.Sprintf("%s P=%d B=%d lr=%g", r.sync, r.workers, r.batch, r.lr)
	if r.tuned {
		k += " scale-in"
	}
	return k
}

// mllessCase is one workload's runs and what is derived from them.
type mllessCase struct {
	w     mllessWorkload
	d     *data
	algs  map[float64]algorithms.Algorithm // by learning rate
	runs  []*mllessRun                     // in the order first asked for
	byKey map[string]*mllessRun
	// initial is the objective at θ0, ref the reference run's final
	// objective; target is derived from them, stopAt is where the other
	// runs stop.
	initial, ref, target, stopAt float64
}

// run returns the case's run of sync at the given pool, batch and
// learning rate, adding it the first time it is asked for.
func (c *mllessCase) run(sync string, workers, batch int, lr float64, tuned bool) *mllessRun {
	r := &mllessRun{sync: sync, workers: workers, batch: batch, tuned: tuned, lr: lr}
	if old, ok := c.byKey[r.key()]; ok {
		return old
	}
	c.byKey[r.key()] = r
	c.runs = append(c.runs, r)
	return r
}

// isp is the -sync entry of ISP with threshold v; v = 0 is MLLess's BSP.
func isp(v float64) string {
	if v == 0 {
		return mllessBSP
	}
	return "isp:" + strconv.FormatFloat(v, 'g', -1, 64)
}

// mllessBSP and mllessSSP are BSP and SSP in MLLess's replica design, as
// ISP runs (harness.Experiment.Replicas): every worker steps its own
// optimizer on its replica and commits the parameter change, and the
// changes add up; bsp+replicas is isp:0 bit for bit (Corollary 1).
const (
	mllessBSP    = "bsp+replicas"
	mllessSSPRun = "ssp:3+replicas"
)

// sweep returns the Fig. 5 runs, in mllessThresholds order.
func (c *mllessCase) sweep() []*mllessRun {
	var rs []*mllessRun
	for _, v := range mllessThresholds {
		rs = append(rs, c.run(isp(v), mllessBase, c.w.batch, c.w.lr, false))
	}
	return rs
}

// scaleIn returns the Fig. 6 runs at pool p: the fixed pool and the tuned
// one, with MLLess's fixed per-worker batch (weak scaling, §6.2.2).
func (c *mllessCase) scaleIn(p int) (fixed, tuned *mllessRun) {
	return c.run(mllessBSP, p, c.w.batch, c.w.lr, false), c.run(mllessBSP, p, c.w.batch, c.w.lr, true)
}

// fig9Syncs are the models of Fig. 9.
var fig9Syncs = []string{mllessBSP, mllessSSPRun, isp(mllessISP)}

// fig9 returns the Fig. 9 runs at pool p, in fig9Syncs order, with the
// global batch and the global step of mllessBase workers: each worker's
// batch and learning rate are divided by p/mllessBase, so that a round of
// p local steps moves θ as far as one of mllessBase.
func (c *mllessCase) fig9(p int) []*mllessRun {
	var rs []*mllessRun
	for _, s := range fig9Syncs {
		rs = append(rs, c.run(s, p, mllessBase*c.w.batch/p, c.w.lr*mllessBase/float64(p), false))
	}
	return rs
}

// plan adds every run of the report to the case.
func (c *mllessCase) plan() {
	c.sweep()
	for _, p := range mllessTunerPools {
		c.scaleIn(p)
	}
	if c.w.fig9 {
		for _, p := range c.w.pools {
			c.fig9(p)
		}
	}
}

// flagsFor returns the compare flags of run r.
func (c *mllessCase) flagsFor(r *mllessRun, seed uint64) (*compareFlags, error) {
	var f compareFlags
	fs := flag.NewFlagSet("reproduce mlless", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.register(fs)
	args := append(slices.Clone(c.w.args), mllessCommon...)
	args = append(args, "-lr", ftoa(r.lr), "-workers", strconv.Itoa(r.workers), "-batch", strconv.Itoa(r.batch),
		"-seed", strconv.FormatUint(seed, 10), "-sync", r.sync)
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("%s %s: %v", c.w.key, r.key(), err)
	}
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("%s %s: %v", c.w.key, r.key(), err)
	}
	return &f, nil
}

// ttt is r's time to the case's target, -1 if not reached or not run.
func (c *mllessCase) ttt(r *mllessRun) time.Duration {
	if r.res == nil {
		return -1
	}
	return harness.TimeTo(r.res.Curve, c.target, true)
}

// newTuner is the scale-in auto-tuner of a run of the case with p
// workers: MLLess's defaults (S = 1%, its knee heuristic) with the
// scheduling interval scaled to the run (§6.2.2: T = 20 s, Δ = T/2).
func (c *mllessCase) newTuner(p int) (*scalein.Tuner, error) {
	ids := make([]int, p)
	for i := range ids {
		ids[i] = i
	}
	// Kneedle rather than MLLess's slope threshold, whose −7.5e−5 loss
	// units per step suits runs of thousands of steps, not these.
	kn := &knee.OnlineKneedle{Options: knee.Options{Curve: knee.Convex, Direction: knee.Decreasing}}
	return scalein.New(scalein.Config{Workers: ids, Interval: c.w.schedule, Delta: c.w.schedule / 2, Knee: kn})
}

// mllessBilling is Table 2's prices billed exactly: the paper rounds VMs
// to the second and functions to 100 ms, which on runs of minutes is
// noise but on ours (some under a second) would dominate the ratios.
var mllessBilling = cost.Options{VMBilling: cost.Exact(), FunctionBilling: cost.Exact()}

// perfPerDollar prices run r up to end (its time to target) on the MLLess
// deployment of Table 2 (scalein.Bill: a function per worker until its
// eviction, the messaging and Redis VMs throughout) and returns MLLess's
// Perf/$ = 1/(time · price) and the price.
func perfPerDollar(r *harness.Result, end time.Duration) (perf, dollars float64, err error) {
	lts := make([]scalein.Lifetime, len(r.Workers))
	for i, w := range r.Workers {
		lts[i] = scalein.Lifetime{Worker: i, Stop: end}
		if w.Evicted && w.Left < end {
			lts[i].Stop = w.Left
		}
	}
	b, err := scalein.Bill(lts, end, mllessBilling)
	if err != nil {
		return 0, 0, err
	}
	perf, err = cost.PerfPerDollar(end, b.Total)
	return perf, b.Total, err
}

// evictedBy counts r's evictions before end.
func evictedBy(r *harness.Result, end time.Duration) int {
	n := 0
	for _, w := range r.Workers {
		if w.Evicted && w.Left < end {
			n++
		}
	}
	return n
}

func reproduceMLLess(args []string, stdout, stderr io.Writer) int {
	var f mllessFlags
	fs := flag.NewFlagSet("syncbench reproduce mlless", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	f.args = args
	return reportCommand("mlless", fs, args, f.check, &f.out, func(ctx context.Context, start time.Time) error {
		scale := mllessFull
		if f.quick {
			scale = mllessQuick
		}
		cases, err := runMLLess(ctx, &f, scale, stderr)
		if err != nil {
			return err
		}
		return writeMLLessReport(&f, cases, time.Since(start))
	}, stdout, stderr)
}

// mllessJob is one run to do.
type mllessJob struct {
	c    *mllessCase
	r    *mllessRun
	alg  algorithms.Algorithm
	cost float64 // a rough estimate of the run's wall time, to start the longest first
}

// runMLLess loads every workload and runs its reference run, derives the
// targets from them, then runs every other run until its target (or its
// run length), GOMAXPROCS at a time (the results do not depend on the
// order).
func runMLLess(ctx context.Context, f *mllessFlags, scale mllessScale, stderr io.Writer) ([]*mllessCase, error) {
	var cases []*mllessCase
	var jobs []mllessJob
	for _, w := range mllessWorkloads(scale, f.movielens) {
		if !f.only[w.key] {
			continue
		}
		d, err := w.load(f.seed)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", w.key, err)
		}
		c := &mllessCase{w: w, d: d, algs: map[float64]algorithms.Algorithm{}, byKey: map[string]*mllessRun{}}
		cases = append(cases, c)
		c.plan()
		for _, r := range c.runs {
			if r.f, err = c.flagsFor(r, f.seed); err != nil {
				return nil, err
			}
			r.p = r.f.plans[0]
			alg := c.algs[r.lr]
			if alg == nil {
				if alg, err = build(&r.f.workloadFlags, d); err != nil {
					return nil, fmt.Errorf("%s: %w", w.key, err)
				}
				c.algs[r.lr] = alg
			}
			if r.tuned {
				if r.tuner, err = c.newTuner(r.workers); err != nil {
					return nil, fmt.Errorf("%s %s: %w", w.key, r.key(), err)
				}
			}
			_, dim := d.shape()
			jobs = append(jobs, mllessJob{c: c, r: r, alg: alg, cost: float64(r.f.duration.Seconds() * fpdet.Log2(float64(dim)))})
		}
	}
	// The reference runs first: they fix the targets the others stop at.
	var refs, rest []mllessJob
	for _, j := range jobs {
		if j.r == j.c.sweep()[0] {
			refs = append(refs, j)
		} else {
			rest = append(rest, j)
		}
	}
	pr := &progress{w: stderr, prefix: "syncbench reproduce mlless", total: len(jobs)}
	if err := runMLLessJobs(ctx, refs, pr); err != nil {
		return nil, err
	}
	for _, c := range cases {
		c.initial, c.ref, c.target, c.stopAt = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		if res := c.sweep()[0].res; res != nil && res.Final < res.Curve[0].Objective {
			c.initial, c.ref = res.Curve[0].Objective, res.Final
			c.target = c.initial - float64(mllessTargetFraction*(c.initial-c.ref))
			c.stopAt = c.target - float64(mllessStopMargin*(c.initial-c.ref))
		}
	}
	if err := runMLLessJobs(ctx, rest, pr); err != nil {
		return nil, err
	}
	return cases, nil
}

// runMLLessJobs runs jobs, the longest first, GOMAXPROCS at a time; pr
// counts the finished runs of the whole report, for the progress lines.
// Jobs of a case whose target is known stop at it.
func runMLLessJobs(ctx context.Context, jobs []mllessJob, pr *progress) error {
	slices.SortStableFunc(jobs, func(a, b mllessJob) int { return cmp.Compare(b.cost, a.cost) })
	return runParallel(ctx, jobs, func(ctx context.Context, j mllessJob) error {
		start := time.Now()
		name := j.c.w.key + " " + j.r.key()
		e, err := j.r.f.experimentFor(ctx, j.alg, j.r.p)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if !math.IsNaN(j.c.stopAt) {
			e.Target, e.HasTarget = j.c.stopAt, true
			e.Stop = harness.Stop{AtTarget: true, Check: e.EvalEvery}
		}
		if j.r.tuned {
			e.ScaleIn = j.r.tuner
			e.Name += "+scale-in"
		}
		res, err := harness.Run(ctx, e)
		var nf *algorithms.NonFiniteError
		switch {
		case errors.As(err, &nf) || errors.Is(err, scalein.ErrNonFinite):
			// A diverged run is a result (it never reaches the target),
			// not a failure of the report.
			j.r.diverged = err
		case err != nil:
			return fmt.Errorf("%s: %w", name, err)
		}
		j.r.res = res
		pr.step("%s: %.1f s", name, time.Since(start).Seconds())
		return nil
	})
}
