package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/arrival"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/latency"
	"github.com/syncmodels/syncmodels/preempt"
)

// The default comparison (`syncbench` with no arguments) is logistic
// regression (Adam, learning rate 0.005) on the 50,000×100 synthetic
// logistic data set, 16 workers committing 500-point mini-batches, 4 of them
// pausing τ = 32 ms after every 1,000 points (FSP paper §6.1), for 4 s of
// virtual time per model. It takes 2–5 s on two cores.
//
// Why this workload: K-means on the default blobs converges within the
// first snapshot under every model, so the table shows nothing but the
// waiting. Logistic regression keeps improving for seconds, and the table
// shows both sides of the trade-off. BSP and quorum:0.9 (15 of 16) wait for
// the stragglers every round: more than half their time waiting, a quarter
// of the versions, about 4× the time to target of the same run with
// -stragglers 0. quorum:0.75 (12 of 16) leaves the stragglers out of each
// round and matches the straggler-free BSP. SSP(3) and ASP apply every
// 500-point commit as its own optimizer step, so they get near the optimum
// first, but their stale, small-batch steps stall above the best final
// objective. The learning rate is 0.005 rather than train's 0.05 because
// at 0.05 those per-commit Adam steps make SSP and ASP diverge. See
// docs/compare.md.
var compareDefaults = struct {
	algo     string
	lr       map[string]float64 // by algorithm, when -lr is 0
	batch    int
	duration time.Duration
	syncs    string
}{
	algo:     "lr",
	lr:       map[string]float64{"lr": 0.005},
	batch:    500,
	duration: 4 * time.Second,
	syncs:    "bsp,ssp:3,asp,quorum:0.9,quorum:0.75",
}

// maxTime bounds every duration flag and the time of one commit: sums
// and products of virtual times stay far from int64 nanoseconds' limit
// (2,562,047 h), which would turn into negative times.
const maxTime = 1000 * time.Hour

// maxSnapshots bounds -duration / -eval-every: each snapshot is a pass
// over the data after the run, and a stray unit (1ns) would take hours.
const maxSnapshots = 10000

// targetFraction is the share of the best run's improvement over θ0 that
// the derived target asks for.
const targetFraction = 0.99

// compareFlags are the flags of `syncbench compare`.
type compareFlags struct {
	workloadFlags
	profileFlags
	workers      int
	syncList     string
	stragglers   int
	kind         string
	tau          time.Duration
	every        int
	slowdown     float64
	target       float64
	hasTarget    bool
	clock        string
	exchange     string // -exchange (exchange.go)
	exchangeNS   string
	duration     time.Duration
	evalEvery    time.Duration
	batch        int
	pointCost    time.Duration
	latency      time.Duration
	bandwidth    float64
	shuffle      bool
	indirect     bool
	replicas     bool
	storeRTT     time.Duration
	storeBW      float64
	signal       time.Duration
	jsonOut      bool
	csvDir, plot string
	plans        []plan
	// The gRPC runtime (-clock grpc, syncbench coordinator): where the
	// coordinator listens, its security, whether compare starts the
	// worker processes itself, and the runs' state.
	availability float64
	preemptible  int
	arrivals     string
	arrivalSpec  arrival.Spec
	cycle        time.Duration
	preemptStep  time.Duration
	listen       string
	net          netFlags
	spawn        bool
	coordinator  bool
	grpc         *grpcRuns
	// grpcRunCount (fidelity) is how many runs the worker processes of
	// -clock grpc serve (0: one per -sync model), and workerStats makes
	// them write what they did in each (syncbench worker -stats).
	grpcRunCount  int
	workerStats   bool
	stragglerKind harness.StragglerKind
	clockKind     harness.Clock
	// tail is -tail, tailDist what it reads (tail.go); fs is the flag set
	// registered on, to tell a -stragglers given from its default.
	tail     string
	tailDist latency.Dist
	fs       *flag.FlagSet
	// pointBytes is a data point's size on the wire (pointBytes of the
	// loaded data), for data migration.
	pointBytes int
	// theta0, if set, is every run's θ0 (startPoint's, with -target).
	theta0 []float64
}

func (f *compareFlags) register(fs *flag.FlagSet) {
	f.workloadFlags.register(fs, workloadDefaults{algo: compareDefaults.algo, k: 10, lr: compareDefaults.lr,
		seed: "data generation, θ0, sharding and which workers straggle"})
	fs.IntVar(&f.workers, "workers", 16, "workers (one data shard each)")
	fs.StringVar(&f.syncList, "sync", compareDefaults.syncs, fmt.Sprintf("comma-separated sync models to compare: bsp, bsp:full, ssp:S (S ≥ 0), asp, quorum:F (a fraction 0 < F ≤ 1 of the workers, rounded up), quorum:K (1 ≤ K ≤ -workers), fsp[:INTERVAL][:semi] (INTERVAL > 0, default %v), isp[:V] (MLLess significance filter, V ≥ 0, default %g), kgroup:K[:spread] (DOLL's K-grouping of streamed batches, see -arrivals); or the FSP paper's bspb, bspv (batch tuned by a pilot), fspb (binary-search interval), fspv (linear-fit interval), fspv+semi (with local timers), fspv+asyn (with data migration), fspv+opt (with local timers and data migration); MODEL+replicas runs bsp, ssp, asp or quorum in MLLess's replica design", consistency.DefaultInterval, consistency.DefaultThreshold))
	f.fs = fs
	fs.IntVar(&f.stragglers, "stragglers", 4, "how many workers straggle, drawn from -seed; 0 = none (with -straggler-kind tail: every worker unless given)")
	fs.StringVar(&f.kind, "straggler-kind", "injected", "injected (pause -tau after every -every points), natural (-slowdown times slower) or tail (each operation delayed by a draw from -tail)")
	fs.StringVar(&f.tail, "tail", latency.Default().String(), tailUsage)
	fs.DurationVar(&f.tau, "tau", 32*time.Millisecond, "injected straggler pause")
	fs.IntVar(&f.every, "every", 1000, "injected stragglers pause after every this many points")
	fs.Float64Var(&f.slowdown, "slowdown", 4, "natural straggler slowdown factor (≥ 1)")
	fs.Func("target", "objective whose first crossing is the time to target; it must be better than θ0's objective; default: 99% of the best run's improvement over θ0", func(s string) error {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("want a finite number")
		}
		f.target, f.hasTarget = v, true
		return nil
	})
	if !f.coordinator {
		fs.StringVar(&f.clock, "clock", "virtual", "virtual (discrete-event simulation, reproducible), real (goroutines, real sleeps) or grpc (worker processes on loopback, over gRPC with TLS)")
		fs.StringVar(&f.exchange, "exchange", "", exchangeUsage)
	}
	listen := "127.0.0.1:0"
	if f.coordinator {
		listen = ":7070"
	}
	fs.StringVar(&f.listen, "listen", listen, "the coordinator's address with -clock grpc and for syncbench coordinator")
	f.net.register(fs, false)
	fs.DurationVar(&f.duration, "duration", compareDefaults.duration, "how long each run lasts (virtual or real time)")
	fs.DurationVar(&f.evalEvery, "eval-every", 0, fmt.Sprintf("interval between objective snapshots; 0 = -duration/100 (%v for the default -duration)", compareDefaults.duration/100))
	fs.IntVar(&f.batch, "batch", compareDefaults.batch, "points per commit per worker; 0 = a full pass over the worker's shard (fsp, bsp:full and the FSP presets choose their own)")
	fs.DurationVar(&f.pointCost, "point-cost", 10*time.Microsecond, "virtual compute time of one data point")
	fs.DurationVar(&f.latency, "latency", 100*time.Microsecond, "virtual one-way message latency")
	fs.Float64Var(&f.bandwidth, "bandwidth", 1.25e9, "virtual link bandwidth, bytes per second")
	f.profileFlags.register(fs)
	fs.BoolVar(&f.shuffle, "shuffle", false, "shard a seeded permutation of the points instead of contiguous blocks")
	fs.Float64Var(&f.availability, "availability", 1, "availability α of preemptible workers, 0 < α ≤ 1 (1: never preempted): each worker is preempted and restored on a seeded two-state chain (DOLL §V-A; package preempt); with -clock grpc a preemption kills the worker's process")
	fs.IntVar(&f.preemptible, "preemptible", -1, "with -availability < 1: how many workers run on preemptible instances (workers 0 to N−1; the others run on demand and are never preempted); -1 = all (virtual clock only when not all)")
	fs.StringVar(&f.arrivals, "arrivals", "", "data streams for kgroup:K runs (DOLL §III-A): each worker receives points as a renewal process, e.g. poisson:125 (points per second per worker), poisson:1-250 (a rate per worker drawn from U(1, 250)), poisson:10,20,… (one rate per worker), gamma:2:125, fixed:125, lognormal:0.5:125; every -batch points make a batch; empty = poisson at 0.5/(-workers × -point-cost) per second, half of what one update at a time absorbs (DOLL's Proposition 1)")
	fs.DurationVar(&f.cycle, "cycle", time.Second, "mean preemption cycle, available and preempted, with -availability < 1 (DOLL: 1000s)")
	fs.DurationVar(&f.preemptStep, "preempt-step", 100*time.Millisecond, "how often the availability chain is sampled, with -availability < 1 (DOLL: 2s)")
	fs.BoolVar(&f.indirect, "indirect", false, "MLLess's indirect communication (virtual clock): updates go through a shared store (PUT, then each worker GETs the others'), control through a signalling channel; replaces -latency and -bandwidth")
	fs.BoolVar(&f.replicas, "replicas", false, "run bsp, ssp, asp and quorum in MLLess's replica design (every worker keeps a replica and its own optimizer and commits parameter changes, which the coordinator adds; isp always runs so) instead of the parameter server's (one optimizer step on the mean gradient); a single model takes it as MODEL+replicas")
	fs.DurationVar(&f.storeRTT, "store-rtt", time.Millisecond, "with -indirect: round trip of one store request")
	fs.Float64Var(&f.storeBW, "store-bandwidth", 1.25e8, "with -indirect: the store's bandwidth shared by all workers, bytes per second")
	fs.DurationVar(&f.signal, "signal", time.Millisecond, "with -indirect: one-way latency of a signalling-channel message")
	fs.BoolVar(&f.jsonOut, "json", false, "print JSON (the scenario and runs[] with curves and per-worker stats) instead of the table")
	fs.StringVar(&f.csvDir, "csv", "", "also write runs.csv, curves.csv and workers.csv into this directory (created); empty = none")
	fs.StringVar(&f.plot, "plot", "", "also write a PNG plot of objective against time to this file (FILE.png); empty = none")
}

func (f *compareFlags) check() error {
	if err := f.workloadFlags.check(); err != nil {
		return err
	}
	if f.lr == 0 {
		f.lr = compareDefaults.lr[f.algo]
	}
	if err := f.profileFlags.check(); err != nil {
		return err
	}
	switch {
	case f.workers < 1:
		return fmt.Errorf("-workers %d: want ≥ 1", f.workers)
	case f.stragglers < 0 || f.stragglers > f.workers:
		return fmt.Errorf("-stragglers %d: want 0 to -workers (%d)", f.stragglers, f.workers)
	case f.tau < 0:
		return fmt.Errorf("-tau %v: want ≥ 0", f.tau)
	case f.every < 1:
		return fmt.Errorf("-every %d: want ≥ 1", f.every)
	case !(f.slowdown >= 1) || math.IsInf(f.slowdown, 0):
		return fmt.Errorf("-slowdown %v: want a finite number ≥ 1", f.slowdown)
	case f.duration <= 0:
		return fmt.Errorf("-duration %v: want > 0", f.duration)
	case f.evalEvery < 0 || f.evalEvery > f.duration:
		return fmt.Errorf("-eval-every %v: want 0 (default) or at most -duration (%v)", f.evalEvery, f.duration)
	case f.evalEvery > 0 && f.duration/f.evalEvery > maxSnapshots:
		return fmt.Errorf("-eval-every %v: %d snapshots of -duration %v, each a pass over the data; want at most %d (-eval-every ≥ %v)",
			f.evalEvery, f.duration/f.evalEvery, f.duration, maxSnapshots, f.duration/maxSnapshots)
	case f.batch < 0:
		return fmt.Errorf("-batch %d: want ≥ 0 (0 = full pass)", f.batch)
	case f.pointCost <= 0:
		return fmt.Errorf("-point-cost %v: want > 0", f.pointCost)
	case f.latency < 0:
		return fmt.Errorf("-latency %v: want ≥ 0", f.latency)
	case !(f.bandwidth > 0) || math.IsInf(f.bandwidth, 0):
		return fmt.Errorf("-bandwidth %v: want a finite number > 0 (bytes per second)", f.bandwidth)
	case f.bandwidth < 1:
		return fmt.Errorf("-bandwidth %v: want at least 1 byte per second", f.bandwidth)
	case f.storeBW < 1:
		return fmt.Errorf("-store-bandwidth %v: want at least 1 byte per second", f.storeBW)
	case f.storeRTT < 0:
		return fmt.Errorf("-store-rtt %v: want ≥ 0", f.storeRTT)
	case !(f.storeBW > 0) || math.IsInf(f.storeBW, 0):
		return fmt.Errorf("-store-bandwidth %v: want a finite number > 0 (bytes per second)", f.storeBW)
	case f.signal < 0:
		return fmt.Errorf("-signal %v: want ≥ 0", f.signal)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"duration", f.duration}, {"tau", f.tau}, {"latency", f.latency}, {"point-cost", f.pointCost}, {"store-rtt", f.storeRTT}, {"signal", f.signal}} {
		if d.v > maxTime {
			return fmt.Errorf("-%s %v: want at most %v (virtual times are int64 nanoseconds, and sums of longer ones overflow)", d.name, d.v, maxTime)
		}
	}
	var err error
	f.stragglerKind, err = pick("-straggler-kind", f.kind, choice[harness.StragglerKind]{"injected", harness.Injected}, choice[harness.StragglerKind]{"natural", harness.Natural},
		choice[harness.StragglerKind]{"tail", harness.Tail})
	if err != nil {
		return err
	}
	if err := f.checkTail(); err != nil {
		return err
	}
	if f.stragglers == 0 {
		f.stragglerKind = harness.NoStragglers
	}
	if f.coordinator {
		f.clock = "grpc"
	}
	f.clockKind, err = pick("-clock", f.clock, choice[harness.Clock]{"virtual", harness.Virtual}, choice[harness.Clock]{"real", harness.Real}, choice[harness.Clock]{"grpc", harness.Real})
	if err != nil {
		return err
	}
	if f.clock == "grpc" {
		f.spawn = !f.coordinator
		if !f.spawn || f.net.plaintext || f.net.tlsDir != "" {
			if err := f.net.check(); err != nil {
				return err
			}
		}
		if f.coordinator && f.availability < 1 {
			return fmt.Errorf("-availability %g: syncbench coordinator does not start its workers, so it cannot preempt them; use compare -clock grpc, or kill the worker processes yourself", f.availability)
		}
		if f.net.plaintext && !loopback(f.listen) {
			return fmt.Errorf("-plaintext with -listen %s: plaintext is for loopback only; listen on 127.0.0.1:PORT, or use -tls-dir", f.listen)
		}
	}
	if f.indirect && f.clockKind == harness.Real {
		return fmt.Errorf("-indirect is a virtual-time cost model: use -clock virtual")
	}
	if err := f.checkExchange(); err != nil {
		return err
	}
	if f.evalEvery == 0 {
		f.evalEvery = f.duration / 100
	}
	if f.availability != 1 {
		c := f.preemptConfig()
		if err := c.Validate(); err != nil {
			return fmt.Errorf("-availability %g -cycle %v -preempt-step %v: %v", f.availability, f.cycle, f.preemptStep, err)
		}
	}
	if f.preemptible < -1 || f.preemptible > f.workers {
		return fmt.Errorf("-preemptible %d: want -1 (all) or 0 to -workers (%d)", f.preemptible, f.workers)
	}
	if f.preemptible >= 0 && f.preemptible < f.workers && f.clockKind != harness.Virtual {
		return fmt.Errorf("-preemptible %d: only some workers preemptible runs on -clock virtual", f.preemptible)
	}
	f.plans = f.plans[:0]
	for s := range strings.SplitSeq(f.syncList, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			return fmt.Errorf(`-sync "": an empty entry in %q (a stray comma?); list the models separated by single commas`, f.syncList)
		}
		p, err := parsePlan(s)
		if err == nil && f.replicas && !p.replicas {
			p, err = p.withReplicas()
		}
		if err != nil {
			return fmt.Errorf("-sync %q: %s; %s", s, syncReason(err), syncForms(f.workers))
		}
		if k, ok := quorumCount(p.spec); ok && k > f.workers {
			return fmt.Errorf("-sync %s: a quorum of %d is more than the %d workers (-workers %d); want quorum:1 to quorum:%d, or a fraction such as quorum:0.75",
				p.name, k, f.workers, f.workers, f.workers)
		}
		for _, o := range f.plans {
			if o.name == p.name {
				return fmt.Errorf("-sync %q: %s is listed twice", f.syncList, p.name)
			}
		}
		if f.clockKind == harness.Real && (p.name == "fspv" || p.name == "fspv+semi" || p.migrate) {
			return fmt.Errorf("-sync %s: FSPV's rollbacks and data migration need -clock virtual", p.name)
		}
		if f.clock == "grpc" && (p.spec.Kind == consistency.ISP || p.replicas || p.tuner != nil || p.tunedBatch) {
			alt := "use -clock real"
			if f.coordinator {
				alt = "run it with syncbench compare -clock real"
			}
			return fmt.Errorf("-sync %s: worker processes cannot run ISP, replicas or tuned presets yet; %s", p.name, alt)
		}
		if p.spec.Kind == consistency.KGroup {
			if err := f.checkKGroup(p); err != nil {
				return err
			}
		}
		if f.indirect && (p.spec.Kind == consistency.FSP || p.tunedBatch) {
			return fmt.Errorf("-sync %s: FSP's interrupts and tuners are not modelled over -indirect", p.name)
		}
		f.plans = append(f.plans, p)
	}
	return nil
}

// choice is one value a string flag may name.
type choice[T any] struct {
	name string
	v    T
}

// pick returns the value of the choice named s, or a usage error listing
// the names.
func pick[T any](flagName, s string, choices ...choice[T]) (T, error) {
	names := make([]string, len(choices))
	for i, c := range choices {
		if c.name == s {
			return c.v, nil
		}
		names[i] = c.name
	}
	var zero T
	return zero, fmt.Errorf("%s %q: want %s", flagName, s, strings.Join(names, " or "))
}

// keepTraceBelow: a virtual run of this many workers or more checks its
// trace as it is recorded instead of keeping it
// (harness.Experiment.DiscardTrace; the verdict is the same). No output
// prints a trace, and at thousands of workers a run's trace (0.6 KB per
// commit) outgrows the machine: 1,024 workers of the default scenario
// kept 1.9 GB (docs/performance.md).
const keepTraceBelow = 1000

// experiment returns the harness experiment of one run.
func (f *compareFlags) experiment(alg algorithms.Algorithm, spec consistency.Spec) harness.Experiment {
	e := harness.Experiment{
		Algorithm: alg, Sync: spec, Workers: f.workers, Batch: f.batch, Clock: f.clockKind,
		Cost:     f.costModel(),
		Duration: f.duration, EvalEvery: f.evalEvery, Seed: f.seed, Shuffle: f.shuffle,
		Target: f.target, HasTarget: f.hasTarget, Theta0: slices.Clone(f.theta0),
		DiscardTrace: f.clockKind == harness.Virtual && f.workers >= keepTraceBelow,
	}
	if f.stragglerKind != harness.NoStragglers {
		e.Stragglers = harness.Stragglers{Kind: f.stragglerKind, Count: f.stragglers, Tau: f.tau, Every: f.every, Slowdown: f.slowdown}
		if f.stragglerKind == harness.Tail {
			e.Stragglers.Delay = f.tailDist
		}
	}
	if f.indirect {
		e.Indirect = &harness.StoreModel{RTT: f.storeRTT, Bandwidth: f.storeBW, Signal: f.signal}
	}
	if f.availability != 1 {
		c := f.preemptConfig()
		e.Preempt = &c
		if f.preemptible >= 0 && f.preemptible < f.workers {
			e.Preemptible = make([]int, f.preemptible)
			for i := range e.Preemptible {
				e.Preemptible[i] = i
			}
		}
	}
	if spec.Kind == consistency.KGroup {
		a := f.arrivalSpec
		e.Arrivals = &a
	}
	if f.exchange != "" {
		e.Network = f.storeNetwork(spec.String())
	}
	return e
}

// checkKGroup checks the flags a kgroup:K run needs and reads -arrivals.
func (f *compareFlags) checkKGroup(p plan) error {
	switch {
	case f.batch == 0:
		return fmt.Errorf("-sync %s: K-grouping groups batches of -batch points; want -batch ≥ 1, not 0 (a full pass)", p.name)
	case f.indirect:
		return fmt.Errorf("-sync %s: K-grouping is not modelled over -indirect", p.name)
	}
	text := f.arrivals
	if text == "" {
		// Half the rate grouped updates can absorb: DOLL's Proposition 1
		// wants batches to arrive (N·λ/b per second) slower than one per
		// batch computation (b·point cost).
		text = "poisson:" + strconv.FormatFloat(0.5/(float64(f.workers)*f.pointCost.Seconds()), 'g', 6, 64)
	}
	a, err := arrival.Parse(text)
	if err == nil {
		err = a.Validate(f.workers)
	}
	if err != nil {
		return fmt.Errorf("-arrivals %q: %v", text, strings.TrimPrefix(err.Error(), "arrival: "))
	}
	f.arrivalSpec = a
	return nil
}

// preemptConfig is the workers' availability chain.
func (f *compareFlags) preemptConfig() preempt.Config {
	return preempt.Config{Alpha: f.availability, MeanCycle: f.cycle, Step: f.preemptStep}
}

// comparison is what `syncbench compare` reports: the scenario, the target
// and every run.
type comparison struct {
	f        *compareFlags
	alg      algorithms.Algorithm
	d        *data
	initial  float64 // objective at θ0
	best     float64 // best final objective over the runs
	target   float64
	derived  bool // target derived from the runs, not given
	minimize bool
	runs     []*harness.Result
	ttt      []time.Duration // per run; -1 when not reached
	// checks[i] is what the checker found wrong with run i (nil: ok).
	checks []*consistency.CheckError
}

func compare(args []string, stdout, stderr io.Writer) int {
	code, _ := runCompare(args, stdout, stderr)
	return code
}

// runCompare is compare; it also returns the comparison when the runs
// ran, for tests to look past the printed labels.
func runCompare(args []string, stdout, stderr io.Writer) (int, *comparison) {
	return runCompareAs("syncbench compare", false, args, stdout, stderr)
}

// coordinatorCmd is `syncbench coordinator`: compare's runs over gRPC,
// with the workers in processes started elsewhere (syncbench worker).
func coordinatorCmd(args []string, stdout, stderr io.Writer) int {
	code, _ := runCompareAs("syncbench coordinator", true, args, stdout, stderr)
	return code
}

func runCompareAs(name string, coordinator bool, args []string, stdout, stderr io.Writer) (int, *comparison) {
	f := compareFlags{coordinator: coordinator}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stdout)
	f.register(fs)
	if code, ok := parseFlags(fs, args, f.check, stderr); !ok {
		return code, nil
	}
	fail := func(code int, err error) (int, *comparison) {
		fmt.Fprintf(stderr, "%s: %v\n", name, oneLine(err))
		return code, nil
	}
	if err := f.prepareOutputs(); err != nil {
		return fail(1, err)
	}
	alg, d, err := f.load()
	if err == nil {
		err = checkWorkers(d, f.workers)
	}
	if err == nil {
		err = f.applyProfile(d)
	}
	if err != nil {
		return fail(1, err)
	}
	f.pointBytes = pointBytes(d)
	if err := f.checkScale(alg); err != nil {
		return fail(2, err)
	}
	if err := checkMemory(alg, f.workers); err != nil {
		return fail(1, err)
	}
	if f.hasTarget {
		var initial float64
		if f.theta0, initial, err = startPoint(alg, f.seed); err != nil {
			return fail(1, err)
		}
		if reached(initial, f.target, alg.Minimize()) {
			return fail(2, fmt.Errorf("-target %g: θ0 already has objective %.6g (%s), so every run would reach the target at 0 s; want a target %s %.6g",
				f.target, initial, betterWord(alg.Minimize()), map[bool]string{true: "below", false: "above"}[alg.Minimize()], initial))
		}
	}
	warn(stderr, name, append(f.workloadFlags.ignored(fs), f.ignored(fs, alg)...))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if f.clock == "grpc" {
		cleanup, err := f.setupGRPC(stderr, name, cancel)
		defer cleanup()
		if err != nil {
			return fail(1, err)
		}
	}
	c, err := runComparison(ctx, &f, alg, d, stderr)
	if cause := context.Cause(ctx); err != nil && cause != nil && !errors.Is(cause, context.Canceled) {
		err = cause
	}
	if err != nil {
		return fail(1, divergedHint(err, f.lr))
	}
	warn(stderr, name, c.warnings())
	if f.csvDir != "" {
		if err := c.writeCSV(f.csvDir); err != nil {
			return fail(1, err)
		}
	}
	if f.plot != "" {
		if err := c.writePlot(f.plot); err != nil {
			return fail(1, err)
		}
	}
	if f.jsonOut {
		err = writeJSON(stdout, c.json())
	} else {
		err = c.writeTable(stdout)
	}
	if err != nil {
		return fail(1, err)
	}
	for i, ce := range c.checks {
		if ce != nil {
			return fail(1, fmt.Errorf("%s failed the consistency check (the table's row is not what its label says): %v", c.runs[i].Name, ce.Violations[0]))
		}
	}
	return 0, c
}

// checkScale refuses a commit whose virtual time exceeds maxTime: -batch
// (or a full shard) points at -point-cost, a natural straggler -slowdown
// times slower.
func (f *compareFlags) checkScale(alg algorithms.Algorithm) error {
	b := f.batch
	if b == 0 || f.plansIgnoreBatch() {
		b = alg.NumPoints() / f.workers
	}
	slow := 1.0
	if f.stragglerKind == harness.Natural {
		slow = f.slowdown
	}
	if t := float64(b) * float64(f.pointCost) * slow; t > float64(maxTime) {
		return fmt.Errorf("-batch %d × -point-cost %v × -slowdown %g: one commit would take %.3g h; want at most %v", b, f.pointCost, slow, t/float64(time.Hour), maxTime)
	}
	return nil
}

// plansIgnoreBatch reports whether some plan picks its own batch (up to a
// full shard).
func (f *compareFlags) plansIgnoreBatch() bool {
	return slices.ContainsFunc(f.plans, batchIgnored)
}

// reached reports whether objective v meets target in the objective's
// direction.
func reached(v, target float64, minimize bool) bool {
	return minimize && v <= target || !minimize && v >= target
}

func betterWord(minimize bool) string {
	if minimize {
		return "lower is better"
	}
	return "higher is better"
}

// startPoint returns θ0 as the harness draws it from seed (its Init
// stream) and the objective there over all the data. compare passes this
// θ0 to every run, so the -target check is about the point the runs start
// from.
func startPoint(alg algorithms.Algorithm, seed uint64) ([]float64, float64, error) {
	theta0, err := alg.Init(rand.New(rand.NewPCG(seed, 0x5eed)))
	if err != nil {
		return nil, 0, err
	}
	all := make([]int, alg.NumPoints())
	for i := range all {
		all[i] = i
	}
	w, err := alg.NewWorker(all)
	if err != nil {
		return nil, 0, err
	}
	w.SetParams(theta0)
	return theta0, alg.Objective(theta0, w.Evaluate()), nil
}

// prepareOutputs checks -csv and -plot before the runs, so that a bad
// path fails in a second, not after every run: it creates the -csv
// directory and makes sure a file can be written there and where -plot
// names, without touching an existing plot.
func (f *compareFlags) prepareOutputs() error {
	if f.csvDir != "" {
		if err := os.MkdirAll(f.csvDir, 0o755); err != nil {
			return fmt.Errorf("-csv %s: %w", f.csvDir, err)
		}
		if err := canCreateIn(f.csvDir); err != nil {
			return fmt.Errorf("-csv %s: %w", f.csvDir, err)
		}
		for _, name := range []string{"runs.csv", "curves.csv", "workers.csv"} {
			if st, err := os.Stat(filepath.Join(f.csvDir, name)); err == nil && st.IsDir() {
				return fmt.Errorf("-csv %s: %s is a directory", f.csvDir, filepath.Join(f.csvDir, name))
			}
		}
	}
	if f.plot != "" {
		if !strings.EqualFold(filepath.Ext(f.plot), ".png") {
			return fmt.Errorf("-plot %s: the plot is a PNG; want a file name ending in .png", f.plot)
		}
		st, err := os.Stat(f.plot)
		switch {
		case err == nil && st.IsDir():
			return fmt.Errorf("-plot %s: is a directory; want a file such as %s", f.plot, filepath.Join(f.plot, "compare.png"))
		case err == nil:
			fh, err := os.OpenFile(f.plot, os.O_WRONLY, 0)
			if err != nil {
				return fmt.Errorf("-plot %s: %w", f.plot, err)
			}
			fh.Close()
		case errors.Is(err, os.ErrNotExist):
			dir := filepath.Dir(f.plot)
			if st, err := os.Stat(dir); err != nil {
				return fmt.Errorf("-plot %s: %w", f.plot, err)
			} else if !st.IsDir() {
				return fmt.Errorf("-plot %s: %s is not a directory", f.plot, dir)
			}
			if err := canCreateIn(dir); err != nil {
				return fmt.Errorf("-plot %s: %w", f.plot, err)
			}
		default:
			return fmt.Errorf("-plot %s: %w", f.plot, err)
		}
	}
	return nil
}

// canCreateIn checks that a file can be created in dir by creating and
// removing one.
func canCreateIn(dir string) error {
	fh, err := os.CreateTemp(dir, ".syncbench-check-*")
	if err != nil {
		return err
	}
	name := fh.Name()
	fh.Close()
	return os.Remove(name)
}

// ignored returns a warning for each compare flag set on the command line
// that has no effect on these runs, and for settings that make a run
// other than its label suggests.
func (f *compareFlags) ignored(fs *flag.FlagSet, alg algorithms.Algorithm) []string {
	set := setFlags(fs)
	var ws []string
	no := func(flag, why string) {
		if set[flag] {
			ws = append(ws, fmt.Sprintf("-%s has no effect %s", flag, why))
		}
	}
	if f.stragglerKind != harness.Injected {
		no("tau", "without injected stragglers (-straggler-kind injected, -stragglers ≥ 1)")
		no("every", "without injected stragglers (-straggler-kind injected, -stragglers ≥ 1)")
	}
	if f.stragglerKind != harness.Natural {
		no("slowdown", "without natural stragglers (-straggler-kind natural, -stragglers ≥ 1)")
	}
	if f.stragglerKind != harness.Tail {
		no("tail", "without tail stragglers (-straggler-kind tail, -stragglers ≥ 1)")
	}
	if f.stragglers == 0 {
		no("straggler-kind", "with -stragglers 0")
	}
	if f.availability == 1 {
		no("cycle", "without preemptions (-availability < 1)")
		no("preempt-step", "without preemptions (-availability < 1)")
		no("preemptible", "without preemptions (-availability < 1)")
	}
	kgroup := false
	for _, p := range f.plans {
		kgroup = kgroup || p.spec.Kind == consistency.KGroup
	}
	if !kgroup {
		no("arrivals", "without a kgroup:K run (data streams feed K-grouping only)")
	}
	if f.clockKind == harness.Real {
		for _, fl := range []string{"point-cost", "latency", "bandwidth", "profile", "profile-transport", "cores"} {
			no(fl, "with -clock real (real runs compute and send at the machine's speed)")
		}
	}
	if f.indirect {
		no("latency", "with -indirect (-store-rtt, -store-bandwidth and -signal replace it)")
		no("bandwidth", "with -indirect (-store-rtt, -store-bandwidth and -signal replace it)")
	} else {
		for _, fl := range []string{"store-rtt", "store-bandwidth", "signal"} {
			no(fl, "without -indirect")
		}
	}
	usesBatch := false
	for _, p := range f.plans {
		if !batchIgnored(p) {
			usesBatch = true
		}
	}
	if !usesBatch {
		no("batch", "on "+f.syncList+" (fsp, bsp:full and the FSP presets choose their own batches)")
	}
	if shard := alg.NumPoints() / f.workers; usesBatch && f.batch > shard {
		ws = append(ws, fmt.Sprintf("-batch %d is more than a worker's shard (%d points): each commit is %.3g passes over it", f.batch, shard, float64(f.batch)/float64(shard)))
	}
	for _, p := range f.plans {
		if p.spec.Kind == consistency.Quorum && f.workers > 1 && p.spec.Need.Need(f.workers) == f.workers {
			ws = append(ws, fmt.Sprintf("%s needs all %d workers every round, so it waits as bsp does", p.name, f.workers))
		}
		if p.spec.Kind == consistency.FSP && p.tuner == nil && p.spec.Interval >= f.duration {
			ws = append(ws, fmt.Sprintf("%s: the interval is not shorter than -duration %v, so only a worker's full pass (FSP's early trigger) ends a round", p.name, f.duration))
		}
	}
	return ws
}

// batchIgnored reports whether p chooses its own batch instead of -batch.
func batchIgnored(p plan) bool {
	return p.spec.Kind == consistency.FSP || p.spec.FullBatch || p.tunedBatch
}

// warnings are what the runs' numbers say the table cannot: a derived
// target no run improved towards, a target met at θ0, diverged runs.
func (c *comparison) warnings() []string {
	var ws []string
	for _, r := range c.runs {
		if r.Diverged {
			ws = append(ws, fmt.Sprintf("%s diverged at %v (objective past %g × its start; final %.6g); try a smaller -lr",
				r.Name, r.DivergedAt, harness.DivergeFactor, r.Final))
		}
	}
	switch {
	case c.derived && math.IsNaN(c.best):
		// Every run diverged: said above, run by run.
	case c.derived && (!reached(c.best, c.initial, c.minimize) || c.best == c.initial):
		ws = append(ws, fmt.Sprintf("no run improved on θ0's objective %.6g in %v, so the derived target is θ0's and every time to target is 0 s; run longer (-duration) or give -target",
			c.initial, c.f.duration))
	case !c.derived && reached(c.initial, c.target, c.minimize):
		ws = append(ws, fmt.Sprintf("θ0's objective %.6g already meets -target %g: every time to target is 0 s", c.initial, c.target))
	}
	return ws
}

// runComparison runs every sync model on the same workload and seed, then
// fixes the target and each run's time to it. Virtual runs are independent
// and run concurrently (results do not depend on it); real-clock runs run
// one at a time so they do not slow each other. Progress goes to stderr:
// one line per finished run.
func runComparison(ctx context.Context, f *compareFlags, alg algorithms.Algorithm, d *data, stderr io.Writer) (*comparison, error) {
	c := &comparison{f: f, alg: alg, d: d, minimize: alg.Minimize(), runs: make([]*harness.Result, len(f.plans)),
		checks: make([]*consistency.CheckError, len(f.plans))}
	par := 1
	if f.clockKind == harness.Virtual {
		par = runtime.GOMAXPROCS(0)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(par)
	var mu sync.Mutex
	done := 0
	for i, p := range f.plans {
		g.Go(func() error {
			start := time.Now()
			e, err := f.experimentFor(gctx, alg, p)
			if err != nil {
				return err
			}

			var res *harness.Result
			if f.grpc != nil {
				res, err = f.grpc.run(gctx, e, d, i)
			} else {
				res, err = harness.Run(gctx, e)
			}
			var ce *consistency.CheckError
			switch {
			case errors.As(err, &ce) && res != nil:
				// Reported with the run (check, lost_deltas), and the
				// command fails after printing it.
				c.checks[i] = ce
			case err != nil:
				return fmt.Errorf("%s: %w", p.name, err)
			}
			c.runs[i] = res
			mu.Lock()
			done++
			fmt.Fprintf(stderr, "%s: [%d/%d] %s: %s %s in %.1f s\n",
				f.name(), done, len(f.plans), res.Name, f.clockJSON(), f.duration, time.Since(start).Seconds())
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	c.initial = c.runs[0].Curve[0].Objective
	finals := make([]float64, len(c.runs))
	for i, r := range c.runs {
		finals[i] = r.Final
		if r.Diverged {
			finals[i] = math.NaN() // no target from a run that blew up
		}
	}
	c.best, c.target = deriveTarget(c.initial, finals, c.minimize)
	c.derived = !f.hasTarget
	if f.hasTarget {
		c.target = f.target
	}
	for _, r := range c.runs {
		c.ttt = append(c.ttt, harness.TimeTo(r.Curve, c.target, c.minimize))
	}
	return c, nil
}

// deriveTarget returns the best of the final objectives and the target
// initial − targetFraction·(initial − best): targetFraction of the best
// run's improvement over θ0, in the objective's direction. NaN finals
// (diverged runs) are passed over; if every final is NaN, so is the target.
func deriveTarget(initial float64, finals []float64, minimize bool) (best, target float64) {
	best = math.NaN()
	for _, v := range finals {
		if !math.IsNaN(v) && (math.IsNaN(best) || minimize && v < best || !minimize && v > best) {
			best = v
		}
	}
	return best, initial - float64(targetFraction*(initial-best))
}
