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
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/montanaflynn/stats"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/harness"
)

// `syncbench fidelity` measures how well virtual time predicts the real
// runtime on this machine: a grid of scenarios (workload × workers ×
// stragglers × sync model) runs on the real clock (goroutine workers
// over the in-process transport), each a few times, and in virtual time
// with the costs calibrate measures; docs/fidelity.md compares the time
// per iteration, the wait fraction and the time to target.
//
// Two predictions per scenario: from the profile alone (calibrated once,
// at the start or given with -profile), and at the machine's speed
// during the real runs — the profile's costs scaled by the compute time
// per point the runs' workers measured (their Busy time, pauses
// excluded), with the wake-up delay probed right before and after each
// run — because on a shared machine what the other processes leave
// changes from second to second. The virtual side is deterministic given
// the profile and those inputs, which the report's CSV lists.

// fidelityFlags are the flags of `syncbench fidelity`.
type fidelityFlags struct {
	out         string
	quick       bool
	profilePath string
	reps        int
	seed        uint64
	duration    time.Duration
	warmup      time.Duration
	workloads   string
	workerList  string
	grpcList    string
	syncList    string
	runtimes    string
	args        []string
	works       []string
	workers     []int
	grpcWorkers []int
	syncs       []string
	rts         []string
	// tmp is a directory for the gRPC worker processes' data files.
	tmp string
}

// fidRuntimes are the real runtimes fidelity measures: the goroutine
// runtime over the in-process transport (compare -clock real), and the
// gRPC runtime with worker processes on loopback, TLS 1.3 and a token
// (compare -clock grpc). Each is predicted with its transport's costs
// in the profile.
var fidRuntimes = []string{"inproc", "grpc"}

// fidelityWorkloads are the workloads the grid can run.
var fidelityWorkloads = []string{"lr", "kmeans"}

func (f *fidelityFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.out, "out", "docs", "directory of the report: writes OUT/fidelity.md and OUT/fidelity/ (the plot, runs.csv, the profile used)")
	fs.BoolVar(&f.quick, "quick", false, "small data, 100 ms runs, one repeat, a quick calibration (seconds): checks the pipeline, the numbers mean little")
	fs.StringVar(&f.profilePath, "profile", "", "the cost profile to predict from (syncbench calibrate); empty = calibrate first (the -workloads over the -runtimes' transports) and keep the profile in OUT/fidelity/profile.json")
	fs.IntVar(&f.reps, "reps", 5, "real runs per scenario; the report takes their medians (-quick: 1)")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed: data, θ0, sharding, which workers straggle")
	fs.DurationVar(&f.duration, "duration", 2*time.Second, "the longest run: each scenario runs 4 times the time to target of a virtual pilot run, at least -duration/4 and at most this (-quick: 100ms)")
	fs.DurationVar(&f.warmup, "warmup", fidWarmUp, "how long every core computes right before each real run (0: none): a run that starts on cores that have just been idle runs its first iterations slower on a virtual machine")
	fs.StringVar(&f.workloads, "workloads", strings.Join(fidelityWorkloads, ","), "comma-separated workloads: lr (logistic regression, 100 features), kmeans (16 clusters, 27 features)")
	fs.StringVar(&f.workerList, "workers", "4,16", "comma-separated worker counts of the in-process runtime")
	fs.StringVar(&f.grpcList, "grpc-workers", "4", "comma-separated worker counts of the gRPC runtime (a process each, on this machine's cores)")
	fs.StringVar(&f.runtimes, "runtimes", strings.Join(fidRuntimes, ","), "comma-separated real runtimes: inproc (goroutine workers, compare -clock real), grpc (worker processes over gRPC with TLS on loopback, compare -clock grpc)")
	fs.StringVar(&f.syncList, "sync", "bsp,ssp:3,asp,quorum:0.75,fsp:2ms", "comma-separated sync models (compare's -sync entries; no semi-centralized FSP, tuners or migration)")
}

func (f *fidelityFlags) check() error {
	set := map[string]bool{}
	for _, a := range f.args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		set[name] = true
	}
	if f.quick {
		if !set["reps"] {
			f.reps = 1
		}
		if !set["duration"] {
			f.duration = 100 * time.Millisecond
		}
	}
	switch {
	case f.reps < 1:
		return fmt.Errorf("-reps %d: want ≥ 1", f.reps)
	case f.duration <= 0 || f.duration > time.Hour:
		return fmt.Errorf("-duration %v: want > 0 and at most 1h", f.duration)
	case f.warmup < 0 || f.warmup > time.Minute:
		return fmt.Errorf("-warmup %v: want ≥ 0 and at most 1m", f.warmup)
	}
	var err error
	if f.works, err = listFlag("-workloads", f.workloads, fidelityWorkloads); err != nil {
		return err
	}
	if f.rts, err = listFlag("-runtimes", f.runtimes, fidRuntimes); err != nil {
		return err
	}
	if f.workers, err = workerCounts("-workers", f.workerList); err != nil {
		return err
	}
	if f.grpcWorkers, err = workerCounts("-grpc-workers", f.grpcList); err != nil {
		return err
	}
	f.syncs = nil
	for s := range strings.SplitSeq(f.syncList, ",") {
		s = strings.TrimSpace(s)
		p, err := parsePlan(s)
		if err != nil {
			return fmt.Errorf("-sync %q: %s", s, syncReason(err))
		}
		if p.tuner != nil || p.migrate || p.tunedBatch || p.replicas || p.spec.Local || p.spec.Kind == 0 {
			return fmt.Errorf("-sync %s: fidelity runs plain models (bsp, ssp:S, asp, quorum:F, fsp:INTERVAL); the contention model does not take tuners, semi-centralized timers or migration", s)
		}
		f.syncs = append(f.syncs, p.name)
	}
	return nil
}

// workerCounts reads a comma-separated list of worker counts.
func workerCounts(name, list string) ([]int, error) {
	var out []int
	for s := range strings.SplitSeq(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > 256 {
			return nil, fmt.Errorf("%s %q: %q is not a worker count from 1 to 256", name, list, s)
		}
		out = append(out, n)
	}
	return out, nil
}

// fidWork is one workload of the grid, loaded.
type fidWork struct {
	key, label string
	args       []string // compare's workload flags
	d          *data
	alg        algorithms.Algorithm
	shape      harness.WorkloadShape
	// gd is the data as the gRPC runtime's worker processes load it
	// (grpcData), grpcArgs the flags that name it; nil until needed.
	gd       *data
	grpcArgs []string
}

// grpcData makes w's data something the worker processes load by
// themselves (the job names it; each regenerates or reads it): LR's is
// synthetic:logistic at its size, K-means' blobs (not a generator of
// package workload) go to a CSV file in dir, every value written
// exactly, and are read back from it for the coordinator too.
func (w *fidWork) grpcData(dir string, seed uint64) error {
	if w.gd != nil {
		return nil
	}
	n, dim := w.d.shape()
	if w.key == "lr" {
		w.gd, w.grpcArgs = w.d, []string{"-data", "synthetic:logistic", "-n", strconv.Itoa(n), "-dim", strconv.Itoa(dim)}
		return nil
	}
	path := filepath.Join(dir, w.key+".csv")
	var b strings.Builder
	m := w.d.dense
	for i := range m.N {
		label := 0.0
		if m.Labels != nil {
			label = m.Labels[i]
		}
		b.WriteString(strconv.FormatFloat(label, 'g', -1, 64))
		for _, v := range m.X[i*m.D : (i+1)*m.D] {
			b.WriteByte(',')
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return err
	}
	d, err := loadData("csv:"+path, synthSize{}, seed)
	if err != nil {
		return err
	}
	if !slices.Equal(d.dense.X, m.X) {
		return fmt.Errorf("%s: the data read back from %s differ from the data written", w.key, path)
	}
	w.gd, w.grpcArgs = d, []string{"-data", "csv:" + path}
	return nil
}

// fidelityData loads workload key at the scale of f.
func fidelityData(key string, quick bool, seed uint64) (*fidWork, error) {
	n := 48000
	if quick {
		n = 2000
	}
	w := &fidWork{key: key}
	var err error
	switch key {
	case "lr":
		w.label = "LR"
		if !quick {
			n = 50000
		}
		w.args = []string{"-algo", "lr", "-lr", "0.005"}
		w.d, _, err = syntheticData("logistic", n, 100)(seed)
	case "kmeans":
		w.label = "K-means"
		if !quick {
			// Each objective snapshot is a pass over the data (a few ms
			// here); 16,000 points keep 400 of them to a second.
			n = 16000
		}
		w.args = []string{"-algo", "kmeans", "-k", "16"}
		w.d, _, err = blobsData(n, 27, 16, 10)(seed)
	}
	return w, err
}

// fidScenario is one cell of the grid and what ran in it.
type fidScenario struct {
	// rt is the real runtime (fidRuntimes), and the profile's transport
	// its predictions take.
	rt      string
	w       *fidWork
	workers int
	strag   bool
	sync    string
	// dur is the scenario's run length, chosen by its pilot run.
	dur time.Duration
	// real are the real runs, meas what was measured around each.
	real []*harness.Result
	meas []fidReal
	// reps are the predictions at the speed the real runs measured, one
	// per real run with its own inputs; run is the prediction at their
	// median inputs, the base of ablated, its variants (fidAblations);
	// profile is the prediction from the profile alone.
	reps         []*harness.Result
	run, profile *harness.Result
	ablated      []*harness.Result
	// target is a share of the least improvement of the scenario's runs
	// over θ0 (NaN if some run did not improve).
	initial, target float64
}

// name labels the scenario.
func (s *fidScenario) name() string {
	st := "none"
	if s.strag {
		st = "injected"
	}
	n := fmt.Sprintf("%s/%d/%s/%s", s.w.key, s.workers, st, s.sync)
	if s.rt == "grpc" {
		n = "grpc/" + n
	}
	return n
}

// clock is compare's -clock of the scenario's real runs.
func (s *fidScenario) clock() string {
	if s.rt == "grpc" {
		return "grpc"
	}
	return "real"
}

// fidReal is what one real run measured besides its Result.
type fidReal struct {
	// PointNS is its workers' compute time per point: their Busy time
	// less their Injected pauses, over their points.
	PointNS float64
	// WakeNS is the mean of the wake probes (wakeProbe) right before and
	// right after it; Load the 1-minute load average then.
	WakeNS, Load float64
	// Procs is GOMAXPROCS.
	Procs int
	// Wall is harness.Run's time (setup and the objective's evaluation
	// after the run included). Span is the part of the run between its
	// first and last progress reports (10% and 90% of its length), and
	// OS and GC are the operating system's counters and the garbage
	// collection over it.
	Wall, Span time.Duration
	OS         osStats
	GC         fidGC
	// Workers (gRPC) are the worker processes' counters over the span,
	// summed (also in OS, which is then every process's); GC is the
	// coordinator's alone.
	Workers osStats
	// CommitCPUNS is the CPU time per commit of every process of the run
	// (runCPUPerCommit), CommitPoints the points per commit; 0 where the
	// operating system's counters are not read.
	CommitCPUNS, CommitPoints float64
}

// fidGC is the garbage collection over a span: its cycles and the CPU
// time it took.
type fidGC struct {
	cycles int
	cpu    time.Duration
}

// readGC reads the garbage collector's counters (runtime/metrics: no
// stop of the world).
func readGC() fidGC {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	var g fidGC
	if s[0].Value.Kind() == metrics.KindUint64 {
		g.cycles = int(s[0].Value.Uint64())
	}
	if s[1].Value.Kind() == metrics.KindFloat64 {
		g.cpu = time.Duration(s[1].Value.Float64() * 1e9)
	}
	return g
}

// spanMeter reads the operating system's and the collector's counters
// at a run's first and last progress reports (harness.Progress).
type spanMeter struct {
	first, last time.Duration
	os0, os1    osStats
	gc0, gc1    fidGC
	reports     int
	// pids are other processes of the run (the gRPC runtime's workers),
	// w0 and w1 their counters, summed.
	pids   []int
	w0, w1 osStats
}

func (sm *spanMeter) progress(p harness.Progress) {
	o, g := readOSStats(), readGC()
	var w osStats
	for _, pid := range sm.pids {
		w = w.add(readProcStats(pid))
	}
	if sm.reports == 0 {
		sm.first, sm.os0, sm.gc0, sm.w0 = p.Elapsed, o, g, w
	}
	sm.last, sm.os1, sm.gc1, sm.w1 = p.Elapsed, o, g, w
	sm.reports++
}

// measure sets m's span, counters and collections from the meter.
func (sm *spanMeter) measure(m *fidReal) {
	if sm.reports > 1 {
		m.Workers = sm.w1.sub(sm.w0)
		m.Span, m.OS = sm.last-sm.first, sm.os1.sub(sm.os0).add(m.Workers)
		m.GC = fidGC{cycles: sm.gc1.cycles - sm.gc0.cycles, cpu: sm.gc1.cpu - sm.gc0.cpu}
	}
}

// flags are the compare flags of the scenario on clock.
func (s *fidScenario) flags(f *fidelityFlags, clock string) (*compareFlags, error) {
	var cf compareFlags
	fs := flag.NewFlagSet("syncbench fidelity", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cf.register(fs)
	stragglers := 0
	if s.strag {
		stragglers = max(s.workers/4, 1)
	}
	args := slices.Clone(s.w.args)
	if clock == "grpc" {
		args = append(args, s.w.grpcArgs...)
	}
	args = append(args, "-workers", strconv.Itoa(s.workers), "-stragglers", strconv.Itoa(stragglers),
		"-sync", s.sync, "-duration", s.dur.String(), "-eval-every", (s.dur / time.Duration(f.snapshots())).String(),
		"-batch", "500", "-seed", strconv.FormatUint(f.seed, 10), "-clock", clock)
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("%s: %v", s.name(), err)
	}
	if err := cf.check(); err != nil {
		return nil, fmt.Errorf("%s: %v", s.name(), err)
	}
	cf.pointBytes = pointBytes(s.w.d)
	return &cf, nil
}

func fidelityCmd(args []string, stdout, stderr io.Writer) int {
	var f fidelityFlags
	fs := flag.NewFlagSet("syncbench fidelity", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	f.args = args
	return reportCommand("fidelity", fs, args, f.check, &f.out, func(ctx context.Context, start time.Time) error {
		prof, source, err := f.loadProfile(ctx, stderr)
		if err != nil {
			return err
		}
		sc, err := f.scenarios()
		if err != nil {
			return err
		}
		if slices.Contains(f.rts, "grpc") {
			// The gRPC worker processes' data files (grpcData).
			if f.tmp, err = os.MkdirTemp("", "syncbench-fidelity-"); err != nil {
				return err
			}
			defer os.RemoveAll(f.tmp)
		}
		if err := pilots(ctx, &f, prof, sc); err != nil {
			return err
		}
		if err := f.runReal(ctx, sc, stderr); err != nil {
			return err
		}
		if err := predict(ctx, &f, prof, sc, stderr); err != nil {
			return err
		}
		return writeFidelityReport(&f, prof, source, sc, time.Since(start))
	}, stdout, stderr)
}

// loadProfile reads -profile, or calibrates (the -runtimes' transports) and keeps the
// profile beside the report. It returns the profile and how the report
// names it.
func (f *fidelityFlags) loadProfile(ctx context.Context, stderr io.Writer) (*harness.Profile, string, error) {
	if f.profilePath != "" {
		p, err := harness.LoadProfile(f.profilePath)
		if err != nil {
			return nil, "", fmt.Errorf("-profile: %v", err)
		}
		// The predictions' cost models, checked before any run: an old
		// profile without the gRPC runtime's costs fails here, naming
		// the field.
		for _, rt := range f.rts {
			for _, key := range f.works {
				if _, err := p.CostModel(fidShape(key), rt); err != nil {
					return nil, "", fmt.Errorf("-profile (runtime %s): %v", rt, err)
				}
			}
		}
		return p, f.profilePath, nil
	}
	cf := calibrateFlags{out: "-", quick: f.quick, workloads: strings.Join(f.works, ","), transports: strings.Join(f.rts, ","), repeats: 7, minTime: 40 * time.Millisecond, seed: f.seed}
	if err := cf.check(); err != nil {
		return nil, "", err
	}
	p, err := calibrate(ctx, &cf, io.Discard)
	if err != nil {
		return nil, "", fmt.Errorf("calibrating: %w", err)
	}
	p.Date = "the start of this run"
	dir := filepath.Join(f.out, "fidelity")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", err
	}
	if err := writeProfile(filepath.Join(dir, "profile.json"), p, nil); err != nil {
		return nil, "", err
	}
	fmt.Fprintf(stderr, "syncbench fidelity: calibrated (cores %.2f, wake-up %.1f µs); the profile is in %s\n", p.Cores, p.WakeupNS/1e3, filepath.Join(dir, "profile.json"))
	return p, "fidelity/profile.json", nil
}

// scenarios loads the workloads and lists the grid, in the report's
// order: runtime, workload, workers, stragglers (none first), sync model.
func (f *fidelityFlags) scenarios() ([]*fidScenario, error) {
	var out []*fidScenario
	works := map[string]*fidWork{}
	for _, rt := range f.rts {
		counts := f.workers
		if rt == "grpc" {
			counts = f.grpcWorkers
		}
		for _, key := range f.works {
			w := works[key]
			if w == nil {
				var err error
				if w, err = fidelityData(key, f.quick, f.seed); err != nil {
					return nil, fmt.Errorf("%s: %w", key, err)
				}
				works[key] = w
			}
			for _, n := range counts {
				if err := checkWorkers(w.d, n); err != nil {
					return nil, fmt.Errorf("%s: %v", key, err)
				}
				for _, strag := range []bool{false, true} {
					for _, s := range f.syncs {
						sc := &fidScenario{rt: rt, w: w, workers: n, strag: strag, sync: s, dur: f.duration}
						if w.alg == nil {
							cf, err := sc.flags(f, "virtual")
							if err != nil {
								return nil, err
							}
							if w.alg, err = build(&cf.workloadFlags, w.d); err != nil {
								return nil, fmt.Errorf("%s: %w", key, err)
							}
							w.shape = cf.shape(w.d)
						}
						out = append(out, sc)
					}
				}
			}
		}
	}
	return out, nil
}

// fidShape is the shape of workload key as fidelity loads it (its
// dimension and clusters; the sizes do not enter a profile's costs).
func fidShape(key string) harness.WorkloadShape {
	if key == "kmeans" {
		return harness.WorkloadShape{Algo: "kmeans", Dim: 27, K: 16}
	}
	return harness.WorkloadShape{Algo: "lr", Dim: 100}
}

// fidSnapshots is how many objective snapshots a run takes (-quick: a
// tenth: each is a pass over the data).
const fidSnapshots = 200

func (f *fidelityFlags) snapshots() int {
	if f.quick {
		return fidSnapshots / 10
	}
	return fidSnapshots
}

// pilots chooses each scenario's run length: 4 times the time to target
// of a virtual run from the profile (-duration long, its target the
// workload's share of its own improvement), between -duration/20 and
// -duration, rounded up to 10 ms. A slower real run still has 4 times
// the prediction to reach the target, and no run is much longer than
// it needs to be: its snapshots, a fixed number, are then close enough
// to time the target's crossing.
func pilots(ctx context.Context, f *fidelityFlags, prof *harness.Profile, sc []*fidScenario) error {
	return runParallel(ctx, sc, func(ctx context.Context, s *fidScenario) error {
		pilot := *s
		pilot.dur = f.duration
		c, err := prof.CostModel(s.w.shape, s.rt)
		if err != nil {
			return fmt.Errorf("%s: %v", s.name(), err)
		}
		r, err := pilot.virtual(ctx, f, c, "pilot")
		if err != nil {
			return err
		}
		pilot.profile = r
		pilot.setTarget()
		t := pilot.timeTo(r)
		if t <= 0 {
			t = f.duration
		}
		d := min(max(4*t, f.duration/20), f.duration)
		s.dur = (d + 10*time.Millisecond - 1).Truncate(10 * time.Millisecond)
		return nil
	})
}

// virtual runs the scenario in virtual time with cost model c; kind
// names the prediction in errors.
func (s *fidScenario) virtual(ctx context.Context, f *fidelityFlags, c harness.CostModel, kind string) (*harness.Result, error) {
	cf, err := s.flags(f, "virtual")
	if err != nil {
		return nil, err
	}
	cf.pointCost, cf.latency, cf.bandwidth, cf.entryCost, cf.messageCost, cf.cores = c.PointCost, c.Latency, c.Bandwidth, c.EntryCost, c.MessageCost, c.Cores
	cf.commitCPU, cf.wakeup, cf.stall, cf.stallEvery = c.CommitCPU, c.Wakeup, c.Stall, c.StallEvery
	e, err := cf.experimentFor(ctx, s.w.alg, mustPlan(s.sync))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.name(), err)
	}
	r, err := harness.Run(ctx, e)
	if err != nil {
		return nil, fmt.Errorf("%s (virtual, %s): %w", s.name(), kind, err)
	}
	return r, nil
}

// runReal runs every scenario's real runs, repetition by repetition (all
// scenarios once, then again), each between two wake probes: a slow
// minute of the shared machine then touches one repetition of many
// scenarios rather than every repetition of one. The gRPC runtime's
// scenarios go by workload and worker count after the in-process ones:
// a set of worker processes per group (grpcGroup) serves its runs.
func (f *fidelityFlags) runReal(ctx context.Context, sc []*fidScenario, stderr io.Writer) error {
	p := &fidProgress{total: f.reps * len(sc), stderr: stderr}
	var inproc []*fidScenario
	var groups [][]*fidScenario
	for _, s := range sc {
		if s.rt != "grpc" {
			inproc = append(inproc, s)
			continue
		}
		if n := len(groups); n > 0 && groups[n-1][0].w == s.w && groups[n-1][0].workers == s.workers {
			groups[n-1] = append(groups[n-1], s)
		} else {
			groups = append(groups, []*fidScenario{s})
		}
	}
	for rep := range f.reps {
		for _, s := range inproc {
			if err := f.realRun(ctx, s, rep, p, nil, func(e harness.Experiment) (*harness.Result, error) { return harness.Run(ctx, e) }); err != nil {
				return err
			}
		}
	}
	for _, g := range groups {
		if err := f.grpcGroup(ctx, g, p, stderr); err != nil {
			return err
		}
	}
	return nil
}

// fidProgress counts the real runs done, for the progress lines.
type fidProgress struct {
	total, done int
	stderr      io.Writer
}

// grpcGroup runs the real runs of scenarios of the gRPC runtime with the
// same workload and workers, repetition by repetition, as compare
// -clock grpc does (setupGRPC, grpcRuns.run): one set of worker
// processes on loopback with TLS serves them all, one cluster run each
// (Job.Run of Job.Runs), and writes what each worker did in each
// (syncbench worker -stats): the Busy, Paused and Wait time the
// coordinator does not see, measured by the same runtime code as a
// goroutine worker's, which replace the coordinator's view in the run's
// Result.
func (f *fidelityFlags) grpcGroup(ctx context.Context, g []*fidScenario, p *fidProgress, stderr io.Writer) error {
	if err := g[0].w.grpcData(f.tmp, f.seed); err != nil {
		return err
	}
	cf, err := g[0].flags(f, "grpc")
	if err != nil {
		return err
	}
	cf.grpcRunCount, cf.workerStats = f.reps*len(g), true
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	cleanup, err := cf.setupGRPC(stderr, "syncbench fidelity", cancel)
	defer cleanup()
	if err != nil {
		return fmt.Errorf("%s: %w", g[0].name(), err)
	}
	runs := cf.grpc
	i := 0
	for rep := range f.reps {
		for _, s := range g {
			err := f.realRun(ctx, s, rep, p, runs.pids(), func(e harness.Experiment) (*harness.Result, error) {
				r, err := runs.run(ctx, e, s.w.gd, i)
				if err != nil {
					if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
						err = cause
					}
					return nil, err
				}
				// The workers' own account of the run: the coordinator
				// counts their commits and points, they time their work.
				ws, err := runs.workerStats(i, 30*time.Second)
				if err != nil {
					return nil, err
				}
				// A worker counts the points of the batch the run's end
				// cut short (as a goroutine worker's stats do), and a
				// commit sent as the run ended; the coordinator counts
				// the commits it received.
				for id, w := range ws {
					rw := &r.Workers[id]
					if w.Points < rw.Points || w.Commits < rw.Commits || w.Commits > rw.Commits+1 {
						return nil, fmt.Errorf("worker process %d counted %d points in %d commits, the coordinator received %d in %d", id, w.Points, w.Commits, rw.Points, rw.Commits)
					}
					rw.Points, rw.Busy, rw.Paused, rw.Wait = w.Points, time.Duration(w.BusyNS), time.Duration(w.PausedNS), time.Duration(w.WaitNS)
				}
				// The wait fraction from the workers' clocks, as the
				// goroutine runtime's (harness's run.go): the
				// coordinator's view (a commit's arrival to the next
				// release's sending) leaves out the messages' way and
				// the wait for a core.
				var wait time.Duration
				for _, w := range r.Workers {
					wait += w.Wait
				}
				if r.Duration > 0 && len(r.Workers) > 0 {
					r.WaitFraction = float64(wait) / float64(time.Duration(len(r.Workers))*r.Duration)
				}
				return r, nil
			})
			if err != nil {
				return err
			}
			i++
		}
	}
	return nil
}

// realRun runs scenario s's repetition rep on the real clock with run,
// measuring around it (the counters of the processes pids too).
func (f *fidelityFlags) realRun(ctx context.Context, s *fidScenario, rep int, p *fidProgress, pids []int, run func(harness.Experiment) (*harness.Result, error)) error {
	m := fidReal{Procs: runtime.GOMAXPROCS(0), Load: loadAverage()}
	wake0 := wakeProbe(f.wakeSamples())
	warmUp(f.warmup)
	cf, err := s.flags(f, s.clock())
	if err != nil {
		return err
	}
	e, err := cf.experimentFor(ctx, s.w.alg, mustPlan(s.sync))
	if err != nil {
		return fmt.Errorf("%s: %w", s.name(), err)
	}
	sm := spanMeter{pids: pids}
	e.Progress = sm.progress
	t0 := time.Now()
	r, err := run(e)
	if err != nil {
		return fmt.Errorf("%s (real, repetition %d): %w", s.name(), rep+1, err)
	}
	m.Wall = time.Since(t0)
	sm.measure(&m)
	m.WakeNS = (wake0 + wakeProbe(f.wakeSamples())) / 2
	m.Load = float64((m.Load + loadAverage()) / 2)
	if m.PointNS = computePerPoint(r); !(m.PointNS > 0) {
		return fmt.Errorf("%s (real, repetition %d): no point computed", s.name(), rep+1)
	}
	m.CommitCPUNS, m.CommitPoints = runCPUPerCommit(m, r)
	s.real, s.meas = append(s.real, r), append(s.meas, m)
	p.done++
	fmt.Fprintf(p.stderr, "syncbench fidelity: [%d/%d] %s real #%d: %.1f µs/iteration, wait %.0f%%, %.0f ns/point, wake-up %.1f µs, in %.1f s\n",
		p.done, p.total, s.name(), rep+1, perIteration(r).Seconds()*1e6, 100*r.WaitFraction, m.PointNS, m.WakeNS/1e3, m.Wall.Seconds())
	return nil
}

// wakeSamples is how many wake-ups a probe around a real run times.
func (f *fidelityFlags) wakeSamples() int {
	if f.quick {
		return 10
	}
	return 100
}

// computePerPoint is a run's compute time per point: its workers' Busy
// time less their pauses, over their points.
func computePerPoint(r *harness.Result) float64 {
	var busy time.Duration
	var pts int64
	for _, w := range r.Workers {
		busy += w.Busy - w.Paused
		pts += w.Points
	}
	if pts == 0 {
		return math.NaN()
	}
	return float64(busy) / float64(pts)
}

// runCPUPerCommit is a real run's CPU time per commit, every process's
// (the coordinator's and, over gRPC, the workers'), in ns: their CPU
// time over its span, at that rate over the run, over its commits; and
// its points per commit. 0, 0 where the counters were not read.
func runCPUPerCommit(m fidReal, r *harness.Result) (cpu, points float64) {
	var commits, pts int64
	for _, w := range r.Workers {
		commits += int64(w.Commits)
		pts += w.Points
	}
	if m.Span <= 0 || m.OS.CPU <= 0 || commits == 0 || r.Duration <= 0 {
		return 0, 0
	}
	return float64(m.OS.CPU) / float64(m.Span) * float64(r.Duration) / float64(commits), float64(pts) / float64(commits)
}

// mustPlan is parsePlan of an entry check accepted.
func mustPlan(s string) plan {
	p, err := parsePlan(s)
	if err != nil {
		panic(err)
	}
	return p
}

// fidInputs are what a scenario's prediction at the runs' speed takes
// from its real runs (medians over them).
type fidInputs struct {
	// PointNS is the compute time per point, WakeNS the wake-up delay.
	PointNS, WakeNS float64
	// StallNS and StallEveryNS are the operating system's stalls: how
	// long it took a CPU from one of the process's threads, on average
	// (their run-queue time less what their wake-ups account for, over
	// their preemptions), and after how much running (their CPU time
	// over their preemptions). 0 where not measured.
	StallNS, StallEveryNS float64
	// CommitCPUNS and CommitPoints are the CPU time per commit of every
	// process of the run and its points per commit (fidReal); 0 where not
	// measured.
	CommitCPUNS, CommitPoints float64
	// Procs is GOMAXPROCS.
	Procs int
}

// stalls are a real run's stalls (fidInputs), 0 without preemptions.
func (m fidReal) stalls() (stall, every float64) {
	if m.OS.Involuntary <= 0 || m.OS.CPU <= 0 {
		return 0, 0
	}
	n := float64(m.OS.Involuntary)
	return max(float64(m.OS.RunQueue)-float64(float64(m.OS.Voluntary)*m.WakeNS), 0) / n, float64(m.OS.CPU) / n
}

// inputs are the medians over the scenario's real runs of what its
// prediction at the runs' speed takes.
func (s *fidScenario) inputs() fidInputs { return inputsOf(s.meas) }

// inputsOf are the medians over ms of what a prediction at the runs'
// speed takes.
func inputsOf(ms []fidReal) fidInputs {
	var in fidInputs
	var pts, wakes, stalls, everys, cpus, per []float64
	for _, m := range ms {
		st, ev := m.stalls()
		pts, wakes, stalls, everys = append(pts, m.PointNS), append(wakes, m.WakeNS), append(stalls, st), append(everys, ev)
		cpus, per = append(cpus, m.CommitCPUNS), append(per, m.CommitPoints)
		in.Procs = m.Procs
	}
	in.PointNS, _ = stats.Median(pts)
	in.WakeNS, _ = stats.Median(wakes)
	in.StallNS, _ = stats.Median(stalls)
	in.StallEveryNS, _ = stats.Median(everys)
	in.CommitCPUNS, _ = stats.Median(cpus)
	in.CommitPoints, _ = stats.Median(per)
	return in
}

// fidSpeeds are the two measures of how much slower (> 1) or faster
// the machine ran a scenario's real runs than when the profile was
// taken.
//   - busy: the workers' compute time per point (their Busy time, the
//     Injected pauses excluded) over the profile's. It holds the time a
//     worker's thread waited for a CPU in the middle of a batch. In one
//     process that is the other processes' doing (Go's scheduler does
//     not slice a batch among goroutines unless it runs for 10 ms), so
//     it is the speed the run met.
//   - cpu: the CPU time per commit of every process of the run over the
//     profile's (a commit's points at the profile's compute time per
//     point plus its work per commit). Worker processes are time-sliced
//     among themselves by the operating system, so their Busy time
//     holds the other workers' turns, which the shared cores of the
//     model (Cores) add again; their CPU time does not.
//
// The prediction at the runs' speed takes busy for the goroutine
// runtime and cpu for the gRPC runtime (fidSpeed); each runtime's
// variant "speed" takes the other.
var fidSpeeds = map[string]string{"inproc": "busy", "grpc": "cpu"}

// otherSpeed is the measure of fidSpeeds rt does not take.
func otherSpeed(rt string) string {
	if fidSpeeds[rt] == "cpu" {
		return "busy"
	}
	return "cpu"
}

// speed is the factor, by the measure named (fidSpeeds), by which the
// scenario's real runs ran slower than the profile's costs c.
func (s *fidScenario) speed(c harness.CostModel, in fidInputs, measure string) (float64, error) {
	if measure == "busy" {
		if !(in.PointNS > 0) {
			return 0, fmt.Errorf("%s: no real run to take the speed from", s.name())
		}
		return in.PointNS / float64(c.PointCost), nil
	}
	want := float64(in.CommitPoints*float64(c.PointCost)) + float64(c.CommitCPU)
	if !(in.CommitCPUNS > 0) || !(want > 0) {
		return 0, fmt.Errorf("%s: no CPU time per commit measured to take the speed from (the operating system's counters, /proc on Linux)", s.name())
	}
	return in.CommitCPUNS / want, nil
}

// runCost is the cost model at the speed the scenario's real runs
// measured: the profile's costs scaled by how much slower or faster the
// machine ran them than when it was calibrated (fidSpeeds: the workers'
// compute time per point in one process, every process's CPU time per
// commit over gRPC; the apply, the messages and the runtime's work per
// commit with the points), GOMAXPROCS cores and the wake-up delay the
// probes found. The operating system's stalls are a variant
// (withStalls), not in it.
func (s *fidScenario) runCost(prof *harness.Profile, in fidInputs) (harness.CostModel, error) {
	return s.costAt(prof, in, fidSpeeds[s.rt])
}

// costAt is runCost with the speed by the measure named (fidSpeeds).
func (s *fidScenario) costAt(prof *harness.Profile, in fidInputs, measure string) (harness.CostModel, error) {
	c, err := prof.CostModel(s.w.shape, s.rt)
	if err != nil {
		return c, err
	}
	if in.Procs < 1 {
		return c, fmt.Errorf("%s: no real run to take the speed from", s.name())
	}
	k, err := s.speed(c, in, measure)
	if err != nil {
		return c, err
	}
	scale := func(d time.Duration) time.Duration { return time.Duration(math.Round(float64(d) * k)) }
	c.PointCost, c.CommitCPU = max(scale(c.PointCost), 1), scale(c.CommitCPU)
	c.EntryCost, c.Latency, c.MessageCost = max(scale(c.EntryCost), 1), max(scale(c.Latency), 1), scale(c.MessageCost)
	c.Cores, c.Wakeup = float64(in.Procs), time.Duration(math.Round(in.WakeNS))
	return c, nil
}

// withStalls adds to c the operating system's stalls as the runs'
// threads met them (fidInputs). The compute time per point holds the
// stalls that fell in the batches, so the work on the cores (points and
// the work per commit) becomes what is left of it without them,
// ÷ (1 + stall/every), and the stalls are drawn on top.
func withStalls(c *harness.CostModel, in fidInputs) {
	if !(in.StallNS > 0 && in.StallEveryNS > 0) {
		return
	}
	f := 1 + in.StallNS/in.StallEveryNS
	c.PointCost = max(time.Duration(math.Round(float64(c.PointCost)/f)), 1)
	c.CommitCPU = time.Duration(math.Round(float64(c.CommitCPU) / f))
	c.Stall, c.StallEvery = time.Duration(math.Round(in.StallNS)), max(time.Duration(math.Round(in.StallEveryNS)), time.Microsecond)
}

// fidAblations are variants of the prediction at the runs' speed, to
// show what each term contributes: the operating system's stalls added
// (measured from the runs' preemptions: whose they were, other
// processes' or the run's own threads', the counters do not say; in
// process only, as the gRPC runtime's worker processes' preemptions
// are mostly each other's turns on the cores, which the shared cores
// model, and its speed from CPU time holds no stall to take out), and
// the wake-ups, the work per commit and the shared cores (a core per
// worker at the mean speed, and none of the others) taken out.
// The gRPC runtime's variant takes out what worker processes add to
// the work per commit (withoutProcesses): the prediction as a
// calibration in one process would make it. The last takes the work
// per commit from the real runs' own counters instead of the profile
// (commitCPU: their processes' CPU time per commit beyond the points).
var fidAblations = []struct {
	key, label string
	edit       func(*harness.CostModel, fidInputs)
	// rt, if set, is the only runtime the variant applies to; edit nil:
	// withoutProcesses.
	rt string
}{
	{"stalls", "with stalls", withStalls, "inproc"},
	{"wakeup", "without wake-ups", func(c *harness.CostModel, _ fidInputs) { c.Wakeup = 0 }, ""},
	{"commit", "without the work per commit", func(c *harness.CostModel, _ fidInputs) { c.CommitCPU = 0 }, ""},
	{"cores", "without shared cores", func(c *harness.CostModel, _ fidInputs) { c.Cores, c.CommitCPU, c.Wakeup = 0, 0, 0 }, ""},
	{"process", "without the worker processes' share of the work per commit", nil, "grpc"},
	{"cpu", "with the runs' own CPU time per commit", nil, ""},
	{"speed-cpu", "at the speed of the processes' CPU time per commit", nil, "inproc"},
	{"speed-busy", "at the speed of the workers' Busy time per point", nil, "grpc"},
}

// withoutProcesses takes out of c, the cost model at the runs' speed of
// a gRPC scenario, what worker processes of their own add to the work
// per commit (the profile's process_commit_ns − null_commit_ns), scaled
// as runCost scales the profile's times.
func (s *fidScenario) withoutProcesses(c *harness.CostModel, prof *harness.Profile, in fidInputs) error {
	t, _ := prof.Transport("grpc")
	pc, err := prof.CostModel(s.w.shape, s.rt)
	if err != nil {
		return err
	}
	k, err := s.speed(pc, in, fidSpeeds[s.rt])
	if err != nil {
		return err
	}
	c.CommitCPU = max(c.CommitCPU-time.Duration(math.Round(float64((t.ProcessCommitNS-t.NullCommitNS)*k))), 0)
	return nil
}

// predict runs the virtual predictions of every scenario, GOMAXPROCS at
// a time (they are deterministic; the real runs are over), and derives
// the targets.
func predict(ctx context.Context, f *fidelityFlags, prof *harness.Profile, sc []*fidScenario, stderr io.Writer) error {
	type job struct {
		s    *fidScenario
		kind string
		c    harness.CostModel
		to   **harness.Result
	}
	var jobs []job
	for _, s := range sc {
		pc, err := prof.CostModel(s.w.shape, s.rt)
		if err != nil {
			return fmt.Errorf("%s: %v", s.name(), err)
		}
		jobs = append(jobs, job{s, "profile", pc, &s.profile})
		s.reps = make([]*harness.Result, len(s.meas))
		for i := range s.meas {
			c, err := s.runCost(prof, inputsOf(s.meas[i:i+1]))
			if err != nil {
				return err
			}
			jobs = append(jobs, job{s, fmt.Sprintf("run %d", i+1), c, &s.reps[i]})
		}
		rc, err := s.runCost(prof, s.inputs())
		if err != nil {
			return err
		}
		jobs = append(jobs, job{s, "median", rc, &s.run})
		s.ablated = make([]*harness.Result, len(fidAblations))
		for i, a := range fidAblations {
			c := rc
			switch {
			case a.rt != "" && a.rt != s.rt:
				continue
			case a.key == "cpu":
				// The work per commit the real runs' processes measured
				// (commitCPU), at their speed already; none where the
				// counters give no positive figure.
				mc := s.commitMedian()
				if !(mc > 0) {
					continue
				}
				c.CommitCPU = time.Duration(math.Round(mc))
			case a.key == "speed-cpu" || a.key == "speed-busy":
				// The same inputs at the speed of the other measure
				// (fidSpeeds); none where it was not measured.
				oc, err := s.costAt(prof, s.inputs(), otherSpeed(s.rt))
				if err != nil {
					continue
				}
				c = oc
			case a.edit == nil:
				if err := s.withoutProcesses(&c, prof, s.inputs()); err != nil {
					return err
				}
			default:
				a.edit(&c, s.inputs())
			}
			jobs = append(jobs, job{s, a.key, c, &s.ablated[i]})
		}
	}
	pr := &progress{w: stderr, prefix: "syncbench fidelity", total: len(jobs)}
	err := runParallel(ctx, jobs, func(ctx context.Context, j job) error {
		r, err := j.s.virtual(ctx, f, j.c, j.kind)
		if err != nil {
			return err
		}
		*j.to = r
		pr.step("%s virtual (%s): %.1f µs/iteration, wait %.0f%%", j.s.name(), j.kind, float64(perIteration(r).Seconds()*1e6), float64(100*r.WaitFraction))
		return nil
	})
	if err != nil {
		return err
	}
	for _, s := range sc {
		s.setTarget()
	}
	return nil
}

// The target of a scenario is a share of the least improvement over θ0
// among its runs, so that every run reaches it, on the way down rather
// than on the plateau (where a run's time to a level depends on where
// its own plateau lies more than on its speed). LR's curves fall for
// hundreds of iterations: 95% of the way is well before their plateau.
// K-means' first rounds take 80% of its improvement and 95% comes after
// a dozen BSP rounds of 4 workers (2,000 points each, of 16,000): 98%
// asks for the centres settling over tens of rounds.
func (w *fidWork) targetShare() float64 {
	if w.key == "kmeans" {
		return 0.98
	}
	return 0.95
}

// runs are the scenario's real runs and predictions (the ablations
// left out: they are not predictions the target must suit).
func (s *fidScenario) runs() []*harness.Result {
	var out []*harness.Result
	for _, r := range append(append(slices.Clone(s.real), s.reps...), s.run, s.profile) {
		if r != nil {
			out = append(out, r)
		}
	}
	return out
}

func (s *fidScenario) setTarget() {
	s.initial = s.runs()[0].Curve[0].Objective
	minimize := s.w.alg.Minimize()
	least := math.Inf(1)
	for _, r := range s.runs() {
		gain := s.initial - r.Final
		if !minimize {
			gain = -gain
		}
		if r.Diverged || math.IsNaN(gain) {
			gain = math.Inf(-1)
		}
		least = min(least, gain)
	}
	if !(least > 0) {
		s.target = math.NaN()
		return
	}
	if minimize {
		s.target = s.initial - float64(s.w.targetShare()*least)
	} else {
		s.target = s.initial + float64(s.w.targetShare()*least)
	}
}

// timeTo is r's time to the scenario's target, interpolated linearly
// between the snapshots around its first crossing (-1 if none).
func (s *fidScenario) timeTo(r *harness.Result) time.Duration {
	if math.IsNaN(s.target) {
		return -1
	}
	minimize := s.w.alg.Minimize()
	for i, p := range r.Curve {
		if !reached(p.Objective, s.target, minimize) {
			continue
		}
		if i == 0 {
			return p.T
		}
		q := r.Curve[i-1]
		if q.Objective == p.Objective {
			return p.T
		}
		frac := (q.Objective - s.target) / (q.Objective - p.Objective)
		return q.T + time.Duration(frac*float64(p.T-q.T))
	}
	return -1
}

// itersToTarget is how many iterations r had done when it reached the
// scenario's target (NaN if it did not): itersBy at its time to target.
func (s *fidScenario) itersToTarget(r *harness.Result) float64 {
	t := s.timeTo(r)
	if t < 0 {
		return math.NaN()
	}
	return itersBy(r, t)
}

// itersBy is the mean over r's workers of their commits accepted by
// time t (the trace's commit records), as Result.Iterations counts them
// over the whole run; NaN without a trace or workers.
func itersBy(r *harness.Result, t time.Duration) float64 {
	if r.Trace == nil || len(r.Workers) == 0 {
		return math.NaN()
	}
	n := 0
	for _, rec := range r.Trace.Records {
		if rec.Kind == consistency.RecCommit && rec.At <= t {
			n++
		}
	}
	return float64(n) / float64(len(r.Workers))
}

// perIteration is a run's time per iteration: its length over the mean
// commits per worker.
func perIteration(r *harness.Result) time.Duration {
	if r.Iterations == 0 {
		return 0
	}
	return time.Duration(float64(r.Duration) / r.Iterations)
}

// realMedian is the median of x over the scenario's real runs; NaN if
// some run has none (x < 0: a target not reached).
func (s *fidScenario) realMedian(x func(*harness.Result) float64) float64 {
	return medianOf(s.real, x)
}

// medianOf is the median of x over runs; NaN if some run has none.
func medianOf(runs []*harness.Result, x func(*harness.Result) float64) float64 {
	var v []float64
	for _, r := range runs {
		x := x(r)
		if x < 0 || math.IsNaN(x) {
			return math.NaN()
		}
		v = append(v, x)
	}
	m, err := stats.Median(v)
	if err != nil {
		return math.NaN()
	}
	return m
}

// measMedian is the median of x over the scenario's measurements
// around its real runs (NaN if none).
func (s *fidScenario) measMedian(x func(fidReal) float64) float64 {
	var v []float64
	for _, m := range s.meas {
		// A run too short for two progress reports has no span: its
		// counters are left out.
		if x := x(m); !math.IsNaN(x) && !math.IsInf(x, 0) {
			v = append(v, x)
		}
	}
	m, err := stats.Median(v)
	if err != nil {
		return math.NaN()
	}
	return m
}
