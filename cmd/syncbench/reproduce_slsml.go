package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/logreg"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/exchange/redisx"
	"github.com/syncmodels/syncmodels/latency"
	"github.com/syncmodels/syncmodels/slsml"
)

// `syncbench reproduce slsml` reruns slsML's experiments ("slsML: Towards
// elastic ML infrastructure on AWS Lambda", §"Mitigating stragglers" and
// §"Summary of experiments", Fig. 4) with package slsml: the pipeline's
// time per iteration against the number of workers with and without the
// 90% counting semaphore under tail latency, and its cost per epoch
// against workers and reducers. Every run goes through a real store (in
// process by default, Redis with -exchange) in virtual time, so the same
// flags and seed write the same report on either.

// The paper's workload (§"S3 as distributed shared memory", §"Summary of
// experiments"): ResNet-50, 180 MB of weights, about a million images an
// epoch, mini-batches of 8K (feasible) and 32K (hypothetical).
const (
	slsmlModelBytes = 180e6
	slsmlEpoch      = 1_000_000
	slsmlBatch8K    = 8192
	slsmlBatch32K   = 32768
)

// slsmlTiming is the cost model of the report (slsml.Timing's fields not
// set take the package's defaults: warm start 10 ms, 20 ms trigger, 10 min
// keep-alive, 100 ms retry):
//
//   - PerPoint 300 ms: ResNet-50's forward and backward pass on a 3008 MB
//     Lambda (about 1.8 vCPUs, no GPU) at about 3 images/s; with 8
//     workers and 8K mini-batches a worker then computes 1,024 images an
//     iteration in 5.1 min, the paper's "each worker running for up to 5
//     minutes".
//   - ModelBytes 180 MB (the paper's), over 80 MB/s per function, a
//     typical Lambda–S3 rate.
//   - ColdStart 3 s: a Lambda container loading the paper's stripped
//     TensorFlow (a choice; the paper gives none).
//   - Store: latency.Default() — 5 ms median, one request in 10,000 from
//     a Pareto tail of scale 10 s (α = 1.5; 6.8% of those exceed 60 s,
//     the paper's "sometimes exceeded 60 seconds").
func slsmlTiming() slsml.Timing {
	return slsml.Timing{ColdStart: 3 * time.Second, PerPoint: 300 * time.Millisecond,
		Bandwidth: 80e6, ModelBytes: slsmlModelBytes, Store: latency.Default()}
}

// slsmlScale sizes the report.
type slsmlScale struct {
	workers    []int // the W sweep (Fig. 4's x axis)
	reducerDiv int   // R = max(1, W/reducerDiv) in the sweeps
	gridW      []int // the workers × reducers cost grid
	gridR      []int
	iters      int // iterations simulated per run
	seeds      int // runs (seeds) per cell
	params     int // θ's length (≥ every R)
}

var (
	slsmlFull  = slsmlScale{workers: []int{8, 16, 32, 64, 128, 256, 512}, reducerDiv: 8, gridW: []int{32, 128, 512}, gridR: []int{1, 4, 16, 64}, iters: 6, seeds: 5, params: 128}
	slsmlQuick = slsmlScale{workers: []int{8, 16, 32}, reducerDiv: 8, gridW: []int{16}, gridR: []int{1, 4}, iters: 3, seeds: 2, params: 16}
)

// reducers is the sweeps' R for W workers.
func (s slsmlScale) reducers(w int) int { return max(1, w/s.reducerDiv) }

// slsmlCell is a set of runs that differ only in their seed.
type slsmlCell struct {
	w, r, batch int
	q           float64
	// noTail: the store's latency without its tail (the body of
	// latency.Default() only), the reference for straggled iterations.
	noTail bool
	runs   []slsmlRun
}

func (c *slsmlCell) key() string {
	k := fmt.Sprintf("W=%d R=%d batch=%d quorum=%g", c.w, c.r, c.batch, c.q)
	if c.noTail {
		k += " no-tail"
	}
	return k
}

// timing is the cell's cost model.
func (c *slsmlCell) timing() slsml.Timing {
	t := slsmlTiming()
	if c.noTail {
		t.Store = latency.Dist{Median: t.Store.Median, Sigma: t.Store.Sigma}
	}
	return t
}

// slsmlRun is what the report keeps of one run.
type slsmlRun struct {
	seed uint64
	// first is iteration 0 (cold starts); steady the others; reduce the
	// steady iterations' time from the semaphore to the published model.
	first         time.Duration
	steady        []time.Duration
	reduce        []time.Duration
	epochTime     float64 // seconds: first + (iterations an epoch − 1) × mean(steady)
	epochCost     float64 // dollars: the run's bill ÷ iterations × iterations an epoch
	parts         [slsmlParts]float64
	epochTB       float64 // modelled S3 traffic an epoch, TB
	written       int
	applied       int
	folded, ended int
	objective     float64 // training loss of θ_K
}

// Cost parts, per epoch.
const (
	partWorkers = iota
	partReducers
	partOtherFns // merger and launchers
	partPut
	partGet
	partOtherReq // DynamoDB, SNS, invocations
	slsmlParts
)

var partNames = [slsmlParts]string{"workers (Lambda)", "reducers (Lambda)", "merger and launchers (Lambda)", "S3 PUT", "S3 GET", "DynamoDB, SNS, invocations"}

// iterationsPerEpoch is how many iterations an epoch of the paper's
// million images takes at mini-batch size batch.
func iterationsPerEpoch(batch int) float64 { return slsmlEpoch / float64(batch) }

// slsmlPlan holds every cell of the report, each once.
type slsmlPlan struct {
	s     slsmlScale
	seed  uint64
	cells []*slsmlCell
	byKey map[string]*slsmlCell
}

func (p *slsmlPlan) cell(w, r, batch int, q float64) *slsmlCell {
	return p.add(&slsmlCell{w: w, r: r, batch: batch, q: q})
}

// add returns c's cell, adding c the first time.
func (p *slsmlPlan) add(c *slsmlCell) *slsmlCell {
	if old, ok := p.byKey[c.key()]; ok {
		return old
	}
	p.byKey[c.key()] = c
	p.cells = append(p.cells, c)
	return c
}

// sweep returns the W sweep's cells at a batch size and quorum.
func (p *slsmlPlan) sweep(batch int, q float64) []*slsmlCell {
	var cs []*slsmlCell
	for _, w := range p.s.workers {
		cs = append(cs, p.cell(w, p.s.reducers(w), batch, q))
	}
	return cs
}

// baseline returns the barrier cell of the 8K sweep without tail latency
// for cell c's W.
func (p *slsmlPlan) baseline(c *slsmlCell) *slsmlCell {
	return p.add(&slsmlCell{w: c.w, r: p.s.reducers(c.w), batch: slsmlBatch8K, q: 1, noTail: true})
}

// grid returns the cost grid's cells (8K, quorum 0.9), by W then R.
func (p *slsmlPlan) grid() [][]*slsmlCell {
	var g [][]*slsmlCell
	for _, w := range p.s.gridW {
		var row []*slsmlCell
		for _, r := range p.s.gridR {
			row = append(row, p.cell(w, r, slsmlBatch8K, slsml.DefaultQuorum))
		}
		g = append(g, row)
	}
	return g
}

func (p *slsmlPlan) plan() {
	for _, c := range p.sweep(slsmlBatch8K, 1) {
		p.baseline(c)
	}
	p.sweep(slsmlBatch8K, slsml.DefaultQuorum)
	p.sweep(slsmlBatch32K, slsml.DefaultQuorum)
	p.grid()
}

// slsmlFlags are the flags of `syncbench reproduce slsml`.
type slsmlFlags struct {
	out      string
	quick    bool
	seed     uint64
	seeds    int
	iters    int
	exchange string
	args     []string
}

func (f *slsmlFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.out, "out", "docs/reproduce", "directory of the report: writes OUT/slsml.md and OUT/slsml/runs.csv")
	fs.BoolVar(&f.quick, "quick", false, "a small report (up to 32 workers, 3 iterations, 2 seeds; seconds): checks the pipeline, the numbers mean little")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed: θ0 and the data; run i of a cell uses seed+i (the store's delays)")
	fs.IntVar(&f.seeds, "seeds", 0, "runs (seeds) per cell; 0 = 5, 2 with -quick")
	fs.IntVar(&f.iters, "iters", 0, "iterations simulated per run (an epoch is extrapolated from them); 0 = 6, 3 with -quick")
	fs.StringVar(&f.exchange, "exchange", "", "the store: empty for the in-process one (exchange.Memory), or redis://HOST:PORT for a real Redis (each run in a namespace of its own); same seed, same report")
}

func (f *slsmlFlags) check() error {
	switch {
	case f.seeds < 0:
		return fmt.Errorf("-seeds %d: want ≥ 1 (0 = the default)", f.seeds)
	case f.iters < 0 || f.iters == 1:
		return fmt.Errorf("-iters %d: want ≥ 2 (the first iteration has the cold starts; 0 = the default)", f.iters)
	case f.exchange != "" && !strings.HasPrefix(f.exchange, "redis://") && !strings.HasPrefix(f.exchange, "rediss://"):
		return fmt.Errorf("-exchange %q: want redis://HOST:PORT (or nothing for the in-process store)", f.exchange)
	}
	return nil
}

func reproduceSlsML(args []string, stdout, stderr io.Writer) int {
	var f slsmlFlags
	fs := flag.NewFlagSet("syncbench reproduce slsml", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	f.args = args
	return reportCommand("slsml", fs, args, f.check, &f.out, func(ctx context.Context, start time.Time) error {
		s := slsmlFull
		if f.quick {
			s = slsmlQuick
		}
		if f.seeds > 0 {
			s.seeds = f.seeds
		}
		if f.iters > 0 {
			s.iters = f.iters
		}
		p := &slsmlPlan{s: s, seed: f.seed, byKey: map[string]*slsmlCell{}}
		p.plan()
		if err := runSlsML(ctx, &f, p, stderr); err != nil {
			return err
		}
		return writeSlsMLReport(&f, p, time.Since(start))
	}, stdout, stderr)
}

// slsmlData is the report's workload: dense logistic regression (Adam) on
// synthetic data, standing in for ResNet-50; the timing model charges
// ResNet-50's compute and sizes.
type slsmlData struct{ data *dataset.Dense }

// algorithm returns the workload for mini-batch size batch: twice a
// mini-batch of points, so that each worker's shard is two of its batches.
func (d *slsmlData) algorithm(batch int) (algorithms.Algorithm, error) {
	n := 2 * batch
	sub := &dataset.Dense{N: n, D: d.data.D, X: d.data.X[:n*d.data.D], Labels: d.data.Labels[:n]}
	return logreg.NewDense(sub, logreg.Config{Lambda: 1e-4,
		Optim: optim.Config{Method: optim.Adam, LR: 0.02, Epsilon: 1e-9}})
}

// openStore opens the store of run i: in process, or a fresh namespace on
// the -exchange Redis (tag makes it unique to this invocation).
func (f *slsmlFlags) openStore(ctx context.Context, tag string, i int) (exchange.Store, error) {
	if f.exchange == "" {
		return exchange.NewMemory().Open("slsml", exchange.Limits{})
	}
	return redisx.Open(ctx, f.exchange, redisx.Config{Namespace: fmt.Sprintf("slsml-%s-%d", tag, i)})
}

// runSlsML runs every run of the plan, GOMAXPROCS at a time, each into
// its own slot so that the report does not depend on the order.
func runSlsML(ctx context.Context, f *slsmlFlags, p *slsmlPlan, stderr io.Writer) error {
	rng := rand.New(rand.NewPCG(p.seed, 0x736c736d6c))
	data, _ := dataset.Logistic(rng, 2*slsmlBatch32K, p.s.params-1)
	d := &slsmlData{data: data}
	algs := map[int]algorithms.Algorithm{}
	for _, b := range []int{slsmlBatch8K, slsmlBatch32K} {
		alg, err := d.algorithm(b)
		if err != nil {
			return err
		}
		algs[b] = alg
	}
	type slot struct {
		c    *slsmlCell
		i, k int // run i of cell c, job k
	}
	var jobs []slot
	for _, c := range p.cells {
		c.runs = make([]slsmlRun, p.s.seeds)
		for i := range p.s.seeds {
			jobs = append(jobs, slot{c, i, len(jobs)})
		}
	}
	tag := fmt.Sprintf("%x", time.Now().UnixNano())
	pr := &progress{w: stderr, prefix: "syncbench reproduce slsml", total: len(jobs)}
	return runParallel(ctx, jobs, func(ctx context.Context, j slot) error {
		start := time.Now()
		seed := p.seed + uint64(j.i)
		cfg := slsml.Config{Workers: j.c.w, Reducers: j.c.r, Iterations: p.s.iters, Batch: j.c.batch / j.c.w,
			Quorum: j.c.q, Seed: seed, Timing: j.c.timing()}
		store, err := f.openStore(ctx, tag, j.k)
		if err != nil {
			return fmt.Errorf("%s seed %d: %w", j.c.key(), seed, err)
		}
		defer store.Close()
		alg := algs[j.c.batch]
		res, err := slsml.Run(ctx, store, alg, cfg)
		if err == nil {
			err = slsml.Check(res.Trace)
		}
		if err != nil {
			return fmt.Errorf("%s seed %d: %w", j.c.key(), seed, err)
		}
		j.c.runs[j.i] = summarizeSlsML(res, alg, j.c, seed)
		pr.step("%s seed %d: %.1f s", j.c.key(), seed, time.Since(start).Seconds())
		return nil
	})
}

// summarizeSlsML keeps what the report needs of a run.
func summarizeSlsML(res *slsml.Result, alg algorithms.Algorithm, c *slsmlCell, seed uint64) slsmlRun {
	r := slsmlRun{seed: seed, first: res.Iterations[0].Duration(), written: res.Counts.Written, applied: res.Counts.Applied,
		folded: res.Counts.Folded, ended: res.Counts.Ended}
	var sum time.Duration
	for _, it := range res.Iterations[1:] {
		r.steady = append(r.steady, it.Duration())
		r.reduce = append(r.reduce, it.End-it.Quorum)
		sum += it.Duration()
	}
	k := float64(len(res.Iterations))
	ipe := iterationsPerEpoch(c.batch)
	mean := sum.Seconds() / float64(len(r.steady))
	r.epochTime = r.first.Seconds() + float64((ipe-1)*mean)
	scale := ipe / k
	r.epochCost = res.Bill.Total * scale
	r.epochTB = float64(res.Bytes) * scale / 1e12
	for _, ln := range res.Bill.Functions.Lines {
		part := partOtherFns
		switch {
		case strings.HasPrefix(ln.Resource.Name, "worker/"):
			part = partWorkers
		case strings.HasPrefix(ln.Resource.Name, "reducer/"):
			part = partReducers
		}
		r.parts[part] += float64(ln.Cost * scale)
	}
	for _, ln := range res.Bill.Requests.Lines {
		part := partOtherReq
		switch ln.Name {
		case "s3-put":
			part = partPut
		case "s3-get":
			part = partGet
		}
		r.parts[part] += float64(ln.Cost * scale)
	}
	all := make([]int, alg.NumPoints())
	for i := range all {
		all[i] = i
	}
	w, _ := alg.NewWorker(all)
	w.SetParams(res.Model)
	r.objective = alg.Objective(res.Model, w.Evaluate())
	return r
}
