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
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/montanaflynn/stats"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/workload"
)

// `syncbench calibrate` measures this machine's costs and writes a cost
// profile (harness.Profile, docs/calibrate.md): the compute time of a data
// point of each workload over a grid of sizes, fitted by a line in the
// workload's size (harness.WorkloadShape.Size), the coordinator's apply
// time per entry, and each transport's latency, bandwidth and
// per-message cost (calibrate_net.go). compare, reproduce fsp and
// fidelity read it with -profile.

// calibrateFlags are the flags of `syncbench calibrate`.
type calibrateFlags struct {
	out        string
	date       string
	quick      bool
	redis      string
	workloads  string
	transports string
	repeats    int
	minTime    time.Duration
	seed       uint64
	keys       []string
	nets       []string
}

// calibrateKeys are the profile's workloads (harness.WorkloadShape.Key).
var calibrateKeys = []string{"kmeans", "kmeans-float32", "gmm", "fcm", "lr", "lr-sparse", "nmf", "pmf"}

// calibrateNets are the transports calibrate measures.
var calibrateNets = []string{"inproc", "grpc", "redis"}

func (f *calibrateFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.out, "out", "profile.json", "the cost profile to write (JSON; docs/calibrate.md); - for standard output")
	fs.StringVar(&f.date, "date", "", "the date written into the profile (free text, e.g. 2026-05-01); empty = today's, YYYY-MM-DD")
	fs.BoolVar(&f.quick, "quick", false, "two small sizes per workload, short timings (a few seconds): checks the pipeline, the numbers are rough")
	fs.StringVar(&f.redis, "redis", "", "a Redis server to measure, redis://HOST:PORT; empty = skip Redis (the profile then has no redis transport)")
	fs.StringVar(&f.workloads, "workloads", strings.Join(calibrateKeys, ","), "comma-separated workloads to measure: "+strings.Join(calibrateKeys, ", "))
	fs.StringVar(&f.transports, "transports", strings.Join(calibrateNets, ","), "comma-separated transports to measure: inproc, grpc (loopback TCP with mutual TLS), redis (needs -redis)")
	fs.IntVar(&f.repeats, "repeats", 7, "timings per measurement; the profile keeps their median")
	fs.DurationVar(&f.minTime, "min-time", 40*time.Millisecond, "the least time of one timing (as go test -benchtime)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the synthetic data measured")
}

func (f *calibrateFlags) check() error {
	if f.quick {
		f.repeats = min(f.repeats, 3)
		f.minTime = min(f.minTime, time.Millisecond)
	}
	switch {
	case f.repeats < 1:
		return fmt.Errorf("-repeats %d: want ≥ 1", f.repeats)
	case f.minTime <= 0 || f.minTime > time.Minute:
		return fmt.Errorf("-min-time %v: want > 0 and at most 1m", f.minTime)
	case f.out == "":
		return errors.New("-out: give a file for the profile, or - for standard output")
	}
	var err error
	if f.keys, err = listFlag("-workloads", f.workloads, calibrateKeys); err != nil {
		return err
	}
	if f.nets, err = listFlag("-transports", f.transports, calibrateNets); err != nil {
		return err
	}
	if f.redis != "" && !strings.HasPrefix(f.redis, "redis://") && !strings.HasPrefix(f.redis, "rediss://") {
		return fmt.Errorf("-redis %q: want redis://HOST:PORT", f.redis)
	}
	if f.date == "" {
		f.date = time.Now().Format("2006-01-02")
	}
	return nil
}

// listFlag reads a comma-separated list whose entries must be in allowed.
func listFlag(name, s string, allowed []string) ([]string, error) {
	var out []string
	for v := range strings.SplitSeq(s, ",") {
		v = strings.TrimSpace(v)
		if !slices.Contains(allowed, v) {
			return nil, fmt.Errorf("%s %q: %q is not one of %s", name, s, v, strings.Join(allowed, ", "))
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, nil
}

func calibrateCmd(args []string, stdout, stderr io.Writer) int {
	const name = "syncbench calibrate"
	var f calibrateFlags
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stdout)
	f.register(fs)
	if code, ok := parseFlags(fs, args, f.check, stderr); !ok {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	p, err := calibrate(ctx, &f, stderr)
	if err == nil {
		err = writeProfile(f.out, p, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, oneLine(err))
		return 1
	}
	if f.out != "-" {
		printProfile(stdout, p)
		fmt.Fprintf(stdout, "wrote %s in %.0f s\n", f.out, time.Since(start).Seconds())
	}
	return 0
}

// writeProfile writes p to path, or to stdout for "-".
func writeProfile(path string, p *harness.Profile, stdout io.Writer) error {
	if path == "-" {
		return harness.WriteProfile(stdout, p)
	}
	fh, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("-out: %w", err)
	}
	if err := harness.WriteProfile(fh, p); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// calibrate measures what f asks for.
func calibrate(ctx context.Context, f *calibrateFlags, stderr io.Writer) (*harness.Profile, error) {
	p := &harness.Profile{Version: harness.ProfileVersion, Date: f.date, Machine: thisMachine(), Cores: float64(max(runtime.GOMAXPROCS(0), 1))}
	p.Notes = append(p.Notes,
		fmt.Sprintf("point costs: the goroutine runtime's Busy time per point of one worker, BSP, batches of %d points, over %d MiB of data (at least %d points, at most %d), the median of %d runs of %v", calibrateScale(f.quick).batch, calibrateScale(f.quick).bytes>>20, calibrateScale(f.quick).shard, maxShard, f.repeats, 3*f.minTime),
		"apply_entry_ns: Delta.Merge of one worker's delta and Server.Apply, per entry merged and parameter recomputed (the simulator's EntryCost)",
		"transports: latency_ns is half the median round trip of a heartbeat between two goroutines; bandwidth is the inverse slope of the time per message against its size and message_ns a heartbeat's time, messages streamed one way; round_ns and worker_ns fit the real runtime's BSP rounds of workers computing one point per commit",
		"cores: the points per second of GOMAXPROCS goroutines computing at once over one goroutine's",
		"commit_ns: the process's CPU time per commit of real ASP runs of 2·GOMAXPROCS workers committing one point at a time, less a point's, over its CPU time per point (from runs committing a batch), times point_ns; grpc_commit_ns the same over gRPC with TLS on loopback (the coordinator's server and the workers' client in the one process, whose CPU time holds both ends); wakeup_ns: the median delay before a sleeping thread runs a goroutine readied for it")
	if p.Machine.Load > float64(p.Machine.NumCPU) {
		p.Notes = append(p.Notes, fmt.Sprintf("the machine was loaded (1-minute load %.2f on %d CPUs): the times are those of a shared machine", p.Machine.Load, p.Machine.NumCPU))
	}
	cores, err := measureCores(f, stderr)
	if err != nil {
		return nil, err
	}
	p.Cores = cores
	var wakes []float64
	for range f.repeats {
		wakes = append(wakes, wakeProbe(wakeSamples(f.quick)))
	}
	p.WakeupNS, _ = stats.Median(wakes)
	fmt.Fprintf(stderr, "syncbench calibrate: a sleeping thread takes %.1f µs to run a readied goroutine (median of %d medians)\n", p.WakeupNS/1e3, len(wakes))
	for _, key := range f.keys {
		w, err := calibrateWorkload(ctx, f, key, stderr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		p.Workloads = append(p.Workloads, w)
	}
	for _, name := range f.nets {
		if name == "redis" && f.redis == "" {
			fmt.Fprintln(stderr, "syncbench calibrate: redis skipped: give -redis redis://HOST:PORT to measure a Redis server")
			continue
		}
		t, err := calibrateTransport(ctx, f, name, stderr)
		for try := 2; try <= calibrateAttempts && errors.Is(err, errNoisy); try++ {
			fmt.Fprintf(stderr, "syncbench calibrate: transport %s: %v; measuring again (%d of %d)\n", name, err, try, calibrateAttempts)
			t, err = calibrateTransport(ctx, f, name, stderr)
		}
		if err != nil {
			return nil, fmt.Errorf("transport %s: %w", name, err)
		}
		p.Transports = append(p.Transports, t)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// measureCores measures the compute capacity GOMAXPROCS goroutines get
// together, in cores: the points per second of that many goroutines
// computing LR batches (100 features) at once over one goroutine's, the
// median of repeats pairs of timings. An idle machine gives about
// GOMAXPROCS; one whose other processes keep cores busy, less.
func measureCores(f *calibrateFlags, stderr io.Writer) (float64, error) {
	k := runtime.GOMAXPROCS(0)
	sc := calibrateScale(f.quick)
	spec := workload.Spec{Algo: "lr", N: k * sc.points(harness.WorkloadShape{Algo: "lr", Dim: 100}), Dim: 100, Seed: f.seed}.WithDefaults()
	alg, _, err := workload.Open(spec)
	if err != nil {
		return 0, err
	}
	c, lo, hi, err := capacity(alg, f.seed, sc, 5*f.minTime, f.repeats)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(stderr, "syncbench calibrate: %d goroutines compute %.2f× what one does (repeats %.2f–%.2f): cores %.2f\n", k, c, lo, hi, c)
	return c, nil
}

// capacity returns the median over repeats of the ratio of the points
// per second GOMAXPROCS goroutines compute at once, each over its share
// of alg's points (batches of sc.batch computed as the goroutine runtime
// does), to one goroutine's, each timing lasting span; and the lowest
// and highest ratio. The median is rounded to hundredths and kept
// in [0.01, GOMAXPROCS].
func capacity(alg algorithms.Algorithm, seed uint64, sc calibrationScale, span time.Duration, repeats int) (c, lo, hi float64, err error) {
	c, lo, hi, _, err = capacityAndCost(alg, seed, sc, span, repeats)
	return c, lo, hi, err
}

// capacityAndCost is capacity, and the median time per point of the one
// goroutine's timings, in nanoseconds.
func capacityAndCost(alg algorithms.Algorithm, seed uint64, sc calibrationScale, span time.Duration, repeats int) (c, lo, hi, pointNS float64, err error) {
	k := runtime.GOMAXPROCS(0)
	theta, err := alg.Init(rand.New(rand.NewPCG(seed, 0x5eed)))
	if err != nil {
		return 0, 0, 0, 0, err
	}
	shard := alg.NumPoints() / k
	if shard < 1 {
		return 0, 0, 0, 0, fmt.Errorf("%d points for %d goroutines", alg.NumPoints(), k)
	}
	steps := make([]func() int, k)
	for g := range steps {
		pts := make([]int, shard)
		for i := range pts {
			pts[i] = g*shard + i
		}
		w, err := alg.NewWorker(pts)
		if err != nil {
			return 0, 0, 0, 0, err
		}
		w.SetParams(theta)
		d := algorithms.NewDelta(alg.Layout())
		w.Process(0, shard, d) // warm-up: EM's per-point state
		step := chunked(w, theta, d, shard, min(sc.batch, shard))
		steps[g] = func() int {
			d.Reset()
			return step()
		}
	}
	rate := func(g int) float64 {
		counts := make([]int, g)
		var wg sync.WaitGroup
		t0 := time.Now()
		for i := range g {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Since(t0) < span {
					counts[i] += steps[i]()
				}
			}()
		}
		wg.Wait()
		tot := 0
		for _, c := range counts {
			tot += c
		}
		return float64(tot) / time.Since(t0).Seconds()
	}
	var ratios, costs []float64
	for range repeats {
		one := rate(1)
		ratios = append(ratios, rate(k)/one)
		costs = append(costs, 1e9/one)
	}
	c, _ = stats.Median(ratios)
	c = math.Round(min(max(c, 0.01), float64(k))*100) / 100
	pointNS, _ = stats.Median(costs)
	return c, slices.Min(ratios), slices.Max(ratios), pointNS, nil
}

// thisMachine describes the machine calibrate runs on.
func thisMachine() harness.Machine {
	m := harness.Machine{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, NumCPU: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), Go: runtime.Version()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	m.Load = loadAverage()
	return m
}

// loadAverage is the 1-minute load average (Linux), 0 if unknown.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(fields[0], 64)
	return v
}

// calibrationScale is how much calibrate measures: batches of batch
// points, from a shard of bytes of data (at least shard points, at most
// maxShard).
type calibrationScale struct {
	shard, batch, bytes int
}

// maxShard bounds a measured shard: the EM workloads keep state per
// point.
const maxShard = 1 << 17

func calibrateScale(quick bool) calibrationScale {
	if quick {
		return calibrationScale{shard: 128, batch: 32, bytes: 64 << 10}
	}
	// compare's batch of 500 points, from 64 MiB of data: twice the
	// project machine's 32 MiB L3 cache, so that the points come from
	// memory, as a training job's do (the goroutine runtime's workers
	// go through their shards batch after batch, and 16 of them take
	// turns on the cores). A data set that fits the caches computes
	// faster than the profile says.
	return calibrationScale{shard: 2048, batch: 500, bytes: 64 << 20}
}

// points is the shard size at which sc measures shape s: sc.bytes of
// data, within [sc.shard, maxShard].
func (sc calibrationScale) points(s harness.WorkloadShape) int {
	per := 8 * (s.Dim + 1) // a dense point and its label
	switch {
	case s.Algo == "pmf":
		per = 16 // a rating: user, item, value
	case s.Sparse:
		per = 12*s.Dim + 8
	case s.Float32:
		per = 4 * max(s.Dim, 1)
	}
	return min(max(sc.bytes/per, sc.shard), maxShard)
}

// runtimeChunk is how many points the goroutine runtime's worker
// processes between its checks for an interrupt, each chunk after a
// SetParams (harness/realworker.go's chunk): calibrate and the probes
// compute as it does.
const runtimeChunk = 16

// chunked returns a step that computes one batch of w over a shard of
// shard points as the goroutine runtime does: chunks of runtimeChunk
// points, each after SetParams(theta), wrapping round the shard.
func chunked(w algorithms.Worker, theta []float64, d *algorithms.Delta, shard, batch int) func() int {
	cursor := 0
	return func() int {
		for k := batch; k > 0; {
			n := min(k, runtimeChunk, shard-cursor)
			w.SetParams(theta)
			w.Process(cursor, cursor+n, d)
			k -= n
			cursor = (cursor + n) % shard
		}
		return batch
	}
}

// calibrationSize is one size of a workload to measure.
type calibrationSize struct {
	dim, k, rank int
}

// calibrationSizes are the sizes measured per workload: dimensions (and
// clusters or ranks) around the defaults, wide enough for the fit's slope.
func calibrationSizes(key string, quick bool) []calibrationSize {
	var s []calibrationSize
	switch key {
	case "kmeans", "kmeans-float32", "gmm", "fcm":
		for _, k := range []int{10, 16} {
			for _, d := range []int{8, 32, 128} {
				s = append(s, calibrationSize{dim: d, k: k})
			}
		}
		if quick {
			s = []calibrationSize{{dim: 4, k: 4}, {dim: 16, k: 4}}
		}
	case "lr":
		for _, d := range []int{16, 32, 64, 100, 128, 256, 512, 784} {
			s = append(s, calibrationSize{dim: d})
		}
		if quick {
			s = []calibrationSize{{dim: 8}, {dim: 32}}
		}
	case "lr-sparse":
		// Nonzeros per point over synthetic:sparse-logistic's 2^17
		// columns (its default is 40).
		for _, d := range []int{10, 20, 40, 80} {
			s = append(s, calibrationSize{dim: d})
		}
		if quick {
			s = []calibrationSize{{dim: 10}, {dim: 40}}
		}
	case "nmf":
		for _, d := range []int{32, 64, 128, 256} {
			s = append(s, calibrationSize{dim: d, rank: 10})
		}
		s = append(s, calibrationSize{dim: 128, rank: 20})
		if quick {
			s = []calibrationSize{{dim: 8, rank: 2}, {dim: 16, rank: 4}}
		}
	case "pmf":
		for _, r := range []int{5, 10, 20, 40} {
			s = append(s, calibrationSize{rank: r})
		}
		if quick {
			s = []calibrationSize{{rank: 2}, {rank: 8}}
		}
	}
	return s
}

// sparseColumns is the dimension of lr-sparse's data: synthetic:sparse-logistic's.
const sparseColumns = 1 << 17

// calibrationData loads the data of spec; for lr-sparse, nnz nonzeros
// per point (dataset.SparseLogistic), which the generator's spec cannot
// ask for.
func calibrationData(spec workload.Spec, sh harness.WorkloadShape) (*workload.Data, error) {
	if !sh.Sparse {
		return workload.Load(spec)
	}
	sp, _ := dataset.SparseLogistic(rand.New(rand.NewPCG(spec.Seed, 0xda7a)), spec.N, sparseColumns, sh.Dim)
	return &workload.Data{Source: fmt.Sprintf("synthetic:sparse-logistic (%d nonzeros per point)", sh.Dim), Sparse: sp}, nil
}

// calibrationShape is the workload shape and spec of one size.
func calibrationShape(key string, z calibrationSize, n int, seed uint64) (harness.WorkloadShape, workload.Spec) {
	algo, variant, _ := strings.Cut(key, "-")
	sh := harness.WorkloadShape{Algo: algo, Dim: z.dim, K: z.k, Rank: z.rank, Sparse: variant == "sparse", Float32: variant == "float32"}
	spec := workload.Spec{Algo: algo, N: n, Dim: z.dim, K: max(z.k, 1), Rank: max(z.rank, 1), Seed: seed, Float32: sh.Float32}
	switch {
	case sh.Sparse:
		spec.Data, spec.Dim = "synthetic:sparse-logistic", sparseColumns
	case algo == "pmf":
		spec.Dim = 0
	}
	if algo == "kmeans" || algo == "gmm" || algo == "fcm" {
		spec.Init = "random" // kmeans++ on the whole set is slow and changes nothing here
	}
	return sh, spec.WithDefaults()
}

// calibrateWorkload measures every size of workload key and fits the line.
func calibrateWorkload(ctx context.Context, f *calibrateFlags, key string, stderr io.Writer) (harness.WorkloadCost, error) {
	sc := calibrateScale(f.quick)
	wc := harness.WorkloadCost{Key: key}
	var applies, commits, grpcCommits []float64
	// The gRPC runtime's work per commit is measured with grpc among the
	// transports: over a network of the coordinator's server and the
	// workers' client in this process (grpcNetwork).
	var grpcNet *network
	if slices.Contains(f.nets, "grpc") {
		nw, err := grpcNetwork(commitWorkers())
		if err != nil {
			return wc, err
		}
		grpcNet = &nw
	}
	for _, z := range calibrationSizes(key, f.quick) {
		if err := ctx.Err(); err != nil {
			return wc, err
		}
		sh, _ := calibrationShape(key, z, 0, f.seed)
		sh, spec := calibrationShape(key, z, sc.points(sh), f.seed)
		s, err := measureWorkload(spec, sh, sc, f.repeats, f.minTime, grpcNet, stderr)
		if err != nil {
			return wc, fmt.Errorf("%+v: %w", z, err)
		}
		size, unit := sh.Size()
		groups, gname := sh.Groups()
		wc.Size = unit
		s.Dim, s.K, s.Rank, s.Size, s.Groups = sh.Dim, z.k, z.rank, size, groups
		wc.Samples = append(wc.Samples, s)
		applies = append(applies, s.ApplyEntryNS)
		commits = append(commits, s.CommitNS)
		if s.GRPCCommitNS > 0 {
			grpcCommits = append(grpcCommits, s.GRPCCommitNS)
		}
		g := ""
		if gname != "" {
			g = fmt.Sprintf(" %s=%g", gname, groups)
		}
		gc := ""
		if grpcNet != nil {
			gc = fmt.Sprintf(", %.1f µs over gRPC", s.GRPCCommitNS/1e3)
		}
		fmt.Fprintf(stderr, "syncbench calibrate: %s %s=%g%s: %.1f ns/point (%.1f–%.1f), apply %.2f ns/entry, %.1f µs per commit%s\n", key, unit, size, g, s.PointNS, s.LowNS, s.HighNS, s.ApplyEntryNS, s.CommitNS/1e3, gc)
	}
	if err := fitWorkload(&wc, key); err != nil {
		return wc, err
	}
	wc.ApplyEntryNS, _ = stats.Median(applies)
	wc.CommitNS, _ = stats.Median(commits)
	if grpcNet != nil {
		// The median over the sizes whose timings left a positive cost.
		if len(grpcCommits) > 0 {
			wc.GRPCCommitNS, _ = stats.Median(grpcCommits)
		}
		if !(wc.GRPCCommitNS > 0) {
			fmt.Fprintf(stderr, "syncbench calibrate: %s: the gRPC runtime's work per commit not measured: no size's timings left a positive cost per commit (a larger -min-time may); gRPC predictions of %s will refuse the profile\n", key, key)
		}
	}
	return wc, nil
}

// fitWorkload fits wc's model to its samples: intercept, slope in the
// size and, when the samples have two group counts or more, a term per
// group. A fit with a negative slope or group term (noise on a shared
// machine) falls back to fewer terms, and at last to the mean cost per
// unit of size through 0.
func fitWorkload(wc *harness.WorkloadCost, key string) error {
	_, gname := calibrationShapeOf(key).Groups()
	var ys []float64
	var groups []float64
	for _, s := range wc.Samples {
		ys = append(ys, s.PointNS)
		if !slices.Contains(groups, s.Groups) {
			groups = append(groups, s.Groups)
		}
	}
	if gname != "" && len(groups) > 1 && len(wc.Samples) > 3 {
		var rows [][]float64
		for _, s := range wc.Samples {
			rows = append(rows, []float64{1, s.Size, s.Groups})
		}
		if c, r2, err := leastSquares(rows, ys); err == nil && c[1] >= 0 && c[2] >= 0 {
			wc.Groups, wc.InterceptNS, wc.SlopeNS, wc.GroupNS, wc.R2 = gname, c[0], c[1], c[2], r2
			return nil
		}
	}
	var rows [][]float64
	for _, s := range wc.Samples {
		rows = append(rows, []float64{1, s.Size})
	}
	c, r2, err := leastSquares(rows, ys)
	if err != nil {
		return err
	}
	minSize := slices.MinFunc(wc.Samples, func(a, b harness.CostSample) int { return cmp.Compare(a.Size, b.Size) }).Size
	if c[1] >= 0 && c[0]+float64(c[1]*minSize) > 0 {
		wc.InterceptNS, wc.SlopeNS, wc.R2 = c[0], c[1], r2
		return nil
	}
	var sx, sy float64
	for _, s := range wc.Samples {
		sx += s.Size
		sy += s.PointNS
	}
	wc.InterceptNS, wc.SlopeNS = 0, sy/sx
	wc.R2 = rSquared(ys, func(i int) float64 { return float64(wc.SlopeNS * wc.Samples[i].Size) })
	return nil
}

// calibrationShapeOf is the shape of workload key, for its size's and
// groups' names.
func calibrationShapeOf(key string) harness.WorkloadShape {
	sh, _ := calibrationShape(key, calibrationSize{}, 1, 0)
	return sh
}

// leastSquares solves min ‖X·c − y‖ (QR) and returns c and R².
func leastSquares(rows [][]float64, y []float64) ([]float64, float64, error) {
	n, p := len(rows), len(rows[0])
	if n < p {
		return nil, 0, fmt.Errorf("fit: %d samples for %d coefficients", n, p)
	}
	// Modified Gram–Schmidt: X = QR, then R·c = Qᵀy by back
	// substitution; every product rounded (the same bits on every
	// architecture, internal/fpdet).
	dot := func(a, b []float64) float64 {
		var s float64
		for i := range a {
			s += float64(a[i] * b[i])
		}
		return s
	}
	q := make([][]float64, p)
	r := make([][]float64, p)
	for j := range p {
		r[j] = make([]float64, p)
		v := make([]float64, n)
		for i := range n {
			v[i] = rows[i][j]
		}
		col := math.Sqrt(dot(v, v))
		for k := range j {
			r[k][j] = dot(q[k], v)
			for i := range v {
				v[i] -= float64(r[k][j] * q[k][i])
			}
		}
		norm := math.Sqrt(dot(v, v))
		if !(norm > float64(1e-12*col)) {
			return nil, 0, fmt.Errorf("fit: the sizes do not determine %d coefficients (two sizes the same?)", p)
		}
		r[j][j] = norm
		for i := range v {
			v[i] /= norm
		}
		q[j] = v
	}
	coef := make([]float64, p)
	for j := p - 1; j >= 0; j-- {
		s := dot(q[j], y)
		for k := j + 1; k < p; k++ {
			s -= float64(r[j][k] * coef[k])
		}
		coef[j] = s / r[j][j]
	}
	r2 := rSquared(y, func(i int) float64 {
		var v float64
		for j, xj := range rows[i] {
			v += float64(coef[j] * xj)
		}
		return v
	})
	return coef, r2, nil
}

// rSquared is the coefficient of determination of predictions f(i) of y.
func rSquared(y []float64, f func(i int) float64) float64 {
	var my float64
	for _, v := range y {
		my += v
	}
	my /= float64(len(y))
	var ss, st float64
	for i, v := range y {
		ss += float64((v - f(i)) * (v - f(i)))
		st += float64((v - my) * (v - my))
	}
	if st == 0 {
		return 1
	}
	return 1 - ss/st
}

// runtimeTimes measures the compute time per point of alg as the
// goroutine runtime computes it: repeats real runs of dur, one worker
// over all of alg's points, BSP with batches of sc.batch, each giving the
// worker's Busy time over its points (harness.WorkerStats). The worker
// computes as every runtime worker does (chunks between interrupt
// checks, the parameters of each release, its shard batch after batch)
// with the runtime's messages, trace and garbage collection around it,
// which a bare loop over Worker.Process does not see.
func runtimeTimes(ctx context.Context, alg algorithms.Algorithm, seed uint64, sc calibrationScale, repeats int, dur time.Duration) ([]float64, error) {
	var out []float64
	for len(out) < repeats {
		e := harness.Experiment{Algorithm: alg, Sync: consistency.Spec{Kind: consistency.BSP}, Workers: 1, Batch: min(sc.batch, alg.NumPoints()),
			Clock: harness.Real, Duration: dur, EvalEvery: dur, Seed: seed}
		r, err := harness.Run(ctx, e)
		if err != nil {
			return nil, err
		}
		w := r.Workers[0]
		if w.Points == 0 {
			// The run ended before its first batch did (a short -quick
			// timing on a slow or loaded machine): run longer.
			if dur >= time.Second {
				return nil, fmt.Errorf("no point computed in %v", dur)
			}
			dur *= 2
			continue
		}
		out = append(out, float64(w.Busy.Nanoseconds())/float64(w.Points))
	}
	return out, nil
}

// wakeSamples is how many wake-ups a wake probe times.
func wakeSamples(quick bool) int {
	if quick {
		return 20
	}
	return 200
}

// commitWorkers is the number of workers of runtimeCommit's runs.
func commitWorkers() int { return 2 * runtime.GOMAXPROCS(0) }

// runtimeCommit measures the runtime's compute per commit beyond its
// points, in the time of pointNS (a point's time as runtimeTimes
// measures it): real ASP runs of 2·GOMAXPROCS workers (every P busy, as
// in a run of more workers than cores), over nw (nil: the in-process
// transport; for gRPC both ends are in this process, so its CPU time
// holds the coordinator's and the workers'), committing 1 point at a time and
// sc.batch points at a time, repeats of each in turn, each giving the
// process's CPU time per commit between its first and last progress
// report (no setup, no checking of the trace). With C₁ and C_b their
// medians, a point's CPU time is p = (C_b − C₁)/(b − 1) and a commit's
// C₁ − p; the result is (C₁ − p)·pointNS/p (0 if the timings leave no
// positive cost per point, or none per commit).
func runtimeCommit(ctx context.Context, alg algorithms.Algorithm, seed uint64, sc calibrationScale, repeats int, dur time.Duration, pointNS float64, nw *network, warn io.Writer) (float64, error) {
	workers := min(commitWorkers(), alg.NumPoints())
	b := min(sc.batch, alg.NumPoints()/workers)
	if b < 2 || processCPU() == 0 {
		return 0, nil
	}
	perCommit := func(batch int) (float64, error) {
		e := harness.Experiment{Algorithm: alg, Sync: consistency.Spec{Kind: consistency.ASP}, Workers: workers, Batch: batch,
			Clock: harness.Real, Duration: dur, EvalEvery: dur, Seed: seed}
		c, _, err := perVersion(e, nil, func(e harness.Experiment) error { _, err := runOver(ctx, e, nw); return err })
		var ce *consistency.CheckError
		for try := 2; try <= 3 && nw != nil && errors.As(err, &ce); try++ {
			// A run over gRPC whose trace failed the check (seen once in
			// calibrating: commits sent as the run ended, neither
			// accepted nor abandoned): said, and measured again.
			fmt.Fprintf(warn, "syncbench calibrate: a run over gRPC failed consistency.Check (%v); measuring again (%d of 3)\n", oneLine(err), try)
			c, _, err = perVersion(e, nil, func(e harness.Experiment) error { _, err := runOver(ctx, e, nw); return err })
		}
		return c, err
	}
	var ones, batches []float64
	for range repeats {
		c1, err := perCommit(1)
		if err != nil {
			return 0, err
		}
		cb, err := perCommit(b)
		if err != nil {
			return 0, err
		}
		if !math.IsNaN(c1) && !math.IsNaN(cb) {
			ones, batches = append(ones, c1), append(batches, cb)
		}
	}
	if len(ones) == 0 {
		return 0, nil
	}
	c1, _ := stats.Median(ones)
	cb, _ := stats.Median(batches)
	p := (cb - c1) / float64(b-1)
	if !(p > 0) || !(c1-p > 0) {
		return 0, nil
	}
	return (c1 - p) * pointNS / p, nil
}

// perVersion runs experiment e with run and returns the CPU time of
// this process and the processes pids together and the time, per server
// version (a commit under ASP, a round under BSP), between the run's
// first and last progress reports (no setup, no checking of the trace);
// NaN if no version fell between them.
func perVersion(e harness.Experiment, pids []int, run func(harness.Experiment) error) (cpu, wall float64, err error) {
	var cpu0, cpu1, t0, t1 time.Duration
	var v0, v1 consistency.Version
	reports := 0
	e.Progress = func(p harness.Progress) {
		c := processCPU()
		for _, pid := range pids {
			c += readProcStats(pid).CPU
		}
		if reports == 0 {
			cpu0, v0, t0 = c, p.Version, p.Elapsed
		}
		cpu1, v1, t1 = c, p.Version, p.Elapsed
		reports++
	}
	if err := run(e); err != nil {
		return 0, 0, err
	}
	if v1 <= v0 {
		return math.NaN(), math.NaN(), nil
	}
	return float64(cpu1-cpu0) / float64(v1-v0), float64(t1-t0) / float64(v1-v0), nil
}

// runOver runs e over nw (nil: the in-process transport).
func runOver(ctx context.Context, e harness.Experiment, nw *network) (*harness.Result, error) {
	var closers []func()
	if nw != nil {
		e.Network = func(l algorithms.Layout) (transport.Transport, error) {
			tr, done, err := nw.open(l)
			if err == nil {
				closers = append(closers, done)
			}
			return tr, err
		}
	}
	r, err := harness.Run(ctx, e)
	for _, c := range closers {
		c()
	}
	return r, err
}

// workerSetup makes a worker over all of alg's points with θ0 from seed
// and returns a batch step of sc.batch points computed as the goroutine
// runtime computes (chunked), the delta it fills and θ0.
func workerSetup(alg algorithms.Algorithm, seed uint64, sc calibrationScale) (func() int, *algorithms.Delta, []float64, error) {
	shard := alg.NumPoints()
	pts := make([]int, shard)
	for i := range pts {
		pts[i] = i
	}
	w, err := alg.NewWorker(pts)
	if err != nil {
		return nil, nil, nil, err
	}
	theta, err := alg.Init(rand.New(rand.NewPCG(seed, 0x5eed)))
	if err != nil {
		return nil, nil, nil, err
	}
	w.SetParams(theta)
	d := algorithms.NewDelta(alg.Layout())
	return chunked(w, theta, d, shard, min(sc.batch, shard)), d, theta, nil
}

// measureWorkload times Worker.Process and Server.Apply on one size.
// With grpcNet, it also measures the gRPC runtime's work per commit;
// warn takes what a reader of the profile should know.
func measureWorkload(spec workload.Spec, sh harness.WorkloadShape, sc calibrationScale, repeats int, minTime time.Duration, grpcNet *network, warn io.Writer) (harness.CostSample, error) {
	d0, err := calibrationData(spec, sh)
	if err != nil {
		return harness.CostSample{}, err
	}
	alg, err := workload.Build(spec, d0)
	if err != nil {
		return harness.CostSample{}, err
	}
	times, err := runtimeTimes(context.Background(), alg, spec.Seed, sc, repeats, 3*minTime)
	if err != nil {
		return harness.CostSample{}, err
	}
	step, d, theta, err := workerSetup(alg, spec.Seed, sc)
	if err != nil {
		return harness.CostSample{}, err
	}
	s := harness.CostSample{Batch: min(sc.batch, alg.NumPoints()), Repeats: repeats}
	s.PointNS, _ = stats.Median(times)
	s.LowNS, _ = stats.Min(times)
	s.HighNS, _ = stats.Max(times)
	if s.CommitNS, err = runtimeCommit(context.Background(), alg, spec.Seed, sc, min(repeats, 3), 2*minTime, s.PointNS, nil, warn); err != nil {
		return s, err
	}
	if grpcNet != nil {
		if s.GRPCCommitNS, err = runtimeCommit(context.Background(), alg, spec.Seed, sc, min(repeats, 3), 2*minTime, s.PointNS, grpcNet, warn); err != nil {
			return s, fmt.Errorf("over gRPC: %w", err)
		}
	}

	// Apply: one worker's delta merged and applied, per entry merged and
	// parameter recomputed, as the simulator's EntryCost counts them.
	d.Reset()
	step()
	srv, err := alg.NewServer(theta)
	if err != nil {
		return s, err
	}
	merged := algorithms.NewDelta(alg.Layout())
	entries := float64(d.Live() + alg.Layout().Params)
	var applyErr error
	applies := timeIt(repeats, minTime, func() float64 {
		merged.Reset()
		if err := merged.Merge(d); err != nil {
			applyErr = err
		}
		if err := srv.Apply(merged); err != nil {
			// A server driven far by the same delta over and over:
			// start it again (rare; the timing keeps the failed call).
			if srv, err = alg.NewServer(theta); err != nil {
				applyErr = err
			}
		}
		return entries
	})
	if applyErr != nil {
		return s, applyErr
	}
	s.ApplyEntryNS, _ = stats.Median(applies)
	return s, nil
}

// timeIt times f, which does some units of work per call and returns how
// many, as testing.B does: calls doubling until one timing lasts at least
// minTime, repeats times. It returns nanoseconds per unit, per timing.
func timeIt(repeats int, minTime time.Duration, f func() float64) []float64 {
	out := make([]float64, 0, repeats)
	n := 1
	for len(out) < repeats {
		var units float64
		t0 := time.Now()
		for range n {
			units += f()
		}
		el := time.Since(t0)
		if el < minTime {
			// Aim past minTime, at most 100× more calls at once.
			grow := 2.0
			if el > 0 {
				grow = min(max(1.2*float64(minTime)/float64(el), 2), 100)
			}
			n = int(float64(n) * grow)
			continue
		}
		out = append(out, float64(el.Nanoseconds())/units)
	}
	return out
}

// printProfile prints what the profile says, for the terminal.
func printProfile(w io.Writer, p *harness.Profile) {
	fmt.Fprintf(w, "machine: %s/%s, %s, %d CPUs (GOMAXPROCS %d), %s, load %.2f; cores %.2f\n",
		p.Machine.GOOS, p.Machine.GOARCH, p.Machine.CPU, p.Machine.NumCPU, p.Machine.GOMAXPROCS, p.Machine.Go, p.Machine.Load, p.Cores)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tsize\tintercept ns\tslope ns\tper group ns\tR²\tapply ns/entry\t")
	for _, c := range p.Workloads {
		g := "–"
		if c.Groups != "" {
			g = fmt.Sprintf("%.2f per %s", c.GroupNS, c.Groups)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.3f\t%s\t%.3f\t%.2f\t\n", c.Key, c.Size, c.InterceptNS, c.SlopeNS, g, c.R2, c.ApplyEntryNS)
	}
	tw.Flush()
	if len(p.Transports) > 0 {
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "transport\tlatency µs\tbandwidth MB/s\tmessage µs\tnull round µs\tper worker µs\t")
		for _, t := range p.Transports {
			fmt.Fprintf(tw, "%s\t%.1f\t%.0f\t%.2f\t%.1f\t%.1f\t\n", t.Name, t.LatencyNS/1e3, t.Bandwidth/1e6, t.MessageNS/1e3, t.RoundNS/1e3, t.WorkerNS/1e3)
		}
		tw.Flush()
	}
}
