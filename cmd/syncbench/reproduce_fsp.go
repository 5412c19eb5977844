package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/harness"
)

// `syncbench reproduce fsp` reruns the evaluation of the FSP paper (Wang
// et al., "FSP: Towards Flexible Synchronous Parallel Frameworks for
// Distributed Machine Learning", TPDS 2022, §6) in virtual time:
//
//   - Figs. 7 and 8: the time to a target objective of BSPB, BSPV, ASP,
//     FSPB and FSPV for K-means, GMM, FCM, LR and NMF on synthetic data
//     shaped like Table 1's (scaled down), and on Fashion-MNIST when it is
//     installed, under Injected and Natural stragglers and without;
//   - Figs. 11 and 12: FSPV with data migration and semi-centralized
//     timers (FSPV+opt), and the passes and contributions per worker;
//   - Fig. 13: the synchronization cost of centralized against
//     semi-centralized coordination;
//   - Fig. 15: the time to target of FSP at fixed intervals η on a log
//     grid, on several seeds, against the interval FSPV chose and its time
//     to target.
//
// Every run is a `syncbench compare` run (the same flags, presets and
// defaults; see fspWorkload.flagsFor), so the numbers mean what compare's mean.
// The report is deterministic: the same flags and seed write the same
// Markdown and PNGs on any machine, except the line with the wall time.

// fspSystems are the configurations of Figs. 7 and 8, in the order of the
// report's columns: parsePlan names (presets.go). FSPV+opt is FSPV with
// data migration and semi-centralized timers (§6, Fig. 11); Fig. 12's runs
// are in reproduce_fsp_migrate.go.
var fspSystems = []string{"bspb", "bspv", "asp", "fspb", "fspv", "fspv+opt"}

// fspSetting is a straggler setting of §6.2.
type fspSetting struct {
	key   string   // names files and CSV rows
	label string   // names table columns
	args  []string // compare flags
}

// fspSettings: Injected (τ = 32 ms every 1,000 points) and Natural (4×
// slower), both on 4 of 16 workers, the paper's defaults (§6.1, §6.2); and
// none (Fig. 8).
var fspSettings = []fspSetting{
	{"injected", "Injected", []string{"-stragglers", "4", "-straggler-kind", "injected", "-tau", "32ms", "-every", "1000"}},
	{"natural", "Natural", []string{"-stragglers", "4", "-straggler-kind", "natural", "-slowdown", "4"}},
	{"none", "no stragglers", []string{"-stragglers", "0"}},
}

// fspSweepSetting is the setting of the interval sweep (Fig. 15 uses
// Injected).
const fspSweepSetting = 0

// fspSemiSetting is the setting of Fig. 13's comparison of centralized
// and semi-centralized coordination (the paper's Natural).
const fspSemiSetting = 1

// fspAcceptance is the criterion: FSPV's time to target within
// this factor of the best fixed interval's.
const fspAcceptance = 1.25

// fspWorkload is an algorithm on a data set standing in for one of Table
// 1's.
type fspWorkload struct {
	key   string // names files and CSV rows
	label string // names table rows
	short string // names figure axes
	paper string // the Table 1 data set it stands in for
	// args are compare's workload flags (-algo, -k, -lr, …) and -duration.
	args []string
	// load makes the data set from the seed, nil if it is not available
	// (a note says why).
	load  func(seed uint64) (*data, string, error)
	sweep bool // run the Fig. 15 interval sweep on it
}

// fspScale gives the data sizes and run lengths: the full report, or
// -quick's tiny version that only checks the pipeline.
type fspScale struct {
	n        int           // points of the dense synthetic sets
	nmfRows  int           // rows of the NMF matrix
	fmnist   int           // Fashion-MNIST images used; 0 = all 60,000
	duration time.Duration // per run; some workloads take a multiple
	migN     int           // points of Fig. 12's data sets
	// sweepSteps is the number of fixed intervals of the sweep: P/2^k
	// for k = sweepSteps−1 … 0, P the time a full-speed worker takes for
	// a pass over its shard (the longest interval that is not cut short
	// by the early trigger). The full grid covers FSPV's first probe
	// (P/64) and most of its range (one point's time … P; a point is
	// P/3000 at full scale); -quick's stops at that first probe.
	sweepSteps int
	// sweepSnapshots is how many objective snapshots a run of the sweep
	// takes (every run length/sweepSnapshots), FSPV's rerun included: the
	// full report takes 5 times compare's grid, so that times to target a
	// few snapshots long (LR's best is) are resolved well within the
	// acceptance factor.
	sweepSnapshots int
	// sweepSeeds is how many seeds the sweep runs, the report's seed and
	// the next ones: each changes θ0, the sharding and which workers
	// straggle, not the data set. A single seed's curve is jagged where
	// runs settle in different local optima (K-means), and the best of
	// ten fixed η on one seed is biased low; the report gives every seed
	// and the medians.
	sweepSeeds int
}

var (
	fspFull  = fspScale{n: 48000, nmfRows: 8000, duration: time.Second, migN: 256000, sweepSteps: 10, sweepSnapshots: 500, sweepSeeds: 10}
	fspQuick = fspScale{n: 1000, nmfRows: 400, fmnist: 1000, duration: 30 * time.Millisecond, migN: 1600, sweepSteps: 7, sweepSnapshots: 100, sweepSeeds: 2}
)

// blobsData makes Gaussian blobs as synthetic:blobs draws them (the same
// seeding), with the spread and cluster count given.
func blobsData(n, d, k int, spread float64) func(uint64) (*data, string, error) {
	return func(seed uint64) (*data, string, error) {
		rng := rand.New(rand.NewPCG(seed, 0xda7a))
		return &data{spec: fmt.Sprintf("synthetic:blobs (%d Gaussian blobs, spread %g)", k, spread), dense: dataset.Blobs(rng, n, d, k, spread)}, "", nil
	}
}

// syntheticData makes synthetic:NAME data of n points of dimension d.
func syntheticData(name string, n, d int) func(uint64) (*data, string, error) {
	return func(seed uint64) (*data, string, error) {
		dd, err := loadData("synthetic:"+name, synthSize{n, d}, seed)
		return dd, "", err
	}
}

// fspWorkloads lists the workloads of the report at scale s; fmnist is the
// Fashion-MNIST directory ("" skips it).
func fspWorkloads(s fspScale, fmnist string) []fspWorkload {
	dur := func(x float64) string { return time.Duration(x * float64(s.duration)).String() }
	blobs, synth := blobsData, syntheticData
	fm := func(seed uint64) (*data, string, error) {
		if fmnist == "" {
			return nil, "Fashion-MNIST skipped (-fashion-mnist \"\")", nil
		}
		if _, err := os.Stat(fmnist); err != nil {
			return nil, fmt.Sprintf("Fashion-MNIST not installed (%s: %v; `apt-get install dataset-fashion-mnist`)", fmnist, errors.Unwrap(err)), nil
		}
		d, err := loadData("idx:"+fmnist, synthSize{}, seed)
		if err != nil {
			return nil, "", err
		}
		return firstPoints(d, s.fmnist, "images"), "", nil
	}
	return []fspWorkload{
		{key: "kmeans", label: "K-means", short: "KMs", paper: "MASS (7,000,000×27)", sweep: true,
			args: []string{"-algo", "kmeans", "-k", "16", "-duration", dur(2)},
			load: blobs(s.n, 27, 16, 10)},
		{key: "gmm", label: "GMM", short: "GMM", paper: "SUSY (5,000,000×18)",
			args: []string{"-algo", "gmm", "-k", "8", "-duration", dur(3)},
			load: blobs(s.n, 18, 8, 10)},
		{key: "fcm", label: "FCM", short: "FCM", paper: "MASS (7,000,000×27)",
			args: []string{"-algo", "fcm", "-k", "16", "-duration", dur(0.5)},
			load: blobs(s.n, 27, 16, 10)},
		{key: "lr", label: "LR", short: "LR", paper: "HIGGS (11,000,000×28)", sweep: true,
			args: []string{"-algo", "lr", "-lr", "0.01", "-duration", dur(2)},
			load: synth("logistic", s.n, 28)},
		{key: "nmf", label: "NMF", short: "NMF", paper: "ML10M (69,877×10,681)",
			args: []string{"-algo", "nmf", "-rank", "10", "-duration", dur(2)},
			load: synth("nonneg", s.nmfRows, 256)},
		{key: "kmeans-fmnist", label: "K-means, Fashion-MNIST", short: "KMs F-MNIST", paper: "— (not in Table 1)",
			args: []string{"-algo", "kmeans", "-k", "10", "-float32", "-duration", dur(1.5)},
			load: fm},
		{key: "lr-fmnist", label: "LR, Fashion-MNIST", short: "LR F-MNIST", paper: "— (not in Table 1)",
			args: []string{"-algo", "lr", "-positive", "0", "-lr", "0.01", "-duration", dur(2)},
			load: fm},
	}
}

// firstPoints keeps the first n points of dense data d (all of them if n
// is 0 or at least d's size) and says so in its spec.
func firstPoints(d *data, n int, what string) *data {
	if n <= 0 || d.dense == nil || n >= d.dense.N {
		return d
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return &data{spec: fmt.Sprintf("%s (first %d %s)", d.spec, n, what), dense: d.dense.Subset(idx)}
}

// fspFlags are the flags of `syncbench reproduce fsp`.
type fspFlags struct {
	out    string
	quick  bool
	seed   uint64
	algos  string
	fmnist string
	only   map[string]bool
	args   []string // as given, for the report
	// profilePath and profile are -profile: the runs' costs from a cost
	// profile (nil: compare's defaults).
	profilePath string
	profile     *harness.Profile
}

func (f *fspFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.out, "out", "docs/reproduce", "directory of the report: writes OUT/fsp.md and OUT/fsp/*.png, *.csv")
	fs.BoolVar(&f.quick, "quick", false, "tiny data and runs (seconds): checks the pipeline, the numbers mean little")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed: data generation, θ0, sharding, which workers straggle")
	fs.StringVar(&f.algos, "algos", "kmeans,gmm,fcm,lr,nmf", "comma-separated algorithms to run (kmeans, gmm, fcm, lr, nmf)")
	fs.StringVar(&f.fmnist, "fashion-mnist", dataset.FashionMNISTDir, "Fashion-MNIST directory; \"\" skips the Fashion-MNIST workloads")
	fs.StringVar(&f.profilePath, "profile", "", "a cost profile (syncbench calibrate): each workload's compute per point, the apply and the in-process messages' costs measured on a machine, with a core per worker (a cluster of such machines); empty = compare's fixed defaults")
}

func (f *fspFlags) check() error {
	if f.profilePath != "" {
		p, err := harness.LoadProfile(f.profilePath)
		if err != nil {
			return fmt.Errorf("-profile: %v", err)
		}
		f.profile = p
	}
	f.only = map[string]bool{}
	for a := range strings.SplitSeq(f.algos, ",") {
		a = strings.TrimSpace(a)
		switch a {
		case "kmeans", "gmm", "fcm", "lr", "nmf":
			f.only[a] = true
		default:
			return fmt.Errorf("-algos %q: %q is not one of kmeans, gmm, fcm, lr, nmf", f.algos, a)
		}
	}
	return nil
}

// fspCase is one workload's runs and what is derived from them.
type fspCase struct {
	w    fspWorkload
	note string // why the workload was skipped; "" if it ran
	alg  algorithms.Algorithm
	d    *data
	// flags per setting: what `syncbench compare` would run.
	flags [](*compareFlags)
	// runs per setting, per system (fspSystems order).
	runs [][]*harness.Result
	// the interval sweep (fspSweepSetting, on the finer snapshot grid of
	// sweepFlags, the report's seed's): etas and their runs per seed
	// (sweep[k][i]: seed sweepSeeds[k], interval etas[i]), and FSPV's run
	// on the same grid per seed.
	// semi is FSPV with semi-centralized timers (fspv+semi) in
	// fspSemiSetting, for Fig. 13 beside that setting's fspv run.
	semi       *harness.Result
	sweepFlags *compareFlags
	etas       []time.Duration
	sweepSeeds []uint64
	sweep      [][]*harness.Result
	sweepFSPV  []*harness.Result
	// initial is the objective at θ0; best the best final objective over
	// runs (every setting); target is derived from them as compare does.
	initial, best, target float64
	minimize              bool
}

// ttt is r's time to the case's target, -1 if not reached.
func (c *fspCase) ttt(r *harness.Result) time.Duration {
	return harness.TimeTo(r.Curve, c.target, c.minimize)
}

// flagsFor returns the compare flags of the workload in setting s.
func (w *fspWorkload) flagsFor(s fspSetting, seed uint64, syncs []string) (*compareFlags, error) {
	var f compareFlags
	fs := flag.NewFlagSet("reproduce fsp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.register(fs)
	args := append(slices.Clone(w.args), s.args...)
	args = append(args, "-seed", strconv.FormatUint(seed, 10), "-sync", strings.Join(syncs, ","))
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("%s: %v", w.key, err)
	}
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("%s: %v", w.key, err)
	}
	return &f, nil
}

// costs sets cf's cost model from -profile, if given, for data d: the
// profile's costs with a core per worker (the report's semi-centralized
// and migrating presets do not run on shared cores).
func (f *fspFlags) costs(cf *compareFlags, d *data) error {
	if f.profile == nil {
		return nil
	}
	cf.profilePath, cf.profile, cf.transport, cf.cores = f.profilePath, f.profile, "inproc", 0
	return cf.applyProfile(d)
}

// shardPass is P: the time a full-speed worker takes for a pass over its
// shard.
func shardPass(alg algorithms.Algorithm, f *compareFlags) time.Duration {
	return time.Duration(alg.NumPoints()/f.workers) * f.pointCost
}

// fspJob is one run.
type fspJob struct {
	c    *fspCase
	f    *compareFlags
	p    plan
	name string // for progress lines
	out  **harness.Result
	cost float64 // a rough estimate of the run's wall time, to start the longest first
}

// jobCost estimates the wall time of a run of f on d: its virtual length
// times a per-point cost that grows with the dimension and, for the
// clustering and factorization workloads, with k or the rank.
func jobCost(f *compareFlags, d *data) float64 {
	_, dim := d.shape()
	w := float64(dim)
	switch f.algo {
	case "kmeans", "gmm", "fcm":
		w *= float64(f.k)
	case "nmf":
		w *= float64(f.rank)
	}
	return float64(f.duration.Seconds() * w)
}

// sweepJobs sets up c's interval sweep at scale s, s.sweepSeeds seeds
// from seed on, and returns its runs.
func (c *fspCase) sweepJobs(seed uint64, s fspScale) []fspJob {
	cf := *c.flags[fspSweepSetting]
	cf.evalEvery = max(cf.duration/time.Duration(s.sweepSnapshots), 1)
	c.sweepFlags = &cf
	pass := shardPass(c.alg, &cf)
	for k := s.sweepSteps - 1; k >= 0; k-- {
		c.etas = append(c.etas, pass>>k)
	}
	c.sweep = make([][]*harness.Result, s.sweepSeeds)
	c.sweepFSPV = make([]*harness.Result, s.sweepSeeds)
	var jobs []fspJob
	for k := range s.sweepSeeds {
		sf := cf
		sf.seed = seed + uint64(k)
		c.sweepSeeds = append(c.sweepSeeds, sf.seed)
		c.sweep[k] = make([]*harness.Result, len(c.etas))
		name := fmt.Sprintf("%s %s sweep seed %d ", c.w.key, fspSettings[fspSweepSetting].key, sf.seed)
		for i, eta := range c.etas {
			spec := consistency.Spec{Kind: consistency.FSP, Interval: eta}
			p := plan{name: spec.String(), spec: spec}
			jobs = append(jobs, fspJob{c: c, f: &sf, p: p, name: name + p.name, out: &c.sweep[k][i], cost: jobCost(&sf, c.d)})
		}
		jobs = append(jobs, fspJob{c: c, f: &sf, p: presets["fspv"], name: name + "fspv", out: &c.sweepFSPV[k], cost: jobCost(&sf, c.d)})
	}
	return jobs
}

func reproduceFSP(args []string, stdout, stderr io.Writer) int {
	var f fspFlags
	fs := flag.NewFlagSet("syncbench reproduce fsp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	f.args = args
	return reportCommand("fsp", fs, args, f.check, &f.out, func(ctx context.Context, start time.Time) error {
		scale := fspFull
		if f.quick {
			scale = fspQuick
		}
		cases, migs, err := runFSP(ctx, &f, scale, stderr)
		if err != nil {
			return err
		}
		return writeFSPReport(&f, scale, cases, migs, time.Since(start))
	}, stdout, stderr)
}

// runFSP loads every workload and runs every job, GOMAXPROCS at a time
// (the results do not depend on the order), then derives the targets.
func runFSP(ctx context.Context, f *fspFlags, scale fspScale, stderr io.Writer) ([]*fspCase, []*fspMigCase, error) {
	var cases []*fspCase
	var jobs []fspJob
	for _, w := range fspWorkloads(scale, f.fmnist) {
		algo := w.args[slices.Index(w.args, "-algo")+1]
		if !f.only[algo] {
			continue
		}
		c := &fspCase{w: w}
		cases = append(cases, c)
		d, note, err := w.load(f.seed)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", w.key, err)
		}
		if d == nil {
			c.note = note
			continue
		}
		c.d = d
		for _, s := range fspSettings {
			cf, err := w.flagsFor(s, f.seed, fspSystems)
			if err != nil {
				return nil, nil, err
			}
			if c.alg == nil {
				if c.alg, err = build(&cf.workloadFlags, d); err != nil {
					return nil, nil, fmt.Errorf("%s: %w", w.key, err)
				}
				c.minimize = c.alg.Minimize()
			}
			// ASP commits 1/32 of a shard (the paper's finer ASP, §6.4);
			// the other systems ignore -batch.
			cf.batch = max(c.alg.NumPoints()/cf.workers/32, 1)
			cf.pointBytes = pointBytes(d)
			if err := f.costs(cf, d); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", w.key, err)
			}
			c.flags = append(c.flags, cf)
			c.runs = append(c.runs, make([]*harness.Result, len(cf.plans)))
			for i, p := range cf.plans {
				jobs = append(jobs, fspJob{c: c, f: cf, p: p, name: w.key + " " + s.key + " " + p.name, out: &c.runs[len(c.runs)-1][i], cost: jobCost(cf, d)})
			}
		}
		sf := c.flags[fspSemiSetting]
		jobs = append(jobs, fspJob{c: c, f: sf, p: presets["fspv+semi"], name: w.key + " " + fspSettings[fspSemiSetting].key + " fspv+semi", out: &c.semi, cost: jobCost(sf, d)})
		if w.sweep {
			jobs = append(jobs, c.sweepJobs(f.seed, scale)...)
		}
	}
	migs, mjobs, err := fig12Jobs(f, scale)
	if err != nil {
		return nil, nil, err
	}
	jobs = append(jobs, mjobs...)
	slices.SortStableFunc(jobs, func(a, b fspJob) int { return cmp.Compare(b.cost, a.cost) })
	pr := &progress{w: stderr, prefix: "syncbench reproduce fsp", total: len(jobs)}
	err = runParallel(ctx, jobs, func(ctx context.Context, j fspJob) error {
		start := time.Now()
		e, err := j.f.experimentFor(ctx, j.c.alg, j.p)
		if err != nil {
			return fmt.Errorf("%s: %w", j.name, err)
		}
		r, err := harness.Run(ctx, e)
		if err != nil {
			return fmt.Errorf("%s: %w", j.name, err)
		}
		*j.out = r
		pr.step("%s: %.1f s", j.name, time.Since(start).Seconds())
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	for _, c := range cases {
		if c.note != "" {
			continue
		}
		c.initial = c.runs[0][0].Curve[0].Objective
		var finals []float64
		for _, rs := range c.runs {
			for _, r := range rs {
				finals = append(finals, r.Final)
			}
		}
		c.best, c.target = deriveTarget(c.initial, finals, c.minimize)
	}
	deriveMigTargets(migs)
	return cases, migs, nil
}
